// hw/nic: the host that runs a rank_program on the host NIC (send overhead, MPI matching,
// one CPU, the rank's coverage of the buffer). The bench: host_nic_harness.h.
#include "hw/nic/host.h"

#include <boost/test/unit_test.hpp>

#include "host_nic_harness.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::test::host_nic_bench;

BOOST_AUTO_TEST_CASE(host_send_completes_after_send_overhead) {
  algorithms::rank_program prog;
  prog.then(make_send(0, 0, 1000, 4));    // to rank 0: 512 + 488 B
  prog.then(make_send(2, 1000, 100, 5));  // to rank 2, after the first send completed
  bench_params bp;
  bp.program = &prog;
  bp.root = 1;
  bench b("bench", bp);
  std::vector<uint64_t> done;
  b.script = [&](bench& self) {
    for (uint64_t t : {299999u, 300001u, 599999u, 600001u}) {
      wait_until(t);
      done.push_back(self.host->ops_completed.value);
    }
  };
  sc_core::sc_start();

  // The first send costs 300 ns of CPU and completes then (eager); the NIC injects at once.
  // The second starts at 300 ns and completes at 600 ns.
  BOOST_TEST(done == (std::vector<uint64_t>{0, 1, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(b.sink.got.size() == 3u);
  BOOST_TEST(b.sink.got[0].pkt.injected.value() == 300000u);
  BOOST_TEST(b.sink.got[1].pkt.injected.value() == 300000u + 90826u);
  BOOST_TEST(b.sink.got[2].pkt.injected.value() == 600000u);
  BOOST_TEST(b.sink.got[0].pkt.dst == 0u);  // rank 0 sits on terminal 0
  BOOST_TEST(b.sink.got[1].pkt.size_bytes == 488u);
  BOOST_TEST(b.sink.got[2].pkt.dst == 2u);
  BOOST_TEST(b.sink.got[2].pkt.tag == 5u);
  BOOST_TEST(b.sink.got[2].pkt.buf_offset == 1000u);
  BOOST_TEST(b.sink.got[2].pkt.msg_bytes == 100u);
  BOOST_TEST(b.host->finished());
  BOOST_TEST(b.host->cpu_busy_ps.value == 600000u);
  BOOST_TEST(b.progress.instances[0].started);  // the root's first send call, at its start
  BOOST_TEST((b.progress.instances[0].start == sc_core::SC_ZERO_TIME));
}

BOOST_AUTO_TEST_CASE(host_recv_matches_source_and_tag_in_order) {
  algorithms::rank_program prog;
  prog.then(make_compute(5000));         // every message arrives before a receive is posted
  prog.then(make_recv(0, 100, 200, 2));  // takes the tag-2 message though it came second
  prog.then(make_recv(0, 0, 100, 1));    // the first tag-1 message from rank 0, not rank 2's
  prog.then(make_recv(0, 300, 300, 1));
  prog.then(make_recv(2, 600, 50, 1));
  bench_params bp;
  bp.program = &prog;
  bp.bytes = 650;
  bench b("bench", bp);
  using plan = packet_source::plan;
  b.source.plans = {
      plan{100000, 2, 0, 1, 600, 50, 0, 1, 50},
      plan{200000, 0, 0, 1, 0, 100, 0, 1, 100},  // rank 0's first tag-1 message
      plan{300000, 0, 1, 2, 100, 200, 0, 1, 200},
      plan{400000, 0, 2, 1, 300, 300, 0, 1, 300, 0, 1, 1},  // rank 0's second tag-1 message
  };
  std::vector<uint64_t> done;
  b.script = [&](bench& self) {
    for (uint64_t t :
         {4999999u, 5000001u, 5199999u, 5200001u, 5400001u, 5600001u, 5799999u, 5800001u}) {
      wait_until(t);
      done.push_back(self.host->ops_completed.value);
    }
  };
  sc_core::sc_start();

  // A wrong match would record an offset/size mismatch here.
  BOOST_TEST(b.progress.errors.empty());
  for (const std::string& e : b.progress.errors) BOOST_TEST_MESSAGE(e);
  // Each receive completes 200 ns (recv overhead) after it is posted.
  BOOST_TEST(done == (std::vector<uint64_t>{0, 1, 1, 2, 3, 4, 4, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(b.host->finished());
  BOOST_TEST(b.host->received_bytes(0) == 650u);
  BOOST_TEST(b.host->cpu_busy_ps.value == 5000000u + 4u * 200000u);
  // The rank holds the data when its last byte arrived, not when the receive completed.
  BOOST_TEST(b.progress.instances[0].done[1]);
  BOOST_TEST(b.progress.instances[0].rank_done[1].value() == 400000u);
  BOOST_TEST(b.progress.instances[0].members_done == 2u);  // the root and rank 1
}

BOOST_AUTO_TEST_CASE(host_cpu_overheads_serialise) {
  algorithms::rank_program prog;
  prog.add(make_send(0, 0, 100, 0), {});  // op 0: CPU [0, 300]
  prog.add(make_compute(1000), {});       // op 1: CPU [300, 1300]
  prog.add(make_recv(0, 0, 64, 9), {});   // op 2: posted at 0, message in at 500 ns
  prog.add(make_send(2, 0, 100, 1), {});  // op 3: CPU [1300, 1600]
  prog.add(make_compute(10), {2});        // op 4: after the receive
  bench_params bp;
  bp.program = &prog;
  bench b("bench", bp);
  b.source.plans = {packet_source::plan{500000, 0, 0, 9, 0, 64, 0, 1, 64}};
  std::vector<uint64_t> done;
  b.script = [&](bench& self) {
    for (uint64_t t :
         {299999u, 300001u, 1300001u, 1599999u, 1600001u, 1799999u, 1800001u, 1810001u}) {
      wait_until(t);
      done.push_back(self.host->ops_completed.value);
    }
  };
  sc_core::sc_start();

  // One CPU: the receive matched at 500 ns waits for it until 1600 ns and completes at 1800;
  // the compute after it ends at 1810 ns.
  BOOST_TEST(done == (std::vector<uint64_t>{0, 1, 2, 2, 3, 3, 4, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(b.host->cpu_busy_ps.value == 300000u + 1000000u + 300000u + 200000u + 10000u);
  BOOST_TEST_REQUIRE(b.sink.got.size() == 2u);
  BOOST_TEST(b.sink.got[0].pkt.injected.value() == 300000u);
  BOOST_TEST(b.sink.got[1].pkt.injected.value() == 1600000u);
  BOOST_TEST(b.progress.errors.empty());
  BOOST_TEST(b.host->finished());
}

namespace {

struct coverage_sample {
  uint64_t covered;
  uint64_t received;
  bool done;
};

// Samples rank 1's coverage just after each of `times_ps`.
std::vector<coverage_sample> sample_coverage(bench& b, const std::vector<uint64_t>& times_ps) {
  std::vector<coverage_sample> got;
  b.script = [&got, times_ps](bench& self) {
    for (uint64_t t : times_ps) {
      wait_until(t + 1);
      got.push_back({self.host->covered_bytes(0), self.host->received_bytes(0),
                     static_cast<bool>(self.progress.instances[0].done[1])});
    }
  };
  sc_core::sc_start();
  return got;
}

}  // namespace

BOOST_AUTO_TEST_CASE(host_duplicate_bytes_do_not_finish_a_rank_early) {
  // 800 bytes: [0, 400) arrives twice (400 + 400 = 800 received, but only half held), then
  // [400, 800) completes the buffer.
  algorithms::rank_program prog;
  prog.then(make_recv(0, 0, 400, 1));
  prog.then(make_recv(0, 0, 400, 1));
  prog.then(make_recv(2, 400, 400, 1));
  bench_params bp;
  bp.program = &prog;
  bp.bytes = 800;
  bench b("bench", bp);
  using plan = packet_source::plan;
  b.source.plans = {
      plan{100000, 0, 0, 1, 0, 400, 0, 1, 400},
      plan{200000, 0, 1, 1, 0, 400, 0, 1, 400, 0, 1, 1},  // rank 0's second tag-1 message
      plan{300000, 2, 0, 1, 400, 400, 0, 1, 400},
  };
  const auto got = sample_coverage(b, {100000, 200000, 300000});

  BOOST_TEST(b.progress.errors.empty());
  BOOST_TEST_REQUIRE(got.size() == 3u);
  BOOST_TEST(got[0].covered == 400u);
  BOOST_TEST(got[1].covered == 400u);
  BOOST_TEST(got[1].received == 800u);  // the old byte-sum rule would have finished here
  BOOST_TEST(!got[1].done);
  BOOST_TEST(got[2].covered == 800u);
  BOOST_TEST(got[2].received == 1200u);
  BOOST_TEST(got[2].done);
  BOOST_TEST(b.progress.instances[0].rank_done[1].value() == 300000u);
  BOOST_TEST(b.progress.instances[0].members_done == 2u);  // the root and rank 1
  BOOST_TEST(b.host->finished());
}

BOOST_AUTO_TEST_CASE(host_out_of_order_pieces_finish_when_their_union_completes) {
  // 1000 bytes in overlapping pieces, out of order: [600, 1000), [0, 300), [200, 500), then
  // [500, 600) closes the last gap and joins both held ranges.
  algorithms::rank_program prog;
  prog.add(make_recv(2, 600, 400, 1), {});
  prog.add(make_recv(0, 0, 300, 1), {});
  prog.add(make_recv(0, 200, 300, 1), {});
  prog.add(make_recv(2, 500, 100, 1), {});
  bench_params bp;
  bp.program = &prog;
  bp.bytes = 1000;
  bench b("bench", bp);
  using plan = packet_source::plan;
  b.source.plans = {
      plan{100000, 2, 0, 1, 600, 400, 0, 1, 400},
      plan{200000, 0, 0, 1, 0, 300, 0, 1, 300},
      plan{300000, 0, 1, 1, 200, 300, 0, 1, 300},
      plan{400000, 2, 1, 1, 500, 100, 0, 1, 100},
  };
  const auto got = sample_coverage(b, {100000, 200000, 300000, 400000});

  BOOST_TEST(b.progress.errors.empty());
  BOOST_TEST_REQUIRE(got.size() == 4u);
  const uint64_t covered[] = {400, 700, 900, 1000};
  const uint64_t received[] = {400, 700, 1000, 1100};
  for (size_t i = 0; i < 4; ++i) {
    BOOST_TEST_CONTEXT("after piece " << i) {
      BOOST_TEST(got[i].covered == covered[i]);
      BOOST_TEST(got[i].received == received[i]);
      BOOST_TEST(got[i].done == (i == 3));
    }
  }
  BOOST_TEST(b.progress.instances[0].rank_done[1].value() == 400000u);
  BOOST_TEST(b.progress.instances[0].members_done == 2u);  // the root and rank 1
}

BOOST_AUTO_TEST_CASE(host_root_holds_the_buffer_from_the_start) {
  // MPICH's allgather sends blocks back to the root: it counts them as received, but it
  // held every byte all along: done from the start, not when a message arrives.
  algorithms::rank_program prog;
  prog.then(make_recv(0, 0, 100, 1));
  bench_params bp;
  bp.program = &prog;
  bp.root = 1;
  bp.bytes = 500;
  bench b("bench", bp);
  b.source.plans = {packet_source::plan{100000, 0, 0, 1, 0, 100, 0, 1, 100}};
  const auto got = sample_coverage(b, {0, 100000});

  BOOST_TEST_REQUIRE(got.size() == 2u);
  BOOST_TEST(got[0].covered == 500u);
  BOOST_TEST(got[0].received == 0u);
  BOOST_TEST(got[1].covered == 500u);
  BOOST_TEST(got[1].received == 100u);
  BOOST_TEST(got[0].done);
  BOOST_TEST((b.progress.instances[0].rank_done[1] == sc_core::SC_ZERO_TIME));
  BOOST_TEST(b.progress.instances[0].members_done == 1u);  // the root alone
  BOOST_TEST(b.host->finished());
}
