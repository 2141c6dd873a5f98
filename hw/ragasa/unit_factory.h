// Builds a Bcast Unit of the model the scenario names (ragasa.model): the SystemC model, or
// its verilated RTL (built when Verilator was found: BCASTSIM_WITH_VERILATOR), optionally
// with a deliberate fault compiled in, for the co-simulation regression to prove it can fail.
#pragma once

#include "hw/ragasa/bcast_unit_base.h"
#include "network/routing.h"
#include "tlm/packet_pool.h"

#include <memory>
#include <string>
#include <vector>

namespace bcastsim::hw::ragasa {

enum class unit_model : uint8_t {
  systemc,
  rtl,
  rtl_fault_unfair,      // the Receive Packet Scheduler always starts at Rx-queue 0
  rtl_fault_early_free,  // a stored packet's memory is freed one copy early
};

const char* to_string(unit_model m);
// Parses a model name; false when it is not one (names: systemc, rtl, rtl-fault-unfair,
// rtl-fault-early-free).
bool parse_unit_model(const std::string& name, unit_model& out);
std::vector<std::string> unit_model_names();
// False when the build has no Verilator (the RTL models are then not in it).
bool unit_model_available(unit_model m);

std::unique_ptr<bcast_unit_base> make_bcast_unit(unit_model m, const sc_core::sc_module_name& name,
                                                 network::terminal_id terminal,
                                                 const bcast_unit_params& params,
                                                 tlm_net::packet_pool& pool,
                                                 const membership_source& membership,
                                                 const network::routing_policy* routing);

}  // namespace bcastsim::hw::ragasa
