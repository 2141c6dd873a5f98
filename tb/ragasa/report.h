// The `ragasa` section of result.json: the management node's set-up (time, Mini Packets and
// the links they crossed, reported apart from the broadcast's traversals) and the Bcast
// Units' per-stage statistics, summed (times, counts) or maximised (high-water marks) over
// the units, with the busiest unit named and each time's worst single unit (*_unit_max).
#pragma once

#include "hw/ragasa/bcast_unit_base.h"
#include "hw/ragasa/manager.h"
#include "tb/fabric.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

namespace bcastsim::tb::ragasa {

nlohmann::json ragasa_report(const fabric& fab,
                             const std::vector<std::unique_ptr<hw::ragasa::bcast_unit_base>>& units,
                             const hw::ragasa::manager& m);

}  // namespace bcastsim::tb::ragasa
