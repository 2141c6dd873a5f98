// Topology-aware broadcasts for dragonflies (Dorier et al., "Evaluation of Topology-Aware
// Broadcast Algorithms for Dragonfly Networks", Cluster 2016, section III), built exactly as
// CODES branch codes-col-br src/cortex/dfly_bcast.cpp does (FACTS §2).
//
// Common ground of GLF, LLF and FOREST:
//  * Ranks are reordered relative to the root: ranks[i] = (i + root) mod n, so ranks[0] is
//    the root (see the deviation note in topology_aware.cpp).
//  * A topology map group -> router -> [ranks] is built by walking ranks[] in that order
//    (rank -> terminal -> router -> group); groups and routers iterate in increasing id.
//  * Every level is a binomial tree over a rank vector whose element 0 is the sub-root
//    (binomial_over). Within a rank, operations keep blocking MPI order (rank_program::then):
//    a rank receives once, then sends, level after level.
//  * They need req.topo and req.place; std::invalid_argument when either is null.
//  * They run on any grouped topology (torus, graph file): GLF never asks for links, and
//    LLF/FOREST treat groups not joined to the root group as distant (below).
#pragma once

#include "algorithms/registry.h"
#include "algorithms/schedule.h"

#include <cstdint>
#include <vector>

namespace bcastsim::algorithms {

// Appends the MPICH/TREE binomial broadcast over `ranks` (ranks[0] is the sub-root) to `s`:
// element i receives [offset, offset + bytes) from element i - lowbit(i), then sends it to
// element i + mask for mask = lowbit(i)/2 ... 1 (element 0: the highest power of two below
// ranks.size() ... 1) when i + mask < ranks.size(). Ops depend on the rank's previous op.
void binomial_over(schedule& s, const std::vector<uint32_t>& ranks, uint64_t offset, uint64_t bytes,
                   uint32_t tag);

// GLF, global links first (paper III-C; dfly_bcast_glf):
//  1. binomial among {root} + {first rank of the first used router of every other group};
//  2. in every group, binomial among the first rank of every used router (in the root
//     group the root replaces its router's first rank and goes first);
//  3. in every router, binomial among its ranks (root first, others in map order).
schedule glf_bcast(const collective_request& req);

// LLF, local links first (paper III-B; dfly_bcast_llf):
//  team(g) = first rank of every used router of g, in router order; in the root group the
//  root replaces its router's rank and is moved to the front.
//  Couples (root-group sender, remote receiver), one per other used group g1, taking the
//  first link (r2 in the root group, r1 in g1) of links_between_groups(root group, g1):
//   - if r2 hosts job ranks: sender = root if r2 is the root router, else r2's first rank;
//     receiver = r1's first rank if r1 hosts job ranks, else the first rank of g1's first
//     used router; that sender is removed from the pool of unused root-team ranks;
//   - otherwise g1 is "distant" (handled after all direct groups, in group order): sender =
//     the smallest unused root-team rank, or once none is left root_team[k++ mod size];
//     receiver chosen as above.
//  A group with no link to the root group (a torus's non-neighbouring ABC units, a graph
//  file's unjoined groups; never on a dragonfly, which joins every pair) is distant too,
//  its receiver the first rank of its first used router: the couple's message is routed
//  over several hops instead of one link.
//  1. binomial in the root team;  2. every couple sends point to point, in couple order;
//  3. in every non-root group (in couple order) binomial in its team with the couple's
//     receiver swapped to position 0;  4. in every router binomial among its ranks (root
//     swapped to position 0 in the root router).
schedule llf_bcast(const collective_request& req);

// FOREST (paper III-D): LLF, but in step 2 the couples that share one root-group sender are
// served by one binomial tree over [sender, their receivers in couple order] instead of
// serial sends; trees are built in order of each sender's first couple.
schedule forest_bcast(const collective_request& req);

}  // namespace bcastsim::algorithms
