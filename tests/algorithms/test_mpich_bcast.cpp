// algorithms/mpich_bcast: MPICH scatter + recursive-doubling / ring allgather broadcasts and
// the bcast.c auto selection (FACTS §7).
#include "algorithms/mpich_bcast.h"
#include "algorithms/registry.h"
#include "algorithms/verify.h"

#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>
#include <vector>

using namespace bcastsim::algorithms;

namespace {

bool is_pow2(uint32_t p) {
  return p > 0 && (p & (p - 1)) == 0;
}

// MPICH's schedules re-deliver bytes (mpich_bcast.h): they promise at-least-once delivery.
void expect_ok(const schedule& s) {
  const verify_result v = verify_schedule(s, delivery::at_least_once);
  BOOST_TEST(v.ok);
  if (!v.ok) BOOST_TEST_MESSAGE(v.errors.front());
}

// "r0+2@4 s3+2@6": kind, peer, bytes and offset of every op of one rank.
std::string program_text(const rank_program& prog) {
  std::string text;
  for (const op& o : prog.ops) {
    if (!text.empty()) text += ' ';
    text += (o.kind == op_kind::send ? 's' : 'r') + std::to_string(o.peer) + "+" +
            std::to_string(o.bytes) + "@" + std::to_string(o.offset);
  }
  return text;
}

}  // namespace

BOOST_AUTO_TEST_CASE(mpich_verify_p1_to_40) {
  for (uint32_t p = 1; p <= 40; ++p) {
    for (uint32_t root : {0u, p / 2, p - 1}) {
      for (uint64_t bytes :
           {uint64_t{1}, uint64_t{97}, uint64_t{1000}, uint64_t{65536}, uint64_t{1048577}}) {
        BOOST_TEST_CONTEXT("p " << p << " root " << root << " bytes " << bytes) {
          expect_ok(scatter_ring_allgather_bcast(p, root, bytes));
          expect_ok(mpich_auto_bcast(p, root, bytes));
          if (is_pow2(p)) expect_ok(scatter_rd_allgather_bcast(p, root, bytes));
        }
      }
    }
  }
}

// 97 bytes on 16 ranks: scatter_size 7, so relative ranks 14 and 15 own no bytes and MPICH
// skips their scatter sends and receives (bcast_utils.c comment: "ranks 15 and 16 get 0").
BOOST_AUTO_TEST_CASE(mpich_scatter_97_bytes_on_16_ranks) {
  schedule s(16);
  s.root = 3;
  s.bytes = 97;
  mpich_scatter_for_bcast(s);
  const auto at = [&](uint32_t rel) { return program_text(s.ranks[(rel + 3) % 16]); };
  BOOST_TEST(at(0) == "s11+41@56 s7+28@28 s5+14@14 s4+7@7");     // to rel 8, 4, 2, 1
  BOOST_TEST(at(8) == "r3+41@56 s15+13@84 s13+14@70 s12+7@63");  // rel 12, 10, 9
  BOOST_TEST(at(12) == "r11+13@84 s0+6@91");  // rel 14 would get 0 bytes: no send
  BOOST_TEST(at(13) == "r15+6@91");
  BOOST_TEST(at(14).empty());
  BOOST_TEST(at(15).empty());
  expect_ok(scatter_rd_allgather_bcast(16, 3, 97));
  expect_ok(scatter_ring_allgather_bcast(16, 3, 97));
}

std::string all_errors(const verify_result& v) {
  std::string all;
  for (const auto& e : v.errors) all += e + "\n";
  return all;
}

// p = 4, 8 bytes, root 0, scatter_size 2. Scatter: 0 -> 2 [4,8), 0 -> 1 [2,4), 2 -> 3 [6,8).
// Recursive doubling exchanges whole 'mask'-aligned subtree blocks with every partner, as
// MPICH does: mask 1 swaps blocks 0 <-> 1 and 2 <-> 3, mask 2 swaps [0,4) <-> [4,8).
BOOST_AUTO_TEST_CASE(mpich_rd_hand_checked_p4) {
  const schedule s = scatter_rd_allgather_bcast(4, 0, 8);
  BOOST_TEST(program_text(s.ranks[0]) == "s2+4@4 s1+2@2 s1+2@0 r1+2@2 s2+4@0 r2+4@4");
  BOOST_TEST(program_text(s.ranks[1]) == "r0+2@2 s0+2@2 r0+2@0 s3+4@0 r3+4@4");
  BOOST_TEST(program_text(s.ranks[2]) == "r0+4@4 s3+2@6 s3+2@4 r3+2@6 s0+4@4 r0+4@0");
  BOOST_TEST(program_text(s.ranks[3]) == "r2+2@6 s2+2@6 r2+2@4 s1+4@4 r1+4@0");
  // Sendrecv semantics: rank 1's mask-2 send and recv depend on both ops of its mask-1
  // step, not on each other.
  BOOST_TEST(s.ranks[1].ops[1].deps == std::vector<uint32_t>{0});
  BOOST_TEST(s.ranks[1].ops[2].deps == std::vector<uint32_t>{0});
  BOOST_TEST(s.ranks[1].ops[3].deps == (std::vector<uint32_t>{1, 2}));
  BOOST_TEST(s.ranks[1].ops[4].deps == (std::vector<uint32_t>{1, 2}));
  expect_ok(s);
}

// MPICH re-delivers: the root gets p - 1 blocks back and scatter-interior ranks get their
// subtree's blocks twice. An exactly-once check reports exactly that; at-least-once accepts.
BOOST_AUTO_TEST_CASE(mpich_traffic_redelivers_bytes) {
  const schedule rd = scatter_rd_allgather_bcast(4, 0, 8);
  const verify_result once = verify_schedule(rd, delivery::exactly_once);
  BOOST_TEST_MESSAGE(all_errors(once));
  BOOST_TEST(!once.ok);
  BOOST_TEST(all_errors(once).find("rank 0 is the root but receives 2 message(s)") !=
             std::string::npos);
  BOOST_TEST(all_errors(once).find("rank 2 receives more than once bytes [6, 8)") !=
             std::string::npos);
  BOOST_TEST(verify_schedule(rd, delivery::at_least_once).ok);

  // Ring: p - 1 scatter messages (4096 bytes leave no rank empty for these p) and all
  // p (p - 1) MPIC_Sendrecv transfers of the allgather.
  for (uint32_t p : {2u, 5u, 12u, 16u, 31u}) {
    BOOST_TEST_CONTEXT("p " << p) {
      const schedule ring = scatter_ring_allgather_bcast(p, 1, 4096);
      const verify_result v = verify_schedule(ring, delivery::at_least_once);
      BOOST_TEST(v.ok);
      BOOST_TEST(v.messages == (p - 1) + uint64_t{p} * (p - 1));
      const verify_result vo = verify_schedule(ring, delivery::exactly_once);
      BOOST_TEST(!vo.ok);
      BOOST_TEST(all_errors(vo).find("rank 1 is the root but receives " + std::to_string(p - 1) +
                                     " message(s)") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(mpich_ring_steps_are_sendrecv) {
  // p = 5, root 0, 10 bytes: scatter_size 2. Rank 2 holds blocks 2 and 3 after the scatter
  // (lowbit 2). Ring steps 1..4 send blocks 2, 1, 0, 4 to rank 3 and receive blocks 1, 0,
  // 4, 3 from rank 1: block 3 arrives again, as in MPICH.
  const schedule s = scatter_ring_allgather_bcast(5, 0, 10);
  BOOST_TEST(program_text(s.ranks[2]) ==
             "r0+4@4 s3+2@6 s3+2@4 r1+2@2 s3+2@2 r1+2@0 s3+2@0 r1+2@8 s3+2@8 r1+2@6");
  const auto& ops = s.ranks[2].ops;
  BOOST_TEST(ops[2].deps == std::vector<uint32_t>{1});       // step 1: after the scatter,
  BOOST_TEST(ops[3].deps == std::vector<uint32_t>{1});       // independent of each other
  BOOST_TEST(ops[4].deps == (std::vector<uint32_t>{2, 3}));  // both ops of the last step
  BOOST_TEST(ops[5].deps == (std::vector<uint32_t>{2, 3}));
  BOOST_TEST(ops[8].deps == (std::vector<uint32_t>{6, 7}));
  BOOST_TEST(ops[9].deps == (std::vector<uint32_t>{6, 7}));
  expect_ok(s);
}

BOOST_AUTO_TEST_CASE(mpich_rd_rejects_non_power_of_two) {
  for (uint32_t p : {3u, 6u, 12u, 40u}) {
    try {
      scatter_rd_allgather_bcast(p, 0, 1024);
      BOOST_FAIL("no throw for p " << p);
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      BOOST_TEST(msg.find("collective.algorithm") != std::string::npos);
      BOOST_TEST(msg.find("power-of-two") != std::string::npos);
    }
  }
  BOOST_CHECK_NO_THROW(scatter_rd_allgather_bcast(64, 5, 1024));
}

BOOST_AUTO_TEST_CASE(mpich_auto_thresholds) {
  BOOST_TEST(mpich_auto_choice(8, 12287) == "binomial");
  BOOST_TEST(mpich_auto_choice(8, 12288) == "scatter-rd-allgather");
  BOOST_TEST(mpich_auto_choice(7, 1u << 20) == "binomial");
  BOOST_TEST(mpich_auto_choice(1024, 12287) == "binomial");
  BOOST_TEST(mpich_auto_choice(16, 524287) == "scatter-rd-allgather");
  BOOST_TEST(mpich_auto_choice(16, 524288) == "scatter-ring-allgather");
  BOOST_TEST(mpich_auto_choice(12, 12288) == "scatter-ring-allgather");
  BOOST_TEST(mpich_auto_choice(9, 524287) == "scatter-ring-allgather");
  for (uint64_t bytes : {uint64_t{12287}, uint64_t{12288}, uint64_t{524288}}) {
    const schedule s = mpich_auto_bcast(16, 2, bytes);
    const std::string choice = mpich_auto_choice(16, bytes);
    const schedule ref = choice == "binomial" ? binomial_bcast(16, 2, bytes)
                         : choice == "scatter-rd-allgather"
                             ? scatter_rd_allgather_bcast(16, 2, bytes)
                             : scatter_ring_allgather_bcast(16, 2, bytes);
    for (uint32_t r = 0; r < 16; ++r) {
      BOOST_TEST(program_text(s.ranks[r]) == program_text(ref.ranks[r]));
    }
    expect_ok(s);
  }
}
