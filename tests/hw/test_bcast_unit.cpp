// hw/ragasa: the Bcast Unit alone, between a scripted source (the router's port into the
// unit) and a recording sink (the router's port out of it). Default timing: 1 GHz clock
// (1000 ps), RI 4, scheduler 2, descriptor 2, dispatch 2, send 4 cycles; the sink's link is
// busy 100 ps per byte (51200 ps for 512 B). The Send Interface is clocked: after a copy is
// injected at t the link counts as free at the first clock edge at or after t + 51200, and a
// returned credit counts from the first edge at or after its arrival. Copies are injected on
// edges, so back-to-back 512 B copies leave 52000 ps apart.
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

// Arrivals at the sink for `dst`, in order.
std::vector<test::bcast_sink::arrival> to(const bcast_bench& b, network::terminal_id dst) {
  std::vector<test::bcast_sink::arrival> r;
  for (const auto& a : b.sink.got)
    if (a.dst == dst) r.push_back(a);
  return r;
}

void check_drained(const bcast_bench& b) {
  BOOST_TEST(b.unit.idle());
  BOOST_TEST(b.unit.working_memory_used_bytes() == 0u);
  BOOST_TEST(b.pool.in_use() == 0u);
  std::ostringstream os;
  BOOST_TEST(!b.unit.describe_stall(os));
}

}  // namespace

BOOST_AUTO_TEST_CASE(bcast_unit_mini_packet_fills_membership_table) {
  bcast_bench b("bench", bcast_unit_params{});
  b.membership.set(3, {{4}, {5}, {6}});
  b.membership.set(8, {});
  b.source.plans = {plan{10000, mp, 3, 0, 0, 1, 64}, plan{11000, mp, 8, 0, 0, 1, 64},
                    plan{20000, data, 8, 1, 0, 1, 512}};
  bool before = true;
  std::vector<network::terminal_id> after;
  b.script = [&](bcast_bench& self) {
    wait_until(15999);  // RI 10000 -> 14000, scheduler 14000 -> 16000
    before = self.unit.children(3) == nullptr;
    wait_until(16001);
    if (const auto* kids = self.unit.children(3))
      for (const auto& c : *kids) after.push_back(c.dst);
  };
  sc_core::sc_start();

  BOOST_TEST(before);
  BOOST_TEST(after == (std::vector<network::terminal_id>{4, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(b.unit.children(8) != nullptr);
  BOOST_TEST(b.unit.children(8)->empty());
  BOOST_TEST(b.unit.mini_packets.value == 2u);
  // Each packet's RI buffer space goes back when it leaves the RI for its Rx-queue.
  BOOST_TEST_REQUIRE(b.source.credits.size() == 3u);
  BOOST_TEST(b.source.credits[0].at_ps == 14000u);
  BOOST_TEST(b.source.credits[1].at_ps == 15000u);
  BOOST_TEST(b.source.credits[2].at_ps == 24000u);
  BOOST_TEST(b.source.credits[2].bytes == 512u);
  // A collective without children: its data is stored and released, nothing is sent.
  BOOST_TEST(b.sink.got.empty());
  BOOST_TEST(b.unit.working_memory_peak_bytes.value == 512u);
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_mini_packet_without_membership_is_an_error) {
  bcast_bench b("bench", bcast_unit_params{});
  b.source.plans = {plan{10000, mp, 3, 0, 0, 1, 64}};
  BOOST_CHECK_THROW(sc_core::sc_start(), sc_core::sc_report);
}

BOOST_AUTO_TEST_CASE(bcast_unit_one_packet_latency) {
  bcast_bench b("bench", bcast_unit_params{});
  b.membership.set(5, {{7}, {9}});
  b.source.plans = {plan{10000, mp, 5, 0, 0, 1, 64}, plan{20000, data, 5, 1, 0, 1, 512}};
  sc_core::sc_start();

  // Tail in at 20000; RI +4 cycles = 24000; scheduler +2 = 26000 (stored, message complete);
  // descriptors +2 = 28000; dispatch child 7 +2 = 30000 (child 9: 32000); send +4 = 34000.
  // The copy for child 9 is built by 38000 and waits for the link: 34000 + 51200 = 85200,
  // free at the next clock edge, 86000.
  BOOST_TEST_REQUIRE(b.sink.got.size() == 2u);
  BOOST_TEST(b.sink.got[0].at_ps == 34000u);
  BOOST_TEST(b.sink.got[0].dst == 7u);
  BOOST_TEST(b.sink.got[1].at_ps == 86000u);
  BOOST_TEST(b.sink.got[1].dst == 9u);
  for (const auto& a : b.sink.got) {
    BOOST_TEST(a.collective == 5u);
    BOOST_TEST(a.msg_id == 1u);
    BOOST_TEST(a.size == 512u);
  }
  BOOST_TEST(b.unit.packets_in.value == 2u);
  BOOST_TEST(b.unit.packets_out.value == 2u);
  BOOST_TEST(b.unit.descriptors.value == 2u);
  BOOST_TEST(b.unit.bytes_replicated.value == 1024u);
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_memory_released_when_last_child_sent) {
  bcast_bench b("bench", bcast_unit_params{});
  b.membership.set(5, {{4}, {5}, {6}});
  b.source.plans = {plan{10000, mp, 5, 0, 0, 1, 64}, plan{20000, data, 5, 1, 0, 1, 512}};
  std::vector<uint64_t> used;
  b.script = [&](bcast_bench& self) {
    // Memory is reserved when the scheduler picks the packet (24000); sends at 34000, 86000
    // (34000 + 51200 = 85200, up to its edge) and, built 86000 -> 90000, when the link frees:
    // 86000 + 51200 = 137200, up to 138000.
    for (uint64_t t : {23999u, 24001u, 86001u, 137999u, 138001u}) {
      wait_until(t);
      used.push_back(self.unit.working_memory_used_bytes());
      used.push_back(self.unit.working_memory_used_bytes(5));
    }
  };
  sc_core::sc_start();

  BOOST_TEST(used == (std::vector<uint64_t>{0, 0, 512, 512, 512, 512, 512, 512, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(b.sink.got.size() == 3u);
  BOOST_TEST(b.sink.got[2].at_ps == 138000u);
  BOOST_TEST(b.sink.got[2].dst == 6u);
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_data_waits_for_working_memory) {
  bcast_unit_params p;
  p.working_memory_bytes = 1024;
  p.descriptor_threshold_bytes = 512;
  bcast_bench b("bench", p);
  b.membership.set(1, {{4}});
  b.source.plans = {plan{1000, mp, 1, 0, 0, 1, 64}, plan{10000, data, 1, 1, 0, 3, 512},
                    plan{11000, data, 1, 1, 1, 3, 512}, plan{12000, data, 1, 1, 2, 3, 512}};
  std::vector<uint32_t> queued;
  b.script = [&](bcast_bench& self) {
    for (uint64_t t : {23999u, 24001u}) {
      wait_until(t);
      queued.push_back(self.unit.rx_queue_packets(1));
    }
  };
  sc_core::sc_start();

  // Packets 0 and 1 fill the memory (stored 16000, 18000). Packet 2 is in its Rx-queue by
  // 16000 (its RI credit goes back then) and waits from 18000 until packet 0 is sent to
  // the only child at 24000; it is stored at 26000.
  BOOST_TEST(queued == (std::vector<uint32_t>{1, 0}), boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(b.source.credits.size() == 4u);
  const uint64_t credit[] = {5000, 14000, 15000, 16000};
  for (size_t i = 0; i < 4; ++i) BOOST_TEST(b.source.credits[i].at_ps == credit[i]);
  BOOST_TEST(b.unit.memory_stall_ps.value == 6000u);
  BOOST_TEST(b.unit.working_memory_peak_bytes.value == 1024u);
  // Sends: 24000, then each waits for the link: 51200 ps rounded up to the next edge, 52000
  // ps per packet (24000 + 51200 = 75200 -> 76000; 76000 + 51200 = 127200 -> 128000).
  BOOST_TEST_REQUIRE(b.sink.got.size() == 3u);
  const uint64_t sent[] = {24000, 76000, 128000};
  for (uint32_t i = 0; i < 3; ++i) {
    BOOST_TEST(b.sink.got[i].at_ps == sent[i]);
    BOOST_TEST(b.sink.got[i].index == i);
    BOOST_TEST(b.sink.got[i].dst == 4u);
  }
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_collectives_in_flight_do_not_mix) {
  bcast_unit_params p;
  p.working_memory_bytes = 4096;  // each Mini Packet reserves 4 x 2 packets, all of them 4
  p.descriptor_threshold_bytes = 1024;
  bcast_bench b("bench", p);
  b.membership.set(1, {{10}, {11}}, 4);
  b.membership.set(2, {{20}}, 4);
  b.source.plans = {plan{1000, mp, 1, 0, 0, 1, 64}, plan{2000, mp, 2, 0, 0, 1, 64}};
  for (uint32_t i = 0; i < 4; ++i) {  // interleaved: c1 i, c2 i
    b.source.plans.push_back(plan{10000 + 2000u * i, data, 1, 7, i, 4, 512});
    b.source.plans.push_back(plan{11000 + 2000u * i, data, 2, 7, i, 4, 512});
  }
  sc_core::sc_start();

  BOOST_TEST(b.sink.got.size() == 12u);
  const std::pair<network::terminal_id, uint32_t> children[] = {{10, 1}, {11, 1}, {20, 2}};
  for (const auto& [dst, collective] : children) {
    BOOST_TEST_CONTEXT("child " << dst) {
      const auto got = to(b, dst);
      BOOST_TEST_REQUIRE(got.size() == 4u);
      for (uint32_t i = 0; i < 4; ++i) {
        BOOST_TEST(got[i].collective == collective);
        BOOST_TEST(got[i].index == i);
      }
    }
  }
  BOOST_TEST(b.unit.working_memory_used_bytes(1) == 0u);
  BOOST_TEST(b.unit.working_memory_used_bytes(2) == 0u);
  BOOST_TEST(b.unit.working_memory_peak_bytes.value <= 4096u);  // two reservations
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_one_packet_of_memory_drains) {
  bcast_unit_params p;
  p.working_memory_bytes = 512;        // one packet
  p.descriptor_threshold_bytes = 512;  // chunks of one packet: the memory holds one
  p.rx_queue_packets = 2;
  p.input_buffer_bytes = 16384;  // the scripted source sends all 8 packets without credits
  bcast_bench b("bench", p);
  b.membership.set(6, {{2}, {3}});
  b.source.plans = {plan{1000, mp, 6, 0, 0, 1, 64}};
  for (uint32_t i = 0; i < 8; ++i)
    b.source.plans.push_back(plan{10000 + 1000u * i, data, 6, 4, i, 8, 512});
  sc_core::sc_start();

  // Each packet is a chunk: stored, sent to both children, released; the next waits.
  BOOST_TEST(b.sink.got.size() == 16u);
  for (network::terminal_id dst : {2u, 3u}) {
    const auto got = to(b, dst);
    BOOST_TEST_REQUIRE(got.size() == 8u);
    for (uint32_t i = 0; i < 8; ++i) BOOST_TEST(got[i].index == i);
  }
  BOOST_TEST(b.source.credits.size() == 9u);
  BOOST_TEST(b.unit.working_memory_peak_bytes.value == 512u);
  BOOST_TEST(b.unit.rx_queue_peak_packets.value == 2u);
  BOOST_TEST(b.unit.memory_stall_ps.value > 0u);
  BOOST_TEST(b.unit.ri_blocked_ps.value > 0u);
  check_drained(b);
}

// A chunk larger than Working Memory never closes (chunks do not close early when memory is
// short: the testbench refuses such parameters); the unit holds and says why.
BOOST_AUTO_TEST_CASE(bcast_unit_chunk_larger_than_memory_never_closes) {
  bcast_unit_params p;
  p.working_memory_bytes = 1024;  // two packets
  p.descriptor_threshold_bytes = 4096;
  p.input_buffer_bytes = 16384;
  bcast_bench b("bench", p);
  b.membership.set(6, {{2}, {3}});
  b.source.plans = {plan{1000, mp, 6, 0, 0, 1, 64}};
  for (uint32_t i = 0; i < 8; ++i)
    b.source.plans.push_back(plan{10000 + 1000u * i, data, 6, 4, i, 8, 512});
  sc_core::sc_start();
  BOOST_TEST(b.sink.got.empty());
  BOOST_TEST(b.unit.working_memory_used_bytes() == 1024u);
  BOOST_TEST(!b.unit.idle());
  std::ostringstream os;
  BOOST_TEST(b.unit.describe_stall(os));
  BOOST_TEST(
      os.str().find("waits for its broadcast's reserved Working Memory") != std::string::npos,
      os.str());
  BOOST_TEST(os.str().find("2 packets in an open chunk, 1024 B stored of 1024 B reserved") !=
                 std::string::npos,
             os.str());
}

namespace {

// Arrivals at the sink as "dst:index", in order.
std::vector<std::string> order(const bcast_bench& b) {
  std::vector<std::string> r;
  for (const auto& a : b.sink.got)
    r.push_back(std::to_string(a.dst) + ":" + std::to_string(a.index));
  return r;
}

std::vector<uint64_t> times(const bcast_bench& b) {
  std::vector<uint64_t> r;
  for (const auto& a : b.sink.got) r.push_back(a.at_ps);
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(bcast_unit_full_work_queue_holds_descriptor_generation) {
  bcast_unit_params p;
  p.work_queue_descriptors = 1;
  p.send_queue_descriptors = 1;
  p.descriptor_cycles = 6;
  p.output_buffer_bytes = 512;  // one copy's credits
  bcast_bench b("bench", p);
  b.sink.ps_per_byte = 1;                // 512 ps a copy: the link never limits
  b.sink.credits_not_before_ps = 60000;  // the first copy's credit comes back late
  b.membership.set(5, {{11}, {12}, {13}, {14}, {15}, {16}});
  b.source.plans = {plan{10000, mp, 5, 0, 0, 1, 64}, plan{20000, data, 5, 1, 0, 1, 512}};
  std::vector<uint64_t> generated;
  b.script = [&](bcast_bench& self) {
    for (uint64_t t : {49999u, 50001u, 56001u, 65999u, 66001u}) {
      wait_until(t);
      generated.push_back(self.unit.descriptors.value);
    }
  };
  sc_core::sc_start();

  // Stored at 26000; a descriptor takes 6 cycles, dispatch 2, building a copy 4 (a 1-packet
  // descriptor leaves the SPS when its copy starts building).
  //   c11: generated 32000, dispatched 34000, built 38000, sent 38000 (credit back at 60000)
  //   c12: generated 38000, dispatched 40000, built 44000, waits for the credit: sent 60000
  //   c13: generated 44000, dispatched 46000, held in the SPS while the SI holds c12
  //   c14: generated 50000 into the Work Queue, which the full SPS does not drain; c15 cannot
  //        be generated (Work Queue full) until c14 is dispatched at 60000: 60000 -> 66000
  //   c13 built 60000 -> 64000, sent 64000; c14 dispatched 62000, built 64000 -> 68000
  //   c15 generated 66000, dispatched 68000, built 68000 -> 72000; c16 generated 72000,
  //   dispatched 74000, built 78000.
  // With room in the Work Queue c15 and c16 would be generated at 56000 and 62000 and the
  // last copy sent at 76000.
  BOOST_TEST(generated == (std::vector<uint64_t>{3, 4, 4, 4, 5}), boost::test_tools::per_element());
  BOOST_TEST(times(b) == (std::vector<uint64_t>{38000, 60000, 64000, 68000, 72000, 78000}),
             boost::test_tools::per_element());
  const std::vector<network::terminal_id> dsts = {11, 12, 13, 14, 15, 16};
  for (size_t i = 0; i < dsts.size() && i < b.sink.got.size(); ++i)
    BOOST_TEST(b.sink.got[i].dst == dsts[i]);
  BOOST_TEST(b.unit.work_queue_peak_descriptors.value == 1u);
  BOOST_TEST(b.unit.send_queue_peak_descriptors.value == 1u);
  BOOST_TEST(b.unit.descriptors.value == 6u);
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_send_queue_capacity_limits_dispatch) {
  bcast_unit_params p;
  p.send_queue_descriptors = 1;
  bcast_bench b("bench", p);
  b.membership.set(5, {{1}, {2}, {3}});
  b.source.plans = {plan{10000, mp, 5, 0, 0, 1, 64}, plan{20000, data, 5, 1, 0, 2, 512},
                    plan{21000, data, 5, 1, 1, 2, 512}};
  std::vector<uint64_t> generated;
  b.script = [&](bcast_bench& self) {
    wait_until(35000);  // c2 and c3 generated (32000, 34000), only c1 dispatched
    generated.push_back(self.unit.descriptors.value);
  };
  sc_core::sc_start();

  // p0 stored 26000, p1 28000: the batch closes. Descriptors 30000, 32000, 34000.
  // One dispatched descriptor at a time: c1 dispatched 32000, built 32000 -> 36000 (p0) and
  // 36000 -> 40000 (p1, it leaves the SPS); c2 is dispatched 36000 -> 38000, c3 only when
  // c2's last packet starts building. Copies leave one per link time, 51200 ps up to the
  // next edge (52000 ps): 36000, 88000, 140000, ... child by child, not interleaved.
  BOOST_TEST(generated == (std::vector<uint64_t>{3}), boost::test_tools::per_element());
  BOOST_TEST(order(b) == (std::vector<std::string>{"1:0", "1:1", "2:0", "2:1", "3:0", "3:1"}),
             boost::test_tools::per_element());
  BOOST_TEST(times(b) == (std::vector<uint64_t>{36000, 88000, 140000, 192000, 244000, 296000}),
             boost::test_tools::per_element());
  BOOST_TEST(b.unit.send_queue_peak_descriptors.value == 1u);
  BOOST_TEST(b.unit.work_queue_peak_descriptors.value == 2u);  // c2 and c3 from 34000
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_send_scheduler_interleaves_packets_across_children) {
  bcast_bench b("bench", bcast_unit_params{});
  b.membership.set(5, {{1}, {2}, {3}});
  b.source.plans = {plan{10000, mp, 5, 0, 0, 1, 64}, plan{20000, data, 5, 1, 0, 2, 512},
                    plan{21000, data, 5, 1, 1, 2, 512}};
  std::vector<uint64_t> used;
  b.script = [&](bcast_bench& self) {
    for (uint64_t t : {139999u, 140001u, 295999u, 296001u}) {
      wait_until(t);
      used.push_back(self.unit.working_memory_used_bytes());
    }
  };
  sc_core::sc_start();

  // The batch {p0, p1} closes at 28000; descriptors 30000, 32000, 34000, dispatched 32000,
  // 34000, 36000. The SPS serves them round-robin, one packet each: c1 p0 built 32000 ->
  // 36000 and sent; c2 p0, c3 p0, then c1 p1, c2 p1, c3 p1, one per link time (51200 ps up
  // to the next edge: 52000 ps).
  BOOST_TEST(order(b) == (std::vector<std::string>{"1:0", "2:0", "3:0", "1:1", "2:1", "3:1"}),
             boost::test_tools::per_element());
  BOOST_TEST(times(b) == (std::vector<uint64_t>{36000, 88000, 140000, 192000, 244000, 296000}),
             boost::test_tools::per_element());
  // Step 10: the batch's memory goes with its last copy (296000), not p0's with its own
  // (140000); the Membership Table counts the batch's 2 packets.
  BOOST_TEST(used == (std::vector<uint64_t>{1024, 1024, 1024, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(b.unit.send_queue_peak_descriptors.value == 3u);
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_child_gets_batches_in_order) {
  bcast_unit_params p;
  p.descriptor_threshold_bytes = 1024;  // two batches of two packets
  bcast_bench b("bench", p);
  b.membership.set(5, {{1}, {2}});
  b.source.plans = {plan{10000, mp, 5, 0, 0, 1, 64}};
  for (uint32_t i = 0; i < 4; ++i)
    b.source.plans.push_back(plan{20000 + 1000u * i, data, 5, 1, i, 4, 512});
  sc_core::sc_start();

  // Stored 26000, 28000 (batch 0 closes), 30000, 32000 (batch 1 closes). Descriptors b0c1
  // 30000, b0c2 32000, b1c1 34000, b1c2 36000; b0c1 and b0c2 dispatched 32000, 34000. A
  // child has one connection: b1c1 waits at the Work Queue's head from 34000 until b0c1's
  // last packet starts building (88000), b1c2 behind it, then from 90000 until b0c2's
  // (140000): 54000 + 50000 ps of set-up waits. So each child gets batch 0 before batch 1;
  // one copy per 52000 ps (the 51200 ps link time up to the next edge).
  BOOST_TEST(order(b) ==
                 (std::vector<std::string>{"1:0", "2:0", "1:1", "2:1", "1:2", "2:2", "1:3", "2:3"}),
             boost::test_tools::per_element());
  BOOST_TEST(times(b) == (std::vector<uint64_t>{36000, 88000, 140000, 192000, 244000, 296000,
                                                348000, 400000}),
             boost::test_tools::per_element());
  BOOST_TEST(b.unit.send_queue_peak_descriptors.value == 2u);
  BOOST_TEST(b.unit.connection_wait_ps.value == 104000u);
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_router_child_copy_carries_unit_router) {
  bcast_bench b("bench", bcast_unit_params{});
  // Child 4 is a terminal of this router; the other is the unit of router 2, reached by
  // routing toward its terminal 7.
  b.membership.set(5, {{4}, {7, 2}});
  b.source.plans = {plan{10000, mp, 5, 0, 0, 1, 64}, plan{20000, data, 5, 1, 0, 1, 512}};
  sc_core::sc_start();

  BOOST_TEST_REQUIRE(b.unit.children(5) != nullptr);
  BOOST_TEST_REQUIRE(b.unit.children(5)->size() == 2u);
  BOOST_TEST(b.unit.children(5)->at(1).dst == 7u);
  BOOST_TEST(b.unit.children(5)->at(1).unit_router == 2u);
  // Timing as bcast_unit_one_packet_latency: 34000, then the link is free at 86000.
  BOOST_TEST_REQUIRE(b.sink.got.size() == 2u);
  BOOST_TEST(b.sink.got[0].at_ps == 34000u);
  BOOST_TEST(b.sink.got[0].dst == 4u);
  BOOST_TEST(b.sink.got[0].unit_router == network::invalid_id);
  BOOST_TEST(b.sink.got[1].at_ps == 86000u);
  BOOST_TEST(b.sink.got[1].dst == 7u);
  BOOST_TEST(b.sink.got[1].unit_router == 2u);
  for (const auto& a : b.sink.got) {
    BOOST_TEST(a.vc == 0u);
    BOOST_TEST(a.collective == 5u);
  }
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_listener_told_once_per_mini_packet_at_parse) {
  bcast_bench b("bench", bcast_unit_params{});
  membership_recorder rec(b.unit);
  b.unit.set_listener(&rec);
  b.membership.set(3, {{4}, {5}, {6}});
  b.membership.set(8, {});
  b.source.plans = {plan{10000, mp, 3, 0, 0, 1, 64}, plan{11000, mp, 8, 0, 0, 1, 64},
                    plan{20000, data, 8, 1, 0, 1, 512}, plan{30000, mp, 3, 0, 0, 1, 64}};
  sc_core::sc_start();

  // MP 3: RI 10000 -> 14000, parsed 16000. MP 8: RI 15000, the scheduler is busy until
  // 16000, parsed 18000. The data packet tells nobody. MP 3 again: 34000 -> 36000.
  BOOST_TEST_REQUIRE(rec.calls.size() == 3u);
  const uint64_t at[] = {16000, 18000, 36000};
  const uint32_t id[] = {3, 8, 3};
  const size_t kids[] = {3, 0, 3};  // the table already holds the list when told
  for (size_t i = 0; i < 3; ++i) {
    BOOST_TEST(rec.calls[i].at_ps == at[i]);
    BOOST_TEST(rec.calls[i].collective == id[i]);
    BOOST_TEST(rec.calls[i].children == kids[i]);
  }
  BOOST_TEST(b.unit.mini_packets.value == 3u);
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_rx_hol_blocked_behind_memory_wait) {
  bcast_unit_params p;
  p.working_memory_bytes = 1024;
  p.descriptor_threshold_bytes = 512;
  bcast_bench b("bench", p);
  b.membership.set(1, {{4}});
  b.source.plans = {plan{1000, mp, 1, 0, 0, 1, 64}, plan{10000, data, 1, 1, 0, 4, 512},
                    plan{11000, data, 1, 1, 1, 4, 512}, plan{12000, data, 1, 1, 2, 4, 512},
                    plan{15000, data, 1, 1, 3, 4, 512}};
  sc_core::sc_start();

  // p0, p1 stored 16000, 18000 fill the memory. p2 heads Rx-queue 1 waiting for memory
  // from 18000; p3 joins it behind at 19000 (RI 15000 -> 19000). p0 is sent at 24000: p2
  // goes (stall 6000; p3 was blocked behind it 5000) and p3 becomes a head waiting alone
  // from 26000 until p1 is sent when the link frees, 24000 + 51200 = 75200 up to its edge,
  // 76000 (stall 50000, nobody behind).
  BOOST_TEST(b.unit.rx_hol_blocked_ps.value == 5000u);
  BOOST_TEST(b.unit.memory_stall_ps.value == 6000u + 50000u);
  BOOST_TEST(b.unit.ri_blocked_ps.value == 0u);
  BOOST_TEST(b.unit.rx_queue_peak_packets.value == 2u);
  // p2 stored 26000, built 76000 -> 80000, sent when the link frees: 76000 + 51200 = 127200,
  // up to 128000; p3 picked at 76000, stored 78000, sent 128000 + 51200 = 179200 -> 180000.
  BOOST_TEST(times(b) == (std::vector<uint64_t>{24000, 76000, 128000, 180000}),
             boost::test_tools::per_element());
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_ri_blocked_by_full_rx_queue) {
  bcast_unit_params p;
  p.working_memory_bytes = 512;  // one packet
  p.descriptor_threshold_bytes = 512;
  p.rx_queue_packets = 1;
  bcast_bench b("bench", p);
  b.membership.set(1, {{4}});
  b.source.plans = {plan{1000, mp, 1, 0, 0, 1, 64}, plan{10000, data, 1, 1, 0, 3, 512},
                    plan{11000, data, 1, 1, 1, 3, 512}, plan{13000, data, 1, 1, 2, 3, 512}};
  std::vector<uint32_t> queued;
  b.script = [&](bcast_bench& self) {
    for (uint64_t t : {16999u, 17001u, 23999u, 24001u}) {
      wait_until(t);
      queued.push_back(self.unit.rx_queue_packets(1));
    }
  };
  sc_core::sc_start();

  // p0 stored 16000; p1 enters Rx-queue 1 at 15000 and waits there for memory from 16000.
  // p2 leaves the RI's assembly at 17000 and finds the one-packet Rx-queue full: the RI is
  // blocked until p0 is sent at 24000 and p1 is picked, then p2 moves (7000 ps blocked) and
  // its buffer credit goes back at once. p1 waited 8000 ps for memory; p2 waits from 26000
  // until p1 is sent when the link frees, 24000 + 51200 = 75200 up to 76000 (50000 ps).
  BOOST_TEST(b.unit.ri_blocked_ps.value == 7000u);
  BOOST_TEST(b.unit.memory_stall_ps.value == 8000u + 50000u);
  BOOST_TEST(b.unit.rx_hol_blocked_ps.value == 0u);
  BOOST_TEST(queued == (std::vector<uint32_t>{1, 1, 1, 1}), boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(b.source.credits.size() == 4u);
  const uint64_t credit[] = {5000, 14000, 15000, 24000};
  for (size_t i = 0; i < 4; ++i) BOOST_TEST(b.source.credits[i].at_ps == credit[i]);
  // p2 is stored 78000 and built by 86000; sent 76000 + 51200 = 127200 -> 128000.
  BOOST_TEST(times(b) == (std::vector<uint64_t>{24000, 76000, 128000}),
             boost::test_tools::per_element());
  check_drained(b);
}
