// `bcastsim graph`: writes a scenario's topology as a graph file (network/GRAPH_FILES.md),
// with the scenario's link rates, latencies and VC buffers per class and the costs under
// which least-cost routing takes the kind's minimal routes, so `topology.kind: graph` with
// that file simulates the same network.
#pragma once

#include "tb/config.h"

#include <string>

namespace bcastsim::tb {

// YAML for a .yaml / .yml path, the edge list otherwise. The file appears whole or not at
// all (written beside, then renamed). Throws config_error (bad scenario, key --file when
// the file cannot be written).
void export_graph(const config& cfg, const std::string& path);

}  // namespace bcastsim::tb
