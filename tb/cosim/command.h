// `bcastsim cosim`: co-simulates a Bcast Unit model (--dut) against the SystemC model with a
// random stimulus (--seed, --random-cycles) or a fabric run's recording (--replay), prints
// the scoreboard's report and optionally writes it as JSON and both sides' waveforms.
// Exit codes: 0 no divergence, 1 a divergence (or the reference did not finish), 2 bad input.
#pragma once

#include "tb/cosim/harness.h"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace bcastsim::tb::cosim {

// The longest random stimulus, in clock cycles: it is drawn into memory before it runs
// (measured: 10^7 cycles take 240 MB, so the bound is about 2.4 GB).
inline constexpr uint64_t max_random_cycles = 100000000;

struct command_options {
  std::string dut = "systemc";
  uint64_t seed = 1;
  uint64_t random_cycles = 30000;  // 1 to max_random_cycles
  std::string replay;              // a --record-unit-inputs file; empty: random stimulus
  uint32_t tolerance_cycles = default_tolerance_cycles;
  std::string vcd_dir;
  std::string json_file;
  bool quiet = false;  // the report only when there is a divergence
};

int run_command(const command_options& o, std::ostream& out, std::ostream& err);

}  // namespace bcastsim::tb::cosim
