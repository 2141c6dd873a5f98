// hw/router with router.model: output_queued (CODES's dragonfly router, at packet
// granularity): timing and credits by hand, no head-of-line blocking where the input-queued
// model has it, parked packets holding their credit and keeping their order, the highest VC
// first, and the stall report. One router of a small dragonfly with a scripted peer on every
// port (router_port_harness.h).
#include "hw/router/router.h"
#include "network/dragonfly.h"

#include <boost/test/unit_test.hpp>

#include <systemc>
#include "router_port_harness.h"

#include <sstream>
#include <string>
#include <vector>

using namespace bcastsim;
using sc_core::sc_time;

// Router 0 of dragonfly g=3 a=2 p=1 h=1 alone: port 0 terminal 0, port 1 local to router 1
// (terminal 1, and group 2 behind it), port 2 global to router 2 (group 1: terminals 2, 3).
// 1 GHz clock, a 10-cycle pipeline: a packet in at 1000 is routed at 11000. Every peer's link
// takes 100 ps per byte (51200 ps for 512 B). Buffers: terminal 4096 B, local and global
// 1024 B per VC (two 512-B packets).
namespace {

using test::port_peer;
using test::router_bench;
using test::wait_until;
using spec = port_peer::packet_spec;

constexpr uint64_t k_never = 1'000'000'000;  // a credit delay past k_stop
constexpr uint64_t k_stop = 600'000;

hw::router_params router_params_for(const std::string& model) {
  hw::router_params rp;
  rp.vc_buffer_bytes = {4096, 1024, 1024};
  rp.vcs = 2;
  rp.delay_cycles = 10;
  rp.model = model;
  return rp;
}

network::route_state hops(uint8_t local, uint8_t global) {
  network::route_state r;
  r.local_hops = local;
  r.global_hops = global;
  return r;
}

// Terminal 0 sends A, B, C to terminal 1 (port 1, whose credits never come back) and D to
// terminal 2 (port 2), all on VC 0 at 1000.
void hol_script(router_bench& self) {
  self.peers[1]->credit_delay_ps = k_never;
  wait_until(1000);
  for (uint32_t tag = 1; tag <= 3; ++tag)
    self.peers[0]->send(spec{1, network::invalid_id, 0, 512, tag, {}});
  self.peers[0]->send(spec{2, network::invalid_id, 0, 512, 4, {}});
}

}  // namespace

BOOST_AUTO_TEST_CASE(output_queued_credit_goes_upstream_on_acceptance) {
  // One packet, in at 1000 with its tail in at 40000: routed at 11000 and sent at once (as
  // the input-queued model does, next case), but its input credit returns when the tail is in
  // and through the pipeline, 40000 + 10000, not when the tail has left (11000 + 51200).
  router_bench b("bench", test::k_single_router, 0, router_params_for("output_queued"));
  b.script = [](router_bench& self) {
    wait_until(1000);
    self.peers[0]->send(spec{1, network::invalid_id, 0, 512, 1, {}, 40000});
  };
  sc_core::sc_start();
  const auto& got = b.peers[1]->got;
  BOOST_TEST_REQUIRE(got.size() == 1u);
  BOOST_TEST(got[0].at_ps == 11000u);
  BOOST_TEST(got[0].routers == 1u);
  BOOST_TEST_REQUIRE(b.peers[0]->credits.size() == 1u);
  BOOST_TEST(b.peers[0]->credits[0].at_ps == 50000u);
  BOOST_TEST(b.rt.unreturned_credit_bytes(1) == 0u);
  BOOST_TEST(b.rt.buffered_packets() == 0u);
  BOOST_TEST(b.rt.packets.value == 1u);
}

BOOST_AUTO_TEST_CASE(input_queued_credit_goes_upstream_when_the_tail_leaves) {
  router_bench b("bench", test::k_single_router, 0, router_params_for("input_queued"));
  b.script = [](router_bench& self) {
    wait_until(1000);
    self.peers[0]->send(spec{1, network::invalid_id, 0, 512, 1, {}, 40000});
  };
  sc_core::sc_start();
  BOOST_TEST_REQUIRE(b.peers[1]->got.size() == 1u);
  BOOST_TEST(b.peers[1]->got[0].at_ps == 11000u);
  BOOST_TEST_REQUIRE(b.peers[0]->credits.size() == 1u);
  BOOST_TEST(b.peers[0]->credits[0].at_ps == 62200u);
}

BOOST_AUTO_TEST_CASE(output_queued_has_no_head_of_line_blocking) {
  // A and B take port 1's 1024 credit bytes (A sent at 11000, B queued behind it); C finds no
  // credits and is parked, holding its input credit; D, behind C in the same input VC, goes
  // out of port 2 at 11000.
  router_bench b("bench", test::k_single_router, 0, router_params_for("output_queued"));
  b.script = hol_script;
  sc_core::sc_start(sc_time::from_value(k_stop));
  const auto& one = b.peers[1]->got;
  BOOST_TEST_REQUIRE(one.size() == 2u);
  BOOST_TEST(one[0].tag == 1u);
  BOOST_TEST(one[0].at_ps == 11000u);
  BOOST_TEST(one[1].tag == 2u);
  BOOST_TEST(one[1].at_ps == 62200u);  // after A's 51200 ps
  BOOST_TEST_REQUIRE(b.peers[2]->got.size() == 1u);
  BOOST_TEST(b.peers[2]->got[0].tag == 4u);
  BOOST_TEST(b.peers[2]->got[0].at_ps == 11000u);
  // Credits upstream for A, B and D at acceptance; none for C.
  BOOST_TEST(b.peers[0]->credits.size() == 3u);
  for (const auto& c : b.peers[0]->credits) BOOST_TEST(c.at_ps == 11000u);
  BOOST_TEST(b.rt.buffered_packets() == 1u);
  std::ostringstream os;
  BOOST_TEST(b.rt.describe_stall(os, 10));
  BOOST_TEST(os.str().find("output port 1 (local) VC 0: 0 packets queued, 1 parked for want of "
                           "credits (0/1024 credit bytes); first parked") != std::string::npos,
             os.str());
  BOOST_TEST(os.str().find("holds input port 0 VC 0") != std::string::npos, os.str());
}

BOOST_AUTO_TEST_CASE(input_queued_blocks_behind_the_head) {
  // The same script on the input-queued router: D waits behind C in input VC 0 until C's
  // credits come back, which they never do.
  router_bench b("bench", test::k_single_router, 0, router_params_for("input_queued"));
  b.script = hol_script;
  sc_core::sc_start(sc_time::from_value(k_stop));
  BOOST_TEST(b.peers[1]->got.size() == 2u);
  BOOST_TEST(b.peers[2]->got.empty());
  BOOST_TEST(b.rt.buffered_packets() == 2u);
}

BOOST_AUTO_TEST_CASE(output_queued_parked_packets_keep_their_order) {
  // Port 1's credits come back 100000 ps after each tail has left. A and B take them; C and E
  // (from two inputs) are parked in arrival order, and so leave: C when A's credit is back
  // (11000 + 51200 + 100000), E when B's is.
  router_bench b("bench", test::k_single_router, 0, router_params_for("output_queued"));
  b.script = [](router_bench& self) {
    self.peers[1]->credit_delay_ps = 100000;
    wait_until(1000);
    for (uint32_t tag = 1; tag <= 3; ++tag)
      self.peers[0]->send(spec{1, network::invalid_id, 0, 512, tag, {}});
    wait_until(2000);
    // (As though it had crossed no global link: routed to VC 0, A's.)
    self.peers[2]->send(spec{1, network::invalid_id, 0, 512, 5, hops(0, 0)});
  };
  sc_core::sc_start();
  const auto& got = b.peers[1]->got;
  BOOST_TEST_REQUIRE(got.size() == 4u);
  const std::vector<uint32_t> order = {1, 2, 3, 5};
  const std::vector<uint64_t> at = {11000, 62200, 162200, 213400};
  for (size_t i = 0; i < got.size(); ++i) {
    BOOST_TEST(got[i].tag == order[i]);
    BOOST_TEST(got[i].at_ps == at[i]);
  }
  // C's input credit returns when C is accepted (A's credit back at 162200), E's at B's.
  BOOST_TEST_REQUIRE(b.peers[0]->credits.size() == 3u);
  BOOST_TEST(b.peers[0]->credits[2].at_ps == 162200u);
  BOOST_TEST_REQUIRE(b.peers[2]->credits.size() == 1u);
  BOOST_TEST(b.peers[2]->credits[0].at_ps == 213400u);
  BOOST_TEST(b.rt.unreturned_credit_bytes(1) == 0u);
}

BOOST_AUTO_TEST_CASE(output_queued_serves_the_highest_vc_first) {
  // While A holds port 1 (11000 to 62200), B arrives on VC 0 (from terminal 0) and then C,
  // which has crossed a global link, on VC 1 (routed to VC 1): at 62200 C goes first, B at
  // 113400. The input-queued router's allocator would take B first (round-robin from input 0).
  router_bench b("bench", test::k_single_router, 0, router_params_for("output_queued"));
  b.script = [](router_bench& self) {
    wait_until(1000);
    self.peers[0]->send(spec{1, network::invalid_id, 0, 512, 1, {}});
    wait_until(2000);
    self.peers[0]->send(spec{1, network::invalid_id, 0, 512, 2, {}});
    wait_until(3000);
    self.peers[2]->send(spec{1, network::invalid_id, 1, 512, 3, hops(0, 1)});
  };
  sc_core::sc_start();
  const auto& got = b.peers[1]->got;
  BOOST_TEST_REQUIRE(got.size() == 3u);
  BOOST_TEST(got[1].tag == 3u);
  BOOST_TEST(got[1].vc == 1u);
  BOOST_TEST(got[1].at_ps == 62200u);
  BOOST_TEST(got[2].tag == 2u);
  BOOST_TEST(got[2].vc == 0u);
  BOOST_TEST(got[2].at_ps == 113400u);
}

namespace {

// Input 2 sends H1..H4 on VC 1 (as though past a global link) and input 0 sends L on VC 0, all
// to terminal 1 (port 1) at 1000, with room for all (4 KiB per VC everywhere): at 11000 port 1
// holds L on VC 0 and the four H on VC 1.
void higher_vc_stream(router_bench& self) {
  wait_until(1000);
  for (uint32_t tag = 1; tag <= 4; ++tag)
    self.peers[2]->send(spec{1, network::invalid_id, 1, 512, tag, hops(0, 1)});
  self.peers[0]->send(spec{1, network::invalid_id, 0, 512, 9, {}});
}

hw::router_params roomy(const std::string& vc_order) {
  hw::router_params rp = router_params_for("output_queued");
  rp.vc_buffer_bytes = {4096, 4096, 4096};
  rp.vc_order = vc_order;
  return rp;
}

std::vector<uint32_t> tags(const router_bench& b, uint32_t port) {
  std::vector<uint32_t> t;
  for (const auto& a : b.peers[port]->got) t.push_back(a.tag);
  return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(output_queued_highest_first_holds_a_lower_vc_behind_a_higher_stream) {
  // CODES's order: the four H go first, 11000 to 215800; L waits for all of them, and would
  // wait as long as VC 1 stayed full.
  router_bench b("bench", test::k_single_router, 0, roomy("highest_first"));
  b.script = higher_vc_stream;
  sc_core::sc_start();
  BOOST_TEST(tags(b, 1) == (std::vector<uint32_t>{1, 2, 3, 4, 9}));
  BOOST_TEST(b.peers[1]->got.back().at_ps == 11000u + 4 * 51200u);
}

BOOST_AUTO_TEST_CASE(output_queued_round_robin_serves_every_vc_in_turn) {
  // router.vc_order round_robin: VC 0 then VC 1 in turn, so L goes first (the pointer starts
  // at VC 0) and no VC waits for more than one packet of each other VC.
  router_bench b("bench", test::k_single_router, 0, roomy("round_robin"));
  b.script = higher_vc_stream;
  sc_core::sc_start();
  BOOST_TEST(tags(b, 1) == (std::vector<uint32_t>{9, 1, 2, 3, 4}));
  BOOST_TEST(b.peers[1]->got.front().at_ps == 11000u);
  BOOST_TEST(b.rt.buffered_packets() == 0u);
}

BOOST_AUTO_TEST_CASE(output_queued_round_robin_alternates_under_two_streams) {
  // Two streams of three, VC 0 from input 0 and VC 1 from input 2: served 0, 1, 0, 1, 0, 1.
  router_bench b("bench", test::k_single_router, 0, roomy("round_robin"));
  b.script = [](router_bench& self) {
    wait_until(1000);
    for (uint32_t k = 0; k < 3; ++k) {
      self.peers[0]->send(spec{1, network::invalid_id, 0, 512, 10 + k, {}});
      self.peers[2]->send(spec{1, network::invalid_id, 1, 512, 20 + k, hops(0, 1)});
    }
  };
  sc_core::sc_start();
  BOOST_TEST(tags(b, 1) == (std::vector<uint32_t>{10, 20, 11, 21, 12, 22}));
}

BOOST_AUTO_TEST_CASE(router_model_unknown_is_refused) {
  auto make = [] {
    router_bench b("bench", test::k_single_router, 0, router_params_for("wormhole"));
  };
  BOOST_CHECK_EXCEPTION(make(), std::invalid_argument, [](const std::invalid_argument& e) {
    return std::string(e.what()).find(
               "router.model 'wormhole' (allowed: input_queued, "
               "output_queued)") != std::string::npos;
  });
}
