// Test helper shared by the algorithm tests on non-dragonfly topologies: how far a Ragasa
// tree breaks its contract (algorithms/ragasa_tree.h) on the topology it was built for.
#pragma once

#include "algorithms/ragasa_tree.h"
#include "network/placement.h"
#include "network/topology.h"

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace bcastsim::test {

struct tree_faults {
  uint32_t not_links = 0;        // router-to-router edges that are no physical link
  uint32_t routers_twice = 0;    // routers that are the child of more than one edge
  uint32_t terminals_wrong = 0;  // rank terminals not reached exactly once, or reached
                                 // from another router than their own
  bool any() const { return not_links + routers_twice + terminals_wrong > 0; }
};

inline tree_faults find_tree_faults(const network::topology& topo, const network::placement& place,
                                    const algorithms::ragasa_tree& tree) {
  tree_faults f;
  std::vector<uint32_t> router_in(topo.num_routers(), 0);
  std::vector<uint32_t> terminal_in(topo.num_terminals(), 0);
  for (network::router_id r = 0; r < topo.num_routers(); ++r) {
    for (const algorithms::bcast_child& c : tree.children[r]) {
      if (c.kind == algorithms::child_kind::terminal) {
        ++terminal_in[c.id];
        f.terminals_wrong += topo.router_of(c.id) != r;
        continue;
      }
      ++router_in[c.id];
      try {
        algorithms::link_class_between(topo, r, c.id);
      } catch (const std::invalid_argument&) {
        ++f.not_links;
      }
    }
  }
  for (network::router_id r = 0; r < topo.num_routers(); ++r) {
    f.routers_twice += router_in[r] > (r == tree.root_router ? 0u : 1u);
  }
  for (network::terminal_id t = 0; t < topo.num_terminals(); ++t) {
    const bool wanted = place.rank_of(t) != network::invalid_id && t != tree.root_terminal;
    f.terminals_wrong += terminal_in[t] != (wanted ? 1u : 0u);
  }
  return f;
}

}  // namespace bcastsim::test
