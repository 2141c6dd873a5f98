#include "tb/cosim/coverage.h"

#include <algorithm>
#include <array>
#include <map>
#include <ostream>
#include <set>
#include <vector>

namespace bcastsim::tb::cosim {

void coverage::add(const coverage& c) {
  contended_picks += c.contended_picks;
  memory_stall_cycles += c.memory_stall_cycles;
  rx_queue_full_cycles += c.rx_queue_full_cycles;
  work_queue_full += c.work_queue_full;
  send_queue_full += c.send_queue_full;
  table_hits += c.table_hits;
  table_misses += c.table_misses;
  shared_batches += c.shared_batches;
  membership_stall_cycles += c.membership_stall_cycles;
  credit_wait_cycles += c.credit_wait_cycles;
  credit_returns += c.credit_returns;
}

namespace {

// Data picks of the Receive Packet Scheduler while another data queue held a packet. A
// packet enters its queue (hand-off: collective_id % rx_queues, relayed: rx_queues + that,
// control: 2 rx_queues) when the unit returns its credit (in arrival order within its VC)
// and leaves it at its `scheduled` event; each queue is FIFO, so counting both per queue up
// to a time tells whether the queue held a packet then.
uint64_t contended_picks(const stimulus& s, const event_log& ref) {
  const uint32_t n = s.params.rx_queues;
  std::map<uint32_t, std::vector<uint64_t>> in, out;  // [queue] times
  std::array<std::vector<uint32_t>, 3> queues;        // [vc]: the queue of each arrival
  for (const arrival& a : s.arrivals) {
    const uint32_t q = a.cls == hw::ragasa::packet_class::handoff   ? a.collective_id % n
                       : a.cls == hw::ragasa::packet_class::relayed ? n + a.collective_id % n
                                                                    : 2 * n;
    queues[hw::ragasa::unit_port_vc(a.cls)].push_back(q);
  }
  std::array<size_t, 3> next{};
  for (const event& c : ref[stage::credit]) {
    if (c.vc < 3 && next[c.vc] < queues[c.vc].size())
      in[queues[c.vc][next[c.vc]++]].push_back(c.t_ps);
  }
  for (const event& e : ref[stage::scheduled]) out[e.n].push_back(e.t_ps);
  uint64_t picks = 0;
  for (const event& e : ref[stage::scheduled]) {
    if (e.n >= 2 * n) continue;  // the control queue goes first, not in turn
    for (const auto& [q, times] : in) {
      if (q == e.n || q >= 2 * n) continue;
      const auto entered = std::upper_bound(times.begin(), times.end(), e.t_ps) - times.begin();
      const std::vector<uint64_t>& left = out[q];
      const auto gone = std::upper_bound(left.begin(), left.end(), e.t_ps) - left.begin();
      if (entered > gone) {
        ++picks;
        break;
      }
    }
  }
  return picks;
}

}  // namespace

coverage measure(const stimulus& s, const event_log& ref, const hw::ragasa::bcast_unit_base& unit) {
  coverage c;
  const uint64_t period = s.period_ps();
  c.contended_picks = contended_picks(s, ref);
  c.memory_stall_cycles = unit.memory_stall_ps.value / period;
  c.rx_queue_full_cycles = unit.ri_blocked_ps.value / period;
  c.membership_stall_cycles = unit.membership_stall_ps.value / period;
  c.credit_wait_cycles = unit.credit_wait_ps.value / period;
  c.credit_returns = unit.credit_returns.value;
  c.work_queue_full = unit.work_queue_peak_descriptors.value >= s.params.work_queue_descriptors;
  c.send_queue_full = unit.send_queue_peak_descriptors.value >= s.params.send_queue_descriptors;
  std::set<uint32_t> parsed;
  size_t next_parsed = 0;
  const std::vector<event>& mps = ref[stage::parsed];
  for (const event& e : ref[stage::scheduled]) {
    while (next_parsed < mps.size() && mps[next_parsed].t_ps <= e.t_ps)
      parsed.insert(mps[next_parsed++].collective_id);
    if (e.kind != tlm_net::packet_kind::data) continue;
    ++(parsed.count(e.collective_id) ? c.table_hits : c.table_misses);
  }
  for (const event& b : ref[stage::batch]) {
    const auto it = s.membership.find(b.collective_id);
    if (it != s.membership.end() && it->second.size() >= 2) ++c.shared_batches;
  }
  return c;
}

std::string fault_condition_missing(hw::ragasa::unit_model model, const coverage& c) {
  using hw::ragasa::unit_model;
  if (model == unit_model::rtl_fault_unfair && c.contended_picks == 0)
    return "no contended Receive Packet Scheduler pick (the unfair fault needs two Rx-queues "
           "waiting at once)";
  if (model == unit_model::rtl_fault_early_free && c.shared_batches == 0)
    return "no batch with two or more children (the early-free fault frees a stored packet "
           "one copy before its last)";
  return {};
}

void print(std::ostream& os, const coverage& c) {
  os << "contended picks " << c.contended_picks << ", memory stall " << c.memory_stall_cycles
     << " cycles, Rx-queue full " << c.rx_queue_full_cycles << " cycles, work queue full "
     << (c.work_queue_full ? "yes" : "no") << ", send queue full "
     << (c.send_queue_full ? "yes" : "no") << ", table hits " << c.table_hits << ", misses "
     << c.table_misses << ", shared batches " << c.shared_batches << ", membership stall "
     << c.membership_stall_cycles << " cycles, credit wait " << c.credit_wait_cycles
     << " cycles, credit returns " << c.credit_returns;
}

nlohmann::json to_json(const coverage& c) {
  return {{"contended_picks", c.contended_picks},
          {"memory_stall_cycles", c.memory_stall_cycles},
          {"rx_queue_full_cycles", c.rx_queue_full_cycles},
          {"work_queue_full", c.work_queue_full},
          {"send_queue_full", c.send_queue_full},
          {"table_hits", c.table_hits},
          {"table_misses", c.table_misses},
          {"shared_batches", c.shared_batches},
          {"membership_stall_cycles", c.membership_stall_cycles},
          {"credit_wait_cycles", c.credit_wait_cycles},
          {"credit_returns", c.credit_returns}};
}

}  // namespace bcastsim::tb::cosim
