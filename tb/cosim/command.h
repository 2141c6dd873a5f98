// `bcastsim cosim`: co-simulates a Bcast Unit model (--dut) against the SystemC model with a
// random stimulus (--seed or --seeds, --random-cycles) or a fabric run's recording
// (--replay), prints the scoreboard's report and what the stimulus exercised (coverage.h),
// and optionally writes them as JSON and both sides' waveforms. --seeds A-B runs each seed in
// its own process (SystemC elaborates one design per process) and prints one line per seed.
// Exit codes: 0 no divergence, 1 a divergence (or the reference did not finish, or a
// fault DUT's condition was not exercised), 2 bad input.
#pragma once

#include "tb/cosim/harness.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace bcastsim::tb::cosim {

// The longest random stimulus, in clock cycles: it is drawn into memory before it runs
// (measured: 10^7 cycles take 240 MB, so the bound is about 2.4 GB).
inline constexpr uint64_t max_random_cycles = 100000000;
// The most seeds of one --seeds range.
inline constexpr uint64_t max_seeds = 10000;

struct command_options {
  std::string block = "bcast-unit";  // or tofu2-cq (Tofu2's command queue, cq_command.cpp)
  std::string dut = "systemc";
  uint64_t seed = 1;
  std::string seeds;                  // "A-B" (or "A"): a seed range; empty: --seed alone
  uint64_t random_cycles = 30000;     // 1 to max_random_cycles
  std::optional<std::string> replay;  // a --record-unit-inputs file; none: random stimulus
  uint32_t tolerance_cycles = default_tolerance_cycles;
  std::string vcd_dir;
  std::string json_file;
  bool quiet = false;  // the report only when there is a divergence
};

int run_command(const command_options& o, std::ostream& out, std::ostream& err);
// "A-B" or "A", A <= B, at most max_seeds seeds; false otherwise.
bool parse_seed_range(const std::string& text, uint64_t& first, uint64_t& last);
// One line of a seed range: the verdict (PASS; FAIL with the first divergence, naming an
// error the DUT reported, or why the reference did not finish; NOT EXERCISED and the fault
// condition `missing`) and the coverage.
void print_seed_line(std::ostream& out, uint64_t seed, const report& r, const coverage& c,
                     const std::string& missing);

// --block tofu2-cq: the same options (--tolerance-cycles aside: the lock step is exact).
int run_cq_command(const command_options& o, std::ostream& out, std::ostream& err);

}  // namespace bcastsim::tb::cosim
