// Each broadcast of a run on its own (hw::broadcast_progress), beside the instance figures
// of result.json's `collective`: with collective.roots = all, an instance's completion_ns
// runs from the first broadcast's start to the last one's end, so it mixes a later
// broadcast's wait to start (e.g. for its Ragasa set-up) with its data. Per broadcast:
//   data_completion_ns  its own start (its root's first send call) -> its last receiver
//                       holding its block
//   rank_average_ns     mean over its receivers of (holding its block - its own start)
// With one root per instance these are the instance's completion_ns and
// rank_completion_ns_avg.
#pragma once

#include "algorithms/program.h"
#include "hw/nic/host.h"
#include "tlm/statistics.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace bcastsim::tb {

struct broadcast_figures {
  uint32_t instance = 0;
  uint32_t context = 0;
  uint32_t root = 0;  // job rank
  bool done = false;  // every receiver holds its block
  double start_ns = 0;
  double data_completion_ns = 0;  // 0 unless done
  double rank_average_ns = 0;     // 0 unless done
};

// Every broadcast of the program, in context order.
std::vector<broadcast_figures> broadcasts_of(const algorithms::program& prog,
                                             const hw::collective_progress& progress);

// The program has a broadcast instance with collective.roots = all.
bool has_all_roots_broadcast(const algorithms::program& prog);

// An accumulator as result.json writes one: count, mean, min, max (0 without samples).
nlohmann::json accumulator_json(const tlm_net::accumulator& a);

// Aggregates over the broadcasts that completed: {count (all broadcasts),
// data_completion_ns: {count, mean, min, max}, rank_average_ns: {count, mean, min, max}}.
nlohmann::json broadcasts_summary(const std::vector<broadcast_figures>& list);

}  // namespace bcastsim::tb
