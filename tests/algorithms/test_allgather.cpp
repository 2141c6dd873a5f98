// algorithms/allgather: MPICH ring, recursive-doubling and Bruck allgathers and MPICH's
// automatic choice between them.
#include "algorithms/allgather.h"
#include "algorithms/registry.h"
#include "algorithms/verify.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using namespace bcastsim::algorithms;

namespace {

bool is_pow2(uint32_t p) {
  return p > 0 && (p & (p - 1)) == 0;
}

uint32_t ceil_log2(uint32_t p) {
  uint32_t steps = 0;
  while ((uint64_t{1} << steps) < p) ++steps;
  return steps;
}

verify_result expect_exactly_once(const schedule& s) {
  const verify_result v = verify_schedule(s, delivery::exactly_once);
  BOOST_TEST(v.ok);
  for (const std::string& e : v.errors) BOOST_TEST_MESSAGE(e);
  return v;
}

// "s1+10@0 r3+10@30#1": kind, peer, bytes, offset (and a non-zero tag) of every op.
std::string program_text(const rank_program& prog) {
  std::string text;
  for (const op& o : prog.ops) {
    if (!text.empty()) text += ' ';
    text += (o.kind == op_kind::send ? 's' : 'r') + std::to_string(o.peer) + "+" +
            std::to_string(o.bytes) + "@" + std::to_string(o.offset);
    if (o.tag != 0) text += "#" + std::to_string(o.tag);
  }
  return text;
}

// A rank's MPIC_Sendrecv steps: runs of consecutive ops with equal deps.
std::vector<std::vector<op>> steps_of(const rank_program& prog) {
  std::vector<std::vector<op>> steps;
  for (size_t i = 0; i < prog.ops.size(); ++i) {
    if (i == 0 || prog.ops[i].deps != prog.ops[i - 1].deps) steps.emplace_back();
    steps.back().push_back(prog.ops[i]);
  }
  return steps;
}

uint64_t bytes_of(const std::vector<op>& step, op_kind kind) {
  uint64_t sum = 0;
  for (const op& o : step) sum += o.kind == kind ? o.bytes : 0;
  return sum;
}

// MPICH Bruck's per-step block counts: 1, 2, 4, ... while pof2 <= p / 2, then p - pof2.
std::vector<uint64_t> bruck_step_blocks(uint32_t p) {
  std::vector<uint64_t> counts;
  uint64_t pof2 = 1;
  for (; pof2 <= p / 2; pof2 *= 2) counts.push_back(pof2);
  if (p > pof2) counts.push_back(p - pof2);
  return counts;
}

}  // namespace

BOOST_AUTO_TEST_CASE(allgather_verify_p1_to_33) {
  for (uint32_t p = 1; p <= 33; ++p) {
    for (uint64_t b : {uint64_t{1}, uint64_t{7}, uint64_t{4096}, uint64_t{100000}}) {
      BOOST_TEST_CONTEXT("p " << p << " bytes per rank " << b) {
        std::vector<schedule> all = {ring_allgather(p, b), bruck_allgather(p, b),
                                     mpich_auto_allgather(p, b)};
        if (is_pow2(p)) all.push_back(rd_allgather(p, b));
        for (const schedule& s : all) {
          BOOST_TEST(s.num_ranks == p);
          BOOST_TEST(s.bytes == p * b);
          BOOST_TEST_REQUIRE(s.own.size() == p);
          BOOST_TEST(s.own[p - 1].begin == (p - 1) * b);
          BOOST_TEST(s.own[p - 1].end == p * b);
          expect_exactly_once(s);
        }
      }
    }
  }
}

// MPI_Allgather returns before any algorithm when recvcount is 0 (MPICH coll_api.txt), so a
// 0-byte allgather has no ops; one rank has nobody to talk to.
BOOST_AUTO_TEST_CASE(allgather_zero_bytes_and_one_rank_have_no_ops) {
  for (uint32_t p : {1u, 2u, 5u, 8u, 33u}) {
    BOOST_TEST_CONTEXT("p " << p) {
      std::vector<schedule> all = {ring_allgather(p, 0), bruck_allgather(p, 0),
                                   mpich_auto_allgather(p, 0)};
      if (is_pow2(p)) all.push_back(rd_allgather(p, 0));
      for (const schedule& s : all) {
        BOOST_TEST(s.bytes == 0u);
        BOOST_TEST(s.total_ops() == 0u);
        BOOST_TEST(expect_exactly_once(s).messages == 0u);
      }
    }
  }
  BOOST_TEST(ring_allgather(1, 64).total_ops() == 0u);
  BOOST_TEST(rd_allgather(1, 64).total_ops() == 0u);
  BOOST_TEST(bruck_allgather(1, 64).total_ops() == 0u);
  BOOST_CHECK_THROW(ring_allgather(4, UINT64_MAX / 2), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(allgather_ring_messages_and_rounds) {
  for (uint32_t p = 2; p <= 33; ++p) {
    BOOST_TEST_CONTEXT("p " << p) {
      const schedule s = ring_allgather(p, 24);
      const verify_result v = expect_exactly_once(s);
      BOOST_TEST(v.messages == uint64_t{p} * (p - 1));
      BOOST_TEST(v.rounds == p - 1);
      for (uint32_t r = 0; r < p; ++r) {
        BOOST_TEST(s.ranks[r].ops.size() == 2u * (p - 1));
        for (const op& o : s.ranks[r].ops) {
          BOOST_TEST(o.bytes == 24u);
          BOOST_TEST(o.peer == (o.kind == op_kind::send ? (r + 1) % p : (r + p - 1) % p));
        }
      }
    }
  }
}

// p = 4, 10 bytes per rank. Rank 0 sends blocks 0, 3, 2 right and receives 3, 2, 1 from the
// left; each step's send and recv wait for the whole previous step, not for each other.
BOOST_AUTO_TEST_CASE(allgather_ring_hand_checked_p4) {
  const schedule s = ring_allgather(4, 10);
  BOOST_TEST(program_text(s.ranks[0]) == "s1+10@0 r3+10@30 s1+10@30 r3+10@20 s1+10@20 r3+10@10");
  BOOST_TEST(program_text(s.ranks[2]) == "s3+10@20 r1+10@10 s3+10@10 r1+10@0 s3+10@0 r1+10@30");
  const auto& ops = s.ranks[0].ops;
  BOOST_TEST(ops[0].deps.empty());
  BOOST_TEST(ops[1].deps.empty());
  BOOST_TEST(ops[2].deps == (std::vector<uint32_t>{0, 1}));
  BOOST_TEST(ops[3].deps == (std::vector<uint32_t>{0, 1}));
  BOOST_TEST(ops[5].deps == (std::vector<uint32_t>{2, 3}));
  for (const op& o : ops) BOOST_TEST(o.tag == 0u);
  expect_exactly_once(s);
}

// Recursive doubling: log2 p exchanges per rank whose sizes double (b, 2b, 4b, ...).
BOOST_AUTO_TEST_CASE(allgather_rd_messages_rounds_and_doubling_sizes) {
  for (uint32_t p = 1; p <= 64; p *= 2) {
    BOOST_TEST_CONTEXT("p " << p) {
      const uint32_t lg = ceil_log2(p);
      const schedule s = rd_allgather(p, 12);
      const verify_result v = expect_exactly_once(s);
      BOOST_TEST(v.messages == uint64_t{p} * lg);
      BOOST_TEST(v.rounds == lg);
      for (uint32_t r = 0; r < p; ++r) {
        const auto steps = steps_of(s.ranks[r]);
        BOOST_TEST_REQUIRE(steps.size() == lg);
        for (uint32_t k = 0; k < lg; ++k) {
          BOOST_TEST_REQUIRE(steps[k].size() == 2u);
          for (const op& o : steps[k]) {
            BOOST_TEST(o.peer == (r ^ (1u << k)));
            BOOST_TEST(o.bytes == (uint64_t{12} << k));
          }
        }
      }
    }
  }
  // p = 4, rank 2: swap block 2 for block 3 with rank 3, then [2, 4) for [0, 2) with rank 0.
  BOOST_TEST(program_text(rd_allgather(4, 10).ranks[2]) == "s3+10@20 r3+10@30 s0+20@20 r0+20@0");
}

BOOST_AUTO_TEST_CASE(allgather_rd_rejects_non_power_of_two) {
  for (uint32_t p : {3u, 6u, 12u, 33u}) {
    try {
      rd_allgather(p, 1024);
      BOOST_FAIL("no throw for p " << p);
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      BOOST_TEST(msg.find("collective.algorithm = 'allgather-rd'") != std::string::npos);
      BOOST_TEST(msg.find("power-of-two") != std::string::npos);
    }
  }
  BOOST_CHECK_NO_THROW(rd_allgather(32, 1024));
}

// Bruck: ceil(log2 p) steps moving MPICH's 1, 2, 4, ... blocks and then the remainder;
// a step whose blocks wrap past the buffer's end is split in two ops (allgather.h).
BOOST_AUTO_TEST_CASE(allgather_bruck_messages_rounds_and_sizes) {
  for (uint32_t p = 1; p <= 33; ++p) {
    BOOST_TEST_CONTEXT("p " << p) {
      const uint64_t b = 8;
      const uint32_t lg = ceil_log2(p);
      const std::vector<uint64_t> blocks = bruck_step_blocks(p);
      BOOST_TEST_REQUIRE(blocks.size() == lg);
      const schedule s = bruck_allgather(p, b);
      const verify_result v = expect_exactly_once(s);
      BOOST_TEST(v.rounds == lg);
      // MPICH's p * lg messages, plus one per wrapped step: c - 1 ranks wrap a c-block step.
      BOOST_TEST(v.messages == uint64_t{p} * lg + (p - 1 - lg));
      for (uint32_t r = 0; r < p; ++r) {
        const auto steps = steps_of(s.ranks[r]);
        BOOST_TEST_REQUIRE(steps.size() == lg);
        uint64_t pof2 = 1;
        for (uint32_t k = 0; k < lg; ++k, pof2 *= 2) {
          BOOST_TEST(bytes_of(steps[k], op_kind::send) == blocks[k] * b);
          BOOST_TEST(bytes_of(steps[k], op_kind::recv) == blocks[k] * b);
          // It sends final blocks r ... and receives (r + pof2) mod p ..., blocks[k] each.
          const bool send_wraps = r + blocks[k] > p;
          const bool recv_wraps = (r + pof2) % p + blocks[k] > p;
          BOOST_TEST(steps[k].size() == 2u + send_wraps + recv_wraps);
          for (const op& o : steps[k]) {
            BOOST_TEST(o.peer == (o.kind == op_kind::send ? (r + p - pof2) % p : (r + pof2) % p));
          }
        }
      }
    }
  }
}

// p = 5, 10 bytes per rank: steps of 1, 2 and rem = 1 blocks to rank - 1, - 2, - 4. Rank 0's
// blocks never wrap; rank 4's step-2 send (its blocks 4, 0) does, and rank 2 receives it
// as two parts.
BOOST_AUTO_TEST_CASE(allgather_bruck_hand_checked_p5) {
  const schedule s = bruck_allgather(5, 10);
  BOOST_TEST(program_text(s.ranks[0]) == "s4+10@0 r1+10@10 s3+20@0 r2+20@20 s1+10@0 r4+10@40");
  BOOST_TEST(program_text(s.ranks[3]) == "s2+10@30 r4+10@40 s1+20@30 r0+20@0 s4+10@30 r2+10@20");
  BOOST_TEST(program_text(s.ranks[4]) ==
             "s3+10@40 r0+10@0 s2+10@40 s2+10@0#1 r1+20@10 s0+10@40 r3+10@30");
  BOOST_TEST(program_text(s.ranks[2]) ==
             "s1+10@20 r3+10@30 s0+20@20 r4+10@40 r4+10@0#1 s3+10@20 r1+10@10");
  // Rank 4's step 2 (ops 2 to 4) waits for step 1 only; step 3 waits for all of step 2.
  const auto& ops = s.ranks[4].ops;
  for (uint32_t i : {2u, 3u, 4u}) BOOST_TEST(ops[i].deps == (std::vector<uint32_t>{0, 1}));
  BOOST_TEST(ops[5].deps == (std::vector<uint32_t>{2, 3, 4}));
  BOOST_TEST(ops[6].deps == (std::vector<uint32_t>{2, 3, 4}));
  expect_exactly_once(s);
}

// total = p * bytes per rank: rd if total < 524288 and p a power of two, else Bruck if
// total < 81920, else ring (MPICH allgather.c / maint/tuning/coll/mpir/generic.json).
BOOST_AUTO_TEST_CASE(allgather_mpich_thresholds) {
  BOOST_TEST(mpich_allgather_choice(8, 1) == "allgather-rd");
  BOOST_TEST(mpich_allgather_choice(8, 10240) == "allgather-rd");    // 81920: still rd on pof2
  BOOST_TEST(mpich_allgather_choice(8, 65535) == "allgather-rd");    // 524280
  BOOST_TEST(mpich_allgather_choice(8, 65536) == "allgather-ring");  // 524288
  BOOST_TEST(mpich_allgather_choice(1, 524287) == "allgather-rd");
  BOOST_TEST(mpich_allgather_choice(1, 524288) == "allgather-ring");
  BOOST_TEST(mpich_allgather_choice(5, 16383) == "allgather-bruck");  // 81915
  BOOST_TEST(mpich_allgather_choice(5, 16384) == "allgather-ring");   // 81920
  BOOST_TEST(mpich_allgather_choice(10, 8191) == "allgather-bruck");  // 81910
  BOOST_TEST(mpich_allgather_choice(10, 8192) == "allgather-ring");   // 81920
  BOOST_TEST(mpich_allgather_choice(81919, 1) == "allgather-bruck");
  BOOST_TEST(mpich_allgather_choice(81920, 1) == "allgather-ring");
  BOOST_TEST(mpich_allgather_choice(5, 20000) == "allgather-ring");  // 100000: ring if not pof2
  BOOST_TEST(mpich_allgather_choice(4, 25000) == "allgather-rd");    // 100000 on pof2: rd
  BOOST_TEST(mpich_allgather_choice(3, UINT64_MAX) == "allgather-ring");  // no wrap-around
  struct point {
    uint32_t p;
    uint64_t b;
  };
  for (const point& pt :
       {point{8, 65535}, point{8, 65536}, point{5, 16383}, point{5, 16384}, point{12, 100}}) {
    BOOST_TEST_CONTEXT("p " << pt.p << " bytes per rank " << pt.b) {
      const std::string choice = mpich_allgather_choice(pt.p, pt.b);
      const schedule s = find_algorithm("allgather-mpich").make({nullptr, nullptr, pt.p, 0, pt.b});
      const schedule ref = find_algorithm(choice).make({nullptr, nullptr, pt.p, 0, pt.b});
      BOOST_TEST(s.bytes == uint64_t{pt.p} * pt.b);
      for (uint32_t r = 0; r < pt.p; ++r) {
        BOOST_TEST(program_text(s.ranks[r]) == program_text(ref.ranks[r]));
      }
    }
  }
}
