// One run of one scenario, end to end: build the topology, routing, placement and schedule
// (pure C++), elaborate the fabric, simulate, check the run finished and conserved every
// packet, and produce result.json. One per process (SystemC elaborates one design).
#pragma once

#include "tb/config.h"
#include "tlm/statistics.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>

namespace bcastsim::tb {

// The simulation could not finish (stall, time limit, broken invariant). `what()` is the
// diagnosis naming the blocks and resources involved. The CLI exits 1 with it.
struct simulation_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr const char* result_schema = "bcastsim.result/2";

// SystemC's reports for bcastsim: its banner, notes and deprecation notices are not shown; a
// warning is thrown like an error, and not displayed, since whoever catches it reports it
// (the CLI, the co-simulation's report): displayed too, it would be printed twice.
void configure_reports();

// Runs the scenario and returns its result.json document. Throws config_error for bad
// input (detected before elaboration), simulation_failure for a failed simulation.
// `on_result`, when given, receives the document while the fabric still exists: a caller
// that exits the process from it skips the teardown of the SystemC objects, which is
// quadratic in SystemC's registries and takes seconds on the largest networks.
// `record_unit_inputs`, when not empty, is a file to record every packet entering every Bcast
// Unit in (tb/cosim/recorder.h), for the co-simulation harness to replay.
nlohmann::json run_scenario(const config& cfg,
                            const std::function<void(const nlohmann::json&)>& on_result = {},
                            const std::string& record_unit_inputs = {});

// Every block kind's declared statistics (name, unit, description), read from the blocks
// of a small elaborated fabric; for `bcastsim list`. Must run before any simulation.
void list_statistics(std::ostream& os);

// A block's declared statistics as a JSON object (counters as numbers, accumulators as
// count/mean/min/max).
nlohmann::json stats_to_json(const tlm_net::stat_group& g);

// The effective configuration as a nested JSON object (numbers as numbers).
nlohmann::json config_to_json(const config& cfg);

}  // namespace bcastsim::tb
