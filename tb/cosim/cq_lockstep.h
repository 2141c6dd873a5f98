// Lock-step co-simulation of the Tofu2 command queue: the SystemC twin (the reference,
// hw/tofu2/command_queue.h) and a device under test (its verilated RTL, the RTL's fault build,
// or the twin itself as a self-check) take the same requests every cycle and must show the
// same state after it (cq_state, field by field) and the same head descriptor.
//
// Random stimulus, per cycle: an enqueue with probability enqueue_per_mille, an arriving
// packet's SPS (0..15, small values likelier) with probability sps_per_mille, and a request to
// retire the head with probability retire_per_mille (ignored by both when none may run). A small
// ring makes the host meet a full TOQ; sparse SPS makes the head wait in session mode.
#pragma once

#include "hw/tofu2/command_queue_rtl.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bcastsim::tb::cosim {

struct cq_lockstep_options {
  hw::tofu2::cq_model dut = hw::tofu2::cq_model::rtl;
  uint64_t entries = 16;
  hw::tofu2::queue_mode mode = hw::tofu2::queue_mode::session;
  uint64_t cycles = 20000;
  uint64_t seed = 1;
  uint64_t start_count = 0;  // where the pointers start (near 2^32: the RTL's counts wrap)
  uint32_t enqueue_per_mille = 600;
  uint32_t sps_per_mille = 250;
  uint32_t retire_per_mille = 700;
  std::string vcd_path;  // the DUT's RTL VCD; empty: none
};

// What the reference exercised, so a test can say the stimulus reached the corners.
struct cq_lockstep_coverage {
  uint64_t enqueues = 0;
  uint64_t refused = 0;  // enqueues a full ring refused
  uint64_t retires = 0;
  uint64_t sps_arrivals = 0;
  uint64_t wait_cycles = 0;  // cycles whose head was held by the scheduling pointer
  uint64_t wraps = 0;        // times the producer passed the ring's last slot
};

struct cq_lockstep_report {
  bool ok = true;
  uint64_t cycles = 0;     // cycles run (up to and including a divergence)
  std::string divergence;  // the first: its cycle, the requests, both states
  cq_lockstep_coverage coverage;
  std::string waveform_error;  // the DUT's VCD could not be written whole (then it is removed)
};

// Runs `options.cycles` random cycles, or up to the first divergence.
cq_lockstep_report run_cq_lockstep(const cq_lockstep_options& options);

// Runs a given list of cycles (a replay).
cq_lockstep_report run_cq_lockstep(const std::vector<hw::tofu2::cq_cycle>& cycles,
                                   const cq_lockstep_options& options);

}  // namespace bcastsim::tb::cosim
