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

// Empty (null) when the scenario has no traffic.
nlohmann::json traffic_report(const scenario& s, const fabric& fab);

}  // namespace bcastsim::tb
