// hw/ragasa: the Bcast Unit's Membership Table alone (peak entries, a full table holding a
// Mini Packet back, an erased entry letting it in, an erase during descriptor generation,
// step 10 freeing an entry when its collective's packets have left), on the bench of
// test_bcast_unit.cpp, with its timing.
#include "hw/ragasa/bcast_unit.h"

#include <boost/test/unit_test.hpp>

#include <systemc>
#include "bcast_unit_harness.h"

#include <sstream>
#include <string>
#include <vector>

using namespace bcastsim;
using hw::ragasa::bcast_unit_params;
using test::bcast_bench;
using test::membership_recorder;
using test::wait_until;
using plan = test::bcast_source::plan;
using tlm_net::packet_kind;

namespace {

constexpr packet_kind mp = packet_kind::control;
constexpr packet_kind data = packet_kind::data;

void check_drained(const bcast_bench& b) {
  BOOST_TEST(b.unit.idle());
  BOOST_TEST(b.unit.working_memory_used_bytes() == 0u);
  BOOST_TEST(b.pool.in_use() == 0u);
  std::ostringstream os;
  BOOST_TEST(!b.unit.describe_stall(os));
}

}  // namespace

BOOST_AUTO_TEST_CASE(bcast_unit_membership_peak_entries) {
  bcast_unit_params p;
  p.membership_entries = 3;
  bcast_bench b("bench", p);
  for (uint32_t id : {1u, 2u, 3u, 4u}) b.membership.set(id, {{id + 10}});
  b.source.plans = {plan{10000, mp, 1, 0, 0, 1, 64}, plan{11000, mp, 2, 0, 0, 1, 64},
                    plan{12000, mp, 3, 0, 0, 1, 64}, plan{30000, mp, 1, 0, 0, 1, 64},
                    plan{50000, mp, 4, 0, 0, 1, 64}};
  std::vector<uint64_t> peak;
  b.script = [&](bcast_bench& self) {
    wait_until(19999);  // 1 parsed 16000, 2 18000, 3 20000
    peak.push_back(self.unit.membership_peak_entries.value);
    wait_until(20001);
    peak.push_back(self.unit.membership_peak_entries.value);
    wait_until(40000);
    self.unit.erase_membership(1);
    self.unit.erase_membership(2);
  };
  sc_core::sc_start();

  // A full table still takes a Mini Packet for a collective it holds (1 again, parsed
  // 36000); after two entries are freed, 4 is parsed at 56000 and the table holds 2.
  BOOST_TEST(peak == (std::vector<uint64_t>{2, 3}), boost::test_tools::per_element());
  BOOST_TEST(b.unit.membership_peak_entries.value == 3u);
  BOOST_TEST(b.unit.mini_packets.value == 5u);
  BOOST_TEST(b.unit.children(1) == nullptr);
  BOOST_TEST(b.unit.children(2) == nullptr);
  BOOST_TEST(b.unit.children(3) != nullptr);
  BOOST_TEST(b.unit.children(4) != nullptr);
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_full_membership_table_holds_a_mini_packet) {
  bcast_unit_params p;
  p.membership_entries = 2;
  bcast_bench b("bench", p);
  b.membership.set(1, {{4}});
  b.membership.set(2, {{5}});
  b.membership.set(3, {{6}});
  b.source.plans = {plan{10000, mp, 1, 0, 0, 1, 64}, plan{11000, mp, 2, 0, 0, 1, 64},
                    plan{12000, mp, 3, 0, 0, 1, 64}, plan{20000, data, 1, 1, 0, 1, 512}};
  sc_core::sc_start();

  // MP 1 parsed 16000, MP 2 18000; MP 3 stays at the head of the control queue. The data of
  // collective 1 (Rx-queue 1) is not held up: stored 26000, sent 34000.
  BOOST_TEST(b.unit.mini_packets.value == 2u);
  BOOST_TEST(b.unit.children(3) == nullptr);
  BOOST_TEST(b.unit.control_queue_packets() == 1u);
  BOOST_TEST(b.unit.membership_peak_entries.value == 2u);
  BOOST_TEST_REQUIRE(b.sink.got.size() == 1u);
  BOOST_TEST(b.sink.got[0].at_ps == 34000u);
  BOOST_TEST(b.sink.got[0].dst == 4u);
  BOOST_TEST(!b.unit.idle());
  std::ostringstream os;
  BOOST_TEST(b.unit.describe_stall(os));
  BOOST_TEST(os.str().find("control queue: 1 packets") != std::string::npos, os.str());
  BOOST_TEST(os.str().find("waits for a free Membership Table entry") != std::string::npos);
}

// Step 10: the completion signal of collective 1's last batch (2 packets, as its Mini Packet
// announced) frees its entry, and the Mini Packet of collective 2, waiting for room at the
// head of its Rx-queue, goes in the same cycle; the wait is counted.
BOOST_AUTO_TEST_CASE(bcast_unit_step_10_frees_the_entry_of_a_complete_collective) {
  bcast_unit_params p;
  p.membership_entries = 1;
  p.descriptor_threshold_bytes = 512;  // two batches of one packet
  bcast_bench b("bench", p);
  membership_recorder rec(b.unit);
  b.unit.set_listener(&rec);
  b.membership.set(1, {{4}, {5}}, 2);
  b.membership.set(2, {{6}});  // no count: kept
  b.source.plans = {plan{10000, mp, 1, 0, 0, 1, 64}, plan{12000, mp, 2, 0, 0, 1, 64},
                    plan{20000, data, 1, 1, 0, 2, 512}, plan{21000, data, 1, 1, 1, 2, 512}};
  std::vector<uint64_t> freed_at_first_batch;
  b.script = [&](bcast_bench& self) {
    // Both copies of packet 0 have left once the sink holds two: the first batch is
    // complete, the entry still held (1 of 2 packets).
    while (self.sink.got.size() < 2) wait_until(sc_core::sc_time_stamp().value() + 1000);
    freed_at_first_batch.push_back(self.unit.membership_freed.value);
    freed_at_first_batch.push_back(self.unit.children(1) != nullptr);
  };
  sc_core::sc_start();

  BOOST_TEST(freed_at_first_batch == (std::vector<uint64_t>{0, 1}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(b.sink.got.size() == 4u);
  BOOST_TEST_REQUIRE(rec.calls.size() == 2u);
  BOOST_TEST(rec.calls[1].collective == 2u);
  // Freed when the last copy left; MP 2 picked then and parsed scheduler_cycles later.
  BOOST_TEST(rec.freed.size() == 1u);
  BOOST_TEST(rec.freed.at(0).collective == 1u);
  BOOST_TEST(rec.freed.at(0).at_ps == b.sink.got.back().at_ps);
  BOOST_TEST(rec.calls[1].at_ps == b.sink.got.back().at_ps + 2000);
  BOOST_TEST(b.unit.membership_freed.value == 1u);
  BOOST_TEST(b.unit.children(1) == nullptr);
  BOOST_TEST(b.unit.children(2) != nullptr);
  // MP 2 waited at its queue's head from when it got there (after 12000) until the free.
  BOOST_TEST(b.unit.membership_stall_ps.value > 0u);
  BOOST_TEST(b.unit.membership_stall_ps.value < b.sink.got.back().at_ps - 12000);
  BOOST_TEST(b.unit.membership_peak_entries.value == 1u);
  check_drained(b);
}

// Freeing a Membership Table entry wakes the unit: a Mini Packet waiting at its Rx-queue head
// for room goes at once, without another packet arriving to wake the scheduler.
BOOST_AUTO_TEST_CASE(bcast_unit_freed_membership_entry_lets_a_waiting_mini_packet_in) {
  bcast_unit_params p;
  p.membership_entries = 2;
  bcast_bench b("bench", p);
  membership_recorder rec(b.unit);
  b.unit.set_listener(&rec);
  b.membership.set(1, {{4}});
  b.membership.set(2, {{5}});
  b.membership.set(3, {{6}});
  b.source.plans = {plan{10000, mp, 1, 0, 0, 1, 64}, plan{11000, mp, 2, 0, 0, 1, 64},
                    plan{12000, mp, 3, 0, 0, 1, 64}};
  b.script = [](bcast_bench& self) {
    wait_until(30000);
    self.unit.erase_membership(1);
  };
  sc_core::sc_start();

  // MP 3 waits from 18000 (table full); entry 1 is freed at 30000: the scheduler picks MP 3
  // then and parses it 2 cycles later.
  BOOST_TEST(b.unit.mini_packets.value == 3u);
  BOOST_TEST_REQUIRE(rec.calls.size() == 3u);
  BOOST_TEST(rec.calls[2].collective == 3u);
  BOOST_TEST(rec.calls[2].at_ps == 32000u);
  check_drained(b);
}

// BUG (hw/ragasa/bcast_unit.cpp:317, generate()): erase_membership() of a collective whose
// batch is being described makes `m_table[bt.collective]` insert an empty entry, so the
// batch is taken for childless (n == 0, line 319) and its packets are released while the
// descriptors already generated for child 4 (and the one in generation for child 5) still
// point at them; building their copies (line 391) reads the cleared batch: the process dies
// with a memory access violation. (Erasing while a batch only waits for generation drops
// its data silently and leaves a phantom empty entry.) Refusing the erase with a SystemC
// error, or finishing the copies already described, would both pass.
BOOST_AUTO_TEST_CASE(bcast_unit_erase_membership_during_generation_is_safe) {
  bcast_bench b("bench", bcast_unit_params{});
  b.membership.set(1, {{4}, {5}, {6}});
  b.source.plans = {plan{10000, mp, 1, 0, 0, 1, 64}, plan{20000, data, 1, 1, 0, 1, 512}};
  b.script = [](bcast_bench& self) {
    wait_until(29000);  // descriptor for 4 generated at 28000, for 5 in generation
    self.unit.erase_membership(1);
  };
  // The entry is still needed by the descriptors of the stored packet: the erase is refused.
  std::string refused;
  try {
    sc_core::sc_start();
  } catch (const sc_core::sc_report& r) {
    refused = r.get_msg();
  }
  BOOST_TEST(refused.find("still has data in Working Memory") != std::string::npos);
  BOOST_TEST_REQUIRE(b.unit.children(1) != nullptr);
  BOOST_TEST(b.unit.children(1)->size() == 3u);
}
