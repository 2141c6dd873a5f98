#include "hw/tofu2/command_queue.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <string>

namespace bcastsim::hw::tofu2 {

bool valid_toq_entries(uint64_t entries) {
  for (uint32_t s = 0; s <= 5; ++s) {
    if (entries == uint64_t{1} << (2 * s + 11)) return true;
  }
  return false;
}

command_queue::command_queue(uint64_t entries, queue_mode mode, uint64_t start)
    : m_entries(entries), m_mode(mode), m_producer(start), m_consumer(start), m_scheduling(start) {
  if (entries == 0) throw std::invalid_argument("a TOQ needs at least one entry");
}

bool command_queue::enqueue(const toq_descriptor& d) {
  if (full()) {
    ++enqueue_refused;
    return false;
  }
  m_ring.push_back(d);
  ++m_producer;
  ++enqueued;
  max_occupancy.value = std::max<uint64_t>(max_occupancy.value, occupancy());
  return true;
}

void command_queue::advance_scheduling(uint32_t sps) {
  if (m_mode == queue_mode::normal) {
    ++sps_ignored;
    return;
  }
  ++sps_arrivals;
  m_scheduling += sps;
  if (m_scheduling - m_consumer > max_session_lead) m_overflowed = true;
}

void command_queue::retire() {
  if (!can_execute()) throw std::logic_error("command_queue::retire: the head may not run");
  m_ring.pop_front();
  ++m_consumer;
  ++executed;
}

void command_queue::reset_pointers() {
  if (!empty()) throw std::logic_error("command_queue::reset_pointers: descriptors left");
  if (m_mode == queue_mode::session && m_scheduling != m_consumer) {
    throw std::logic_error("command_queue::reset_pointers: the scheduling pointer is ahead");
  }
  m_producer = m_consumer = m_scheduling = 0;
}

void command_queue::cycle(const cq_cycle& c) {
  // The engine asks to retire the head it saw before the edge; an ask without one is
  // ignored, as the RTL ignores it. The SPS port is 4 bits wide.
  if (c.sps_valid && c.sps > algorithms::toq_max_sps) {
    throw std::invalid_argument("command_queue::cycle: SPS " + std::to_string(c.sps) +
                                " does not fit 4 bits");
  }
  const bool may_retire = can_execute();
  if (c.enqueue) enqueue(c.descriptor);
  if (c.sps_valid) advance_scheduling(c.sps);
  if (c.retire && may_retire) retire();
}

cq_state command_queue::state() const {
  cq_state s;
  s.head_valid = can_execute();
  s.waits = waits_for_scheduling();
  s.full = full();
  s.overflow = m_overflowed;
  s.producer = static_cast<uint32_t>(m_producer);
  s.consumer = static_cast<uint32_t>(m_consumer);
  s.scheduling = static_cast<uint32_t>(m_scheduling);
  s.occupancy = static_cast<uint32_t>(occupancy());
  s.refused = static_cast<uint32_t>(enqueue_refused.value);
  return s;
}

bool cq_state::operator==(const cq_state& o) const {
  return head_valid == o.head_valid && waits == o.waits && full == o.full &&
         overflow == o.overflow && producer == o.producer && consumer == o.consumer &&
         scheduling == o.scheduling && occupancy == o.occupancy && refused == o.refused;
}

std::ostream& operator<<(std::ostream& os, const cq_state& s) {
  return os << "producer " << s.producer << " consumer " << s.consumer << " scheduling "
            << s.scheduling << " occupancy " << s.occupancy << " head_valid " << s.head_valid
            << " waits " << s.waits << " full " << s.full << " refused " << s.refused
            << " overflow " << s.overflow;
}

void command_queue::describe(std::ostream& os) const {
  os << algorithms::to_string(m_mode) << " queue: producer " << m_producer << ", consumer "
     << m_consumer;
  if (m_mode == queue_mode::session) os << ", scheduling " << m_scheduling;
  os << " (" << occupancy() << " of " << m_entries << " entries)";
  if (waits_for_scheduling()) os << ", head waits for SPS from an arriving packet";
  if (m_overflowed) os << ", session offset overflowed";
}

void command_queue::declare_stats(tlm_net::stat_group& g) const {
  g.declare("enqueued", "descriptors", "descriptors the host wrote into the TOQ", enqueued);
  g.declare("executed", "descriptors", "descriptors the engine executed", executed);
  g.declare("enqueue_refused", "enqueues",
            "host enqueues refused because the TOQ was full (back-pressure)", enqueue_refused);
  g.declare("sps_arrivals", "packets", "arrivals that advanced the scheduling pointer",
            sps_arrivals);
  g.declare("sps_ignored", "packets", "arrivals carrying SPS to a normal-mode queue", sps_ignored);
  g.declare("max_occupancy", "descriptors", "most descriptors in the TOQ at once", max_occupancy,
            tlm_net::combine::max);
}

}  // namespace bcastsim::hw::tofu2
