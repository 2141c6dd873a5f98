// hw/router/round_robin_arbiter: the requester nearest the pointer wins, the pointer moves
// just past the winner, and so every requester that keeps requesting is served within N
// grants. The fairness check is shown to catch an arbiter whose pointer never moves (CODES
// issue #237: a VC arbiter that always started from VC 0 starved the others under load).
#include "hw/router/round_robin_arbiter.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <vector>

using bcastsim::hw::round_robin_arbiter;

namespace {

// The arbiter of CODES issue #237: always starts from 0, whatever was granted.
class frozen_arbiter {
 public:
  explicit frozen_arbiter(uint32_t n) : m_rr(n) {}
  template <class It>
  uint32_t pick(It first, It last) const {
    return m_rr.pick(first, last);
  }
  void update(uint32_t) {}  // the bug: the pointer never moves

 private:
  round_robin_arbiter m_rr;
};

std::vector<uint32_t> all_of(uint32_t n) {
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < n; ++i) v.push_back(i);
  return v;
}

// Under full load (all N request every round), is every requester granted within N rounds,
// from the arbiter's current state on, for `windows` consecutive windows of N rounds?
template <class Arbiter>
bool fair_under_full_load(Arbiter& arb, uint32_t n, uint32_t windows) {
  const std::vector<uint32_t> requests = all_of(n);
  for (uint32_t w = 0; w < windows; ++w) {
    std::vector<uint32_t> granted(n, 0);
    for (uint32_t round = 0; round < n; ++round) {
      const uint32_t g = arb.pick(requests.begin(), requests.end());
      ++granted[g];
      arb.update(g);
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (granted[i] != 1) return false;
    }
  }
  return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(arbiter_grants_the_requester_nearest_the_pointer) {
  round_robin_arbiter arb(4);
  BOOST_TEST(arb.size() == 4u);
  BOOST_TEST(arb.pointer() == 0u);
  const std::vector<uint32_t> a{3, 1}, b{3, 0}, c{2};
  BOOST_TEST(arb.pick(a.begin(), a.end()) == 1u);
  BOOST_TEST(arb.pick(b.begin(), b.end()) == 0u);  // the pointer itself comes first
  BOOST_TEST(arb.pick(c.begin(), c.end()) == 2u);
  arb.update(1);  // pointer 2: order 2, 3, 0, 1
  const std::vector<uint32_t> d{0, 1, 3}, e{1, 0}, f{1, 2};
  BOOST_TEST(arb.pick(d.begin(), d.end()) == 3u);
  BOOST_TEST(arb.pick(e.begin(), e.end()) == 0u);  // wraps past the top
  BOOST_TEST(arb.pick(f.begin(), f.end()) == 2u);
  // pick() looks, it does not grant: the pointer stays.
  BOOST_TEST(arb.pointer() == 2u);
}

BOOST_AUTO_TEST_CASE(arbiter_distance_counts_up_from_the_pointer_and_wraps) {
  round_robin_arbiter arb(5);
  arb.update(2);  // pointer 3
  BOOST_TEST(arb.distance(3) == 0u);
  BOOST_TEST(arb.distance(4) == 1u);
  BOOST_TEST(arb.distance(0) == 2u);
  BOOST_TEST(arb.distance(2) == 4u);  // the last winner is last in line
  BOOST_TEST(arb.nearer(4, 0));
  BOOST_TEST(!arb.nearer(0, 4));
  BOOST_TEST(arb.nearer(1, 2));
}

BOOST_AUTO_TEST_CASE(arbiter_pointer_moves_just_past_the_winner) {
  round_robin_arbiter arb(4);
  arb.update(0);
  BOOST_TEST(arb.pointer() == 1u);
  arb.update(2);
  BOOST_TEST(arb.pointer() == 3u);
  arb.update(3);  // wraps: (3 + 1) % 4
  BOOST_TEST(arb.pointer() == 0u);
  for (uint32_t g = 0; g < 4; ++g) {
    arb.update(g);
    BOOST_TEST(arb.pointer() == (g + 1) % 4);
  }
  round_robin_arbiter one(1);  // a single requester: the pointer stays on it
  one.update(0);
  BOOST_TEST(one.pointer() == 0u);
}

BOOST_AUTO_TEST_CASE(arbiter_under_full_load_grants_every_requester_within_n_rounds) {
  for (uint32_t n = 1; n <= 9; ++n) {
    for (uint32_t start = 0; start < n; ++start) {
      round_robin_arbiter arb(n);
      if (start > 0) arb.update(start - 1);  // pointer at `start`
      BOOST_TEST(fair_under_full_load(arb, n, 3), "N " << n << ", pointer " << start);
    }
  }
  // Full load grants in pointer order: 2, 3, 0, 1, 2, ...
  round_robin_arbiter arb(4);
  arb.update(1);
  const std::vector<uint32_t> all = all_of(4);
  std::vector<uint32_t> order;
  for (int k = 0; k < 6; ++k) {
    order.push_back(arb.pick(all.begin(), all.end()));
    arb.update(order.back());
  }
  BOOST_TEST(order == (std::vector<uint32_t>{2, 3, 0, 1, 2, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(fairness_check_catches_a_pointer_that_never_moves) {
  // CODES issue #237: the same check fails for an arbiter that always starts from 0 --
  // requester 0 wins every round, the others starve.
  for (uint32_t n = 2; n <= 9; ++n) {
    frozen_arbiter frozen(n);
    BOOST_TEST(!fair_under_full_load(frozen, n, 1), "N " << n);
  }
  frozen_arbiter frozen(3);
  const std::vector<uint32_t> all = all_of(3);
  for (int k = 0; k < 5; ++k) BOOST_TEST(frozen.pick(all.begin(), all.end()) == 0u);
}

BOOST_AUTO_TEST_CASE(arbiter_bounds_the_wait_of_a_persistent_requester) {
  // Requester `r` asks every round, the others at random: it waits at most N-1 grants,
  // because every winner goes to the back of the line.
  const uint32_t n = 6;
  uint64_t lcg = 12345;
  auto next = [&lcg] {
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(lcg >> 33);
  };
  for (uint32_t r = 0; r < n; ++r) {
    round_robin_arbiter arb(n);
    uint32_t waited = 0, longest = 0, wins = 0;
    for (int round = 0; round < 2000; ++round) {
      std::vector<uint32_t> requests{r};
      for (uint32_t i = 0; i < n; ++i) {
        if (i != r && next() % 3 != 0) requests.push_back(i);
      }
      const uint32_t g = arb.pick(requests.begin(), requests.end());
      arb.update(g);
      if (g == r) {
        ++wins;
        waited = 0;
      } else if (++waited > longest) {
        longest = waited;
      }
    }
    BOOST_TEST(longest <= n - 1, "requester " << r << " waited " << longest << " grants");
    BOOST_TEST(wins >= 2000 / n);
  }
}
