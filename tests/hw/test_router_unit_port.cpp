// hw/router: the attached Bcast Unit's port (Ragasa) -- offload routing, the unit port's
// buffers and crossbar rate, errors and stall reports. One router of a small dragonfly with a
// scripted peer on every port (router_port_harness.h).
#include "hw/ragasa/router_hook.h"
#include "hw/router/router.h"
#include "network/dragonfly.h"

#include <boost/test/unit_test.hpp>

#include <systemc>
#include "router_port_harness.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace bcastsim;
using network::link_class;
using sc_core::sc_time;

// Router 0 of dragonfly g=3 a=2 p=1 h=1 alone: port 0 terminal 0, port 1 local to router 1,
// port 2 global to router 2, port 3 (with bcast_unit_port) its Bcast Unit. 1 GHz clock
// (1000 ps), a 10-cycle pipeline: a packet in at 1000 is routed and, if free, granted at
// 11000. Every peer's link takes 100 ps per byte (51200 ps for 512 B, 6400 ps for 64 B).
namespace {

using test::port_peer;
using test::router_bench;
using test::wait_until;
using spec = port_peer::packet_spec;

hw::router_params single_params(bool unit) {
  hw::router_params rp;
  rp.vc_buffer_bytes = test::dragonfly_vc_buffers();
  rp.vcs = 2;
  rp.delay_cycles = 10;
  static const hw::ragasa::router_hook hook;  // Ragasa's routing hook, as the family sets it
  rp.attached.present = unit;
  rp.attached.label = "bcast unit";
  rp.attached.hook = unit ? &hook : nullptr;
  return rp;
}

network::route_state hops(uint8_t local, uint8_t global) {
  network::route_state r;
  r.local_hops = local;
  r.global_hops = global;
  return r;
}

void check_wiring(const router_bench& b) {
  BOOST_TEST_REQUIRE((b.topo.port(0, 0).peer_kind == network::port_info::kind::terminal));
  BOOST_TEST_REQUIRE(b.topo.port(0, 1).peer == 1u);
  BOOST_TEST_REQUIRE((b.topo.port(0, 1).cls == network::dragonfly_classes::local));
  BOOST_TEST_REQUIRE(b.topo.port(0, 2).peer == 2u);
  BOOST_TEST_REQUIRE((b.topo.port(0, 2).cls == network::dragonfly_classes::global));
}

}  // namespace

BOOST_AUTO_TEST_CASE(router_radix_includes_the_unit_port) {
  router_bench with("with", test::k_single_router, 0, single_params(true));
  router_bench without("without", test::k_single_router, 0, single_params(false));
  BOOST_TEST(with.topo.radix(0) == 3u);
  BOOST_TEST(with.rt.radix() == 4u);
  BOOST_TEST(with.rt.attached_port() == 3u);
  BOOST_TEST(with.rt.in.size() == 4u);
  BOOST_TEST(with.rt.out.size() == 4u);
  BOOST_TEST(without.rt.radix() == 3u);
  BOOST_TEST(without.rt.attached_port() == network::invalid_id);
  BOOST_TEST(without.rt.in.size() == 3u);
  sc_core::sc_start();  // both elaborate with every port bound
  BOOST_TEST(with.rt.unreturned_credit_bytes(3) == 0u);
}

BOOST_AUTO_TEST_CASE(router_packet_for_its_own_unit_leaves_on_the_unit_port) {
  router_bench b("bench", test::k_single_router, 0, single_params(true));
  check_wiring(b);
  b.script = [](router_bench& self) {
    wait_until(1000);
    // A data copy that crossed the global link from router 2 (VC 1 after the dateline), and a
    // Mini Packet fresh from terminal 0's NIC, both for this router's unit.
    self.peers[2]->send(spec{0, 0, 1, 512, 1, hops(0, 1)});
    self.peers[0]->send(spec{0, 0, 0, 64, 2, hops(0, 0)});
  };
  sc_core::sc_start();

  // Both routed at 11000 to the unit port (3), not toward terminal 0 (port 0). The output
  // grants input 0 first (nearest its pointer): the MP at 11000, busy for 6400 ps; the copy
  // at 17400. Both on VC 0, their hop counts untouched.
  const auto& got = b.peers[3]->got;
  BOOST_TEST_REQUIRE(got.size() == 2u);
  BOOST_TEST(got[0].at_ps == 11000u);
  BOOST_TEST(got[0].tag == 2u);
  BOOST_TEST(got[1].at_ps == 17400u);
  BOOST_TEST(got[1].tag == 1u);
  for (const auto& a : got) {
    BOOST_TEST(a.vc == 0u);
    BOOST_TEST(a.unit_router == 0u);
    BOOST_TEST(a.dst == 0u);
    BOOST_TEST(a.routers == 1u);
  }
  BOOST_TEST(got[1].route.local_hops == 0u);
  BOOST_TEST(got[1].route.global_hops == 1u);
  BOOST_TEST(got[0].route.local_hops == 0u);
  BOOST_TEST(got[0].route.global_hops == 0u);
  for (uint32_t port = 0; port < 3; ++port) BOOST_TEST(b.peers[port]->got.empty());
  // The copy's VC 1 buffer on port 2 frees when its tail has left: 17400 + 51200.
  BOOST_TEST_REQUIRE(b.peers[2]->credits.size() == 1u);
  BOOST_TEST(b.peers[2]->credits[0].at_ps == 68600u);
  BOOST_TEST(b.peers[2]->credits[0].vc == 1u);
  BOOST_TEST(b.rt.packets.value == 2u);
  BOOST_TEST(b.rt.unreturned_credit_bytes(3) == 0u);
}

BOOST_AUTO_TEST_CASE(router_fresh_packet_for_a_neighbours_unit_takes_the_direct_link) {
  router_bench b("bench", test::k_single_router, 0, single_params(true));
  check_wiring(b);
  b.script = [](router_bench& self) {
    wait_until(1000);
    // dst is not on the unit's router here, so routing toward dst would pick another port
    // (terminal 2 is behind port 2, terminal 1 behind port 1): only the direct rule sends
    // them where asserted below.
    self.peers[3]->send(spec{2, 1, 0, 512, 1, hops(0, 0)});  // copy from our unit -> unit 1
    self.peers[0]->send(spec{1, 2, 0, 64, 2, hops(0, 0)});   // MP from terminal 0 -> unit 2
    // A fresh packet for a unit that is not a neighbour: routed toward dst 5 (router 5,
    // group 2, whose global link from group 0 is at router 1): the local port 1.
    wait_until(20000);
    self.peers[0]->send(spec{5, 5, 0, 64, 3, hops(0, 0)});
  };
  sc_core::sc_start();

  // Local neighbour: port 1, VC 0, one local hop, at 11000.
  const auto& local = b.peers[1]->got;
  BOOST_TEST_REQUIRE(local.size() == 2u);
  BOOST_TEST(local[0].tag == 1u);
  BOOST_TEST(local[0].at_ps == 11000u);
  BOOST_TEST(local[0].vc == 0u);
  BOOST_TEST(local[0].unit_router == 1u);
  BOOST_TEST(local[0].route.local_hops == 1u);
  BOOST_TEST(local[0].route.global_hops == 0u);
  // Global neighbour: port 2, VC 0, one global hop, at 11000 (another input, another output).
  const auto& global = b.peers[2]->got;
  BOOST_TEST_REQUIRE(global.size() == 1u);
  BOOST_TEST(global[0].tag == 2u);
  BOOST_TEST(global[0].at_ps == 11000u);
  BOOST_TEST(global[0].vc == 0u);
  BOOST_TEST(global[0].unit_router == 2u);
  BOOST_TEST(global[0].route.local_hops == 0u);
  BOOST_TEST(global[0].route.global_hops == 1u);
  // Not a neighbour: the routing policy's local hop. In at 20000, routed at 30000, it waits
  // for port 1's link, busy with the first copy until 11000 + 51200.
  BOOST_TEST(local[1].tag == 3u);
  BOOST_TEST(local[1].at_ps == 62200u);
  BOOST_TEST(local[1].vc == 0u);
  BOOST_TEST(local[1].unit_router == 5u);
  BOOST_TEST(local[1].route.local_hops == 1u);
  BOOST_TEST(local[1].route.global_hops == 0u);
  BOOST_TEST(b.peers[0]->got.empty());
  BOOST_TEST(b.peers[3]->got.empty());
}

BOOST_AUTO_TEST_CASE(router_packet_for_a_neighbours_unit_mid_route_follows_the_policy) {
  router_bench b("bench", test::k_single_router, 0, single_params(true));
  check_wiring(b);
  b.script = [](router_bench& self) {
    wait_until(1000);
    // From router 3's unit toward router 1's unit (dst terminal 1), via 3 -> 2 -> 0 -> 1:
    // at router 0 it has taken a local and a global hop. Minimal routing: port 1, VC 1
    // (after the dateline); the direct rule would have used VC 0.
    self.peers[2]->send(spec{1, 1, 1, 512, 1, hops(1, 1)});
    // Not fresh either, with unit 2 a neighbour but dst on router 1: the policy sends it
    // back out of port 1, where the direct rule would have used port 2.
    wait_until(70000);
    self.peers[1]->send(spec{1, 2, 0, 512, 2, hops(1, 0)});
  };
  sc_core::sc_start();

  const auto& got = b.peers[1]->got;
  BOOST_TEST_REQUIRE(got.size() == 2u);
  BOOST_TEST(got[0].tag == 1u);
  BOOST_TEST(got[0].at_ps == 11000u);
  BOOST_TEST(got[0].vc == 1u);
  BOOST_TEST(got[0].route.local_hops == 2u);
  BOOST_TEST(got[0].route.global_hops == 1u);
  BOOST_TEST(got[1].tag == 2u);
  BOOST_TEST(got[1].at_ps == 80000u);  // in at 70000, + 10 cycles; port 1 free since 62200
  BOOST_TEST(got[1].vc == 0u);
  BOOST_TEST(got[1].route.local_hops == 2u);
  BOOST_TEST(got[1].route.global_hops == 0u);
  BOOST_TEST(b.peers[2]->got.empty());
  BOOST_TEST(b.peers[3]->got.empty());
}

BOOST_AUTO_TEST_CASE(router_unit_input_rate_lets_copies_start_closer_than_the_output) {
  hw::router_params rp = single_params(true);
  rp.attached.input_gib_per_s = 64;  // 1e12 / 2^36 = 14.5519... ps per byte
  router_bench b("bench", test::k_single_router, 0, rp);
  check_wiring(b);
  b.script = [](router_bench& self) {
    wait_until(1000);
    self.peers[3]->send(spec{0, network::invalid_id, 0, 512, 1, hops(0, 0)});  // -> port 0
    self.peers[3]->send(spec{1, network::invalid_id, 0, 512, 2, hops(0, 0)});  // -> port 1
    self.peers[3]->send(spec{0, network::invalid_id, 0, 512, 3, hops(0, 0)});  // -> port 0
  };
  sc_core::sc_start();

  // Copy 1 granted at 11000; the unit input is free once 512 B crossed it at 64 GiB/s:
  // 512 * 14.5519 = 7450.58, truncated: 18450. Copy 2 (another output) goes then, not when
  // port 0's link frees (62200, as without unit_input_gib_per_s). Copy 3 wants port 0
  // again: the input is free at 25900 but the output's serialisation holds it to 62200.
  BOOST_TEST_REQUIRE(b.peers[0]->got.size() == 2u);
  BOOST_TEST_REQUIRE(b.peers[1]->got.size() == 1u);
  BOOST_TEST(b.peers[0]->got[0].tag == 1u);
  BOOST_TEST(b.peers[0]->got[0].at_ps == 11000u);
  BOOST_TEST(b.peers[1]->got[0].tag == 2u);
  BOOST_TEST(b.peers[1]->got[0].at_ps == 18450u);
  BOOST_TEST(b.peers[0]->got[1].tag == 3u);
  BOOST_TEST(b.peers[0]->got[1].at_ps == 62200u);
  // The unit input's buffer still frees as each tail leaves its output link.
  const auto& credits = b.peers[3]->credits;
  BOOST_TEST_REQUIRE(credits.size() == 3u);
  BOOST_TEST(credits[0].at_ps == 11000u + 51200u);
  BOOST_TEST(credits[1].at_ps == 18450u + 51200u);
  BOOST_TEST(credits[2].at_ps == 62200u + 51200u);
}

BOOST_AUTO_TEST_CASE(router_unit_input_waits_for_the_copy_tail) {
  hw::router_params rp = single_params(true);
  rp.attached.input_gib_per_s = 64;
  router_bench b("bench", test::k_single_router, 0, rp);
  b.script = [](router_bench& self) {
    wait_until(1000);
    // Copy 1's head is in at 1000, its tail only at 30000.
    self.peers[3]->send(spec{0, network::invalid_id, 0, 512, 1, hops(0, 0), 30000});
    self.peers[3]->send(spec{1, network::invalid_id, 0, 512, 2, hops(0, 0)});
  };
  sc_core::sc_start();

  // Copy 1 cuts through at 11000; the input is held until its tail is in (30000 > 18450).
  BOOST_TEST_REQUIRE(b.peers[0]->got.size() == 1u);
  BOOST_TEST_REQUIRE(b.peers[1]->got.size() == 1u);
  BOOST_TEST(b.peers[0]->got[0].at_ps == 11000u);
  BOOST_TEST(b.peers[1]->got[0].at_ps == 30000u);
}

BOOST_AUTO_TEST_CASE(router_unit_port_buffers_have_their_own_sizes) {
  hw::router_params rp = single_params(true);
  rp.vc_buffer_bytes = {512, 16384, 32768};  // the terminal class: one packet per VC
  rp.attached.in_vc_buffer_bytes = 1024;     // two of the unit's copies
  rp.attached.credit_bytes = 1024;           // the unit takes two packets per VC
  router_bench b("bench", test::k_single_router, 0, rp);
  check_wiring(b);
  b.peers[3]->credit_delay_ps = 100000;  // the unit frees its buffer late
  b.script = [](router_bench& self) {
    wait_until(1000);
    // Two copies from the unit at once: more than a terminal-class buffer holds.
    self.peers[3]->send(spec{1, network::invalid_id, 0, 512, 1, hops(0, 0)});  // -> port 1
    self.peers[3]->send(spec{2, network::invalid_id, 0, 512, 2, hops(0, 0)});  // -> port 2
    // Three packets for the unit from three inputs.
    self.peers[0]->send(spec{0, 0, 0, 512, 3, hops(0, 0)});
    self.peers[1]->send(spec{0, 0, 0, 512, 4, hops(1, 0)});
    self.peers[2]->send(spec{0, 0, 1, 512, 5, hops(0, 1)});
  };
  sc_core::sc_start();  // an overflow of the unit input would raise a SystemC error

  // The unit's copies: 11000 and, after the unit input's serialisation, 62200.
  BOOST_TEST_REQUIRE(b.peers[1]->got.size() == 1u);
  BOOST_TEST_REQUIRE(b.peers[2]->got.size() == 1u);
  BOOST_TEST(b.peers[1]->got[0].at_ps == 11000u);
  BOOST_TEST(b.peers[2]->got[0].at_ps == 62200u);
  // Toward the unit, 1024 credit bytes: packet 3 at 11000, packet 4 when the link frees
  // (62200); packet 5 waits for packet 3's credit, back at 11000 + 51200 + 100000.
  const auto& unit = b.peers[3]->got;
  BOOST_TEST_REQUIRE(unit.size() == 3u);
  const uint64_t at[] = {11000, 62200, 162200};
  for (uint32_t i = 0; i < 3; ++i) {
    BOOST_TEST(unit[i].tag == i + 3);
    BOOST_TEST(unit[i].at_ps == at[i]);
  }
  BOOST_TEST(b.rt.unreturned_credit_bytes(3) == 0u);
}

BOOST_AUTO_TEST_CASE(router_unit_input_buffer_overflow_is_an_error) {
  hw::router_params rp = single_params(true);
  rp.attached.in_vc_buffer_bytes = 512;  // one copy; the terminal class would hold 32
  router_bench b("bench", test::k_single_router, 0, rp);
  b.script = [](router_bench& self) {
    wait_until(1000);
    self.peers[3]->send(spec{1, network::invalid_id, 0, 512, 1, hops(0, 0)});
    self.peers[3]->send(spec{2, network::invalid_id, 0, 512, 2, hops(0, 0)});  // no credits
  };
  BOOST_CHECK_EXCEPTION(sc_core::sc_start(), sc_core::sc_report, [](const sc_core::sc_report& r) {
    return std::string(r.get_msg()).find("input VC buffer overflow") != std::string::npos;
  });
}

BOOST_AUTO_TEST_CASE(router_packet_for_a_unit_at_a_router_without_one_is_an_error) {
  router_bench b("bench", test::k_single_router, 0, single_params(false));
  b.script = [](router_bench& self) {
    wait_until(1000);
    self.peers[0]->send(spec{0, 0, 0, 64, 1, hops(0, 0)});
  };
  // The error is recorded, not thrown: an exception unwinding a method after a SystemC
  // thread has switched stacks is reported by ASan as a (false) stack-buffer-overflow.
  static std::vector<std::pair<std::string, uint64_t>> errors;
  sc_core::sc_report_handler::set_handler(
      [](const sc_core::sc_report& r, const sc_core::sc_actions&) {
        if (r.get_severity() == sc_core::SC_ERROR)
          errors.emplace_back(r.get_msg(), sc_core::sc_time_stamp().value());
      });
  sc_core::sc_start();
  sc_core::sc_report_handler::set_handler(sc_core::sc_report_handler::default_handler);
  BOOST_TEST_REQUIRE(errors.size() == 1u);
  BOOST_TEST(errors[0].first.find("a router without one") != std::string::npos);
  BOOST_TEST(errors[0].second == 11000u);  // raised when routed
}

BOOST_AUTO_TEST_CASE(router_describe_stall_names_the_unit_port) {
  hw::router_params rp = single_params(true);
  rp.vc_buffer_bytes = {256, 16384, 32768};  // terminal 0 cannot take a 512 B packet
  router_bench b("bench", test::k_single_router, 0, rp);
  b.script = [](router_bench& self) {
    wait_until(1000);
    self.peers[3]->send(spec{0, network::invalid_id, 0, 512, 7, hops(0, 0)});
  };
  sc_core::sc_start();

  BOOST_TEST(b.rt.buffered_packets() == 1u);
  std::ostringstream os;
  BOOST_TEST(b.rt.describe_stall(os, 10));
  BOOST_TEST_MESSAGE(os.str());
  BOOST_TEST(os.str().find("bench.router input port 3 (bcast unit) VC 0: 1 packets routed, 512 "
                           "bytes buffered") != std::string::npos);
  BOOST_TEST(os.str().find("waits for output port 0 VC 0 with 256/256 credit bytes") !=
             std::string::npos);
}
