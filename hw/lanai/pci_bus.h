// The PCI bus between a host's memory and its LANai NIC (FACTS §5): 32 bits at 33 MHz on the
// paper's cluster ("each equipped with 33 MHz/32 bit PCI bus"), 132 MB/s at most, and shared
// by both directions: the NIC's DMA reads of host memory (a send's data, host to NIC) and its
// DMA writes (received data and events, NIC to host). Half duplex is what makes host-based
// collectives pay twice for every byte a node forwards, and what NIC-based forwarding avoids.
//
// One master at a time: a DMA is cut into bursts of at most burst_bytes; a burst holds the bus
// for burst_overhead_cycles (arbitration, address phase, turnaround) plus, for a read,
// read_latency_cycles (the host bridge fetching from memory before the first data), plus one
// cycle per width_bytes of data. Bursts of one direction go in the order their DMAs were
// queued; when both directions wait, they alternate burst by burst (round robin), so two long
// DMAs in opposite directions each get about half the bus. The overhead and latency are not
// in our sources: 4 and 8 cycles are our assumptions (a PCI write tenure needs at least an
// address phase, a turnaround and arbitration; a read from host memory waits for the bridge),
// giving 125 MB/s for long writes and 112 MB/s for long reads at 256-B bursts, below the bus's
// 132 MB/s as measured PCI DMA is.
#pragma once

#include "tlm/ring.h"
#include "tlm/statistics.h"

#include <array>
#include <cstdint>
#include <iosfwd>
#include <systemc>

namespace bcastsim::hw::lanai {

struct pci_params {
  uint32_t width_bytes = 4;
  double clock_mhz = 33;
  uint32_t burst_bytes = 256;
  uint32_t burst_overhead_cycles = 4;
  uint32_t read_latency_cycles = 8;

  template <class V>
  void visit(V& v) {
    v.field("lanai.pci_width_bytes", width_bytes, 1, 64,
            "PCI bus width (the paper's cluster: 32 bits, 4 B; 64-bit slots 8 B)");
    v.field("lanai.pci_clock_mhz", clock_mhz, 1, 1000, "PCI bus clock (the paper's: 33 MHz)");
    v.field("lanai.pci_burst_bytes", burst_bytes, 1, 1 << 20,
            "most data one DMA burst moves before the bus is arbitrated again");
    v.field("lanai.pci_burst_overhead_cycles", burst_overhead_cycles, 0, 1e6,
            "bus cycles per burst besides data: arbitration, address phase, turnaround "
            "(an assumption)");
    v.field("lanai.pci_read_latency_cycles", read_latency_cycles, 0, 1e6,
            "extra bus cycles before a DMA read's first data: the host bridge fetching host "
            "memory (an assumption)");
  }
};

enum class pci_direction : uint8_t {
  to_nic,   // DMA read of host memory: a send's data
  to_host,  // DMA write into host memory: received data, events
};

// Hears that a DMA's last byte has crossed the bus.
class pci_client {
 public:
  virtual ~pci_client() = default;
  virtual void on_dma_done(pci_direction d, uint64_t id) = 0;
};

class pci_bus final : public sc_core::sc_module {
 public:
  // Throws std::invalid_argument naming the key of a zero width, clock or burst.
  static void check(const pci_params& params);
  // The client must outlive the bus; `params` must pass check().
  pci_bus(const sc_core::sc_module_name& name, const pci_params& params, pci_client& client);
  SC_HAS_PROCESS(pci_bus);

  // Queues a DMA; `id` comes back in on_dma_done. A zero-byte DMA still takes one burst's
  // overhead (a doorbell or an event with no data).
  void dma(pci_direction d, uint64_t bytes, uint64_t id);
  // How long one burst of `bytes` holds the bus.
  sc_core::sc_time burst_time(pci_direction d, uint64_t bytes) const;

  bool idle() const;
  // The DMAs waiting and the burst on the bus; false (nothing written) when idle.
  bool describe_stall(std::ostream& os) const;

  tlm_net::counter bytes_to_nic;
  tlm_net::counter bytes_to_host;
  tlm_net::counter dmas;
  tlm_net::counter bursts;
  tlm_net::counter busy_ps;  // time the bus was held
  tlm_net::counter queue_peak;
  const tlm_net::stat_group& stats() const { return m_stats; }

 private:
  struct transfer {
    uint64_t bytes_left = 0;
    uint64_t id = 0;
  };
  void on_wakeup();
  void start_burst();

  pci_params m_params;
  pci_client& m_client;
  double m_cycle_ps = 0;
  std::array<tlm_net::ring<transfer>, 2> m_waiting;  // [direction]
  bool m_busy = false;
  pci_direction m_burst_dir = pci_direction::to_nic;
  uint64_t m_burst_bytes = 0;
  uint8_t m_next_dir = 0;  // round robin: the direction served first when both wait
  sc_core::sc_event m_wakeup;
  tlm_net::stat_group m_stats;
};

}  // namespace bcastsim::hw::lanai
