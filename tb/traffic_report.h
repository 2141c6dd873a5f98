// The `traffic` section of result.json: what the traffic generators of a fabric offered,
// sent, dropped and measured. Latency is packet latency from creation (the message handed
// to the source NIC, so source queueing included) to the tail delivered at the destination;
// percentiles are exact (nearest rank) over every packet created in the measurement window.
#pragma once

#include "tb/config.h"
#include "tb/fabric.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace bcastsim::tb {

// Nearest-rank percentile (0 < q <= 100) of sorted samples; 0 for none.
uint64_t percentile(const std::vector<uint64_t>& sorted, double q);

// What the report says of the latency samples.
struct latency_summary {
  size_t count = 0;
  double sum_ps = 0;  // summed in ascending order, as over one sorted vector
  uint64_t p50 = 0, p90 = 0, p99 = 0, max = 0;
};
// Of several runs, each sorted ascending, as of their sorted union, without making it (a copy
// of every sample doubled a long run's peak memory): a k-way merge.
latency_summary summarize_sorted_runs(const std::vector<const std::vector<uint64_t>*>& runs);

// Empty (null) when the scenario has no traffic. Sorts each generator's latency samples.
nlohmann::json traffic_report(const scenario& s, const fabric& fab);

}  // namespace bcastsim::tb
