// Ragasa's contention-free in-network broadcast tree (Ragasa, in-router broadcast offload on
// dragonflies: "Contention-free broadcast tree" and "Workflow of Bcast Unit"). This is the
// membership information the management node sends to every offload-capable router taking
// part (one Mini Packet per router): for each router, the children it replicates a
// broadcast's data to. It is a data structure, not a host schedule.
//
// Priorities: 1) other groups, 2) same group, 3) same router. The root's terminal injects the
// data once into its own router R0, then:
//  1. for every other group g holding ranks, take the first link (gw in the root group,
//     entry in g) of links_between_groups(root group, g); R0 forwards once to entry when
//     gw == R0, otherwise R0 -> gw (local link) and gw -> entry (global link). A gateway
//     serving several groups is one child of R0 and replicates to each of their entries;
//  2. in every group holding ranks, the router that got the data in step 1 (R0 in the root
//     group, the entry in other groups) forwards once to every other router of its group
//     holding ranks that the tree does not reach yet (local links);
//  3. every router holding ranks delivers to each attached terminal holding a rank, except
//     the root's terminal.
// Every router-to-router edge is a physical link; every router appears at most once, so each
// link direction carries the data at most once. Children are listed step 1 first (in group
// order), then step 2 (in router order), then terminals (in port order).
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

struct ragasa_tree {
  network::terminal_id root_terminal = network::invalid_id;
  network::router_id root_router = network::invalid_id;  // router_of(root_terminal)
  std::vector<std::vector<bcast_child>> children;        // [router]; empty if not taking part

  // The root router and every router child, in tree (breadth-first) order.
  std::vector<network::router_id> participating_routers() const;
  // Edges on the longest path from the root router to a child (router or terminal); the
  // injection from the root's terminal is not counted. At most 4:
  // R0 -> gateway -> remote entry -> group router -> terminal. 0 for a one-rank job.
  uint32_t depth() const;
};

// Throws std::invalid_argument when root_rank is not below place.num_ranks().
ragasa_tree make_ragasa_tree(const network::topology& topo, const network::placement& place,
                             uint32_t root_rank);

// The class (local or global) of the physical link from router `from` to its neighbour `to`
// (the first port of `from` whose peer is `to`): the class of a router-to-router tree edge.
// Throws std::invalid_argument when the two routers are not neighbours.
network::link_class link_class_between(const network::topology& topo, network::router_id from,
                                       network::router_id to);

}  // namespace bcastsim::algorithms
