// Least-cost routing on graph files: equal to the dragonfly's own minimal routing on a
// dragonfly written out, least-cost and per-flow stable on any graph, deadlock-free (acyclic
// channel dependencies with min_vcs() VCs, which is exact), and fast on a 2,064-router graph.
#include "graph_test_files.h"
#include "network/dragonfly.h"
#include "network/graph_routing.h"
#include "network/graph_topology.h"
#include "routing_checks.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace bcastsim::network;
using namespace bcastsim::network::graph_test_files;
using namespace bcastsim::network::routing_checks;

namespace {

const std::vector<double> k_dragonfly_cost{0, 1, 3};  // [terminal] ignored, local, global

std::string ring_yaml(uint32_t n) {
  std::string text =
      "routers: " + std::to_string(n) + "\nterminals_per_router: 1\nclasses: [ring]\nlinks:\n";
  for (uint32_t r = 0; r < n; ++r) {
    text += "  - [" + std::to_string(r) + ", " + std::to_string((r + 1) % n) + ", ring]\n";
  }
  return text;
}

// A connected random graph: a random spanning tree plus extra links (parallel ones too),
// each of class a (cost 1) or b (cost 2), one terminal per router.
std::string random_graph_yaml(uint32_t seed, uint32_t routers, uint32_t extra_links) {
  std::mt19937 rng(seed);
  std::string text = "routers: " + std::to_string(routers) +
                     "\nterminals_per_router: 1\nclasses:\n  - {name: a, cost: 1}\n"
                     "  - {name: b, cost: 2}\nlinks:\n";
  auto link = [&](uint32_t x, uint32_t y) {
    text += "  - [" + std::to_string(x) + ", " + std::to_string(y) + ", " +
            (rng() % 2 ? "a" : "b") + "]\n";
  };
  for (uint32_t r = 1; r < routers; ++r) link(r, rng() % r);
  for (uint32_t i = 0; i < extra_links; ++i) {
    const uint32_t x = rng() % routers;
    const uint32_t y = (x + 1 + rng() % (routers - 1)) % routers;
    link(x, y);
  }
  return text;
}

// Least costs between all routers by Floyd-Warshall, independent of the policy's own.
std::vector<std::vector<uint64_t>> floyd(const graph_topology& g) {
  const uint32_t n = g.num_routers();
  std::vector<std::vector<uint64_t>> d(n, std::vector<uint64_t>(n, UINT32_MAX));
  for (router_id r = 0; r < n; ++r) {
    d[r][r] = 0;
    for (port_id p = 0; p < g.radix(r); ++p) {
      const port_info& pi = g.port(r, p);
      if (pi.peer_kind == port_info::kind::router) {
        d[r][pi.peer] = std::min<uint64_t>(d[r][pi.peer], g.class_cost(pi.cls));
      }
    }
  }
  for (uint32_t k = 0; k < n; ++k)
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t j = 0; j < n; ++j) d[i][j] = std::min(d[i][j], d[i][k] + d[k][j]);
  return d;
}

// The most descents (VC rule) on any least-cost path between routers, by enumerating the
// paths: the VCs minimal routing needs, found without the policy's dynamic programming.
uint32_t most_descents_by_enumeration(const graph_topology& g) {
  const auto d = floyd(g);
  uint32_t most = 0;
  std::function<void(router_id, router_id, link_class, uint32_t)> follow =
      [&](router_id at, router_id to, link_class prev, uint32_t descents) {
        most = std::max(most, descents);
        for (port_id p = 0; p < g.radix(at); ++p) {
          const port_info& pi = g.port(at, p);
          if (pi.peer_kind != port_info::kind::router) continue;
          if (g.class_cost(pi.cls) + d[pi.peer][to] != d[at][to]) continue;
          follow(pi.peer, to, pi.cls, descents + (prev != 0 && pi.cls <= prev ? 1 : 0));
        }
      };
  for (router_id s = 0; s < g.num_routers(); ++s)
    for (router_id t = 0; t < g.num_routers(); ++t) follow(s, t, 0, 0);
  return most;
}

struct cdg_result {
  graph deps;
  uint32_t highest_vc = 0;
};

// Channel dependencies of every terminal pair's route, with policy.min_vcs() VCs.
cdg_result channel_dependencies(const topology& topo, const routing_policy& policy) {
  dependency_graph_builder builder(topo, policy.min_vcs());
  cdg_result out;
  for (terminal_id s = 0; s < topo.num_terminals(); ++s) {
    for (terminal_id t = 0; t < topo.num_terminals(); ++t) {
      if (s == t) continue;
      const std::vector<hop> path = walk(topo, policy, s, t, 0, nullptr, topo.num_routers());
      for (const hop& h : path) out.highest_vc = std::max<uint32_t>(out.highest_vc, h.out.vc);
      builder.add(s, path);
    }
  }
  out.deps = builder.finish();
  return out;
}

// Graph minimal routing with the VC rule removed: every hop on VC 0.
using single_vc_routing = routing_checks::single_vc<graph_minimal_routing, graph_topology>;

}  // namespace

BOOST_AUTO_TEST_CASE(graph_minimal_routes_as_the_dragonfly_minimal_routing) {
  const scratch_dir dir;
  // g = a*h+1: one global link per group pair, so every minimal path is unique.
  for (const global_arrangement arr :
       {global_arrangement::absolute, global_arrangement::relative}) {
    const dragonfly df(dragonfly_params{0, 4, 2, 2, arr});
    const dragonfly_minimal_routing expected(df);
    const graph_topology g(dir.write("df72.yaml", yaml_of(df, k_dragonfly_cost)));
    const graph_minimal_routing routing(g);
    BOOST_TEST_CONTEXT(df.describe()) {
      BOOST_TEST(routing.min_vcs() == expected.min_vcs());
      uint32_t differences = 0, routes_on_vc1 = 0;
      for (terminal_id s = 0; s < df.num_terminals(); ++s) {
        for (terminal_id t = 0; t < df.num_terminals(); ++t) {
          const std::vector<hop> want = walk(df, expected, s, t);
          const std::vector<hop> got = walk(g, routing, s, t);
          bool same = want.size() == got.size();
          for (size_t i = 0; same && i < want.size(); ++i) {
            same = want[i].at == got[i].at && want[i].out.port == got[i].out.port &&
                   want[i].out.vc == got[i].out.vc;
            routes_on_vc1 += got[i].out.vc == 1;
          }
          if (!same && ++differences <= 5) BOOST_ERROR("route " << s << " -> " << t << " differs");
        }
      }
      BOOST_TEST(differences == 0u);
      BOOST_TEST(routes_on_vc1 > 0u);  // the VC comparison did compare something
    }
  }
}

BOOST_AUTO_TEST_CASE(graph_minimal_routes_are_least_cost_and_stable_per_flow) {
  const scratch_dir dir;
  std::vector<std::string> files;
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    files.push_back(
        dir.write("random" + std::to_string(seed) + ".yaml", random_graph_yaml(seed, 14, 10)));
  }
  files.push_back(
      dir.write("df5.yaml", yaml_of(dragonfly(dragonfly_params{5, 4, 2, 2}), k_dragonfly_cost)));
  for (const std::string& file : files) {
    const graph_topology g(file);
    const graph_minimal_routing routing(g);
    const auto cost = floyd(g);
    BOOST_TEST_CONTEXT(file) {
      uint32_t bad = 0;
      for (terminal_id s = 0; s < g.num_terminals(); ++s) {
        for (terminal_id t = 0; t < g.num_terminals(); ++t) {
          const std::vector<hop> path = walk(g, routing, s, t, 0, nullptr, g.num_routers());
          uint64_t sum = 0;
          for (size_t i = 0; i + 1 < path.size(); ++i)
            sum += g.class_cost(g.port(path[i].at, path[i].out.port).cls);
          const hop& last = path.back();
          bool ok = last.at == g.router_of(t) && last.out.port == g.attach(t).port &&
                    last.out.vc == 0 && sum == cost[g.router_of(s)][g.router_of(t)] &&
                    routing.distance(g.router_of(s), g.router_of(t)) == sum;
          const std::vector<hop> again = walk(g, routing, s, t, 12345, nullptr, g.num_routers());
          ok = ok && again.size() == path.size();
          for (size_t i = 0; ok && i < path.size(); ++i) ok = again[i].out.port == path[i].out.port;
          if (!ok && ++bad <= 5) BOOST_ERROR("route " << s << " -> " << t);
        }
      }
      BOOST_TEST(bad == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(graph_minimal_spreads_flows_over_equal_cost_paths) {
  // On a ring of 8, the router 4 hops away is as far both ways: flows must take both.
  const scratch_dir dir;
  const graph_topology g(dir.write("ring.yaml", ring_yaml(8)));
  const graph_minimal_routing routing(g);
  uint32_t way[2] = {0, 0};
  for (terminal_id s = 0; s < 8; ++s) {
    const std::vector<hop> path = walk(g, routing, s, (s + 4) % 8);
    BOOST_REQUIRE(path.size() == 5u);
    ++way[g.port(path[0].at, path[0].out.port).peer == (s + 1) % 8 ? 0 : 1];
  }
  BOOST_TEST(way[0] > 0u);
  BOOST_TEST(way[1] > 0u);
}

BOOST_AUTO_TEST_CASE(graph_minimal_channel_dependencies_are_acyclic_and_min_vcs_exact) {
  const scratch_dir dir;
  struct shape {
    std::string name;
    std::string text;
    uint32_t vcs;  // expected min_vcs, 0: by enumeration only
  };
  std::vector<shape> shapes = {
      {"df72.yaml", yaml_of(dragonfly(dragonfly_params{0, 4, 2, 2}), k_dragonfly_cost), 2},
      // Up to 4 hops of one class: 3 descents.
      {"ring8.yaml", ring_yaml(8), 4},
      {"ring9.yaml", ring_yaml(9), 4},
  };
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    shapes.push_back(
        {"random" + std::to_string(seed) + ".yaml", random_graph_yaml(seed, 14, 10), 0});
  }
  for (const shape& s : shapes) {
    const graph_topology g(dir.write(s.name, s.text));
    const graph_minimal_routing routing(g);
    BOOST_TEST_CONTEXT(s.name) {
      const uint32_t enumerated = most_descents_by_enumeration(g) + 1;
      BOOST_TEST(routing.min_vcs() == enumerated);
      if (s.vcs != 0) BOOST_TEST(routing.min_vcs() == s.vcs);
      const cdg_result cdg = channel_dependencies(g, routing);
      BOOST_TEST(!has_cycle(cdg.deps));
      BOOST_TEST(cdg.highest_vc < routing.min_vcs());
      if (s.vcs != 0) BOOST_TEST(cdg.highest_vc + 1 == s.vcs);  // the bound is reached
    }
  }
}

BOOST_AUTO_TEST_CASE(graph_single_vc_ring_is_cyclic) {
  // Without the descent rule a ring's routes chase each other round: the checker must see
  // the cycle, or its "acyclic" verdicts above would prove nothing.
  const scratch_dir dir;
  const graph_topology g(dir.write("ring.yaml", ring_yaml(8)));
  const single_vc_routing routing(g);
  BOOST_TEST(has_cycle(channel_dependencies(g, routing).deps));
}

BOOST_AUTO_TEST_CASE(graph_refuses_more_vcs_than_a_route_can_name) {
  // A ring of 600 has least-cost paths of 300 hops of one class: 300 VCs.
  const scratch_dir dir;
  const graph_topology g(dir.write("ring600.yaml", ring_yaml(600)));
  std::string message;
  try {
    graph_minimal_routing routing(g);
  } catch (const topology_error& e) {
    message = e.what();
  }
  BOOST_TEST(message.find("ring600.yaml: least-cost paths make up to 299 class descents, so they "
                          "need 300 VCs; a route can use at most 256") != std::string::npos,
             message);
}

// Speed is measured in bench/, never asserted here (a sanitizer build is several times
// slower): this case checks the big graph loads and routes as the dragonfly does, and
// reports how long it took.
BOOST_AUTO_TEST_CASE(graph_big_dragonfly_loads_and_routes_like_the_dragonfly) {
  // 129 groups of 16 routers = 2,064 routers, 4,128 terminals, 23,736 cables.
  const scratch_dir dir;
  const dragonfly df(dragonfly_params{0, 16, 2, 8});
  BOOST_REQUIRE(df.num_routers() == 2064u);
  const std::string path = dir.write("df2064.yaml", yaml_of(df, k_dragonfly_cost));
  const std::clock_t start = std::clock();
  const graph_topology g(path);
  const std::clock_t loaded = std::clock();
  const graph_minimal_routing routing(g);
  const std::clock_t routed = std::clock();
  const double load_s = double(loaded - start) / CLOCKS_PER_SEC;
  const double routing_s = double(routed - loaded) / CLOCKS_PER_SEC;
  BOOST_TEST_MESSAGE("2,064-router graph: load " << load_s << " s, routing tables " << routing_s
                                                 << " s");
  const std::string edges = dir.write("df2064.edges", edge_list_of(df, k_dragonfly_cost));
  const std::clock_t edges_start = std::clock();
  const graph_topology from_edges(edges);
  const double edges_s = double(std::clock() - edges_start) / CLOCKS_PER_SEC;
  BOOST_TEST_MESSAGE("2,064-router graph: edge list load " << edges_s << " s");
  BOOST_TEST(from_edges.num_routers() == 2064u);
  BOOST_TEST(routing.min_vcs() == 2u);

  const dragonfly_minimal_routing expected(df);
  uint32_t differences = 0;
  for (uint64_t i = 0; i < 20000; ++i) {
    const auto s = static_cast<terminal_id>(bcastsim::network::splitmix64(i) % df.num_terminals());
    const auto t = static_cast<terminal_id>(bcastsim::network::splitmix64(~i) % df.num_terminals());
    const std::vector<hop> want = walk(df, expected, s, t);
    const std::vector<hop> got = walk(g, routing, s, t);
    bool same = want.size() == got.size() && got.size() <= 4;
    for (size_t k = 0; same && k < want.size(); ++k) {
      same = want[k].out.port == got[k].out.port && want[k].out.vc == got[k].out.vc;
    }
    if (!same && ++differences <= 5) BOOST_ERROR("route " << s << " -> " << t << " differs");
  }
  BOOST_TEST(differences == 0u);
}
