// The `ragasa` section of result.json: the management node's set-up (time, Mini Packets and
// the links they crossed, reported apart from the broadcast's traversals) and the Bcast
// Units' per-stage statistics, summed (times, counts) or maximised (high-water marks) over
// the units, with the busiest unit named and each time's worst single unit (*_unit_max).
#pragma once

#include "hw/ragasa/bcast_unit_base.h"
#include "hw/ragasa/manager.h"
#include "tb/broadcast_figures.h"
#include "tb/fabric.h"
#include "tb/ragasa/trees.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

namespace bcastsim::tb::ragasa {

nlohmann::json ragasa_report(const fabric& fab,
                             const std::vector<std::unique_ptr<hw::ragasa::bcast_unit_base>>& units,
                             const hw::ragasa::manager& m);

// `ragasa.broadcasts`: each Ragasa broadcast's set-up (time 0 -> its last Mini Packet parsed;
// the management node sends every broadcast's at time 0, so later ones wait behind earlier
// ones) reported beside its data (from its own start, tb/broadcast_figures.h), never inside
// it: aggregates always; the per-broadcast list only with `list` (output.block_stats = on), as
// 10^4 roots would write 10^4 entries. `figures`: every broadcast of the run (broadcasts_of).
nlohmann::json broadcasts_report(const unit_broadcasts& bs, const hw::ragasa::manager& m,
                                 const std::vector<broadcast_figures>& figures, bool list);

}  // namespace bcastsim::tb::ragasa
