// hw/router: routers, links and host NICs of a small dragonfly bound by hand (as tb/fabric
// does). Checks one packet's end-to-end latency against the analytic value, credit return,
// back-pressure with one-packet VC buffers, round-robin fairness at a shared output, and
// describe_stall() on a stuck packet. Then one router alone with a scripted peer on every
// port (router_port_harness.h): the Bcast Unit port and how offload packets are steered.
#include "hw/nic/host_nic.h"
#include "hw/router/router.h"
#include "network/dragonfly.h"
#include "network/routing.h"
#include "network/topology_kind.h"
#include "tlm/link.h"
#include "tlm/null_endpoint.h"
#include "tlm/packet_pool.h"

#include <boost/test/unit_test.hpp>

#include <systemc>
#include "message_log.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace bcastsim;
using network::link_class;
using sc_core::sc_time;

namespace {

sc_time ps(uint64_t v) {
  return sc_time::from_value(v);
}
void wait_until(uint64_t t_ps) {
  sc_core::wait(ps(t_ps) - sc_core::sc_time_stamp());
}

using bcastsim::test::message_log;

struct fabric_params {
  network::dragonfly_params shape{3, 2, 1, 1, network::global_arrangement::absolute};
  std::array<tlm_net::link_params, 3> links;
  hw::router_params router;
  hw::nic_params nic;
  fabric_params() {  // links and buffers as the dragonfly kind declares them (the defaults)
    const auto classes = network::dragonfly_kind().classes;
    for (int k = 0; k < 3; ++k) {
      links[k].cls = static_cast<link_class>(k);
      links[k].bandwidth_gib_per_s = classes[k].bandwidth_gib_per_s;
      links[k].latency_ns = classes[k].latency_ns;
      router.vc_buffer_bytes.push_back(classes[k].vc_buffer_bytes);
    }
    router.vcs = 2;  // what minimal routing needs
    nic.vcs = 2;
  }
};

// Routers, a link per direction of every cable, a host NIC per terminal with a message log,
// and a script thread that drives the NICs.
class test_fabric final : public sc_core::sc_module {
 public:
  network::dragonfly topo;
  network::dragonfly_minimal_routing routing;
  tlm_net::packet_pool pool;
  std::vector<std::unique_ptr<hw::router>> routers;
  std::vector<std::unique_ptr<hw::host_nic>> nics;
  std::vector<std::unique_ptr<tlm_net::link>> links;
  std::unique_ptr<tlm_net::null_endpoint> unconnected;
  std::vector<message_log> logs;  // [terminal]
  std::function<void(test_fabric&)> script;

  test_fabric(const sc_core::sc_module_name& name, const fabric_params& fp)
      : sc_core::sc_module(name), topo(fp.shape), routing(topo) {
    using network::port_info;
    logs.resize(topo.num_terminals());
    for (uint32_t r = 0; r < topo.num_routers(); ++r) {
      routers.push_back(std::make_unique<hw::router>(("router_" + std::to_string(r)).c_str(), r,
                                                     topo, routing, fp.router));
    }
    for (uint32_t t = 0; t < topo.num_terminals(); ++t) {
      nics.push_back(std::make_unique<hw::host_nic>(("nic_" + std::to_string(t)).c_str(), t, fp.nic,
                                                    pool, routing));
      nics.back()->set_client(&logs[t]);
    }
    for (uint32_t r = 0; r < topo.num_routers(); ++r) {
      hw::router& rt = *routers[r];
      for (uint32_t p = 0; p < topo.radix(r); ++p) {
        const port_info& info = topo.port(r, p);
        const std::string suffix = std::to_string(r) + "_" + std::to_string(p);
        if (info.peer_kind == port_info::kind::unused) {
          if (!unconnected) unconnected = std::make_unique<tlm_net::null_endpoint>("unconnected");
          rt.out[p].bind(unconnected->in);
          unconnected->out.bind(rt.in[p]);
        } else if (info.peer_kind == port_info::kind::router) {
          make_link("link_r" + suffix, fp.links[static_cast<int>(info.cls)])
              .connect(rt.out[p], routers[info.peer]->in[info.peer_port]);
        } else {
          hw::host_nic& nic = *nics[info.peer];
          const tlm_net::link_params& lp =
              fp.links[static_cast<int>(network::dragonfly_classes::terminal)];
          make_link("link_r" + suffix, lp).connect(rt.out[p], nic.in);
          make_link("link_nic_" + std::to_string(info.peer), lp).connect(nic.out, rt.in[p]);
        }
      }
    }
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(test_fabric);

  const tlm_net::link& link_named(const std::string& name) const {
    for (const auto& l : links) {
      if (name == l->name()) return *l;
    }
    throw std::invalid_argument("no link " + name);
  }

  void send(network::terminal_id src, network::terminal_id dst, uint64_t bytes, uint32_t tag) {
    hw::message m;
    m.dst = dst;
    m.bytes = bytes;
    m.tag = tag;
    nics[src]->send_message(m);
  }

 private:
  tlm_net::link& make_link(const std::string& name, const tlm_net::link_params& lp) {
    links.push_back(std::make_unique<tlm_net::link>(std::string(this->name()) + "." + name, lp));
    return *links.back();
  }
  void run() {
    if (script) script(*this);
  }
};

// Distinct bandwidths and latencies per class, a clock whose period (1250 ps) does not
// divide the arrival times, and a short pipeline so the cut-through tail rule matters.
fabric_params latency_params() {
  fabric_params fp;
  fp.links[0].bandwidth_gib_per_s = 2.0;  // terminal
  fp.links[0].latency_ns = 10;
  fp.links[1].bandwidth_gib_per_s = 8.0;  // local
  fp.links[1].latency_ns = 20;
  fp.links[2].bandwidth_gib_per_s = 4.7;  // global
  fp.links[2].latency_ns = 100;
  fp.router.delay_cycles = 10;
  fp.router.clock_mhz = 800.0;
  return fp;
}

uint64_t ser_ps(uint32_t bytes, double gib_per_s) {
  return static_cast<uint64_t>(std::llround(bytes * 1e12 / (gib_per_s * 1073741824.0)));
}

// When the tail of a lone packet injected at t0 reaches the destination NIC, crossing the
// given links with a router between consecutive links (no contention):
//   link:   start s; end = max(s + ser(size), tail in); head out = s + lat + ser(min(size, flit));
//           tail out = end + lat
//   router: next start = head aligned up to the clock edge + delay_cycles * period
uint64_t analytic_delivery_ps(uint64_t t0, uint32_t bytes, const std::vector<link_class>& path,
                              const fabric_params& fp) {
  const uint64_t period = std::llround(1e6 / fp.router.clock_mhz);
  uint64_t start = t0, head = 0, tail = t0;
  for (size_t i = 0; i < path.size(); ++i) {
    const tlm_net::link_params& lp = fp.links[static_cast<int>(path[i])];
    const uint64_t lat = std::llround(lp.latency_ns * 1000.0);
    if (i > 0) start = (head + period - 1) / period * period + fp.router.delay_cycles * period;
    const uint64_t end = std::max(start + ser_ps(bytes, lp.bandwidth_gib_per_s), tail);
    head = start + lat + ser_ps(std::min(bytes, lp.flit_bytes), lp.bandwidth_gib_per_s);
    tail = end + lat;
  }
  return tail;
}

// Terminal t of dragonfly g=3 a=2 p=1 h=1 sits on router t. Global cables (absolute
// arrangement): 0-2, 1-4, 3-5. So 0 -> 5 is router 0 -local-> 1 -global-> 4 -local-> 5.
const std::vector<link_class> k_longest_path = {
    network::dragonfly_classes::terminal, network::dragonfly_classes::local,
    network::dragonfly_classes::global, network::dragonfly_classes::local,
    network::dragonfly_classes::terminal};

}  // namespace

BOOST_AUTO_TEST_CASE(router_single_packet_latency_is_analytic) {
  const fabric_params fp = latency_params();
  test_fabric f("bench", fp);
  f.script = [](test_fabric& self) {
    wait_until(123);
    self.send(0, 5, 512, 1);  // one full packet, router 0 -> 1 -> 4 -> 5
    wait_until(1001374);
    self.send(5, 0, 40, 2);  // one short packet back, router 5 -> 4 -> 1 -> 0; its head
                             // reaches router 5 at 1030000 ps, on a clock edge: no wait
  };
  sc_core::sc_start();

  // Hand-checked: 0 -> 5 is 507169 ps (the slow terminal link's tail dominates the last
  // hop; the middle hops wait for the incoming tail); 5 -> 0 is 1267376 ps.
  BOOST_TEST(analytic_delivery_ps(123, 512, k_longest_path, fp) == 507169u);
  BOOST_TEST(analytic_delivery_ps(1001374, 40, k_longest_path, fp) == 1267376u);

  BOOST_TEST_REQUIRE(f.logs[5].got.size() == 1u);
  BOOST_TEST(f.logs[5].got[0].at_ps == 507169u);
  BOOST_TEST(f.logs[5].got[0].src == 0u);
  BOOST_TEST(f.logs[5].got[0].bytes == 512u);
  BOOST_TEST_REQUIRE(f.logs[0].got.size() == 1u);
  BOOST_TEST(f.logs[0].got[0].at_ps == 1267376u);
  BOOST_TEST(f.logs[0].got[0].src == 5u);
  BOOST_TEST(f.logs[0].got[0].bytes == 40u);

  // The NIC measures from the head leaving the source NIC; four routers on each path.
  BOOST_TEST(f.nics[5]->latency_ps.sum == 507169.0 - 123.0);
  BOOST_TEST(f.nics[0]->latency_ps.sum == 1267376.0 - 1001374.0);
  BOOST_TEST(f.nics[5]->routers.sum == 4.0);
  BOOST_TEST(f.nics[0]->routers.sum == 4.0);
  const uint64_t switched[] = {2, 2, 0, 0, 2, 2};  // routers 2 and 3 are off both paths
  for (uint32_t r = 0; r < 6; ++r) BOOST_TEST(f.routers[r]->packets.value == switched[r]);
}

BOOST_AUTO_TEST_CASE(router_credits_return_after_the_downstream_tail_leaves) {
  const fabric_params fp = latency_params();
  test_fabric f("bench", fp);
  const uint32_t to_r1 = f.topo.local_port(0, 1);
  std::vector<uint32_t> occupancy;  // router 0's output towards router 1, sampled
  f.script = [&](test_fabric& self) {
    wait_until(123);
    self.send(0, 5, 512, 1);
    // Router 0 grants at 52500 ps (head at 39925, clock edge 40000, + 10 cycles).
    for (uint64_t t : {52499u, 52501u, 288541u, 288543u}) {
      wait_until(t);
      occupancy.push_back(self.routers[0]->output_occupancy_bytes(to_r1));
    }
  };
  sc_core::sc_start();

  // Credits are spent at the grant. Router 1 grants at 92500 and the global link holds its
  // input until the tail has left at 268542; the credit then crosses the 20 ns local link
  // back: router 0 has it at 288542.
  const std::vector<uint32_t> want = {0, 512, 512, 0};
  BOOST_TEST(occupancy == want, boost::test_tools::per_element());

  // After the run every credit is home and nothing is buffered anywhere.
  for (const auto& r : f.routers) {
    for (uint32_t p = 0; p < r->radix(); ++p) BOOST_TEST(r->unreturned_credit_bytes(p) == 0u);
    BOOST_TEST(r->buffered_packets() == 0u);
  }
  for (const auto& n : f.nics) BOOST_TEST(n->idle());
  BOOST_TEST(f.pool.in_use() == 0u);
}

BOOST_AUTO_TEST_CASE(router_one_packet_buffers_apply_back_pressure_in_order) {
  fabric_params fp;
  fp.router.vc_buffer_bytes = {512, 512, 512};  // exactly one packet per VC
  fp.nic.inject_buffer_bytes = 512;
  fp.nic.eject_buffer_bytes = 512;
  test_fabric f("bench", fp);
  constexpr uint32_t n = 20;
  f.script = [](test_fabric& self) {
    for (uint32_t i = 0; i < n; ++i) {
      self.send(0, 5, 512, i);  // router 0 -> 1 -> 4 -> 5
      self.send(1, 4, 512, i);  // router 1 -> 4: shares the global link and its VC buffer
    }
  };
  sc_core::sc_start();  // an overflow would raise a SystemC error here

  for (network::terminal_id dst : {5u, 4u}) {
    const std::vector<message_log::entry>& got = f.logs[dst].got;
    BOOST_TEST_REQUIRE(got.size() == n);
    for (uint32_t i = 0; i < n; ++i) {
      BOOST_TEST(got[i].tag == i);  // in order
      BOOST_TEST(got[i].src == (dst == 5u ? 0u : 1u));
      // The flows take turns in router 4's one-packet global VC buffer, which frees once per
      // credit loop of 354000 ps: router 1 grants at g; the head reaches router 4 at
      // g + 100000 + 12682, the next clock edge + 50 cycles later router 4 grants (a multiple
      // of 1000 ps), its output holds the input for 90826 ps, the credit takes 100000 ps back
      // and router 1 grants at once; grant to grant = ceil(303508 / 1000) * 1000 + 50000.
      // So each flow delivers every 2 x 354000 ps.
      if (i > 0) BOOST_TEST(got[i].at_ps - got[i - 1].at_ps == 708000u);
    }
  }
  // The first packet of 1 -> 4: global grant at 72000, router 4 grants at 235000, tail home
  // 90826 + 10000 later. The first of 0 -> 5 waits at router 1 for that packet's credit
  // (235000 + 90826 + 100000 = 425826), router 4 grants at 589000, router 5 at 661000.
  BOOST_TEST(f.logs[4].got[0].at_ps == 335826u);
  BOOST_TEST(f.logs[5].got[0].at_ps == 761826u);
  BOOST_TEST(f.routers[1]->packets.value == 2u * n);
  for (const auto& r : f.routers) {
    for (uint32_t p = 0; p < r->radix(); ++p) BOOST_TEST(r->unreturned_credit_bytes(p) == 0u);
  }
  BOOST_TEST(f.pool.in_use() == 0u);
  // Every packet in flight owns one of the 7 one-packet buffers on the two paths.
  BOOST_TEST(f.pool.peak_in_use() <= 7u);
}

BOOST_AUTO_TEST_CASE(router_round_robin_serves_two_inputs_alternately) {
  fabric_params fp;
  fp.shape = {3, 2, 2, 1, network::global_arrangement::absolute};
  test_fabric f("bench", fp);
  // Terminals 0 and 1 (router 0) both stream to terminal 2 (router 1): router 0's local
  // output to router 1 carries both, one packet per serialisation time (90826 ps).
  constexpr uint32_t n = 40;
  f.script = [](test_fabric& self) {
    for (uint32_t i = 0; i < n; ++i) {
      self.send(0, 2, 512, i);
      self.send(1, 2, 512, i);
    }
  };
  // Stop mid-stream: an unfair arbiter would have served one source far more by now.
  sc_core::sc_start(sc_time(2, sc_core::SC_US));

  const std::vector<message_log::entry>& got = f.logs[2].got;
  BOOST_TEST_REQUIRE(got.size() >= 10u);
  BOOST_TEST_REQUIRE(got.size() < 2u * n);
  uint32_t from[2] = {0, 0};
  for (size_t i = 0; i < got.size(); ++i) {
    BOOST_TEST_REQUIRE(got[i].src < 2u);
    ++from[got[i].src];
    BOOST_TEST(got[i].tag == i / 2);  // each source's packets in order
    if (i > 0) {
      BOOST_TEST(got[i].src != got[i - 1].src);  // strictly alternating grants
    }
  }
  BOOST_TEST(got[0].src == 0u);  // both request together: input 0 is nearest the pointer
  BOOST_TEST((from[0] == from[1] || from[0] == from[1] + 1));
  BOOST_TEST(f.routers[0]->buffered_packets() > 0u);  // both inputs still had packets waiting

  // The shared output never idled: router 0 first granted at 72000 ps (head at 21353, clock
  // edge 22000, + 50 cycles) and has sent a packet every 90826 ps since.
  const tlm_net::link& shared =
      f.link_named("bench.link_r0_" + std::to_string(f.topo.local_port(0, 1)));
  BOOST_TEST(shared.packets.value > got.size());
  BOOST_TEST(shared.busy_ps.value == shared.packets.value * 90826u);
  BOOST_TEST(shared.free_at().value() == 72000u + shared.packets.value * 90826u);
}

BOOST_AUTO_TEST_CASE(router_describe_stall_names_port_vc_and_credits) {
  fabric_params fp;
  fp.router.vc_buffer_bytes = {16384, 256, 16384};  // a local VC cannot hold a 512 B packet
  test_fabric f("bench", fp);
  f.script = [](test_fabric& self) { self.send(0, 5, 512, 3); };
  sc_core::sc_start();  // runs out of events: the packet waits for credits forever

  BOOST_TEST(f.logs[5].got.empty());
  BOOST_TEST(f.routers[0]->buffered_packets() == 1u);
  std::ostringstream os;
  BOOST_TEST(f.routers[0]->describe_stall(os, 10));
  const std::string text = os.str();
  BOOST_TEST_MESSAGE(text);
  const uint32_t to_r1 = f.topo.local_port(0, 1);
  BOOST_TEST(to_r1 == 1u);
  BOOST_TEST(text.find("bench.router_0 input port 0 (terminal) VC 0: 1 packets routed, 512 bytes "
                       "buffered") != std::string::npos);
  BOOST_TEST(text.find("head packet{data 0->5 msg 0 tag 3 pkt 0/1 512 B") != std::string::npos);
  BOOST_TEST(text.find("waits for output port 1 VC 0 with 256/256 credit bytes") !=
             std::string::npos);
  BOOST_TEST(std::count(text.begin(), text.end(), '\n') == 1);

  // No more than max_lines lines; a router holding nothing says nothing.
  std::ostringstream none;
  BOOST_TEST(f.routers[0]->describe_stall(none, 0));
  BOOST_TEST(none.str().empty());
  for (uint32_t r = 1; r < 6; ++r) {
    std::ostringstream quiet;
    BOOST_TEST(!f.routers[r]->describe_stall(quiet, 10));
    BOOST_TEST(quiet.str().empty());
  }
}

BOOST_AUTO_TEST_CASE(router_describe_stall_counts_packets_still_in_the_pipeline) {
  const fabric_params fp = latency_params();
  test_fabric f("bench", fp);
  f.script = [](test_fabric& self) {
    wait_until(123);
    self.send(0, 5, 512, 1);
  };
  // Stop at 45 ns: the head reached router 0 at 39925 ps, its pipeline ends at 52500 ps.
  sc_core::sc_start(sc_time(45, sc_core::SC_NS));

  BOOST_TEST(f.routers[0]->buffered_packets() == 1u);
  std::ostringstream os;
  BOOST_TEST(f.routers[0]->describe_stall(os, 10));
  BOOST_TEST(os.str().find("input port 0 (terminal) VC 0: 0 packets routed, 512 bytes buffered") !=
             std::string::npos);
  BOOST_TEST(os.str().find("waits") == std::string::npos);  // not routed yet: no head to name
}
