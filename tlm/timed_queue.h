// A block's agenda: actions due at future times, ordered by (time, insertion order) so runs
// are deterministic. The block owns one sc_event and one SC_METHOD; the queue keeps that
// event armed for its earliest entry, so an idle block costs nothing and a busy one wakes
// once per distinct time, not once per action.
#pragma once

#include <algorithm>
#include <cstdint>
#include <systemc>
#include <vector>

namespace bcastsim::tlm_net {

template <class T>
class timed_queue {
 public:
  explicit timed_queue(sc_core::sc_event& wakeup) : m_wakeup(&wakeup) {}

  void push(const sc_core::sc_time& when, const T& item) {
    const bool new_earliest = m_heap.empty() || when < m_heap.front().when;
    m_heap.push_back(entry{when, m_seq++, item});
    std::push_heap(m_heap.begin(), m_heap.end(), later);
    if (new_earliest) arm();
  }

  bool empty() const { return m_heap.empty(); }
  size_t size() const { return m_heap.size(); }
  bool due(const sc_core::sc_time& now) const {
    return !m_heap.empty() && m_heap.front().when <= now;
  }
  const sc_core::sc_time& next_time() const { return m_heap.front().when; }

  T pop() {
    std::pop_heap(m_heap.begin(), m_heap.end(), later);
    T item = m_heap.back().item;
    m_heap.pop_back();
    return item;
  }

  // Re-arms the wake-up for the earliest entry (after the owner drained what was due).
  void arm() {
    if (m_heap.empty()) return;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time& when = m_heap.front().when;
    m_wakeup->notify(when > now ? when - now : sc_core::SC_ZERO_TIME);
  }

 private:
  struct entry {
    sc_core::sc_time when;
    uint64_t seq;
    T item;
  };
  static bool later(const entry& x, const entry& y) {
    return x.when != y.when ? x.when > y.when : x.seq > y.seq;
  }

  sc_core::sc_event* m_wakeup;
  std::vector<entry> m_heap;
  uint64_t m_seq = 0;
};

}  // namespace bcastsim::tlm_net
