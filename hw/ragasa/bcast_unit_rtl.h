// The Bcast Unit as its verilated RTL (rtl/bcast_core.sv) behind the same TLM interface as the
// SystemC model: the wrapper is the Receive Interface (it assembles a packet, hands its header
// and a handle to the core, one a clock, into its VC's FIFO with its class and queue, and
// returns its credit when the core moves it into a queue, in the order the core reports) and
// the Send Interface (when the link is free it sends the core's queued credit return if
// credits cover ragasa.credit_packet_bytes, else offers the built copy if they cover it).
// Payloads stay in the wrapper, named by handle; a Mini Packet's announced data packets go
// into the core with its header (its reservation depends on them), its child list and parent
// unit when the core parses it (hw/ragasa/README.md).
//
// The core is clocked only while it has work (it says when it is idle), so an idle unit costs
// nothing, as the SystemC model. Verilator headers stay in the source file.
#pragma once

#include "hw/ragasa/bcast_unit_base.h"
#include "hw/ragasa/unit_factory.h"

#include <memory>
#include <string>

namespace bcastsim::hw::ragasa {

// The capacities of the verilated core (rtl/bcast_pkg.sv). A scenario that exceeds one
// cannot run on the RTL: rtl_params_error names the ragasa.* key and its allowed range, and
// is empty when the parameters fit.
std::string rtl_params_error(const bcast_unit_params& p);
// The most children one Membership entry of the RTL core holds (CHILD_MAX); it holds at
// least one.
uint32_t rtl_max_children();

std::unique_ptr<bcast_unit_base> make_bcast_unit_rtl(
    unit_model m, const sc_core::sc_module_name& name, network::terminal_id terminal,
    const bcast_unit_params& params, tlm_net::packet_pool& pool,
    const membership_source& membership, const network::routing_policy* routing);

}  // namespace bcastsim::hw::ragasa
