// Least-cost ("minimal") routing on a graph_topology, with a VC discipline that is
// deadlock-free on any graph.
//
// Paths: a router-to-router hop on class c costs the class's cost (graph file, default 1);
// a packet takes only hops that keep it on a least-cost path: from router `at`, port p
// toward router d is a candidate iff cost(p) + dist(peer(p), d) == dist(at, d). Distances
// between all router pairs are computed once, at construction (Dijkstra with a bucket
// queue, Dial's algorithm, from every router: costs are small whole numbers). Among the
// candidates, a hash of the flow (source, destination terminal) and the router picks one,
// so a flow keeps one path (and stays in order) while flows spread over equal-cost paths.
//
// VC rule: classes are ranked in the file's order. A hop is a "descent" when its class
// ranks lower than or equal to the previous hop's class (the first hop never is); a hop's
// VC is the number of descents so far. Within one VC the class ranks strictly increase
// along a route, so ordering the channels by (VC, class rank) makes every route climb
// strictly: the channel dependency graph is acyclic, whatever the graph. Ejection uses
// VC 0. On a dragonfly written with classes [local, global] this gives local VC 0,
// global VC 0, local VC 1: dragonfly_minimal_routing's VCs.
//
// min_vcs() is exact: the most descents on any least-cost path between two routers with
// terminals, plus one, found by dynamic programming over each destination's least-cost
// DAG. A ring of one class needs as many VCs as its longest least-cost path has hops.
//
// route_state: aux = hash of (source, destination); global_hops = class of the previous
// router-to-router hop (0 before the first); local_hops = descents so far (the VC);
// choice is unused.
#pragma once

#include "network/graph_topology.h"
#include "network/routing.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bcastsim::network {

class graph_minimal_routing final : public routing_policy {
 public:
  // Throws topology_error on topology.file when least-cost paths need more VCs than a
  // route decision can name (256).
  explicit graph_minimal_routing(const graph_topology& graph);

  std::string name() const override { return "minimal"; }
  uint32_t min_vcs() const override { return m_min_vcs; }
  void init_state(terminal_id src, terminal_id dst, uint64_t entropy,
                  route_state& state) const override;
  route_decision route(router_id at, terminal_id dst, route_state& state,
                       const port_occupancy_view* occupancy) const override;

  // Least cost from router `from` to router `to` (links are two-way with one cost, so it
  // is also the cost from `to` to `from`).
  uint32_t distance(router_id from, router_id to) const {
    return m_dist[uint64_t{to} * m_routers + from];
  }

 private:
  struct link {
    router_id peer;
    port_id port;
    link_class cls;
    uint32_t cost;
  };
  // Fills m_dist (one destination at a time) and returns the most descents any least-cost
  // path between terminal-holding routers makes.
  uint32_t compute_distances();
  // The most descents from every router to `to` over least-cost paths, by arriving class;
  // `order` lists routers by increasing distance to `to`.
  void count_descents(router_id to, const std::vector<router_id>& order,
                      std::vector<uint32_t>& most) const;

  const graph_topology& m_graph;
  uint32_t m_routers;
  uint32_t m_states;                   // classes + 1: arriving class, 0 = no hop yet
  std::vector<uint32_t> m_first_link;  // [router] -> index into m_links; [routers] = end
  std::vector<link> m_links;           // router-to-router ports, router by router
  std::vector<uint32_t> m_dist;        // [to * routers + from]
  uint32_t m_min_vcs = 1;
};

}  // namespace bcastsim::network
