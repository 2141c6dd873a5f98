// A point-to-point, one-direction link with bandwidth (serialisation) and latency, between
// a sender's output and a receiver's input. Flow control is credit-based per VC: the sender
// holds the credits (bytes free in each receiver VC buffer); the receiver returns them on the
// backward path (phase CREDIT) and the link delays them by its latency.
//
// Timing (annotated, no process of its own): a packet granted at time s starts when the
// link is free, its head flit arrives at s + latency + flit serialisation, and its tail
// leaves at e = max(s + size/bandwidth, time the tail reached the sender) — virtual
// cut-through with flit-time accounting — and arrives at e + latency.
#pragma once

#include "network/topology.h"
#include "tlm/packet.h"
#include "tlm/statistics.h"

#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

namespace bcastsim::tlm_net {

struct link_params {
  network::link_class cls = network::terminal_class;
  double bandwidth_gib_per_s = 5.25;  // GiB/s, as CODES reads the paper's "GB/s"
  double latency_ns = 10.0;
  uint32_t flit_bytes = 64;
  // Time each flit adds to the serialisation (CODES: 0.005 ns plus a U[0,1) draw per 32-B
  // chunk on every link, 0.505 ns on average; taken here as its mean).
  double flit_overhead_ns = 0;
};

class packet_pool;

// Packets a link loses on purpose (fault.drop_rate, fault.drop_packet): a lost packet holds the
// link as any other, then vanishes; its credit comes back to the sender as if the receiver had
// freed it at once, so flow control goes on and only the data is missing.
struct link_faults {
  double drop_rate = 0;            // fraction of packets, drawn per packet from `seed`
  uint64_t seed = 0;               // the link's own: the run's seed and the link's index
  std::vector<uint64_t> drop_nth;  // the n-th packets crossing the link (1 = the first)
  packet_pool* pool = nullptr;     // where a lost packet goes back
};

class link final : public sc_core::sc_module, public fw_if, public bw_if {
 public:
  target_socket in;      // bound by the sender's output
  initiator_socket out;  // bound to the receiver's input

  link(const sc_core::sc_module_name& name, const link_params& params);

  const link_params& params() const { return m_params; }
  // Turns fault injection on; `f.pool` must outlive the link.
  void set_faults(const link_faults& f);
  sc_core::sc_time serialisation(uint32_t bytes) const;
  // When the link is free to start another packet.
  const sc_core::sc_time& free_at() const { return m_free_at; }

  // Statistics.
  counter packets;          // data packets
  counter messages;         // data messages crossing: counted by their first packet
  counter control_packets;  // offload set-up (Mini Packets), counted apart
  counter bytes;
  counter busy_ps;
  counter dropped;  // packets lost by fault injection
  const stat_group& stats() const { return m_stats; }

  // fw_if (from the sender).
  tlm::tlm_sync_enum nb_transport_fw(packet& p, tlm::tlm_phase& ph, sc_core::sc_time& t) override;
  void b_transport(packet&, sc_core::sc_time&) override;
  bool get_direct_mem_ptr(packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(packet&) override { return 0; }
  // bw_if (from the receiver).
  tlm::tlm_sync_enum nb_transport_bw(packet& p, tlm::tlm_phase& ph, sc_core::sc_time& t) override;
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  bool lose();

  link_params m_params;
  double m_ps_per_byte;
  double m_overhead_ps_per_flit;
  sc_core::sc_time m_latency;
  sc_core::sc_time m_free_at;
  // Only a link with faults carries their state: a pointer on every other (of a million).
  struct fault_state {
    link_faults faults;
    uint64_t seen = 0;  // packets offered to the link (for drop_nth and the draws)
    packet credit_token;
  };
  std::unique_ptr<fault_state> m_faults;
  stat_group m_stats;
};

}  // namespace bcastsim::tlm_net
