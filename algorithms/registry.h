// Named collective algorithms: name -> factory(topology view, placement, root, bytes) ->
// Schedule. Topology-aware algorithms read the topology and placement; others ignore them.
#pragma once

#include "algorithms/ragasa_tree.h"
#include "algorithms/schedule.h"
#include "algorithms/tofu2_bcast.h"
#include "algorithms/verify.h"
#include "network/placement.h"
#include "network/topology.h"

#include <functional>
#include <string>
#include <vector>

namespace bcastsim::algorithms {

struct collective_request {
  const network::topology* topo = nullptr;
  const network::placement* place = nullptr;
  uint32_t num_ranks = 0;
  uint32_t root = 0;
  uint64_t bytes = 0;
  // Ragasa: units chain to units (the hosts see one offload and receives from the root), or
  // nodes relay (the relays' hosts receive, then offload again); needs topo and place.
  ragasa_relay relay = ragasa_relay::unit;
  // Tofu2: persistent offload or host-progressed, and segments; needs topo and place.
  tofu2_options tofu2{};
};

using factory = std::function<schedule(const collective_request&)>;

// What a collective computes: a broadcast (the root's buffer to every rank) or an allgather
// (every rank's block to every rank: an all-to-all broadcast).
enum class collective_kind : uint8_t { broadcast, allgather };
const char* to_string(collective_kind k);

struct algorithm_info {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  factory make;
  delivery contract = delivery::exactly_once;  // what verify_schedule and the testbench check
  // The offload family whose hardware its schedules need (the testbench attaches it);
  // empty: the hosts do everything.
  std::string offload;
  // A broadcast's request: root and buffer bytes. An allgather's: bytes per rank (its
  // schedule's buffer is num_ranks * bytes, rank r holding block r before; root unused).
  collective_kind kind = collective_kind::broadcast;
  // An allgather whose root still matters (the router-level all-to-all broadcasts collect
  // in the root's supernode); other allgathers ignore it.
  bool allgather_has_root = false;
};

// Every algorithm bcastsim knows, in registration order.
const std::vector<algorithm_info>& algorithms();
// Finds by name or alias; throws std::invalid_argument listing the allowed names.
const algorithm_info& find_algorithm(const std::string& name);

// MPICH binomial tree broadcast (FACTS §7): relative rank r = (rank - root) mod p; receive
// the whole buffer from rank - lowbit(r); then for mask = lowbit(r)/2 ... 1 send it to
// rank + mask when r + mask < p. Registered as "binomial", alias "tree".
schedule binomial_bcast(uint32_t num_ranks, uint32_t root, uint64_t bytes);

// Ragasa in-router broadcast offload, units relaying: the root's program is one offload_bcast
// of the whole buffer (tag 0); every other rank's is one recv of it from the root. The
// routers' Bcast Units replicate it along make_ragasa_tree (algorithms/ragasa_tree.h).
// Registered as "ragasa" (with ragasa.relay: unit).
schedule ragasa_bcast(uint32_t num_ranks, uint32_t root, uint64_t bytes);
// Nodes relaying (make_ragasa_relays): the root offloads; every other rank receives from
// the relay whose unit sends to it, and a relay with children offloads the buffer again.
schedule ragasa_relay_bcast(const network::topology& topo, const network::placement& place,
                            uint32_t root, uint64_t bytes);

// A Tofu2 broadcast (algorithms/tofu2_bcast.h): the plan, checked, then the hosts' schedule
// for req.tofu2. Throws std::invalid_argument for a bad segment count or a missing topology.
schedule tofu2_bcast(tofu2_algorithm a, const collective_request& req);

}  // namespace bcastsim::algorithms
