// Helpers shared by the Galaxy graph and Galaxyfly tests.
#pragma once

#include "network/galaxy_graph.h"
#include "network/topology.h"

#include <cstdint>
#include <queue>
#include <vector>

namespace bcastsim::network::galaxy_checks {

// Hop distances from s in the Galaxy graph.
inline std::vector<uint32_t> graph_distances(const galaxy_graph& g, uint32_t s) {
  std::vector<uint32_t> dist(g.size(), invalid_id);
  std::queue<uint32_t> todo;
  dist[s] = 0;
  todo.push(s);
  while (!todo.empty()) {
    const uint32_t v = todo.front();
    todo.pop();
    for (uint32_t u : g.neighbours(v)) {
      if (dist[u] != invalid_id) continue;
      dist[u] = dist[v] + 1;
      todo.push(u);
    }
  }
  return dist;
}

}  // namespace bcastsim::network::galaxy_checks
