// The broadcasts a run's Bcast Units carry: one per context of every Ragasa instance of the
// program (a collective's root, or each of its roots with collective.roots = all, in each
// repetition), each with its tree over its communicator, its Membership lists (collective id
// = context + 1) and the hosts whose offload ops wait for its set-up.
#pragma once

#include "algorithms/program.h"
#include "algorithms/ragasa_tree.h"
#include "hw/ragasa/bcast_unit_base.h"
#include "hw/ragasa/manager.h"
#include "network/placement.h"
#include "network/topology.h"

#include <vector>

namespace bcastsim::tb::ragasa {

struct unit_broadcast {
  uint32_t context = 0;
  network::terminal_id root_terminal = network::invalid_id;
  std::vector<network::router_id> routers;  // taking part, the root's first
  std::vector<uint64_t> mini_packet_bytes;  // [i] for routers[i]
  std::vector<uint32_t> children;           // [i] for routers[i]
  std::vector<uint64_t> packets;            // [i] data packets routers[i]'s unit receives
  std::vector<uint32_t> offloading_ranks;   // job ranks with offload ops in the context
};

struct unit_broadcasts {
  std::vector<unit_broadcast> list;                     // in context order
  std::vector<hw::ragasa::membership_source> sources;  // [router]
};

// Builds them. A unit receives, for a broadcast, the packets its router's ranks offload
// (nodes relaying) or all the root's (units relaying): its Mini Packet says how many, so that
// step 10 frees the entry when they have left. Throws config_error naming the key when a
// router holds no terminal (its unit is reached by routing toward one: topology.file) or a
// Mini Packet does not fit one packet (ragasa.mini_packet_child_bytes).
unit_broadcasts plan_broadcasts(const network::topology& topo, const network::placement& place,
                                const algorithms::program& prog, algorithms::ragasa_relay relay,
                                const hw::ragasa::manager_params& mp, uint32_t packet_bytes);

// The Mini Packet of router `r` with `children` children fits one packet, else config_error.
void check_mini_packet(const hw::ragasa::manager_params& mp, uint32_t packet_bytes,
                       network::router_id r, size_t children);

}  // namespace bcastsim::tb::ragasa
