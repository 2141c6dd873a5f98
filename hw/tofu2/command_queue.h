// One command queue (CQ) of a Tofu2 TNI: the transmit order queue (TOQ), a ring of
// descriptors, and its pointers (Morie et al., Figs. 2 and 3; FACTS §4). The host enqueues at
// the producer pointer; the TNI's engine executes at the consumer pointer. In session mode
// (the SMCQ) the consumer never passes the scheduling pointer, which only arriving RDMA
// packets advance, each by the SPS it carries; in normal mode a descriptor runs as soon as
// it is enqueued.
//
// Pointers are free-running counts; a descriptor's slot is its count modulo the ring size,
// as the hardware's offsets are (CQS_STATUS's NEXT_DESCRIPTOR_OFFSET). A slot is free again
// once the engine has executed its descriptor, so a full ring holds `entries` descriptors not
// yet executed, and the host's next enqueue is refused until one runs (back-pressure).
//
// Choice where the sources are silent: the scheduling pointer may run ahead of the producer
// (a packet arrives before the host has enqueued what it releases); the descriptors then run
// as soon as they are enqueued. The hardware's session offset is 25 bits (CQS_STATUS
// SESSION_OFFSET [56:32]); a lead beyond it is reported as an overflow, not wrapped.
//
// A part of the TNI, with its own bench (tests/hw/test_tofu2_command_queue.cpp), as the
// separable allocator is a part of the router.
#pragma once

#include "algorithms/tofu2_bcast.h"
#include "tlm/statistics.h"

#include <cstdint>
#include <deque>
#include <iosfwd>
#include <string>

namespace bcastsim::hw::tofu2 {

using algorithms::queue_mode;
using algorithms::toq_descriptor;

// TOQ sizes the hardware offers: 2^(2s+11) entries for s in 0..5 (FACTS §4, tof_icc.h).
bool valid_toq_entries(uint64_t entries);
inline constexpr uint64_t max_session_lead = (uint64_t{1} << 25) - 1;

// One clock cycle of requests to a queue, applied in this order (the RTL twin applies them at
// one clock edge): the host's enqueue (refused if the ring is full before it), an arriving
// packet's SPS (4 bits), and retiring the head that could run before the cycle (ignored if
// none could).
struct cq_cycle {
  bool enqueue = false;
  toq_descriptor descriptor;
  bool sps_valid = false;
  uint32_t sps = 0;  // 0 .. toq_max_sps
  bool retire = false;
};

// What both twins show after a cycle; compared field by field by the co-simulation.
struct cq_state {
  bool head_valid = false;
  bool waits = false;  // enqueued but held by the scheduling pointer
  bool full = false;
  bool overflow = false;
  uint32_t producer = 0;  // low 32 bits of the free-running counts (the RTL's width)
  uint32_t consumer = 0;
  uint32_t scheduling = 0;
  uint32_t occupancy = 0;
  uint32_t refused = 0;
  bool operator==(const cq_state& o) const;
  bool operator!=(const cq_state& o) const { return !(*this == o); }
};
std::ostream& operator<<(std::ostream& os, const cq_state& s);

// A queue as the TNI drives it, cycle by cycle: the SystemC twin (command_queue) or its
// verilated RTL (command_queue_rtl.h).
class command_queue_port {
 public:
  virtual ~command_queue_port() = default;
  virtual void cycle(const cq_cycle& c) = 0;
  virtual cq_state state() const = 0;
  // The descriptor at the consumer pointer; only while state().head_valid.
  virtual const toq_descriptor& head_descriptor() const = 0;
  // Closes the port's own waveform (the RTL's VCD, written under a temporary name) and gives
  // it its name: an empty string, or what went wrong ("cannot write 'PATH' whole: why"; the
  // file is then removed). Once, after the last cycle.
  virtual std::string finish_waveform() { return {}; }
};

class command_queue final : public command_queue_port {
 public:
  // `start`: the count every pointer starts from (0 in the TNI; a bench starts near 2^32 to
  // compare with the RTL, whose 32-bit counts wrap there).
  command_queue(uint64_t entries, queue_mode mode, uint64_t start = 0);

  queue_mode mode() const { return m_mode; }
  uint64_t entries() const { return m_entries; }

  // The host writes one descriptor at the producer pointer; false (and counted) when the ring
  // is full.
  bool enqueue(const toq_descriptor& d);
  // An arriving RDMA packet that designates this queue carries `sps`: in session mode the
  // scheduling pointer advances by it; a normal-mode queue ignores it (counted).
  void advance_scheduling(uint32_t sps);

  // The descriptor at the consumer pointer may run: enqueued, and in session mode below the
  // scheduling pointer.
  bool can_execute() const {
    return m_consumer < m_producer && (m_mode == queue_mode::normal || m_consumer < m_scheduling);
  }
  // The head: only while can_execute().
  const toq_descriptor& head() const { return m_ring.front(); }
  // The engine has executed the head: the consumer pointer moves on, its slot frees.
  void retire();
  // The head is enqueued but held by the scheduling pointer (session mode).
  bool waits_for_scheduling() const { return m_consumer < m_producer && !can_execute(); }
  // Nothing enqueued is left to execute.
  bool empty() const { return m_consumer == m_producer; }
  size_t occupancy() const { return static_cast<size_t>(m_producer - m_consumer); }
  bool full() const { return occupancy() >= m_entries; }
  // The session lead ran past what the hardware's 25-bit offset can hold.
  bool overflowed() const { return m_overflowed; }

  // Free-running counts and their ring slots (what a waveform shows).
  uint64_t producer() const { return m_producer; }
  uint64_t consumer() const { return m_consumer; }
  uint64_t scheduling() const { return m_scheduling; }
  uint64_t slot(uint64_t pointer) const { return pointer % m_entries; }

  // MPI_Request_free: every pointer back to 0. Only when empty; a scheduling pointer still
  // ahead of the consumer would mean SPS for descriptors never enqueued, so that is refused
  // too (std::logic_error).
  void reset_pointers();

  // One line: mode, pointers, occupancy, what the head waits for.
  void describe(std::ostream& os) const;

  // command_queue_port: enqueue, advance_scheduling, retire, in that order.
  void cycle(const cq_cycle& c) override;
  cq_state state() const override;
  const toq_descriptor& head_descriptor() const override { return head(); }

  tlm_net::counter enqueued;
  tlm_net::counter executed;
  tlm_net::counter enqueue_refused;  // host enqueues refused on a full ring (back-pressure)
  tlm_net::counter sps_arrivals;     // arrivals that advanced the scheduling pointer
  tlm_net::counter sps_ignored;      // arrivals designating a normal-mode queue
  tlm_net::counter max_occupancy;    // most descriptors held at once
  void declare_stats(tlm_net::stat_group& g) const;

 private:
  uint64_t m_entries;
  queue_mode m_mode;
  std::deque<toq_descriptor> m_ring;  // the descriptors in [consumer, producer)
  uint64_t m_producer = 0;
  uint64_t m_consumer = 0;
  uint64_t m_scheduling = 0;
  bool m_overflowed = false;
};

}  // namespace bcastsim::hw::tofu2
