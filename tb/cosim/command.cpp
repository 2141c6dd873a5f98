#include "tb/cosim/command.h"

#include "hw/ragasa/unit_factory.h"
#include "tb/atomic_file.h"
#include "tb/config.h"
#include "tb/memory_estimate.h"
#include "tb/output_path.h"
#ifdef BCASTSIM_WITH_VERILATOR
#include "hw/ragasa/bcast_unit_rtl.h"
#endif

#include <systemc>

#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <ostream>
#include <sstream>

namespace bcastsim::tb::cosim {

namespace {

using hw::ragasa::unit_model;

// Exit code of a fault build's run that passed without its fault's condition occurring:
// neither caught (1) nor a miss of the scoreboard (0).
constexpr int k_not_exercised = 3;

struct seed_range {
  uint64_t first = 0, last = 0;
};

// "A-B" or "A", A <= B, at most max_seeds seeds. Each number is all digits and at most
// 2^64 - 1 (from_chars reports anything larger), so 18446744073709551615 is a seed.
bool parse_seeds(const std::string& text, seed_range& r) {
  const size_t dash = text.find('-');
  auto number = [](const std::string& t, uint64_t& v) {
    if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos) return false;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc() && end == t.data() + t.size();
  };
  if (!number(text.substr(0, dash), r.first)) return false;
  r.last = r.first;
  if (dash != std::string::npos && !number(text.substr(dash + 1), r.last)) return false;
  return r.first <= r.last && r.last - r.first < max_seeds;
}

// Checks the options that need no stimulus; 0 or the exit code.
int check_options(const command_options& o, unit_model& model, seed_range& seeds,
                  std::ostream& err) {
  if (!hw::ragasa::parse_unit_model(o.dut, model)) {
    std::string allowed;
    for (const std::string& n : hw::ragasa::unit_model_names())
      allowed += (allowed.empty() ? "" : ", ") + n;
    err << "bcastsim: error: --dut '" << o.dut
        << "' is not a Bcast Unit model; allowed: " << allowed << "\n";
    return 2;
  }
  if (!hw::ragasa::unit_model_available(model)) {
    err << "bcastsim: error: --dut " << o.dut
        << " needs a build with Verilator (the RTL Bcast Unit is not in this build; "
           "configure with Verilator installed and BCASTSIM_WITH_VERILATOR=ON)\n";
    return 2;
  }
  if (o.replay && o.replay->empty()) {  // else it would run the random stimulus instead
    err << "bcastsim: error: --replay needs a file name (a `bcastsim run --record-unit-inputs` "
           "recording); got ''\n";
    return 2;
  }
  // The stimulus is drawn cycle by cycle into memory: a bound keeps a typo (or -1, which
  // the option reads as 2^64 - 1) from allocating until the machine gives out.
  if (!o.replay && (o.random_cycles == 0 || o.random_cycles > max_random_cycles)) {
    err << "bcastsim: error: --random-cycles must be 1 to " << max_random_cycles << "\n";
    return 2;
  }
  if (!o.seeds.empty() && !parse_seeds(o.seeds, seeds)) {
    err << "bcastsim: error: --seeds '" << o.seeds << "' is not a seed range; allowed: A-B or A "
        << "with 0 <= A <= B < 2^64 and at most " << max_seeds << " seeds\n";
    return 2;
  }
  return 0;
}

// The stimuli: the random one of o.seed or the replay; 0 or the exit code.
int make_stimuli(const command_options& o, unit_model model, std::vector<stimulus>& stimuli,
                 std::ostream& err) {
  if (!o.replay) {
    stimuli.push_back(random_stimulus(o.seed, o.random_cycles));
  } else {
    try {
      stimuli = load_replay(*o.replay);
    } catch (const replay_error& e) {
      err << "bcastsim: error: --replay " << e.what() << "\n";
      return 2;
    }
  }
#ifdef BCASTSIM_WITH_VERILATOR
  if (model != unit_model::systemc) {
    for (const stimulus& s : stimuli) {
      const std::string why = hw::ragasa::rtl_params_error(s.params);
      if (!why.empty()) {
        err << "bcastsim: error: " << (o.replay ? *o.replay : "the random stimulus") << " ("
            << s.name << "): " << why << "\n";
        return 2;
      }
    }
  }
#else
  (void)model;
#endif
  return 0;
}

// Simulates the stimuli (in this process: once per process) and reports; the exit code.
// `seed_line`: only the one line of a seed range; `json`: the report goes there too.
int simulate(const command_options& o, unit_model model, bool seed_line, nlohmann::json* json,
             std::ostream& out, std::ostream& err) {
  std::vector<stimulus> stimuli;
  if (const int code = make_stimuli(o, model, stimuli, err)) return code;
  if (!o.vcd_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.vcd_dir, ec);
    if (ec) {
      err << "bcastsim: error: --vcd: cannot create directory '" << o.vcd_dir
          << "': " << ec.message() << "\n";
      return 2;
    }
  }
  cosim_options co;
  co.dut = model;
  co.tolerance_cycles = o.tolerance_cycles;
  co.vcd_dir = o.vcd_dir;
  coverage cover;
  const report r = run_cosim(stimuli, co, &cover);
  if (!r.waveform_error.empty()) {  // as run --vcd: exit 2 naming the flag, nothing left
    err << "bcastsim: error: --vcd: " << r.waveform_error << "\n";
    return 2;
  }
  const std::string missing = r.ok() ? fault_condition_missing(model, cover) : std::string();
  if (seed_line) {
    print_seed_line(out, o.seed, r, cover, missing);
  } else if (!o.quiet || !r.ok() || !missing.empty()) {
    if (!o.replay) out << "stimulus " << summary(stimuli.front()) << "\n";
    out << "coverage: ";
    print(out, cover);
    out << "\n";
    print(out, r);
    if (!missing.empty()) out << "NOT EXERCISED: " << o.dut << ": " << missing << "\n";
  }
  if (json) {
    *json = to_json(r);
    if (!o.replay) (*json)["seed"] = o.seed;
    (*json)["coverage"] = to_json(cover);
    (*json)["fault_condition_missing"] = missing;
  }
  if (!r.ok()) return 1;
  return missing.empty() ? 0 : k_not_exercised;
}

// Whole or not at all (atomic_file); a failed write exits 2 naming --json.
int write_json_file(const nlohmann::json& j, const std::string& file, std::ostream& err) {
  try {
    write_file_atomically(file, j.dump(2) + "\n", "--json");
  } catch (const std::exception& e) {
    err << "bcastsim: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

// Runs one seed of a range in a child process (SystemC elaborates one design per process):
// it prints its line and sends its JSON report through a pipe. Returns its exit code, or
// -1 (with `json` empty) when it died.
int run_seed_process(const command_options& o, unit_model model, uint64_t seed,
                     nlohmann::json& json, std::ostream& out, std::ostream& err) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  out.flush();
  err.flush();
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    close(fds[0]);
    command_options one = o;
    one.seed = seed;
    nlohmann::json j;
    int code = 2;
    try {
      code = simulate(one, model, true, &j, out, err);
    } catch (const config_error& e) {  // bad input found only while simulating
      err << "bcastsim: error: " << e.what() << "\n";
    }
    const std::string text = j.dump();
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    out.flush();
    err.flush();
    std::_Exit(code);  // no SystemC teardown
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return -1;
  if (!text.empty()) json = nlohmann::json::parse(text, nullptr, false);
  return WEXITSTATUS(status);
}

// --seeds: one line per seed, then a summary; exit 1 if a seed failed, else 3 if a fault's
// condition was missed at a seed, else 0.
int run_seeds(const command_options& o, unit_model model, const seed_range& seeds,
              std::ostream& out, std::ostream& err) {
  uint64_t passed = 0, failed = 0, missed = 0;
  nlohmann::json all = nlohmann::json::array();
  for (uint64_t seed = seeds.first;; ++seed) {
    nlohmann::json j;
    const int code = run_seed_process(o, model, seed, j, out, err);
    if (code == 2) return 2;  // bad input: the same at every seed
    if (code < 0) {
      err << "bcastsim: error: --seeds: the co-simulation of seed " << seed
          << " died without a report\n";
      ++failed;
    }
    passed += code == 0;
    failed += code == 1;
    missed += code == k_not_exercised;
    all.push_back(j);
    if (seed == seeds.last) break;
  }
  out << "seeds " << seeds.first << "-" << seeds.last << " (" << o.dut << "): " << passed
      << " passed, " << failed << " failed, " << missed << " did not exercise the fault\n";
  if (!o.json_file.empty()) {
    if (const int code = write_json_file({{"dut", o.dut}, {"seeds", all}}, o.json_file, err))
      return code;
  }
  if (failed) return 1;
  return missed ? k_not_exercised : 0;
}

}  // namespace

// One line of a seed range: the verdict, where it diverged first, and the coverage.
void print_seed_line(std::ostream& out, uint64_t seed, const report& r, const coverage& c,
                     const std::string& missing) {
  out << "seed " << seed << ": ";
  if (r.first.found) {
    out << "FAIL (" << r.divergences << " divergences, the first " << r.first.kind << " at "
        << r.first.t_ps / 1000.0 << " ns, stage " << to_string(r.first.where);
    // An error the DUT reported is named here: a seed range prints nothing else of it.
    if (r.first.got.rfind("error: ", 0) == 0) out << ", " << r.first.got;
    out << ")";
  } else if (!r.incomplete.empty()) {
    out << "FAIL (the reference did not finish: " << r.incomplete.substr(0, r.incomplete.find('\n'))
        << ")";
  } else {
    out << (missing.empty() ? "PASS" : "NOT EXERCISED (" + missing + ")");
  }
  out << "; coverage: ";
  print(out, c);
  out << "\n";
}

bool parse_seed_range(const std::string& text, uint64_t& first, uint64_t& last) {
  seed_range r;
  if (!parse_seeds(text, r)) return false;
  first = r.first;
  last = r.last;
  return true;
}

namespace {

// run_command's work, once the memory cap is in place.
int run_block(const command_options& o, std::ostream& out, std::ostream& err) {
  // The outputs before anything runs (output_path.h): the report, and in the waveforms'
  // folder every VCD either block writes (cosim_ref, cosim_dut, cosim_dut_*.rtl, cq_dut_*).
  try {
    if (!o.json_file.empty()) check_output_file(o.json_file, "--json");
    if (!o.vcd_dir.empty()) check_output_dir(o.vcd_dir, "--vcd", {"cosim_*.vcd", "cq_dut_*.vcd"});
  } catch (const config_error& e) {
    err << "bcastsim: error: " << e.what() << "\n";
    return 2;
  }
  if (o.block == "tofu2-cq") return run_cq_command(o, out, err);
  if (o.block != "bcast-unit") {
    err << "bcastsim: error: --block '" << o.block
        << "' is not a co-simulated block; allowed: bcast-unit, tofu2-cq\n";
    return 2;
  }
  unit_model model{};
  seed_range seeds;
  if (const int code = check_options(o, model, seeds, err)) return code;
  if (!o.seeds.empty()) return run_seeds(o, model, seeds, out, err);
  nlohmann::json j;
  const int code = simulate(o, model, false, o.json_file.empty() ? nullptr : &j, out, err);
  if (code != 2 && !o.json_file.empty()) {
    if (const int wrote = write_json_file(j, o.json_file, err)) return wrote;
  }
  return code;
}

}  // namespace

int run_command(const command_options& o, std::ostream& out, std::ostream& err) {
  // The cap `run` takes from sim.max_memory_gib, at its default (cosim reads no scenario):
  // a stimulus too large for the machine ends in std::bad_alloc (exit 1), not the OOM killer.
  limit_address_space(default_memory_limit_bytes());
  const char* const out_of_memory =
      "bcastsim: out of memory: the co-simulation needs more than this process may use (3/4 "
      "of the machine, or a ulimit); fewer --random-cycles or a shorter --replay recording\n";
  try {
    return run_block(o, out, err);
  } catch (const std::bad_alloc&) {
    err << out_of_memory;
  } catch (const sc_core::sc_report& r) {  // a std::bad_alloc inside a SystemC process
    if (!is_out_of_memory(r)) throw;
    err << out_of_memory;
  }
  return 1;
}

}  // namespace bcastsim::tb::cosim
