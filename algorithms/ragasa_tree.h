// Ragasa's contention-free in-network broadcast tree (Ragasa, in-router broadcast offload on
// dragonflies: "Contention-free broadcast tree" and "Workflow of Bcast Unit"). This is the
// membership information the management node sends to every offload-capable router taking
// part (one Mini Packet per router): for each router, the children it replicates a
// broadcast's data to. It is a data structure, not a host schedule.
//
// The contract: every router-to-router edge is a physical link and every router appears at
// most once, so each link direction carries the data at most once.
//
// The paper's tree (tree_rule::paper). Priorities: 1) other groups, 2) same group, 3) same
// router. The root's terminal injects the data once into its own router R0, then:
//  1. for every other group g holding ranks, take the first link (gw in the root group,
//     entry in g) of links_between_groups(root group, g); R0 forwards once to entry when
//     gw == R0, otherwise R0 -> gw (local link) and gw -> entry (global link). A gateway
//     serving several groups is one child of R0 and replicates to each of their entries;
//  2. in every group holding ranks, the router that got the data in step 1 (R0 in the root
//     group, the entry in other groups) forwards once to every other router of its group
//     holding ranks that the tree does not reach yet (local links);
//  3. every router holding ranks delivers to each attached terminal holding a rank, except
//     the root's terminal.
// Children are listed step 1 first (in group order), then step 2 (in router order), then
// terminals (in port order).
//
// The shortest-path tree (tree_rule::shortest_path). The paper only defines dragonflies,
// whose groups are fully connected inside and all joined to each other. Elsewhere (a
// torus's ABC unit is not fully connected and its non-neighbouring units are not joined; a
// graph file may be wired any way) steps 1 and 2 can name edges that are not links. When
// any edge of steps 1-2 would not be a physical link (two groups not joined, R0 -> gw or
// entry -> router not neighbours), steps 1-2 are replaced by a breadth-first spanning tree
// of the router graph from R0: neighbours visited in port order (router ports only), the
// first visit of a router makes it a child of the router that reached it; then every
// router whose subtree holds no rank is pruned; then step 3 as above. Its edges are links
// and each router is reached once, so the contract holds, and every router sits at its
// shortest-path distance from R0. Children: routers in port order, then terminals. On every
// dragonfly the paper's tree is physical, so it is always the paper's tree there.
#pragma once

#include "network/placement.h"
#include "network/topology.h"

#include <cstdint>
#include <vector>

namespace bcastsim::algorithms {

enum class child_kind : uint8_t { terminal, router };

// One destination a router replicates the data to.
struct bcast_child {
  child_kind kind;
  uint32_t id;  // terminal id (attached to this router) or router id (a neighbour)
};

bool operator==(const bcast_child& a, const bcast_child& b);
inline bool operator!=(const bcast_child& a, const bcast_child& b) {
  return !(a == b);
}

// Which construction make_ragasa_tree used (see above).
enum class tree_rule : uint8_t { paper, shortest_path };

struct ragasa_tree {
  tree_rule rule = tree_rule::paper;
  network::terminal_id root_terminal = network::invalid_id;
  network::router_id root_router = network::invalid_id;  // router_of(root_terminal)
  std::vector<std::vector<bcast_child>> children;        // [router]; empty if not taking part

  // The root router and every router child, in tree (breadth-first) order.
  std::vector<network::router_id> participating_routers() const;
  // Edges on the longest path from the root router to a child (router or terminal); the
  // injection from the root's terminal is not counted. 0 for a one-rank job. The paper's
  // tree: at most 4, R0 -> gateway -> remote entry -> group router -> terminal. The
  // shortest-path tree: the hop distance from R0 to the farthest router holding a rank + 1.
  uint32_t depth() const;
};

// Throws std::invalid_argument when root_rank is not below place.num_ranks(), or when a
// router holding a rank cannot be reached from the root's router.
ragasa_tree make_ragasa_tree(const network::topology& topo, const network::placement& place,
                             uint32_t root_rank);

// The class (local or global) of the physical link from router `from` to its neighbour `to`
// (the first port of `from` whose peer is `to`): the class of a router-to-router tree edge.
// Throws std::invalid_argument when the two routers are not neighbours.
// Ragasa with nodes relaying (ragasa.relay: node, the paper's reading of "Contention-free
// broadcast tree"): a unit sends only to terminals, and a node that received the data hands
// it, through its host and NIC, to its own router's unit for the next level.
//   level 1  the root hands the data to its router R0's unit, which sends it to one node in
//            every other group holding ranks ("nodes reside in different groups") and, for
//            levels 2 and 3 of the root group, to one node on every other router of the
//            root group holding ranks and to the other ranks' terminals on R0;
//   level 2  the node of group g hands it to its router's unit, which sends it to one node
//            on every other router of g holding ranks, and to the other ranks on its router;
//   level 3  every other node of level 2 hands it to its router's unit, which sends it to
//            the other ranks on its router.
// The paper does not say which node of a group receives in level 1, nor which node of a
// router in level 2. We take the first rank (port order) on the router that the unit tree
// enters the group through (the end of the first global link from the root group, so the
// data crosses the link the unit tree would use), or on the first router of the group
// holding ranks when that router holds none; in level 2 the first rank on each router.
// Where the paper's tree is not physical (tree_rule::shortest_path) the same idea follows
// the breadth-first tree: a router's node sends to the nodes of the nearest routers holding
// ranks below it (routers holding none only pass the data on) and to its router's ranks.
// How a Ragasa broadcast goes from one level of the tree to the next (ragasa.relay).
enum class ragasa_relay : uint8_t { node, unit };

struct ragasa_relays {
  network::terminal_id root_terminal = network::invalid_id;
  // [router]: the terminal handing the data to the router's unit (invalid: the unit takes
  // no part), and the terminals the unit sends it to, in the order above.
  std::vector<network::terminal_id> relay;
  std::vector<std::vector<network::terminal_id>> children;
  // [terminal]: the relay whose unit sends `t` its copy (invalid: the root, or not a rank).
  std::vector<network::terminal_id> parent;
  network::router_id root_router = network::invalid_id;

  // The routers whose unit takes part: the root's, then every other one with children, in
  // router order.
  std::vector<network::router_id> participating_routers() const;
};

// Throws std::invalid_argument like make_ragasa_tree.
ragasa_relays make_ragasa_relays(const network::topology& topo, const network::placement& place,
                                 uint32_t root_rank);

network::link_class link_class_between(const network::topology& topo, network::router_id from,
                                       network::router_id to);

}  // namespace bcastsim::algorithms
