// algorithms/verify: accepts correct schedules (blocking and non-blocking) and reports each
// kind of broken schedule with a message naming what went wrong.
#include "algorithms/registry.h"
#include "algorithms/verify.h"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace bcastsim::algorithms;

namespace {

bool has_error(const verify_result& v, const std::string& needle) {
  for (const std::string& e : v.errors) {
    if (e.find(needle) != std::string::npos) return true;
  }
  return false;
}

void log_errors(const verify_result& v) {
  for (const std::string& e : v.errors) BOOST_TEST_MESSAGE("  " << e);
}

schedule two_ranks(uint64_t bytes) {
  schedule s(2);
  s.root = 0;
  s.bytes = bytes;
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(verify_accepts_chain_with_compute) {
  schedule s(3);
  s.bytes = 100;
  s.ranks[0].then(make_compute(10));
  s.ranks[0].then(make_send(1, 0, 100));
  s.ranks[1].then(make_recv(0, 0, 100));
  s.ranks[1].then(make_compute(5));
  s.ranks[1].then(make_send(2, 0, 100, 3));
  s.ranks[2].then(make_recv(1, 0, 100, 3));
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(v.ok);
  BOOST_TEST(v.errors.empty());
  BOOST_TEST(v.messages == 2u);
  BOOST_TEST(v.rounds == 2u);
}

BOOST_AUTO_TEST_CASE(verify_accepts_split_with_nonblocking_exchange) {
  // Root sends halves to ranks 1 and 2, which then swap halves. The swap receives are posted
  // with no deps, as MPI_Irecv would be; the blocking variant below deadlocks.
  schedule s(3);
  s.bytes = 100;
  s.ranks[0].then(make_send(1, 0, 50));
  s.ranks[0].then(make_send(2, 50, 50));
  s.ranks[1].add(make_recv(0, 0, 50), {});
  s.ranks[1].add(make_send(2, 0, 50), {0});
  s.ranks[1].add(make_recv(2, 50, 50), {});
  s.ranks[2].add(make_recv(0, 50, 50), {});
  s.ranks[2].add(make_recv(1, 0, 50), {});
  s.ranks[2].add(make_send(1, 50, 50), {0});
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(v.ok);
  BOOST_TEST(v.messages == 4u);
  // Root's sends are steps 1 and 2; rank 2 forwards its half (received in step 2) in step 3.
  BOOST_TEST(v.rounds == 3u);
}

BOOST_AUTO_TEST_CASE(verify_reports_deadlock_of_blocking_exchange) {
  schedule s(3);
  s.bytes = 100;
  s.ranks[0].then(make_send(1, 0, 50));
  s.ranks[0].then(make_send(2, 50, 50));
  s.ranks[1].then(make_recv(0, 0, 50));
  s.ranks[1].then(make_recv(2, 50, 50));
  s.ranks[1].then(make_send(2, 0, 50));
  s.ranks[2].then(make_recv(0, 50, 50));
  s.ranks[2].then(make_recv(1, 0, 50));
  s.ranks[2].then(make_send(1, 50, 50));
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v, "deadlock: rank 1 op 1 (recv from 2 tag 0) never completes"));
  BOOST_TEST(has_error(v, "deadlock: rank 2 op 1 (recv from 1 tag 0) never completes"));
  BOOST_TEST(has_error(v, "rank 1 never receives bytes [50, 100)"));
}

BOOST_AUTO_TEST_CASE(verify_reports_two_rank_recv_cycle) {
  // Each rank receives before it sends: neither send is ever issued.
  schedule s = two_ranks(64);
  s.ranks[0].then(make_recv(1, 0, 64));
  s.ranks[0].then(make_send(1, 0, 64));
  s.ranks[1].then(make_recv(0, 0, 64));
  s.ranks[1].then(make_send(0, 0, 64));
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(v.messages == 0u);
  BOOST_TEST(has_error(v, "deadlock: rank 0 op 0 (recv from 1 tag 0) never completes"));
  BOOST_TEST(has_error(v, "deadlock: rank 1 op 0 (recv from 0 tag 0) never completes"));
  BOOST_TEST(has_error(v, "deadlock: rank 0 op 1 (send to 1 tag 0) never completes"));
}

BOOST_AUTO_TEST_CASE(verify_reports_missing_recv) {
  // p = 4 root 0: rank 3 receives from 2 and is a leaf. Drop its recv.
  schedule s = binomial_bcast(4, 0, 256);
  BOOST_TEST_REQUIRE(s.ranks[3].ops.size() == 1u);
  s.ranks[3].ops.clear();
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(v.messages == 2u);
  BOOST_TEST(has_error(v, "unreceived message: rank 2 op 1 sends [0, 256) to rank 3 tag 0"));
  BOOST_TEST(has_error(v, "rank 3 never receives bytes [0, 256)"));
}

BOOST_AUTO_TEST_CASE(verify_reports_buffer_received_twice) {
  schedule s = two_ranks(100);
  s.ranks[0].then(make_send(1, 0, 100));
  s.ranks[0].then(make_send(1, 0, 100));
  s.ranks[1].then(make_recv(0, 0, 100));
  s.ranks[1].then(make_recv(0, 0, 100));
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(v.messages == 2u);
  BOOST_TEST(has_error(v, "rank 1 receives more than once bytes [0, 100)"));
}

BOOST_AUTO_TEST_CASE(verify_reports_overlapping_and_partial_ranges) {
  // [0, 60) and [40, 80): bytes 40..60 twice, 80..100 never.
  schedule s = two_ranks(100);
  s.ranks[0].then(make_send(1, 0, 60));
  s.ranks[0].then(make_send(1, 40, 40));
  s.ranks[1].then(make_recv(0, 0, 60));
  s.ranks[1].then(make_recv(0, 40, 40));
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v, "rank 1 receives more than once bytes [40, 60)"));
  BOOST_TEST(has_error(v, "rank 1 never receives bytes [80, 100)"));
  BOOST_TEST(v.errors.size() == 2u);
}

BOOST_AUTO_TEST_CASE(verify_reports_half_received) {
  schedule s = two_ranks(100);
  s.ranks[0].then(make_send(1, 0, 50));
  s.ranks[1].then(make_recv(0, 0, 50));
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(v.messages == 1u);
  BOOST_TEST(has_error(v, "rank 1 never receives bytes [50, 100)"));
  BOOST_TEST(v.errors.size() == 1u);
}

BOOST_AUTO_TEST_CASE(verify_reports_bytes_beyond_buffer) {
  schedule s = two_ranks(100);
  s.ranks[0].then(make_send(1, 0, 120));
  s.ranks[1].then(make_recv(0, 0, 120));
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v, "rank 1 receives bytes outside the buffer [100, 120)"));
}

BOOST_AUTO_TEST_CASE(verify_reports_mismatched_size) {
  schedule s = two_ranks(100);
  s.ranks[0].then(make_send(1, 0, 100));
  s.ranks[1].then(make_recv(0, 0, 50));
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v,
                       "rank 1 op 0 (recv from 0 tag 0) expects offset 0 bytes 50 but "
                       "matched rank 0 op 0 sending offset 0 bytes 100"));
}

BOOST_AUTO_TEST_CASE(verify_reports_mismatched_tag) {
  schedule s = two_ranks(100);
  s.ranks[0].then(make_send(1, 0, 100, 1));
  s.ranks[1].then(make_recv(0, 0, 100, 2));
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v, "deadlock: rank 1 op 0 (recv from 0 tag 2) never completes"));
  BOOST_TEST(has_error(v, "unreceived message: rank 0 op 0 sends [0, 100) to rank 1 tag 1"));
}

BOOST_AUTO_TEST_CASE(verify_reports_root_receiving) {
  schedule s = two_ranks(10);
  s.ranks[0].then(make_send(1, 0, 10));
  s.ranks[1].then(make_recv(0, 0, 10));
  s.ranks[1].then(make_send(0, 0, 10));
  s.ranks[0].then(make_recv(1, 0, 10));
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v, "rank 0 is the root but receives 1 message(s)"));
}

BOOST_AUTO_TEST_CASE(verify_reports_structural_errors) {
  schedule s = two_ranks(10);
  s.ranks[0].then(make_send(2, 0, 10));
  s.ranks[1].add(make_recv(0, 0, 10), {0});  // depends on itself
  s.ranks[1].add(make_compute(1), {5});      // no such op
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v, "rank 0 op 0 (send to 2 tag 0): peer is not below num_ranks 2"));
  BOOST_TEST(has_error(v, "rank 1 op 0 (recv from 0 tag 0): dep 0 is not an earlier op"));
  BOOST_TEST(has_error(v, "rank 1 op 1 (compute): dep 5 is not an earlier op"));

  schedule bad_root = two_ranks(10);
  bad_root.root = 2;
  BOOST_TEST(has_error(verify_schedule(bad_root), "root 2 is not below num_ranks 2"));

  schedule bad_size(3);
  bad_size.ranks.pop_back();
  BOOST_TEST(has_error(verify_schedule(bad_size), "num_ranks 3 but 2 rank programs"));
}

BOOST_AUTO_TEST_CASE(verify_caps_reported_errors) {
  // Every recv removed from a 1000-rank broadcast: hundreds of problems, ten reported.
  schedule s = binomial_bcast(1000, 0, 8);
  for (auto& prog : s.ranks) {
    if (!prog.ops.empty() && prog.ops[0].kind == op_kind::recv) {
      prog.ops.erase(prog.ops.begin());
      for (auto& o : prog.ops) {
        o.deps.clear();
      }
    }
  }
  const verify_result v = verify_schedule(s);
  BOOST_TEST(!v.ok);
  BOOST_TEST(v.errors.size() == 11u);
  BOOST_TEST(v.errors.back().find("more errors") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(verify_accepts_empty_schedule) {
  const verify_result v = verify_schedule(schedule(0));
  BOOST_TEST(v.ok);
  BOOST_TEST(v.messages == 0u);
}

// at_least_once (MPICH scatter + allgather): duplicates and a receiving root are fine, a gap,
// bytes outside the buffer, a mismatch or a deadlock are still errors.
BOOST_AUTO_TEST_CASE(verify_at_least_once_accepts_duplicates_and_a_receiving_root) {
  schedule s = two_ranks(100);
  s.ranks[0].then(make_send(1, 0, 60));
  s.ranks[0].then(make_send(1, 40, 60));  // bytes 40..60 twice
  s.ranks[1].then(make_recv(0, 0, 60));
  s.ranks[1].then(make_recv(0, 40, 60));
  s.ranks[1].then(make_send(0, 0, 100));  // the whole buffer back to the root
  s.ranks[0].then(make_recv(1, 0, 100));
  const verify_result lenient = verify_schedule(s, delivery::at_least_once);
  log_errors(lenient);
  BOOST_TEST(lenient.ok);
  BOOST_TEST(lenient.messages == 3u);
  const verify_result strict = verify_schedule(s, delivery::exactly_once);
  BOOST_TEST(!strict.ok);
  BOOST_TEST(has_error(strict, "rank 1 receives more than once bytes [40, 60)"));
  BOOST_TEST(has_error(strict, "rank 0 is the root but receives 1 message(s)"));
  // exactly_once is the default.
  BOOST_TEST(verify_schedule(s).errors == strict.errors);
}

BOOST_AUTO_TEST_CASE(verify_at_least_once_reports_gaps_and_bytes_outside) {
  // [0, 60) and [40, 80): bytes 80..100 never arrive, in either mode.
  schedule s = two_ranks(100);
  s.ranks[0].then(make_send(1, 0, 60));
  s.ranks[0].then(make_send(1, 40, 40));
  s.ranks[1].then(make_recv(0, 0, 60));
  s.ranks[1].then(make_recv(0, 40, 40));
  const verify_result v = verify_schedule(s, delivery::at_least_once);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v, "rank 1 never receives bytes [80, 100)"));
  BOOST_TEST(v.errors.size() == 1u);  // the duplicate [40, 60) is not an error here
  BOOST_TEST(has_error(verify_schedule(s, delivery::exactly_once),
                       "rank 1 never receives bytes [80, 100)"));

  // The root may receive, but not beyond the buffer.
  schedule out = two_ranks(100);
  out.ranks[0].then(make_send(1, 0, 100));
  out.ranks[1].then(make_recv(0, 0, 100));
  out.ranks[1].then(make_send(0, 0, 120));
  out.ranks[0].then(make_recv(1, 0, 120));
  const verify_result vo = verify_schedule(out, delivery::at_least_once);
  log_errors(vo);
  BOOST_TEST(!vo.ok);
  BOOST_TEST(has_error(vo, "rank 0 receives bytes outside the buffer [100, 120)"));
  BOOST_TEST(vo.errors.size() == 1u);
}

BOOST_AUTO_TEST_CASE(verify_at_least_once_still_reports_deadlock_and_mismatch) {
  schedule s = two_ranks(64);
  s.ranks[0].then(make_recv(1, 0, 64));
  s.ranks[0].then(make_send(1, 0, 64));
  s.ranks[1].then(make_recv(0, 0, 64));
  s.ranks[1].then(make_send(0, 0, 64));
  const verify_result v = verify_schedule(s, delivery::at_least_once);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v, "deadlock: rank 0 op 0 (recv from 1 tag 0) never completes"));
  BOOST_TEST(has_error(v, "rank 1 never receives bytes [0, 64)"));

  schedule m = two_ranks(100);
  m.ranks[0].then(make_send(1, 0, 100));
  m.ranks[1].then(make_recv(0, 0, 50));
  BOOST_TEST(has_error(verify_schedule(m, delivery::at_least_once),
                       "expects offset 0 bytes 50 but matched rank 0 op 0 sending offset 0 "
                       "bytes 100"));
}

BOOST_AUTO_TEST_CASE(verify_accepts_offload_bcast) {
  // One offload reaches every other rank in one step, matched as a send to each.
  const schedule s = ragasa_bcast(5, 2, 100);
  verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(v.ok);
  BOOST_TEST(v.messages == 4u);
  BOOST_TEST(v.rounds == 1u);

  // Two halves with distinct tags, the second offload after the first: two steps; a rank's
  // recvs match each offload's message on its own channel.
  schedule halves(3);
  halves.bytes = 100;
  halves.ranks[0].then(make_offload_bcast(0, 0, 50, 1));
  halves.ranks[0].then(make_offload_bcast(0, 50, 50, 2));
  for (uint32_t r = 1; r < 3; ++r) {
    halves.ranks[r].add(make_recv(0, 50, 50, 2), {});
    halves.ranks[r].add(make_recv(0, 0, 50, 1), {});
  }
  v = verify_schedule(halves);
  log_errors(v);
  BOOST_TEST(v.ok);
  BOOST_TEST(v.messages == 4u);
  BOOST_TEST(v.rounds == 2u);
}

// An offload reaches the ranks that receive from it (the hardware's tree is built from the
// same schedule): a rank without that receive is never reached.
BOOST_AUTO_TEST_CASE(verify_reports_a_rank_an_offload_never_reaches) {
  schedule s = ragasa_bcast(4, 0, 64);
  s.ranks[3].ops.clear();
  const verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(v.messages == 2u);
  BOOST_TEST(has_error(v, "rank 3 never receives bytes [0, 64)"));
}


BOOST_AUTO_TEST_CASE(verify_reports_offload_bcast_with_wrong_peer) {
  schedule s = two_ranks(10);
  s.ranks[0].then(make_offload_bcast(1, 0, 10));
  s.ranks[1].then(make_recv(0, 0, 10));
  verify_result v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v,
                       "rank 0 op 0 (offload_bcast by 1 tag 0): an offload_bcast's peer must be "
                       "its own rank 0"));

  s = two_ranks(10);
  s.ranks[0].then(make_offload_bcast(7, 0, 10));
  s.ranks[1].then(make_recv(0, 0, 10));
  v = verify_schedule(s);
  log_errors(v);
  BOOST_TEST(!v.ok);
  BOOST_TEST(has_error(v, "rank 0 op 0 (offload_bcast by 7 tag 0): peer is not below num_ranks"));
}
