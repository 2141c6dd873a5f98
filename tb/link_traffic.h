// The `link_traffic` section of result.json (output.link_traffic = on): the traffic of every
// network link that carried data, with the topology's shape (topology::shape(); a dragonfly's
// groups, routers_per_group, terminals_per_router, global_ports_per_router) and the job's
// placement, so the
// topology-aware broadcast paper's Fig. 4 (terminals on a circle by group and router, global
// traffic as chords) can be drawn from one run. Collected once at the end of a run.
//
// Numbering (network/dragonfly.h): router r is in group r / routers_per_group; terminal t
// hangs on router t / terminals_per_router. A link is one direction of a cable:
//   router -> router  {"class": the topology's class name (dragonfly: "local"|"global"), "from_router", "from_port", "to_router",
//                      "to_port", "messages", "packets"}
//   router -> terminal {"class": "terminal", "from_router", "from_port", "to_terminal", ...}
//   terminal -> router {"class": "terminal", "from_terminal", "to_router", "to_port", ...}
// Links are listed in the fabric's order: by router, then by the router's output port; a
// terminal port gives its router -> terminal link, then its terminal -> router link.
#pragma once

#include "network/topology.h"
#include "network/placement.h"
#include "tb/fabric.h"

#include <nlohmann/json.hpp>

#include <cstdint>

namespace bcastsim::tb {

nlohmann::json link_traffic_report(const fabric& fab, const network::topology& topo,
                                   const network::placement& place, uint32_t root);

}  // namespace bcastsim::tb
