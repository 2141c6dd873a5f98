// The `ragasa` section of result.json: the management node's set-up (time, Mini Packets and
// the links they crossed, reported apart from the broadcast's traversals) and the Bcast
// Units' per-stage statistics, summed (times, counts) or maximised (high-water marks) over
// the units, with the busiest unit named.
#pragma once

#include "tb/fabric.h"

#include <nlohmann/json.hpp>

namespace bcastsim::tb {

// Null when the fabric has no Bcast Units.
nlohmann::json ragasa_report(const fabric& fab);

}  // namespace bcastsim::tb
