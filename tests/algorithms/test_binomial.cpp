// algorithms/binomial: MPICH binomial broadcast (FACTS §7), checked by hand for small cases
// and with verify_schedule for every size up to 130 ranks and the 16,512-rank machine.
#include "algorithms/registry.h"
#include "algorithms/verify.h"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace bcastsim::algorithms;

namespace {

uint32_t ceil_log2(uint32_t p) {
  uint32_t k = 0;
  while ((uint64_t{1} << k) < p) ++k;
  return k;
}

struct expected_op {
  op_kind kind;
  uint32_t peer;
};

// Checks one rank's program op by op: kinds and peers in order, whole buffer, tag 0, and
// blocking deps (each op waits for the previous one).
void expect_program(const schedule& s, uint32_t rank, const std::vector<expected_op>& want) {
  BOOST_TEST_CONTEXT("rank " << rank) {
    const auto& ops = s.ranks.at(rank).ops;
    BOOST_TEST_REQUIRE(ops.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      BOOST_TEST_CONTEXT("op " << i) {
        BOOST_TEST(to_string(ops[i].kind) == to_string(want[i].kind));
        BOOST_TEST(ops[i].peer == want[i].peer);
        BOOST_TEST(ops[i].offset == 0u);
        BOOST_TEST(ops[i].bytes == s.bytes);
        BOOST_TEST(ops[i].tag == 0u);
        if (i == 0) {
          BOOST_TEST(ops[i].deps.empty());
        } else {
          BOOST_TEST_REQUIRE(ops[i].deps.size() == 1u);
          BOOST_TEST(ops[i].deps[0] == i - 1);
        }
      }
    }
  }
}

void check_verifies(uint32_t p, uint32_t root, uint64_t bytes) {
  BOOST_TEST_CONTEXT("p " << p << " root " << root) {
    const schedule s = binomial_bcast(p, root, bytes);
    BOOST_TEST(s.num_ranks == p);
    BOOST_TEST(s.root == root);
    BOOST_TEST(s.bytes == bytes);
    const verify_result v = verify_schedule(s);
    BOOST_TEST(v.ok);
    if (!v.ok) BOOST_TEST_MESSAGE(v.errors.front());
    BOOST_TEST(v.messages == p - 1u);
    BOOST_TEST(v.rounds == ceil_log2(p));
    // Every rank sends at most once per round and receives exactly once unless it is root.
    BOOST_TEST(s.total_ops() == 2u * (p - 1u));
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(binomial_p8_root0_matches_mpich) {
  const schedule s = binomial_bcast(8, 0, 1000);
  const auto S = op_kind::send;
  const auto R = op_kind::recv;
  expect_program(s, 0, {{S, 4}, {S, 2}, {S, 1}});
  expect_program(s, 1, {{R, 0}});
  expect_program(s, 2, {{R, 0}, {S, 3}});
  expect_program(s, 3, {{R, 2}});
  expect_program(s, 4, {{R, 0}, {S, 6}, {S, 5}});
  expect_program(s, 5, {{R, 4}});
  expect_program(s, 6, {{R, 4}, {S, 7}});
  expect_program(s, 7, {{R, 6}});
}

BOOST_AUTO_TEST_CASE(binomial_p72_root5_matches_mpich) {
  // Relative ranks r = (rank - 5) mod 72; worked by hand from the MPICH loops.
  const schedule s = binomial_bcast(72, 5, 64);
  const auto S = op_kind::send;
  const auto R = op_kind::recv;
  // Root (r 0): masks 64..1 all have r + mask < 72.
  expect_program(s, 5, {{S, 69}, {S, 37}, {S, 21}, {S, 13}, {S, 9}, {S, 7}, {S, 6}});
  // Rank 69 (r 64): parent 5; children r 68, 66, 65 -> ranks 1, 71, 70 (wrapping);
  // r + 32, r + 16, r + 8 are >= 72 and skipped.
  expect_program(s, 69, {{R, 5}, {S, 1}, {S, 71}, {S, 70}});
  // Rank 1 (r 68): parent 69 (r 64), children r 70, 69 -> ranks 3, 2.
  expect_program(s, 1, {{R, 69}, {S, 3}, {S, 2}});
  // Rank 3 (r 70): parent 1, child r 71 -> rank 4. Rank 4 (r 71) is a leaf.
  expect_program(s, 3, {{R, 1}, {S, 4}});
  expect_program(s, 4, {{R, 3}});
  // Rank 37 (r 32): children r 48, 40, 36, 34, 33.
  expect_program(s, 37, {{R, 5}, {S, 53}, {S, 45}, {S, 41}, {S, 39}, {S, 38}});
  // Rank 6 (r 1) is a leaf receiving from the root.
  expect_program(s, 6, {{R, 5}});
}

BOOST_AUTO_TEST_CASE(binomial_p5_root4_wraps) {
  // r = (rank - 4) mod 5: rank 4 r0, 0 r1, 1 r2, 2 r3, 3 r4.
  const schedule s = binomial_bcast(5, 4, 10);
  const auto S = op_kind::send;
  const auto R = op_kind::recv;
  expect_program(s, 4, {{S, 3}, {S, 1}, {S, 0}});
  expect_program(s, 0, {{R, 4}});
  expect_program(s, 1, {{R, 4}, {S, 2}});
  expect_program(s, 2, {{R, 1}});
  expect_program(s, 3, {{R, 4}});
}

BOOST_AUTO_TEST_CASE(binomial_single_rank_is_empty) {
  const schedule s = binomial_bcast(1, 0, 4096);
  BOOST_TEST(s.num_ranks == 1u);
  BOOST_TEST(s.ranks.size() == 1u);
  BOOST_TEST(s.total_ops() == 0u);
  const verify_result v = verify_schedule(s);
  BOOST_TEST(v.ok);
  BOOST_TEST(v.messages == 0u);
  BOOST_TEST(v.rounds == 0u);
}

BOOST_AUTO_TEST_CASE(binomial_verifies_for_all_sizes_up_to_130) {
  for (uint32_t p = 1; p <= 130; ++p) {
    const std::set<uint32_t> roots{0, 1 % p, p - 1, p / 2};
    for (uint32_t root : roots) check_verifies(p, root, 1000 + p);
  }
}

BOOST_AUTO_TEST_CASE(binomial_verifies_zero_and_one_byte) {
  check_verifies(9, 2, 0);
  check_verifies(9, 2, 1);
}

BOOST_AUTO_TEST_CASE(binomial_verifies_16512_ranks) {
  for (uint32_t root : {0u, 12345u}) {
    const auto start = std::chrono::steady_clock::now();
    check_verifies(16512, root, 1 << 20);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    BOOST_TEST_MESSAGE("16512 ranks root " << root << ": build + verify " << seconds << " s");
  }
}
