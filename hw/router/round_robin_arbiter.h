// A round-robin arbiter: among N requesters (0..N-1) it grants the one nearest its pointer,
// counting up from the pointer and wrapping; after a grant the pointer moves just past the
// winner, so the winner becomes the last in line and every requester that keeps requesting
// is granted within N grants. (A pointer that never moved, always starting from 0, would
// starve the higher requesters under load: CODES issue #237.)
//
// The router keeps one per input (over its VCs) and one per output (over the inputs), in
// hw/router/separable_allocator.h. Header-only: it sits on the allocator's hot path.
#pragma once

#include <cstdint>

namespace bcastsim::hw {

class round_robin_arbiter {
 public:
  explicit round_robin_arbiter(uint32_t requesters = 1) : m_size(requesters) {}

  uint32_t size() const { return m_size; }
  // The requester favoured next.
  uint32_t pointer() const { return m_pointer; }

  // How far `requester` is from the pointer going up: 0 for the pointer itself, N-1 for the
  // one just below it (the last in line).
  uint32_t distance(uint32_t requester) const {
    return requester >= m_pointer ? requester - m_pointer : requester + m_size - m_pointer;
  }
  // True if `a` comes before `b` in this arbiter's order (a != b).
  bool nearer(uint32_t a, uint32_t b) const { return distance(a) < distance(b); }

  // The requester among [first, last) (distinct indices, any order, not empty) nearest the
  // pointer. The pointer does not move: call update() when the grant takes effect.
  template <class It>
  uint32_t pick(It first, It last) const {
    uint32_t best = *first;
    uint32_t best_distance = distance(best);
    for (++first; first != last; ++first) {
      const uint32_t d = distance(*first);
      if (d < best_distance) best = *first, best_distance = d;
    }
    return best;
  }

  // After `granted` won: the pointer moves just past it.
  void update(uint32_t granted) { m_pointer = granted + 1 == m_size ? 0 : granted + 1; }

 private:
  uint32_t m_size;
  uint32_t m_pointer = 0;
};

}  // namespace bcastsim::hw
