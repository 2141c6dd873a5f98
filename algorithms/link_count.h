// Links crossed by a schedule's messages under dragonfly minimal routing, counted per message
// (not per packet): the quantity of Dorier et al. (Cluster 2016) section III-E and Fig. 3.
// An offload_bcast crosses the links of its Ragasa tree instead (algorithms/ragasa_tree.h).
#pragma once

#include "algorithms/schedule.h"
#include "network/placement.h"
#include "network/topology.h"

#include <cstdint>

namespace bcastsim::algorithms {

struct link_counts {
  uint64_t terminal = 0;
  uint64_t local = 0;
  uint64_t global = 0;
};

// For every send of `s` (rank -> terminal by `place`), adds the links of its minimal route
// (paper II-A.2): 2 terminal links; nothing more on the same router; 1 local link within a
// group; between groups 1 global link, plus 1 local link when the source router is not the
// gateway holding the global link, plus 1 local link when the landing router is not the
// destination router. When several global links join the two groups, the route uses the
// first pair of links_between_groups(source group, destination group) -- a fixed choice;
// the simulator's minimal routing may spread messages over the other links, which changes
// which local links are taken but not how many global links.
// For every offload_bcast of a rank, adds the edges of make_ragasa_tree(topo, place, rank),
// each once: 1 terminal link for the injection from the rank's terminal, 1 terminal link per
// terminal child, and per router child the class (local or global) of the physical link
// from its parent. Throws std::invalid_argument when two groups holding ranks are not joined
// by a link.
link_counts count_minimal_links(const schedule& s, const network::topology& topo,
                                const network::placement& place);

}  // namespace bcastsim::algorithms
