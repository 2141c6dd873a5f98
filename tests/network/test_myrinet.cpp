// Myrinet: one crossbar up to 16 nodes, a two-level folded Clos beyond (wiring, symmetry,
// full bisection), source routing (every pair delivered, up*/down*, one entry consumed per
// switch, one destination per down link, routes from inside the fabric), deadlock freedom on
// one VC (and the check's sensitivity), no allocation per hop, errors naming their key, and
// the kind's registration.
#include "counting_new.h"
#include "network/myrinet.h"
#include "network/routing.h"
#include "network/topology_kind.h"
#include "routing_checks.h"

#include <boost/test/unit_test.hpp>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace bcastsim::network;
using namespace bcastsim::network::routing_checks;

namespace {

myrinet make(uint32_t nodes, uint32_t switch_ports = 16) {
  return myrinet(myrinet_params{nodes, switch_ports});
}

// The error the constructor throws: (key, message), or ("", "").
std::pair<std::string, std::string> error_of(uint32_t nodes, uint32_t switch_ports) {
  try {
    make(nodes, switch_ports);
  } catch (const topology_error& e) {
    return {e.key, e.what()};
  }
  return {"", ""};
}

// Sizes the routing tests walk: one crossbar (part full, full), Clos part full, a last leaf
// of one host, the 64- and 128-node Clos, and an 8-port crossbar's Clos.
const std::pair<uint32_t, uint32_t> k_myrinet_shapes[] = {{5, 16},  {16, 16},  {17, 16}, {41, 16},
                                                          {64, 16}, {128, 16}, {32, 8}};

// Every hop's class along a route: 't' terminal, 'u' leaf to spine, 'd' spine to leaf.
std::string classes_along(const myrinet& net, const std::vector<hop>& path) {
  std::string s;
  for (const hop& h : path) {
    const port_info& pi = net.port(h.at, h.out.port);
    if (pi.peer_kind == port_info::kind::terminal)
      s += 't';
    else
      s += net.is_spine(h.at) ? 'd' : 'u';
  }
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(myrinet_one_crossbar_holds_up_to_16_nodes) {
  const myrinet five = make(5);
  BOOST_TEST(five.num_routers() == 1u);
  BOOST_TEST(five.radix(0) == 16u);
  BOOST_TEST(five.num_link_classes() == 2u);
  BOOST_TEST(five.class_name(1) == "clos");
  for (port_id p = 0; p < 16; ++p) {
    const port_info& pi = five.port(0, p);
    if (p < 5) {
      BOOST_TEST((pi.peer_kind == port_info::kind::terminal && pi.peer == p));
      BOOST_TEST(five.attach(p).port == p);
    } else {
      BOOST_TEST((pi.peer_kind == port_info::kind::unused));
    }
  }
  BOOST_TEST(five.describe() == "myrinet 5 nodes on one 16-port crossbar");
  BOOST_TEST(make(16).num_routers() == 1u);
  BOOST_TEST(make(16).spines() == 0u);
}

BOOST_AUTO_TEST_CASE(myrinet_clos_wiring_is_symmetric_with_full_bisection) {
  struct expected {
    uint32_t nodes, leaves, spines;
  };
  for (const expected& e : {expected{17, 3, 8}, expected{40, 5, 8}, expected{41, 6, 8},
                            expected{64, 8, 8}, expected{128, 16, 8}}) {
    const myrinet net = make(e.nodes);
    BOOST_TEST_CONTEXT(net.describe()) {
      BOOST_TEST(net.leaves() == e.leaves);
      BOOST_TEST(net.spines() == e.spines);
      BOOST_TEST(net.num_routers() == e.leaves + e.spines);
      BOOST_TEST(net.num_terminals() == e.nodes);
      for (router_id r = 0; r < net.num_routers(); ++r) {
        uint32_t hosts = 0;
        uint32_t switches = 0;
        std::set<router_id> peers;
        for (port_id p = 0; p < net.radix(r); ++p) {
          const port_info& pi = net.port(r, p);
          if (pi.peer_kind == port_info::kind::terminal) {
            ++hosts;
            BOOST_TEST((net.attach(pi.peer).router == r && net.attach(pi.peer).port == p));
          } else if (pi.peer_kind == port_info::kind::router) {
            ++switches;
            peers.insert(pi.peer);
            BOOST_TEST(pi.cls == myrinet_classes::clos);
            BOOST_TEST(net.is_spine(r) != net.is_spine(pi.peer));  // leaf <-> spine only
            const port_info& back = net.port(pi.peer, pi.peer_port);
            BOOST_TEST((back.peer == r && back.peer_port == p));
          }
        }
        BOOST_TEST(peers.size() == switches);  // one link per leaf-spine pair
        if (net.is_spine(r)) {
          BOOST_TEST(hosts == 0u);
          BOOST_TEST(switches == e.leaves);
        } else {
          // As many links up as the leaf has host ports: full bisection.
          BOOST_TEST(hosts <= net.hosts_per_leaf());
          BOOST_TEST(switches == net.hosts_per_leaf());
        }
      }
    }
  }
  BOOST_TEST(make(41).describe() ==
             "myrinet 41 nodes, Clos of 16-port crossbars (6 leaves, 8 "
             "spines)");
}

BOOST_AUTO_TEST_CASE(source_routes_deliver_every_pair_up_then_down) {
  for (const auto& [nodes, ports] : k_myrinet_shapes) {
    const myrinet net = make(nodes, ports);
    const myrinet_source_routing policy(net);
    BOOST_TEST_CONTEXT(net.describe()) {
      uint32_t wrong = 0;
      for (terminal_id s = 0; s < nodes; ++s) {
        for (terminal_id d = 0; d < nodes; ++d) {
          if (s == d) continue;
          const std::vector<hop> path = walk(net, policy, s, d);
          const hop& last = path.back();
          wrong += net.port(last.at, last.out.port).peer != d ||
                   net.port(last.at, last.out.port).peer_kind != port_info::kind::terminal;
          const bool same_leaf = net.leaf_of(s) == net.leaf_of(d);
          wrong += classes_along(net, path) != (same_leaf ? "t" : "udt");
          // One entry per switch, the last consumed at the last switch.
          for (size_t i = 0; i < path.size(); ++i) {
            wrong += path[i].before.choice != path.size() - i;
            wrong += path[i].out.vc != 0;
          }
        }
      }
      BOOST_TEST(wrong == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(source_routes_give_each_down_link_one_destination) {
  // Destination-based spine choice: every spine-to-leaf link carries the packets of exactly
  // one host, whoever sends them, so converging traffic never shares a down link.
  const myrinet net = make(128);
  const myrinet_source_routing policy(net);
  std::map<std::pair<router_id, port_id>, std::set<terminal_id>> down;
  for (terminal_id s = 0; s < 128; s += 3) {
    for (terminal_id d = 0; d < 128; ++d) {
      if (net.leaf_of(s) == net.leaf_of(d)) continue;
      for (const hop& h : walk(net, policy, s, d)) {
        if (net.is_spine(h.at)) down[{h.at, h.out.port}].insert(d);
      }
    }
  }
  BOOST_TEST(down.size() == 128u);  // 8 spines x 16 leaves, all used
  for (const auto& [link, dsts] : down) BOOST_TEST(dsts.size() == 1u);
  // A flow keeps its path whatever the entropy.
  BOOST_TEST(walk(net, policy, 0, 100, 1)[0].out.port == walk(net, policy, 0, 100, 99)[0].out.port);
}

BOOST_AUTO_TEST_CASE(a_packet_without_a_route_gets_one_from_its_switch) {
  // A packet injected inside the fabric carries no entries: the switch it is at routes it as
  // a NIC there would have, from a spine too.
  const myrinet net = make(64);
  const myrinet_source_routing policy(net);
  const terminal_id dst = 37;  // leaf 4, port 5
  route_state s;
  const route_decision at_spine = policy.route(net.leaves() + 2, dst, s, nullptr);
  BOOST_TEST(at_spine.port == net.leaf_of(dst));
  BOOST_TEST(s.choice == 1u);
  const route_decision at_leaf = policy.route(net.leaf_of(dst), dst, s, nullptr);
  BOOST_TEST(at_leaf.port == 5u);
  BOOST_TEST(s.choice == 0u);
  route_state other;
  BOOST_TEST(policy.route(0, dst, other, nullptr).port == net.up_port(5));
  BOOST_TEST(other.choice == 2u);
  BOOST_TEST(other.local_hops == 1u);
}

BOOST_AUTO_TEST_CASE(source_routing_is_deadlock_free_on_one_vc) {
  for (const auto& [nodes, ports] : k_myrinet_shapes) {
    const myrinet net = make(nodes, ports);
    const myrinet_source_routing policy(net);
    BOOST_TEST_CONTEXT(net.describe()) {
      BOOST_TEST(!has_cycle(channel_dependency_graph(net, policy, policy.min_vcs())));
    }
  }
  // Routes that turn down and up again (through a third leaf) close cycles on one VC: the
  // check must see them, or its verdict above would prove nothing.
  class bouncing final : public routing_policy {
   public:
    explicit bouncing(const myrinet& net) : routing_policy(net), m_net(net) {}
    std::string name() const override { return "bouncing"; }
    uint32_t min_vcs() const override { return 1; }
    void init_state(terminal_id, terminal_id, uint64_t, route_state& s) const override {
      s = route_state{};
    }
    route_decision route(router_id at, terminal_id dst, route_state& s,
                         const port_occupancy_view*) const override {
      const terminal_attach& to = m_net.attach(dst);
      if (at == to.router && s.local_hops != 1) return {to.port, 0};
      ++s.local_hops;
      if (!m_net.is_spine(at)) return {m_net.up_port(to.port % m_net.spines()), 0};
      // First visit of a spine: down to the leaf after the destination's, then back up.
      const router_id leaf = s.local_hops == 2 ? (to.router + 1) % m_net.leaves() : to.router;
      return {leaf, 0};
    }

   private:
    const myrinet& m_net;
  };
  const myrinet net = make(48);
  BOOST_TEST(has_cycle(channel_dependency_graph(net, bouncing(net), 1)));
}

BOOST_AUTO_TEST_CASE(source_route_does_not_allocate) {
  const myrinet net = make(128);
  const myrinet_source_routing policy(net);
  const counting_new::walk_count c = counting_new::route_from(net, policy, 5, 3);
  BOOST_TEST(c.allocations == 0u);
  BOOST_TEST(c.hops > 0u);
}

BOOST_AUTO_TEST_CASE(myrinet_bad_parameters_throw_with_key) {
  auto expect = [](uint32_t nodes, uint32_t ports, const std::string& key,
                   const std::string& part) {
    const auto [k, what] = error_of(nodes, ports);
    BOOST_TEST(k == key, what);
    BOOST_TEST(what.find(part) != std::string::npos, what);
  };
  expect(0, 16, "topology.nodes", "topology.nodes = 0 is out of range");
  expect(129, 16, "topology.nodes",
         "topology.nodes = 129 needs a Clos of more than two levels, which is not built: at "
         "most 128 nodes with topology.switch_ports = 16");
  expect(20, 15, "topology.switch_ports", "topology.switch_ports = 15 is odd");
  expect(4, 3, "topology.switch_ports", "topology.switch_ports = 3 is out of range");
  expect(4, 257, "topology.switch_ports", "4 to 256 ports");
  BOOST_TEST(error_of(15, 15).first == "");  // one crossbar: odd is fine
  BOOST_TEST(error_of(128, 16).first == "");
  BOOST_TEST(error_of(1, 16).first == "");
}

BOOST_AUTO_TEST_CASE(myrinet_kind_is_registered_and_builds_from_values) {
  const topology_kind& kind = find_topology_kind("myrinet");
  BOOST_TEST(kind.routings == std::vector<std::string>{"source"}, boost::test_tools::per_element());
  BOOST_REQUIRE(kind.classes.size() == 2u);
  for (const link_class_decl& c : kind.classes) {
    // 250 MB/s per direction (FACTS §5), in GiB/s.
    BOOST_TEST(c.bandwidth_gib_per_s * 1024 * 1024 * 1024 == 250e6,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(c.vc_buffer_bytes >= 4096u + 24u + 8u);  // GM's largest packet
  }
  std::map<std::string, std::string> defaults;
  for (const auto& d : kind.params) defaults[d.key] = d.default_value;
  BOOST_TEST(defaults.at("topology.nodes") == "16");
  BOOST_TEST(defaults.at("topology.switch_ports") == "16");
  BOOST_TEST(defaults.at("routing.kind") == "source");

  struct map_values final : bcastsim::params::values {
    std::map<std::string, std::string> m;
    const std::string& text(const std::string& key) const override { return m.at(key); }
  } v;
  v.m = defaults;
  for (const uint32_t nodes : {16u, 17u, 64u, 128u}) {
    v.m["topology.nodes"] = std::to_string(nodes);
    const std::unique_ptr<topology> topo = kind.make(v);
    BOOST_TEST(topo->kind() == "myrinet");
    const auto size = kind.estimate_size(v);
    BOOST_TEST(size.routers == topo->num_routers());
    BOOST_TEST(size.terminals == topo->num_terminals());
    BOOST_TEST(size.ports == topo->num_routers() * 16.0);
    const std::unique_ptr<routing_policy> policy = make_routing("source", *topo);
    BOOST_TEST(policy->name() == "source");
    BOOST_TEST(policy->min_vcs() == 1u);
  }
  v.m["topology.nodes"] = "200";
  try {
    kind.make(v);
    BOOST_FAIL("200 nodes must throw");
  } catch (const topology_error& e) {
    BOOST_TEST(e.key == "topology.nodes");
  }
}
