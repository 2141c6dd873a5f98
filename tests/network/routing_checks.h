// Helpers shared by the routing tests: walking one route hop by hop, router distances,
// and channel dependency graphs with a cycle check (deadlock freedom).
#pragma once

#include "network/dragonfly.h"
#include "network/routing.h"
#include "network/topology.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

namespace bcastsim::network::routing_checks {

// The dragonfly shapes every routing test walks: both arrangements, g = a*h+1 (one link per
// group pair), g < a*h+1 (several), and g = 2.
inline const dragonfly_params k_shapes[] = {
    {9, 4, 2, 2, global_arrangement::absolute}, {9, 4, 2, 2, global_arrangement::relative},
    {5, 4, 2, 2, global_arrangement::absolute}, {5, 4, 2, 2, global_arrangement::relative},
    {7, 4, 2, 3, global_arrangement::absolute}, {7, 4, 2, 3, global_arrangement::relative},
    {6, 4, 2, 2, global_arrangement::absolute}, {6, 4, 2, 2, global_arrangement::relative},
    {3, 2, 1, 1, global_arrangement::absolute}, {2, 3, 2, 2, global_arrangement::relative},
};

struct hop {
  router_id at;
  route_decision out;
  route_state before;  // state when the decision was made
};

// Follows route() from the source router until it ejects; stops after max_hops so a
// routing loop fails the test instead of hanging it.
inline std::vector<hop> walk(const topology& topo, const routing_policy& policy, terminal_id src,
                             terminal_id dst, uint64_t entropy = 0,
                             const port_occupancy_view* occupancy = nullptr,
                             uint32_t max_hops = 8) {
  std::vector<hop> path;
  route_state state;
  policy.init_state(src, dst, entropy, state);
  router_id at = topo.router_of(src);
  while (path.size() <= max_hops) {
    const route_state before = state;
    const route_decision d = policy.route(at, dst, state, occupancy);
    path.push_back({at, d, before});
    if (d.port >= topo.radix(at)) break;
    const port_info& pi = topo.port(at, d.port);
    if (pi.peer_kind != port_info::kind::router) break;
    at = pi.peer;
  }
  return path;
}

// Router-to-router distances over paths with at most `max_global` global links (BFS on
// (router, globals used)): what "minimal" means on a dragonfly.
inline std::vector<uint32_t> distances_from(const topology& topo, router_id from,
                                            uint32_t max_global) {
  const uint32_t n = topo.num_routers();
  const uint32_t layers = max_global + 1;
  std::vector<uint32_t> dist(n * layers, invalid_id);
  std::queue<uint32_t> todo;
  dist[from * layers] = 0;
  todo.push(from * layers);
  while (!todo.empty()) {
    const uint32_t s = todo.front();
    todo.pop();
    const router_id r = s / layers;
    for (port_id p = 0; p < topo.radix(r); ++p) {
      const port_info& pi = topo.port(r, p);
      if (pi.peer_kind != port_info::kind::router) continue;
      const uint32_t used = s % layers + (pi.cls == dragonfly_classes::global ? 1 : 0);
      if (used > max_global) continue;
      const uint32_t next = pi.peer * layers + used;
      if (dist[next] == invalid_id) {
        dist[next] = dist[s] + 1;
        todo.push(next);
      }
    }
  }
  std::vector<uint32_t> best(n, invalid_id);
  for (uint32_t s = 0; s < dist.size(); ++s) best[s / layers] = std::min(best[s / layers], dist[s]);
  return best;
}

// Directed graph over (channel, VC); adjacency lists.
using graph = std::vector<std::vector<uint32_t>>;

inline bool has_cycle(const graph& g) {
  enum : uint8_t { white, grey, black };
  std::vector<uint8_t> colour(g.size(), white);
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // (node, next edge index)
  for (uint32_t root = 0; root < g.size(); ++root) {
    if (colour[root] != white) continue;
    colour[root] = grey;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [node, edge] = stack.back();
      if (edge == g[node].size()) {
        colour[node] = black;
        stack.pop_back();
        continue;
      }
      const uint32_t next = g[node][edge++];
      if (colour[next] == grey) return true;
      if (colour[next] == white) {
        colour[next] = grey;
        stack.push_back({next, 0});
      }
    }
  }
  return false;
}

// Channels: every router output port (router->router or router->terminal), then one
// injection channel per terminal. Every route adds an edge from the (channel, VC) it
// arrives on to the one it leaves on; injection uses VC 0.
class dependency_graph_builder {
 public:
  dependency_graph_builder(const topology& topo, uint32_t vcs) : m_topo(topo), m_vcs(vcs) {
    for (router_id r = 0; r < topo.num_routers(); ++r) {
      m_max_radix = std::max(m_max_radix, topo.radix(r));
    }
    m_injection_base = topo.num_routers() * m_max_radix;
    m_graph.resize((m_injection_base + topo.num_terminals()) * vcs);
  }

  void add(terminal_id src, const std::vector<hop>& path) {
    uint32_t arrived = (m_injection_base + src) * m_vcs;
    for (const hop& h : path) {
      BOOST_REQUIRE(h.out.vc < m_vcs);
      BOOST_REQUIRE(h.out.port < m_topo.radix(h.at));
      const uint32_t leaves = (h.at * m_max_radix + h.out.port) * m_vcs + h.out.vc;
      m_graph[arrived].push_back(leaves);
      arrived = leaves;
    }
  }

  graph finish() {
    for (auto& edges : m_graph) {
      std::sort(edges.begin(), edges.end());
      edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    }
    return std::move(m_graph);
  }

 private:
  const topology& m_topo;
  uint32_t m_vcs;
  uint32_t m_max_radix = 0;
  uint32_t m_injection_base = 0;
  graph m_graph;
};

// The graph induced by the routes of every ordered terminal pair, for every entropy and
// every occupancy view given (a null view stands for "no view").
inline graph channel_dependency_graph(const topology& topo, const routing_policy& policy,
                                      uint32_t vcs, const std::vector<uint64_t>& entropies = {0},
                                      const std::vector<const port_occupancy_view*>& views = {
                                          nullptr}) {
  dependency_graph_builder builder(topo, vcs);
  for (terminal_id src = 0; src < topo.num_terminals(); ++src) {
    for (terminal_id dst = 0; dst < topo.num_terminals(); ++dst) {
      if (src == dst) continue;
      for (const uint64_t e : entropies) {
        for (const port_occupancy_view* v : views)
          builder.add(src, walk(topo, policy, src, dst, e, v));
      }
    }
  }
  return builder.finish();
}

// `Policy` with its VC rule removed: every hop on VC 0. A channel dependency check must find
// the cycles this makes, or it would not catch a broken rule.
template <class Policy, class Topology>
class single_vc final : public routing_policy {
 public:
  explicit single_vc(const Topology& t) : routing_policy(t), m_inner(t) {}
  std::string name() const override { return m_inner.name() + "-single-vc"; }
  uint32_t min_vcs() const override { return 1; }
  void init_state(terminal_id s, terminal_id d, uint64_t e, route_state& st) const override {
    m_inner.init_state(s, d, e, st);
  }
  route_decision route(router_id at, terminal_id dst, route_state& st,
                       const port_occupancy_view* occ) const override {
    route_decision d = m_inner.route(at, dst, st, occ);
    d.vc = 0;
    return d;
  }

 private:
  Policy m_inner;
};

}  // namespace bcastsim::network::routing_checks
