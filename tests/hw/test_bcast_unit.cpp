// hw/ragasa: the Bcast Unit alone, between a scripted source (the router's port into the
// unit) and a recording sink (the router's port out of it). Default timing: 1 GHz clock
// (1000 ps), RI 4, scheduler 2, descriptor 2, dispatch 2, send 4 cycles; the sink's link is
// busy 100 ps per byte (51200 ps for 512 B).
#include "hw/ragasa/bcast_unit.h"

#include <boost/test/unit_test.hpp>

#include <systemc>
#include "bcast_unit_harness.h"

#include <sstream>
#include <vector>

using namespace bcastsim;
using hw::ragasa::bcast_unit_params;
using test::bcast_bench;
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
  // The copy for child 9 is built by 38000 and waits for the link: 34000 + 51200.
  BOOST_TEST_REQUIRE(b.sink.got.size() == 2u);
  BOOST_TEST(b.sink.got[0].at_ps == 34000u);
  BOOST_TEST(b.sink.got[0].dst == 7u);
  BOOST_TEST(b.sink.got[1].at_ps == 85200u);
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
    // Memory is reserved when the scheduler picks the packet (24000); sends at 34000, 85200
    // and (built 89200, link free) 136400.
    for (uint64_t t : {23999u, 24001u, 85201u, 136399u, 136401u}) {
      wait_until(t);
      used.push_back(self.unit.working_memory_used_bytes());
      used.push_back(self.unit.working_memory_used_bytes(5));
    }
  };
  sc_core::sc_start();

  BOOST_TEST(used == (std::vector<uint64_t>{0, 0, 512, 512, 512, 512, 512, 512, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(b.sink.got.size() == 3u);
  BOOST_TEST(b.sink.got[2].at_ps == 136400u);
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
  // Sends: 24000, then each waits for the link (51200 ps per packet).
  BOOST_TEST_REQUIRE(b.sink.got.size() == 3u);
  const uint64_t sent[] = {24000, 75200, 126400};
  for (uint32_t i = 0; i < 3; ++i) {
    BOOST_TEST(b.sink.got[i].at_ps == sent[i]);
    BOOST_TEST(b.sink.got[i].index == i);
    BOOST_TEST(b.sink.got[i].dst == 4u);
  }
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_collectives_in_flight_do_not_mix) {
  bcast_unit_params p;
  p.working_memory_bytes = 2048;
  p.descriptor_threshold_bytes = 1024;
  bcast_bench b("bench", p);
  b.membership.set(1, {{10}, {11}});
  b.membership.set(2, {{20}});
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
  BOOST_TEST(b.unit.working_memory_peak_bytes.value <= 2048u);
  check_drained(b);
}

BOOST_AUTO_TEST_CASE(bcast_unit_one_packet_of_memory_drains) {
  bcast_unit_params p;
  p.working_memory_bytes = 512;  // one packet
  p.rx_queue_packets = 2;
  bcast_bench b("bench", p);
  b.membership.set(6, {{2}, {3}});
  b.source.plans = {plan{1000, mp, 6, 0, 0, 1, 64}};
  for (uint32_t i = 0; i < 8; ++i)
    b.source.plans.push_back(plan{10000 + 1000u * i, data, 6, 4, i, 8, 512});
  sc_core::sc_start();

  // The threshold (4096 B) never fits: a head waiting for memory closes the open chunk.
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
