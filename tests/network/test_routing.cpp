// Dragonfly minimal routing: delivery, minimality, hop bounds, VC rule, deadlock freedom
// (acyclic channel dependency graph), and the routing registry.
#include "network/dragonfly.h"
#include "network/routing.h"
#include "network/topology_kind.h"
#include "routing_checks.h"

#include <boost/test/unit_test.hpp>

#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace bcastsim::network;
using namespace bcastsim::network::routing_checks;

namespace {

constexpr uint32_t k_vcs = 2;

graph channel_dependency_graph(const topology& topo, const routing_policy& policy) {
  return routing_checks::channel_dependency_graph(topo, policy, k_vcs);
}

// Minimal routing with the dateline removed: everything on VC 0.
using single_vc_routing = routing_checks::single_vc<dragonfly_minimal_routing, dragonfly>;

// A topology that is not a dragonfly: two routers, each its own group, one cable.
class two_router_line final : public topology {
 public:
  two_router_line() {
    m_ports.assign(2, std::vector<port_info>(1));
    m_ports[0][0] = {port_info::kind::router, dragonfly_classes::global, 1, 0};
    m_ports[1][0] = {port_info::kind::router, dragonfly_classes::global, 0, 0};
  }
  std::string kind() const override { return "line"; }
  std::string describe() const override { return "line of 2"; }
  uint32_t num_groups() const override { return 2; }
  group_id group_of(router_id r) const override { return r; }
};

}  // namespace

BOOST_AUTO_TEST_CASE(minimal_routing_delivers_every_pair_minimally) {
  for (const dragonfly_params& params : k_shapes) {
    const dragonfly df(params);
    const dragonfly_minimal_routing policy(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      std::vector<std::vector<uint32_t>> minimal(df.num_routers());
      std::vector<std::vector<uint32_t>> unrestricted(df.num_routers());
      for (router_id r = 0; r < df.num_routers(); ++r) {
        minimal[r] = distances_from(df, r, 1);
        unrestricted[r] = distances_from(df, r, df.num_routers());
      }
      uint32_t failures = 0;
      for (terminal_id src = 0; src < df.num_terminals(); ++src) {
        for (terminal_id dst = 0; dst < df.num_terminals(); ++dst) {
          if (src == dst) continue;
          const std::vector<hop> path = walk(df, policy, src, dst);
          const hop& last = path.back();
          uint32_t locals = 0, globals = 0;
          bool ok = last.at == df.router_of(dst) && last.out.port == df.attach(dst).port &&
                    last.out.vc == 0;
          for (size_t i = 0; i + 1 < path.size(); ++i) {
            const hop& h = path[i];
            const port_info& pi = df.port(h.at, h.out.port);
            ok = ok && pi.peer_kind == port_info::kind::router;
            (pi.cls == dragonfly_classes::global ? globals : locals)++;
            // Dateline: VC 0 until the global link has been taken, then VC 1.
            ok = ok && h.out.vc == (h.before.global_hops == 0 ? 0 : 1);
          }
          const uint32_t router_hops = static_cast<uint32_t>(path.size() - 1);
          const uint32_t from = df.router_of(src);
          const uint32_t to = df.router_of(dst);
          ok = ok && globals <= 1 && locals <= 2 && router_hops == minimal[from][to] &&
               router_hops >= unrestricted[from][to] && last.before.global_hops == globals &&
               last.before.local_hops == locals;
          if (!ok && ++failures <= 5) BOOST_ERROR("bad route " << src << " -> " << dst);
        }
      }
      BOOST_TEST(failures == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(minimal_routing_same_router_ejects_at_once) {
  const dragonfly df(dragonfly_params{9, 4, 2, 2, global_arrangement::absolute});
  const dragonfly_minimal_routing policy(df);
  route_state state;
  policy.init_state(0, 1, 0, state);
  const route_decision d = policy.route(0, 1, state, nullptr);
  BOOST_TEST(d.port == 1u);
  BOOST_TEST(d.vc == 0u);
  BOOST_TEST(state.local_hops == 0u);
  BOOST_TEST(state.global_hops == 0u);
}

BOOST_AUTO_TEST_CASE(minimal_routing_choice_is_deterministic_and_spread) {
  // g=5 a=4 h=2: two links per group pair. A flow always gets the same one; where both
  // give equally short paths the (src, dst) hash must use both.
  const dragonfly df(dragonfly_params{5, 4, 2, 2, global_arrangement::absolute});
  const dragonfly_minimal_routing policy(df);
  auto hops_via = [&](terminal_id src, terminal_id dst, uint32_t k) {
    const auto e = df.global_link(df.group_of_terminal(src), df.group_of_terminal(dst), k);
    return (e.router != df.router_of(src) ? 1 : 0) +
           (df.port(e.router, e.port).peer != df.router_of(dst) ? 1 : 0);
  };
  std::set<uint32_t> tied_choices;
  uint32_t shorter_taken = 0;
  for (terminal_id src = 0; src < df.num_terminals(); ++src) {
    for (terminal_id dst = 0; dst < df.num_terminals(); ++dst) {
      route_state a, b;
      policy.init_state(src, dst, 1, a);
      policy.init_state(src, dst, 2, b);  // minimal routing ignores the entropy
      BOOST_REQUIRE(a.choice == b.choice);
      BOOST_REQUIRE(a.choice < df.links_per_group_pair());
      BOOST_REQUIRE(a.global_hops == 0u);
      BOOST_REQUIRE(a.local_hops == 0u);
      if (df.group_of_terminal(src) == df.group_of_terminal(dst)) continue;
      const int h0 = hops_via(src, dst, 0);
      const int h1 = hops_via(src, dst, 1);
      if (h0 == h1) {
        tied_choices.insert(a.choice);
      } else {
        shorter_taken += a.choice == (h0 < h1 ? 0u : 1u);
        BOOST_REQUIRE(a.choice == (h0 < h1 ? 0u : 1u));
      }
    }
  }
  BOOST_TEST(tied_choices.size() == 2u);
  BOOST_TEST(shorter_taken > 0u);  // the shape does have untied pairs
}

BOOST_AUTO_TEST_CASE(cycle_checker_finds_cycles_and_only_cycles) {
  BOOST_TEST(!has_cycle(graph{{1, 2}, {2}, {}}));
  BOOST_TEST(has_cycle(graph{{1}, {2}, {0}}));
  BOOST_TEST(has_cycle(graph{{}, {1}}));  // self loop
  BOOST_TEST(!has_cycle(graph{{1}, {}, {1}, {2, 0}}));
}

BOOST_AUTO_TEST_CASE(minimal_routing_channel_dependencies_are_acyclic) {
  for (const dragonfly_params& params : k_shapes) {
    const dragonfly df(params);
    const dragonfly_minimal_routing policy(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      BOOST_TEST(policy.min_vcs() == k_vcs);
      BOOST_TEST(!has_cycle(channel_dependency_graph(df, policy)));
    }
  }
}

BOOST_AUTO_TEST_CASE(single_vc_minimal_routing_is_cyclic) {
  // Without the dateline, local->global->local chains close a loop through the groups:
  // the checker above must see it, or its "acyclic" verdict would prove nothing.
  const dragonfly_params shapes[] = {{9, 4, 2, 2, global_arrangement::absolute},
                                     {9, 4, 2, 2, global_arrangement::relative}};
  for (const dragonfly_params& params : shapes) {
    const dragonfly df(params);
    const single_vc_routing policy(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      BOOST_TEST(has_cycle(channel_dependency_graph(df, policy)));
    }
  }
}

BOOST_AUTO_TEST_CASE(routing_registry) {
  const dragonfly df(dragonfly_params{5, 4, 2, 2, global_arrangement::absolute});
  const std::unique_ptr<routing_policy> minimal = make_routing("minimal", df);
  BOOST_REQUIRE(minimal != nullptr);
  BOOST_TEST(minimal->name() == "minimal");
  BOOST_TEST(minimal->min_vcs() == 2u);
  BOOST_TEST(&minimal->topo() == &df);
  BOOST_TEST(
      routing_names("dragonfly") == (std::vector<std::string>{"minimal", "nonminimal", "adaptive",
                                                              "adaptive-codes"}),
      boost::test_tools::per_element());
  BOOST_TEST(routing_names("no-such-kind").empty());

  std::string message;
  try {
    make_routing("x", df);
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  BOOST_TEST(message ==
             "routing.kind = 'x' is not known for dragonfly; allowed: minimal, nonminimal, "
             "adaptive, adaptive-codes");

  const two_router_line line;
  BOOST_CHECK_THROW(make_routing("minimal", line), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(generic_links_between_groups_scans_the_wiring) {
  const two_router_line line;
  const auto forward = line.links_between_groups(0, 1);
  BOOST_REQUIRE(forward.size() == 1u);
  BOOST_TEST(forward[0].first == 0u);
  BOOST_TEST(forward[0].second == 1u);
  const auto back = line.links_between_groups(1, 0);
  BOOST_REQUIRE(back.size() == 1u);
  BOOST_TEST(back[0].first == 1u);
  BOOST_TEST(line.links_between_groups(0, 0).empty());
  BOOST_TEST(line.terminals_of(0).empty());
}
