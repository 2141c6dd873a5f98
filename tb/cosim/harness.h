// The co-simulation harness of the Bcast Unit: the SystemC model (the reference) and a
// device under test (any unit_model: the verilated RTL, one of its fault builds, or the
// model itself as a self-check) run side by side, in lock step on one SystemC time axis,
// each with the same stimulus (stimulus.h); the scoreboard (scoreboard.h) compares them.
//
// Code flow, for each stimulus (one unit_pair; a replay has one pair per recorded unit):
//   unit_driver   plays the arrivals into the unit's `in` as the router would: BEGIN_REQ on
//                 its class's VC (hand-off data 0, relayed data 1, control 2) at the arrival's
//                 time, the head delay as annotation, tail_time set, only while that VC's
//                 input_buffer_bytes credits (returned with phase CREDIT, usable
//                 credit_latency_ps later) cover the packet and the VC has fewer than
//                 max_ri_packets in the RI. A packet held back for credits delays every later
//                 arrival of its VC by as much (the router's VCs are independent: a class
//                 waiting never holds up another, hw/ragasa/README.md).
//   the unit      reference: hw::ragasa::bcast_unit; DUT: make_bcast_unit(model, ...); each
//                 with its own packet pool, both reading one membership_source.
//   stage_log     a unit_observer: records the unit's stage events with their times (the
//                 driver adds the credits the unit returns, the sink the copies).
//   unit_sink     the router behind `out`: records every copy, answers with the copy's
//                 serialisation time, returns its credit after the sink's delay (the same for
//                 the k-th copy on both sides) and releases the copy to the pool.
//   simulate      runs sc_start 16 cycles at a time until every driver is done and every
//                 unit idle, or nothing has moved for stall_limit_cycles while no driver
//                 waits for a later arrival (a deadlock: the scoreboard's `end` stage says so).
// run_cosim() elaborates the harness, simulates, and scores. One per process (SystemC).
#pragma once

#include "hw/ragasa/unit_factory.h"
#include "tb/cosim/coverage.h"
#include "tb/cosim/scoreboard.h"
#include "tb/cosim/stimulus.h"

#include <memory>
#include <string>
#include <vector>

namespace bcastsim::tb::cosim {

struct cosim_options {
  hw::ragasa::unit_model dut = hw::ragasa::unit_model::systemc;
  uint32_t tolerance_cycles = 0;
  std::string vcd_dir;  // empty: no waveforms
  uint64_t stall_limit_cycles = 200000;
};

// Default tolerance of the SystemC model's timing against the RTL's, in clock cycles. The
// RTL's RI hands the core one packet per clock; the model's RI takes every packet assembled
// at one edge, so close small packets return their credits up to 4 cycles later on the RTL.
inline constexpr uint32_t default_tolerance_cycles = 4;

// Elaborates one design with a pair per stimulus, simulates it to the end and returns the
// scoreboard's report. Waveforms (options.vcd_dir): the references in vcd_dir/cosim_ref.vcd
// (SystemC VCD, one scope per pair); a SystemC DUT in vcd_dir/cosim_dut.vcd; an RTL DUT writes
// its own Verilator VCD, vcd_dir/cosim_dut_<pair>.rtl.vcd (trace_window::own_vcd_dir). Each
// is written under a temporary name and renamed once all are whole; when one cannot be (a
// full disk), none is left and report::waveform_error says why. A report, not an exception:
// unwinding after SystemC's coroutines have run trips AddressSanitizer's stack bookkeeping
// (a stack-buffer-overflow in its sigaltstack interceptor, seen on the asan build).
// `cover`, when given, receives what the reference exercised, summed over the units.
report run_cosim(const std::vector<stimulus>& stimuli, const cosim_options& options,
                 coverage* cover = nullptr);

}  // namespace bcastsim::tb::cosim
