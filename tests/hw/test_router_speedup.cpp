// hw/router, input_queued, with BookSim's internal speedup (router.internal_speedup) and
// allocator iterations (router.alloc_iterations): timings by hand, beside the same scripts on
// the router without them. One router of a small dragonfly with a scripted peer on every port
// (router_port_harness.h).
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
// (terminal 1), port 2 global to router 2 (terminals 2, 3). 1 GHz clock, a 10-cycle
// pipeline: a packet in at 1000 is routed at 11000. Every peer's link takes 100 ps per byte
// (51200 ps for 512 B), and the router is told its links run at that rate (1e10 B/s), so with
// a speedup of 2 a 512-B packet crosses the crossbar in 25600 ps.
namespace {

using test::router_bench;
using test::wait_until;
using spec = test::port_peer::packet_spec;

constexpr double k_link_gib_per_s = 1e10 / 1073741824.0;  // 100 ps per byte

hw::router_params speedup_params(double speedup, uint32_t iterations = 1) {
  hw::router_params rp;
  rp.vc_buffer_bytes = {4096, 4096, 4096};
  rp.link_gib_per_s = {k_link_gib_per_s, k_link_gib_per_s, k_link_gib_per_s};
  rp.vcs = 2;
  rp.delay_cycles = 10;
  rp.internal_speedup = speedup;
  rp.alloc_iterations = iterations;
  return rp;
}

// Terminal 0 sends A and B to terminal 1 (port 1) and then C to terminal 2 (port 2), all on
// VC 0 at 1000.
void two_then_other(router_bench& self) {
  wait_until(1000);
  self.peers[0]->send(spec{1, network::invalid_id, 0, 512, 1, {}});
  self.peers[0]->send(spec{1, network::invalid_id, 0, 512, 2, {}});
  self.peers[0]->send(spec{2, network::invalid_id, 0, 512, 3, {}});
}

uint64_t arrival(const router_bench& b, uint32_t port, uint32_t tag) {  // 0: never
  for (const auto& a : b.peers[port]->got) {
    if (a.tag == tag) return a.at_ps;
  }
  return 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(speedup_frees_the_input_when_the_packet_has_crossed) {
  // A, routed at 11000, leaves at once; it crosses in 25600 ps, so its input credit goes
  // upstream at 36600 (without speedup: when its tail has left, 62200; the input_queued case
  // of test_router_output_queued.cpp).
  router_bench b("bench", test::k_single_router, 0, speedup_params(2.0));
  b.script = [](router_bench& self) {
    wait_until(1000);
    self.peers[0]->send(spec{1, network::invalid_id, 0, 512, 1, {}});
  };
  sc_core::sc_start();
  BOOST_TEST(arrival(b, 1, 1) == 11000u);
  BOOST_TEST_REQUIRE(b.peers[0]->credits.size() == 1u);
  BOOST_TEST(b.peers[0]->credits[0].at_ps == 36600u);
  BOOST_TEST(b.rt.buffered_packets() == 0u);
  BOOST_TEST(b.rt.unreturned_credit_bytes(1) == 0u);
}

// Without speedup the input sends one packet at a time at the link's rate: A at 11000, B at
// 62200 when A's tail has left, C behind B at 113400.
BOOST_AUTO_TEST_CASE(no_speedup_blocks_behind_the_head) {
  router_bench b("bench", test::k_single_router, 0, speedup_params(1.0));
  b.script = two_then_other;
  sc_core::sc_start();
  BOOST_TEST(arrival(b, 1, 1) == 11000u);
  BOOST_TEST(arrival(b, 1, 2) == 62200u);
  BOOST_TEST(arrival(b, 2, 3) == 113400u);
}

BOOST_AUTO_TEST_CASE(speedup_relieves_head_of_line_blocking) {
  // The same script with 2.0: B crosses at 36600 into port 1's output buffer (A still on the
  // link) and leaves it at 62200; C crosses at 62200 and leaves port 2 at once. Port 1's link
  // is busy back to back either way.
  router_bench b("bench", test::k_single_router, 0, speedup_params(2.0));
  b.script = two_then_other;
  sc_core::sc_start();
  BOOST_TEST(arrival(b, 1, 1) == 11000u);
  BOOST_TEST(arrival(b, 1, 2) == 62200u);
  BOOST_TEST(arrival(b, 2, 3) == 62200u);
  // Input credits: A at 36600, B at 62200 (crossed 36600 + 25600), C at 87800.
  BOOST_TEST_REQUIRE(b.peers[0]->credits.size() == 3u);
  BOOST_TEST(b.peers[0]->credits[0].at_ps == 36600u);
  BOOST_TEST(b.peers[0]->credits[1].at_ps == 62200u);
  BOOST_TEST(b.peers[0]->credits[2].at_ps == 87800u);
  BOOST_TEST(b.rt.buffered_packets() == 0u);
  BOOST_TEST(b.rt.packets.value == 3u);
}

BOOST_AUTO_TEST_CASE(speedup_output_buffer_holds_credits_and_shows_in_stalls) {
  // Port 1's credits never come back and its VC 0 holds 1024 B: A goes, B crosses into the
  // output buffer behind A (its credits spent at the crossbar), C finds none and waits in
  // its input VC. The stall report shows B in the output buffer.
  router_bench b("bench", test::k_single_router, 0, [] {
    hw::router_params rp = speedup_params(2.0);
    rp.vc_buffer_bytes = {4096, 1024, 1024};
    return rp;
  }());
  b.script = [](router_bench& self) {
    self.peers[1]->credit_delay_ps = 1'000'000'000;
    wait_until(1000);
    for (uint32_t tag = 1; tag <= 3; ++tag)
      self.peers[0]->send(spec{1, network::invalid_id, 0, 512, tag, {}});
  };
  sc_core::sc_start(sc_time::from_value(40'000));
  BOOST_TEST(b.peers[1]->got.size() == 1u);
  BOOST_TEST(b.rt.buffered_packets() == 2u);
  BOOST_TEST(b.rt.output_occupancy_bytes(1) == 1024u);  // A's and B's
  std::ostringstream os;
  BOOST_TEST(b.rt.describe_stall(os, 10));
  BOOST_TEST(
      os.str().find("output port 1 (local): 1 packets in the output buffer") != std::string::npos,
      os.str());
  BOOST_TEST(os.str().find("input port 0 (terminal) VC 0: 1 packets routed") != std::string::npos,
             os.str());
}

namespace {

// W (input 0, VC 1, to port 1) goes at 11000: port 1's arbiter now favours input 1 and
// beyond, input 0's VC arbiter VC 0. At 62200, when W's tail has left, input 0 offers X (VC 0,
// to port 1) and Y (VC 1, to port 2), and input 2 offers Z (to port 1). Input 0 picks X; port
// 1 grants Z. With one pass Y waits for the next cycle (63200); a second pass gives port 2 to
// Y at once.
void iterations_script(router_bench& self) {
  wait_until(1000);
  self.peers[0]->send(spec{1, network::invalid_id, 1, 512, 1, {}});  // W
  wait_until(2000);
  self.peers[0]->send(spec{1, network::invalid_id, 0, 512, 2, {}});  // X
  self.peers[0]->send(spec{2, network::invalid_id, 1, 512, 3, {}});  // Y
  self.peers[2]->send(spec{1, network::invalid_id, 0, 512, 4, {}});  // Z
}

void check_iterations(const router_bench& b, uint64_t y_at) {
  BOOST_TEST(arrival(b, 1, 1) == 11000u);
  BOOST_TEST(arrival(b, 1, 4) == 62200u);
  BOOST_TEST(arrival(b, 2, 3) == y_at);
  BOOST_TEST(arrival(b, 1, 2) == y_at + 51200);  // X after Z, when Y has left input 0
  BOOST_TEST(b.rt.buffered_packets() == 0u);
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_allocator_pass_leaves_an_output_idle_for_a_cycle) {
  router_bench b("bench", test::k_single_router, 0, speedup_params(1.0, 1));
  b.script = iterations_script;
  sc_core::sc_start();
  check_iterations(b, 63200);
}

BOOST_AUTO_TEST_CASE(a_second_allocator_pass_fills_it) {
  router_bench b("bench", test::k_single_router, 0, speedup_params(1.0, 2));
  b.script = iterations_script;
  sc_core::sc_start();
  check_iterations(b, 62200);
}

BOOST_AUTO_TEST_CASE(speedup_below_one_is_refused) {
  auto make = [] { router_bench b("bench", test::k_single_router, 0, speedup_params(0.5)); };
  BOOST_CHECK_EXCEPTION(make(), std::invalid_argument, [](const std::invalid_argument& e) {
    return std::string(e.what()).find("router.internal_speedup") != std::string::npos;
  });
}
