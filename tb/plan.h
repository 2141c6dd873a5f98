// The pure C++ stages of a run: a scenario turned into its topology, routing policy,
// placement and verified schedule. Shared by `run` (tb/simulation) and `analyze`
// (tb/analyze), so both see the same network and the same messages.
#pragma once

#include "algorithms/program.h"
#include "algorithms/verify.h"
#include "network/placement.h"
#include "network/routing.h"
#include "network/topology.h"
#include "tb/config.h"

#include <cstdint>
#include <memory>

namespace bcastsim::tb {

struct plan {
  std::unique_ptr<network::topology> topo;
  std::unique_ptr<network::routing_policy> routing;
  std::unique_ptr<network::placement> place;
  algorithms::program prog;  // the scenario's collectives composed (empty: none)
};

// Anything wrong here is bad input: throws config_error (exit 2) naming the key, or
// simulation_failure (exit 1) when the algorithm produced an invalid schedule. Completes
// s.links and s.router.vc_buffer_bytes with the link classes the topology brings itself.
plan make_plan(scenario& s);

}  // namespace bcastsim::tb
