// hw/router/separable_allocator: input first (one VC per input, round-robin), then output
// (one input per output, round-robin); pointers move past winners only. A hand-computed
// 3x3 pattern, the stages' interplay (a loser keeps its pick; a loser with another
// requesting head), fairness under full load, and equality with the allocation the router
// did inline before the allocator became a part of its own.
#include "hw/router/separable_allocator.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

using bcastsim::hw::separable_allocator;
using grant = separable_allocator::grant;

namespace {

struct expected {
  uint32_t input, vc, output;
  bool with_other, without_other;
};

void check_grants(const std::vector<grant>& got, const std::vector<expected>& want) {
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    BOOST_TEST_CONTEXT("grant " << k) {
      BOOST_TEST(got[k].input == want[k].input);
      BOOST_TEST(got[k].vc == want[k].vc);
      BOOST_TEST(got[k].output == want[k].output);
      BOOST_TEST(got[k].losers_with_other_requests == want[k].with_other);
      BOOST_TEST(got[k].losers_without_other_requests == want[k].without_other);
    }
  }
}

// The allocation router::allocate() did inline before this part existed, kept verbatim in
// shape: inputs scan their VCs from the pointer with a modulo, the first eligible head is
// the pick, outputs collect requests in input order and grant the nearest their pointer.
// want[input * vcs + vc]: the output the head asks for, or -1 (no eligible head).
class legacy_allocator {
 public:
  legacy_allocator(uint32_t radix, uint32_t vcs)
      : m_radix(radix), m_vcs(vcs), m_in_rr(radix, 0), m_out_rr(radix, 0) {}

  std::vector<grant> run(const std::vector<int>& want) {
    std::vector<int32_t> pick(m_radix, -1);
    std::vector<uint32_t> eligible(m_radix, 0);
    std::vector<std::vector<uint32_t>> requests(m_radix);
    std::vector<uint32_t> requested_outputs;
    for (uint32_t i = 0; i < m_radix; ++i) {
      for (uint32_t k = 0; k < m_vcs; ++k) {
        const uint32_t vc = (m_in_rr[i] + k) % m_vcs;
        const int o = want[i * m_vcs + vc];
        if (o < 0) continue;
        ++eligible[i];
        if (pick[i] >= 0) continue;
        pick[i] = static_cast<int32_t>(vc);
        if (requests[o].empty()) requested_outputs.push_back(static_cast<uint32_t>(o));
        requests[o].push_back(i);
      }
    }
    std::vector<grant> grants;
    for (uint32_t o : requested_outputs) {
      uint32_t best = requests[o].front();
      uint32_t best_dist = (best + m_radix - m_out_rr[o]) % m_radix;
      for (uint32_t i : requests[o]) {
        const uint32_t dist = (i + m_radix - m_out_rr[o]) % m_radix;
        if (dist < best_dist) best = i, best_dist = dist;
      }
      grant g;
      g.input = best;
      g.vc = static_cast<uint32_t>(pick[best]);
      g.output = o;
      for (uint32_t i : requests[o]) {
        if (i == best) continue;
        if (eligible[i] > 1) {
          g.losers_with_other_requests = true;
        } else {
          g.losers_without_other_requests = true;
        }
      }
      m_in_rr[best] = (g.vc + 1) % m_vcs;
      m_out_rr[o] = (best + 1) % m_radix;
      grants.push_back(g);
    }
    return grants;
  }
  uint32_t in_rr(uint32_t i) const { return m_in_rr[i]; }
  uint32_t out_rr(uint32_t o) const { return m_out_rr[o]; }

 private:
  uint32_t m_radix, m_vcs;
  std::vector<uint32_t> m_in_rr, m_out_rr;
};

// Requests the heads of `want` (see legacy_allocator) in the given order of (input, vc).
void request_all(separable_allocator& a, const std::vector<int>& want,
                 const std::vector<std::pair<uint32_t, uint32_t>>& order) {
  for (const auto& [i, vc] : order) {
    const int o = want[i * a.vcs() + vc];
    if (o >= 0) a.request(i, vc, static_cast<uint32_t>(o));
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(allocator_known_3x3_pattern_hand_computed) {
  // 3 inputs with 2 VCs, 3 outputs, all pointers at 0. Every round the same heads ask:
  //   input 0: VC 0 -> output 1, VC 1 -> output 0
  //   input 1: VC 0 -> output 0, VC 1 -> output 2
  //   input 2: VC 0 -> output 0, VC 1 -> output 1
  separable_allocator a(3, 2, 3);
  auto round = [&a] {
    a.request(0, 0, 1);
    a.request(0, 1, 0);
    a.request(1, 0, 0);
    a.request(1, 1, 2);
    a.request(2, 0, 0);
    a.request(2, 1, 1);
    return a.allocate();
  };
  // Round 1. Picks (VC pointers 0): in0 VC0 (out1), in1 VC0 (out0), in2 VC0 (out0).
  // out1 (lowest requester in0) grants in0; out0 (in1, in2; pointer 0) grants in1. in2
  // loses with another head; out2 stays idle although in1 VC1 wanted it (separable).
  check_grants(round(), {{0, 0, 1, false, false}, {1, 0, 0, true, false}});
  BOOST_TEST(a.input_arbiter(0).pointer() == 1u);
  BOOST_TEST(a.input_arbiter(1).pointer() == 1u);
  BOOST_TEST(a.input_arbiter(2).pointer() == 0u);  // lost: keeps its pick
  BOOST_TEST(a.output_arbiter(0).pointer() == 2u);
  BOOST_TEST(a.output_arbiter(1).pointer() == 1u);
  BOOST_TEST(a.output_arbiter(2).pointer() == 0u);
  // Round 2. Picks: in0 VC1 (out0), in1 VC1 (out2), in2 VC0 (out0). out0 (pointer 2)
  // grants in2 over in0; out2 grants in1.
  check_grants(round(), {{2, 0, 0, true, false}, {1, 1, 2, false, false}});
  BOOST_TEST(a.input_arbiter(0).pointer() == 1u);
  BOOST_TEST(a.input_arbiter(1).pointer() == 0u);
  BOOST_TEST(a.input_arbiter(2).pointer() == 1u);
  BOOST_TEST(a.output_arbiter(0).pointer() == 0u);
  BOOST_TEST(a.output_arbiter(2).pointer() == 2u);
  // Round 3. Picks: in0 VC1 (out0), in1 VC0 (out0), in2 VC1 (out1). out0 (pointer 0)
  // grants in0 over in1; out1 grants in2.
  check_grants(round(), {{0, 1, 0, true, false}, {2, 1, 1, false, false}});
}

BOOST_AUTO_TEST_CASE(allocator_input_that_loses_keeps_its_pick) {
  // in1 picks VC0 (-> out0) over VC1 (-> out1); in0 takes out0 first. in1's VC pointer
  // does not move, so next round it picks VC0 again -- and wins, out0's pointer having
  // moved past in0.
  separable_allocator a(2, 2, 2);
  a.request(0, 0, 0);
  a.request(1, 0, 0);
  a.request(1, 1, 1);
  check_grants(a.allocate(), {{0, 0, 0, true, false}});
  BOOST_TEST(a.input_arbiter(1).pointer() == 0u);
  BOOST_TEST(a.output_arbiter(0).pointer() == 1u);
  BOOST_TEST(a.output_arbiter(1).pointer() == 0u);  // never picked: untouched
  a.request(0, 0, 0);
  a.request(1, 0, 0);
  a.request(1, 1, 1);
  check_grants(a.allocate(), {{1, 0, 0, false, true}});
  BOOST_TEST(a.input_arbiter(1).pointer() == 1u);
  BOOST_TEST(a.output_arbiter(0).pointer() == 0u);
}

BOOST_AUTO_TEST_CASE(allocator_tells_losers_with_and_without_other_requests_apart) {
  // out0 is wanted by in0 (one head), in1 (two heads) and in2 (one head); pointer 0 grants
  // in0. in1 can try its other head next cycle; in2 can only wait for out0.
  separable_allocator a(3, 2, 2);
  a.request(0, 0, 0);
  a.request(1, 0, 0);
  a.request(1, 1, 1);
  a.request(2, 1, 0);
  BOOST_TEST(a.requests(1) == 2u);
  BOOST_TEST(a.requests(2) == 1u);
  check_grants(a.allocate(), {{0, 0, 0, true, true}});
  BOOST_TEST(a.requests(1) == 0u);  // allocate() cleared the round
  // Two VCs of one input asking for the same output count as two requests: the loser of
  // that output may still go next cycle through its other head.
  separable_allocator b(2, 2, 1);
  b.request(0, 0, 0);
  b.request(1, 0, 0);
  b.request(1, 1, 0);
  check_grants(b.allocate(), {{0, 0, 0, true, false}});
}

BOOST_AUTO_TEST_CASE(allocator_without_requests_grants_nothing_and_keeps_its_pointers) {
  separable_allocator a(4, 3, 4);
  BOOST_TEST(a.allocate().empty());
  a.request(2, 1, 3);
  check_grants(a.allocate(), {{2, 1, 3, false, false}});
  BOOST_TEST(a.allocate().empty());
  BOOST_TEST(a.input_arbiter(2).pointer() == 2u);
  BOOST_TEST(a.output_arbiter(3).pointer() == 3u);
  BOOST_TEST(a.input_arbiter(0).pointer() == 0u);
}

BOOST_AUTO_TEST_CASE(allocator_under_full_load_serves_every_vc_of_every_input) {
  // Every head of every input always wants output 0: each (input, VC) is granted exactly
  // once in every inputs x VCs rounds. (With VC pointers that never moved, VC 0 of every
  // input would win each time its input does -- CODES issue #237.)
  const uint32_t inputs = 4, vcs = 3;
  separable_allocator a(inputs, vcs, 2);
  for (uint32_t window = 0; window < 3; ++window) {
    std::vector<uint32_t> granted(inputs * vcs, 0);
    for (uint32_t round = 0; round < inputs * vcs; ++round) {
      for (uint32_t i = 0; i < inputs; ++i) {
        for (uint32_t vc = 0; vc < vcs; ++vc) a.request(i, vc, 0);
      }
      const std::vector<grant>& g = a.allocate();
      BOOST_TEST_REQUIRE(g.size() == 1u);
      ++granted[g[0].input * vcs + g[0].vc];
    }
    for (uint32_t k = 0; k < inputs * vcs; ++k) {
      BOOST_TEST(granted[k] == 1u, "input " << k / vcs << " VC " << k % vcs);
    }
  }
  // Inputs on distinct outputs all go in the same round.
  separable_allocator b(3, 2, 3);
  for (uint32_t i = 0; i < 3; ++i) b.request(i, 1, 2 - i);
  check_grants(b.allocate(),
               {{0, 1, 2, false, false}, {1, 1, 1, false, false}, {2, 1, 0, false, false}});
}

BOOST_AUTO_TEST_CASE(allocator_matches_the_routers_former_inline_allocation) {
  // Random head patterns for many rounds, requests in shuffled order: the same grants, in
  // the same order, with the same pointers as the allocation router::allocate() did inline.
  for (const auto& [radix, vcs] :
       std::vector<std::pair<uint32_t, uint32_t>>{{3, 2}, {5, 3}, {8, 1}, {31, 3}, {9, 4}}) {
    std::mt19937_64 rng(radix * 100 + vcs);
    separable_allocator a(radix, vcs, radix);
    legacy_allocator ref(radix, vcs);
    std::vector<std::pair<uint32_t, uint32_t>> order;
    for (uint32_t i = 0; i < radix; ++i) {
      for (uint32_t vc = 0; vc < vcs; ++vc) order.emplace_back(i, vc);
    }
    for (int round = 0; round < 3000; ++round) {
      // Load varies by round: from nearly idle to every head eligible.
      const uint32_t percent = static_cast<uint32_t>(rng() % 101);
      std::vector<int> want(radix * vcs, -1);
      for (int& w : want) {
        if (rng() % 100 < percent) w = static_cast<int>(rng() % radix);
      }
      std::shuffle(order.begin(), order.end(), rng);
      request_all(a, want, order);
      const std::vector<grant> got = a.allocate();
      const std::vector<grant> exp = ref.run(want);
      BOOST_TEST_CONTEXT("radix " << radix << ", VCs " << vcs << ", round " << round) {
        BOOST_TEST_REQUIRE(got.size() == exp.size());
        std::set<uint32_t> ins, outs;
        for (size_t k = 0; k < got.size(); ++k) {
          BOOST_TEST(got[k].input == exp[k].input);
          BOOST_TEST(got[k].vc == exp[k].vc);
          BOOST_TEST(got[k].output == exp[k].output);
          BOOST_TEST(got[k].losers_with_other_requests == exp[k].losers_with_other_requests);
          BOOST_TEST(got[k].losers_without_other_requests == exp[k].losers_without_other_requests);
          BOOST_TEST(want[got[k].input * vcs + got[k].vc] == static_cast<int>(got[k].output));
          ins.insert(got[k].input);
          outs.insert(got[k].output);
        }
        // A matching: no input and no output twice.
        BOOST_TEST(ins.size() == got.size());
        BOOST_TEST(outs.size() == got.size());
        for (uint32_t p = 0; p < radix; ++p) {
          BOOST_TEST(a.input_arbiter(p).pointer() == ref.in_rr(p));
          BOOST_TEST(a.output_arbiter(p).pointer() == ref.out_rr(p));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(allocator_second_pass_matches_what_the_first_left_and_moves_no_pointer) {
  // The 3x3 pattern of allocator_known_3x3_pattern_hand_computed, round 1, with 2 passes.
  // Pass 1 as there: out1 -> in0 VC0, out0 -> in1 VC0; in2 lost. Pass 2: in2 picks among its
  // requests for unmatched outputs (VC0 wants out0, matched; VC1 wants out1, matched): none.
  // in1's VC1 wanted out2, but in1 is matched. So nothing more: 2 grants.
  separable_allocator a(3, 2, 3, 2);
  auto round = [&a] {
    a.request(0, 0, 1);
    a.request(0, 1, 0);
    a.request(1, 0, 0);
    a.request(1, 1, 2);
    a.request(2, 0, 0);
    a.request(2, 1, 2);  // unlike the 3x3 pattern: in2 VC1 wants out2
    return a.allocate();
  };
  // Now in2's VC1 wants out2, left idle by pass 1: pass 2 grants it, without the loser flags
  // and without moving in2's VC pointer or out2's input pointer (iSLIP's rule).
  check_grants(round(), {{0, 0, 1, false, false}, {1, 0, 0, true, false}, {2, 1, 2, false, false}});
  BOOST_TEST(a.input_arbiter(2).pointer() == 0u);
  BOOST_TEST(a.output_arbiter(2).pointer() == 0u);
  BOOST_TEST(a.output_arbiter(0).pointer() == 2u);
  // Round 2 starts clean: the same requests give in2 out0 (out0's pointer is at 2) with VC0.
  const std::vector<grant>& g = round();
  BOOST_TEST_REQUIRE(!g.empty());
  BOOST_TEST(g.size() == 3u);
  bool in2_out0 = false;
  for (const grant& x : g) in2_out0 |= x.input == 2 && x.vc == 0 && x.output == 0;
  BOOST_TEST(in2_out0);
}

BOOST_AUTO_TEST_CASE(allocator_one_pass_is_the_default) {
  separable_allocator a(3, 2, 3);
  BOOST_TEST(a.iterations() == 1u);
  a.request(0, 0, 1);
  a.request(1, 0, 0);
  a.request(2, 0, 0);
  a.request(2, 1, 2);
  // in2 loses out0 to in1 and does not get out2 in the same round.
  check_grants(a.allocate(), {{0, 0, 1, false, false}, {1, 0, 0, true, false}});
}

BOOST_AUTO_TEST_CASE(allocator_with_iterations_starves_no_vc_and_no_input) {
  // Every input's VC 0 wants output 0 and its VC 1 output 1, every round, with 3 passes: both
  // outputs are granted each round (a loser of output 0 takes output 1 in a later pass), and
  // over inputs x VCs rounds every (input, VC) is granted at least once, since pointers move
  // on first-pass grants only, as with one pass.
  const uint32_t inputs = 4, vcs = 2;
  separable_allocator a(inputs, vcs, 2, 3);
  for (uint32_t window = 0; window < 3; ++window) {
    std::vector<uint32_t> granted(inputs * vcs, 0);
    for (uint32_t round = 0; round < inputs * vcs; ++round) {
      for (uint32_t i = 0; i < inputs; ++i) {
        for (uint32_t vc = 0; vc < vcs; ++vc) a.request(i, vc, vc);
      }
      const std::vector<grant>& g = a.allocate();
      BOOST_TEST_REQUIRE(g.size() == 2u);
      BOOST_TEST(g[0].input != g[1].input);
      for (const grant& x : g) ++granted[x.input * vcs + x.vc];
    }
    for (uint32_t k = 0; k < inputs * vcs; ++k) {
      BOOST_TEST(granted[k] >= 1u, "input " << k / vcs << " VC " << k % vcs);
    }
  }
}
