// Galaxyfly (Lei, Dong, Liao, Su, Li, ICS'16; FACTS §6): every vertex of a Galaxy graph
// (network/galaxy_graph.h: n clusters of q supernodes, diameter 2) becomes a supernode of a
// routers, fully connected by local links; each router has p terminals and h global ports.
// With q = 1 the Galaxy graph is complete and the Galaxyfly is the dragonfly with g = n and
// the "absolute" global arrangement, port for port.
//
// Numbering: supernode s = cluster * q + vertex; router s*a + t (t < a); terminal r*p + i.
// Ports of every router exactly as the dragonfly's: [0,p) terminals, [p, p+a-1) local (own
// index skipped), [p+a-1, p+a-1+h) global.
//
// Global wiring (the paper leaves the per-router assignment open, FACTS §6 step 8): it
// generalises the dragonfly's absolute arrangement. With D the Galaxy graph's degree, nb(s)
// the neighbours of s ascending and L = floor(a*h / D) links per adjacent supernode pair,
// global port j of router t in supernode s has raw index k = t*h + j; for k < L*D it carries
// link number k / D to supernode nb(s)[k % D], else it is unused. The other end is the link
// with the same number in that supernode, at the raw index (k / D)*D + (index of s there).
// Router-level diameter: 2 for a = 1, 3 for q = 1, at most 5 otherwise. The paper's 4 for
// a = 2 needs its own a = 2 wiring (router 0 all intra-cluster links, router 1 all
// inter-cluster ones); this one mixes them on both routers and reaches 5.
#pragma once

#include "network/galaxy_graph.h"
#include "network/routing.h"
#include "network/topology.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bcastsim::network {

struct galaxyfly_params {
  uint32_t n = 3;  // clusters
  uint32_t q = 5;  // supernodes per cluster: a prime power, not 2 mod 4; or 1
  uint32_t a = 4;  // routers per supernode
  uint32_t p = 2;  // terminals per router
  uint32_t h = 1;  // global ports per router; a*h >= the Galaxy graph's degree
};

// The Galaxyfly's link classes: the dragonfly's names and indices, so results compare.
namespace galaxyfly_classes {
inline constexpr link_class terminal = terminal_class;
inline constexpr link_class local = 1;
inline constexpr link_class global = 2;
}  // namespace galaxyfly_classes

// The kind's declaration (network/galaxyfly_kind.cpp), registered in topology_kind.cpp.
struct topology_kind;
topology_kind galaxyfly_kind();

class galaxyfly final : public topology {
 public:
  // Throws topology_error naming the key: n, a, p or h zero; q not a prime power or 2 mod 4
  // (topology.q); a single supernode or ids past 32 bits (topology.n); a*h smaller than the
  // Galaxy graph's degree (topology.h).
  explicit galaxyfly(const galaxyfly_params& params);

  std::string kind() const override { return "galaxyfly"; }
  // e.g. "galaxyfly n=3 q=5 a=4 p=2 h=1 (60 routers, 120 terminals)".
  std::string describe() const override;
  std::vector<std::pair<std::string, uint64_t>> shape() const override {
    return {{"clusters", n()},
            {"supernodes_per_cluster", q()},
            {"routers_per_supernode", a()},
            {"terminals_per_router", p()},
            {"global_ports_per_router", h()}};
  }
  // Supernode-minimal routes of d <= 2 global links take at most d+1 local hops (cost
  // 5d+1 with a global hop at 4), less than any route with d+1 globals (4d+4): least-cost
  // routes are then exactly the supernode-minimal routes with the fewest router hops, the
  // ones minimal routing picks among. With diameter 1 (q = 1) the dragonfly's 3 suffices.
  std::vector<double> graph_costs() const override {
    return {0, 1, supernode_diameter() == 1 ? 3.0 : 4.0};
  }

  // Groups are the supernodes.
  uint32_t num_groups() const override { return m_graph.size(); }
  group_id group_of(router_id r) const override { return r / m_a; }
  // Every router pair joined by a global link, in link-number order; empty when the two
  // supernodes are not adjacent.
  std::vector<router_pair> links_between_groups(group_id g1, group_id g2) const override;

  const galaxyfly_params& params() const { return m_params; }
  uint32_t n() const { return m_params.n; }
  uint32_t q() const { return m_params.q; }
  uint32_t a() const { return m_params.a; }
  uint32_t p() const { return m_params.p; }
  uint32_t h() const { return m_params.h; }

  const galaxy_graph& graph() const { return m_graph; }
  // Global links joining every pair of adjacent supernodes: floor(a*h / D).
  uint32_t links_per_pair() const { return m_links_per_pair; }
  bool supernode_adjacent(group_id s, group_id u) const { return m_graph.adjacent(s, u); }
  // 1 when the Galaxy graph is complete (q = 1: K_n; n = 1, q = 3: K_3), else 2.
  uint32_t supernode_diameter() const { return m_diameter; }

  port_id local_port(router_id from, router_id to) const;  // same supernode, from != to
  port_id first_global_port() const { return m_params.p + m_params.a - 1; }

  struct global_link_end {
    router_id router;
    port_id port;
  };
  // The k-th link (k < links_per_pair()) from supernode s to its neighbour u: the router of
  // s holding it and its port.
  global_link_end gateway(group_id s, group_id u, uint32_t k) const {
    return gateway_by_index(s, m_graph.neighbour_index(s, u), k);
  }
  // The same, u given by its position in graph().neighbours(s).
  global_link_end gateway_by_index(group_id s, uint32_t index, uint32_t k) const {
    const uint32_t raw = k * m_graph.degree() + wiring_slot(s, index);
    return {s * m_a + raw / m_params.h, first_global_port() + raw % m_params.h};
  }
  // Where the neighbour at `index` of graph().neighbours(s) (ascending) stands in s's wiring
  // order: its intra-cluster neighbours first, then its inter-cluster ones, each ascending.
  // The paper's a = 2 wiring (Lei et al. 2.2: router 0 takes the intra-cluster links, router 1
  // the inter-cluster ones) is this order when h = h_s = h_g; with q = 1 there are no
  // intra-cluster links and the order is the ascending one, the dragonfly's.
  uint32_t wiring_slot(group_id s, uint32_t index) const {
    const uint32_t lower = m_graph.cluster_of(s);  // one neighbour in each other cluster
    if (index < lower) return m_intra + index;
    if (index < lower + m_intra) return index - lower;
    return index;
  }

 private:
  void attach_terminals();
  void wire_local_links();
  void wire_global_links();

  galaxyfly_params m_params;
  uint32_t m_a = 0;  // copy of params.a, read by the inline group_of()
  galaxy_graph m_graph;
  uint32_t m_links_per_pair = 0;
  uint32_t m_intra = 0;  // intra-cluster neighbours of every supernode, (q - delta) / 2
  uint32_t m_diameter = 2;
};

// Supernode-minimal routing: a packet from supernode S to T takes no global link when
// S = T, one when they are adjacent, else two through an intermediate supernode adjacent to
// both (the Galaxy graph has diameter 2). Among every choice of intermediate supernode and
// of parallel link, it takes one with the fewest router hops (a local hop where the packet
// is not on the router holding the next link, or lands off its destination router), and a
// hash of (source, destination terminal) picks among the equally short ones, so a flow
// keeps one path and stays in order. The choice is made once, at the source (init_state),
// by walking the two sorted neighbour lists (no tables, no allocation; work per packet:
// common neighbours x usable_links()^2); route() only follows it and allocates nothing.
// With q = 1 this is dragonfly_minimal_routing exactly (same links, same hash, same VCs).
//
// VC rule: VC = global links taken so far (0, 1, 2) on local and global ports alike;
// ejection uses VC 0. A route visits each supernode once and takes at most one local hop
// there, then leaves by a global link on the same VC; the next VC starts in the next
// supernode. Channels ordered by (VC, local before global) therefore strictly increase along
// every route (local/0 < global/0 < local/1 < global/1 < local/2), so the channel dependency
// graph is acyclic. min_vcs() = 1 + the most global links a minimal route takes: 3, or 2
// when the Galaxy graph is complete (q = 1: the dragonfly's two VCs).
//
// route_state: local_hops and global_hops count links as the dragonfly's policies do;
// choice = the link number toward the next supernode; aux = invalid_id, or while a
// two-global route is still in its source supernode, X * usable_links() + k2 (X the
// intermediate supernode, k2 the link number from X to T).
class galaxyfly_minimal_routing final : public routing_policy {
 public:
  explicit galaxyfly_minimal_routing(const galaxyfly& gf);
  std::string name() const override { return "minimal"; }
  uint32_t min_vcs() const override { return 1 + m_gf.supernode_diameter(); }
  void note_hop(route_state& state, link_class cls) const override;
  void init_state(terminal_id src, terminal_id dst, uint64_t entropy,
                  route_state& state) const override;
  route_decision route(router_id at, terminal_id dst, route_state& state,
                       const port_occupancy_view* occupancy) const override;

  // Parallel links routing uses between two supernodes: links_per_pair(), at most 2^16 (as
  // the dragonfly's: choice is 16 bits) and small enough that aux can hold X and k2.
  uint32_t usable_links() const { return m_links; }

 private:
  const galaxyfly& m_gf;
  uint32_t m_links = 0;
};

}  // namespace bcastsim::network
