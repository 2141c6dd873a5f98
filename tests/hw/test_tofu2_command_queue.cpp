// The Tofu2 command queue (hw/tofu2/command_queue.h), pointer by pointer: a session-mode queue
// never runs past its scheduling pointer and an arrival with SPS k releases exactly k
// descriptors; a normal-mode queue runs at once; the ring wraps in order; a full TOQ refuses
// the host's enqueue and counts it.
#include "hw/tofu2/command_queue.h"

#include <boost/test/unit_test.hpp>

#include <sstream>
#include <stdexcept>
#include <vector>

using namespace bcastsim;
using bcastsim::hw::tofu2::command_queue;
using bcastsim::hw::tofu2::queue_mode;
using bcastsim::hw::tofu2::toq_descriptor;

namespace {

toq_descriptor put_to(uint32_t rank) {
  toq_descriptor d;
  d.remote_rank = rank;
  return d;
}

// Runs every descriptor the queue lets run; returns their remote ranks in order.
std::vector<uint32_t> drain(command_queue& q) {
  std::vector<uint32_t> ran;
  while (q.can_execute()) {
    ran.push_back(q.head().remote_rank);
    q.retire();
  }
  return ran;
}

}  // namespace

BOOST_AUTO_TEST_CASE(session_queue_never_runs_past_its_scheduling_pointer) {
  command_queue q(2048, queue_mode::session);
  for (uint32_t i = 0; i < 5; ++i) BOOST_TEST(q.enqueue(put_to(i)));
  BOOST_TEST(!q.can_execute());
  BOOST_TEST(q.waits_for_scheduling());
  BOOST_CHECK_THROW(q.retire(), std::logic_error);
  q.advance_scheduling(2);
  BOOST_TEST((drain(q) == std::vector<uint32_t>{0, 1}));
  BOOST_TEST(q.consumer() == q.scheduling());
  BOOST_TEST(q.waits_for_scheduling());
  q.advance_scheduling(3);
  BOOST_TEST((drain(q) == std::vector<uint32_t>{2, 3, 4}));
  BOOST_TEST(q.empty());
  BOOST_TEST(!q.waits_for_scheduling());
  BOOST_TEST(q.executed.value == 5u);
  BOOST_TEST(q.sps_arrivals.value == 2u);
}

// SPS is four bits; every value releases exactly that many of twenty waiting descriptors.
BOOST_AUTO_TEST_CASE(an_arrival_with_sps_k_releases_exactly_k) {
  for (uint32_t k = 0; k <= algorithms::toq_max_sps; ++k) {
    command_queue q(2048, queue_mode::session);
    for (uint32_t i = 0; i < 20; ++i) q.enqueue(put_to(i));
    q.advance_scheduling(k);
    BOOST_TEST(drain(q).size() == k, "SPS " << k);
    BOOST_TEST(q.occupancy() == 20u - k);
  }
}

// A packet may arrive before the host has enqueued what it releases: the descriptors then
// run as soon as they are enqueued, and no further.
BOOST_AUTO_TEST_CASE(scheduling_may_lead_the_producer) {
  command_queue q(2048, queue_mode::session);
  q.advance_scheduling(2);
  BOOST_TEST(!q.can_execute());
  q.enqueue(put_to(7));
  BOOST_TEST((drain(q) == std::vector<uint32_t>{7}));
  q.enqueue(put_to(8));
  q.enqueue(put_to(9));
  BOOST_TEST((drain(q) == std::vector<uint32_t>{8}));
  BOOST_TEST(q.waits_for_scheduling());
}

BOOST_AUTO_TEST_CASE(normal_queue_runs_at_once_and_ignores_sps) {
  command_queue q(2048, queue_mode::normal);
  q.enqueue(put_to(1));
  BOOST_TEST(q.can_execute());
  q.enqueue(put_to(2));
  q.advance_scheduling(5);
  BOOST_TEST(q.sps_ignored.value == 1u);
  BOOST_TEST(q.sps_arrivals.value == 0u);
  BOOST_TEST((drain(q) == std::vector<uint32_t>{1, 2}));
  BOOST_TEST(!q.waits_for_scheduling());
}

// Ten descriptors through a four-entry ring: slots wrap to 0 and the order holds.
BOOST_AUTO_TEST_CASE(the_ring_wraps) {
  command_queue q(4, queue_mode::session);
  std::vector<uint32_t> ran;
  std::vector<uint64_t> slots;
  for (uint32_t i = 0; i < 10; ++i) {
    slots.push_back(q.slot(q.producer()));
    BOOST_TEST(q.enqueue(put_to(i)));
    q.advance_scheduling(1);
    for (const uint32_t r : drain(q)) ran.push_back(r);
  }
  BOOST_TEST((slots == std::vector<uint64_t>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1}));
  BOOST_TEST((ran == std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  BOOST_TEST(q.producer() == 10u);
  BOOST_TEST(q.slot(q.consumer()) == 2u);
}

// A full ring refuses the host (counted) until the engine frees a slot.
BOOST_AUTO_TEST_CASE(a_full_toq_back_pressures_the_host) {
  command_queue q(4, queue_mode::session);
  for (uint32_t i = 0; i < 4; ++i) BOOST_TEST(q.enqueue(put_to(i)));
  BOOST_TEST(q.full());
  BOOST_TEST(!q.enqueue(put_to(4)));
  BOOST_TEST(!q.enqueue(put_to(4)));
  BOOST_TEST(q.enqueue_refused.value == 2u);
  BOOST_TEST(q.producer() == 4u);
  q.advance_scheduling(1);
  q.retire();
  BOOST_TEST(q.enqueue(put_to(4)));
  BOOST_TEST(q.max_occupancy.value == 4u);
  std::ostringstream os;
  q.describe(os);
  BOOST_TEST(os.str() ==
             "session queue: producer 5, consumer 1, scheduling 1 (4 of 4 entries), "
             "head waits for SPS from an arriving packet");
}

BOOST_AUTO_TEST_CASE(request_free_resets_an_empty_queue_only) {
  command_queue q(2048, queue_mode::session);
  q.enqueue(put_to(0));
  BOOST_CHECK_THROW(q.reset_pointers(), std::logic_error);
  q.advance_scheduling(2);
  q.retire();
  BOOST_CHECK_THROW(q.reset_pointers(), std::logic_error);  // one SPS too many
  command_queue ok(2048, queue_mode::session);
  ok.enqueue(put_to(0));
  ok.advance_scheduling(1);
  ok.retire();
  ok.reset_pointers();
  BOOST_TEST(ok.producer() == 0u);
  BOOST_TEST(ok.scheduling() == 0u);
}

// The sizes tof_icc.h allows: 2^(2s+11) for s in 0..5.
BOOST_AUTO_TEST_CASE(toq_sizes_are_the_hardwares) {
  for (const uint64_t e : {2048ull, 8192ull, 32768ull, 131072ull, 524288ull, 2097152ull}) {
    BOOST_TEST(hw::tofu2::valid_toq_entries(e));
  }
  for (const uint64_t e : {0ull, 1024ull, 4096ull, 4194304ull}) {
    BOOST_TEST(!hw::tofu2::valid_toq_entries(e));
  }
}

// The cycle interface (what the RTL twin shares): a retire asked for with no head able to run
// before the cycle is ignored, even if the same cycle's enqueue and SPS would make one; an
// SPS beyond the 4-bit port is the caller's bug.
BOOST_AUTO_TEST_CASE(a_cycle_retires_only_a_head_that_could_run_before_it) {
  command_queue q(16, queue_mode::session);
  hw::tofu2::cq_cycle c;
  c.enqueue = true;
  c.sps_valid = true;
  c.sps = 1;
  c.retire = true;
  q.cycle(c);
  BOOST_TEST(q.consumer() == 0u);
  BOOST_TEST(q.state().head_valid);
  q.cycle(c);  // now the head could run: it retires, and the second descriptor is enqueued
  BOOST_TEST(q.consumer() == 1u);
  BOOST_TEST(q.producer() == 2u);
  c.sps = 16;
  BOOST_CHECK_THROW(q.cycle(c), std::invalid_argument);
}
