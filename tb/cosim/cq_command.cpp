// `bcastsim cosim --block tofu2-cq` (command.h): the Tofu2 command queue's lock step
// (cq_lockstep.h) on random stimulus or a run's recording (cq_replay.h), with the same
// options, report shape and exit codes as the Bcast Unit's co-simulation.
#include "tb/atomic_file.h"
#include "tb/cosim/command.h"
#include "tb/cosim/cq_lockstep.h"
#include "tb/cosim/cq_replay.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <ostream>

namespace bcastsim::tb::cosim {

namespace {

using hw::tofu2::cq_model;

nlohmann::json to_json(const cq_lockstep_coverage& c) {
  return {{"enqueues", c.enqueues},         {"refused", c.refused},         {"retires", c.retires},
          {"sps_arrivals", c.sps_arrivals}, {"wait_cycles", c.wait_cycles}, {"wraps", c.wraps}};
}

// One stimulus's line: verdict, cycles, coverage. Returns its exit code (0, or 1: a
// divergence, or a fault build whose fault the stimulus never gave a chance: no head held
// by the scheduling pointer).
int report_line(std::ostream& out, const std::string& name, cq_model dut,
                const cq_lockstep_report& r, bool quiet, nlohmann::json& list) {
  const bool fault = dut == cq_model::rtl_fault_pass_scheduling;
  const bool unexercised = r.ok && fault && r.coverage.wait_cycles == 0;
  const int code = !r.ok || unexercised ? 1 : 0;
  if (!quiet || code != 0) {
    out << name << ": "
        << (!r.ok         ? "FAIL"
            : unexercised ? "NOT EXERCISED (no head waited)"
                          : "PASS")
        << " after " << r.cycles << " cycles; coverage: " << r.coverage.enqueues << " enqueues ("
        << r.coverage.refused << " refused by a full ring), " << r.coverage.retires << " retires, "
        << r.coverage.sps_arrivals << " SPS arrivals, " << r.coverage.wait_cycles
        << " cycles a head waited, " << r.coverage.wraps << " ring wraps\n";
    if (!r.ok) out << "  first divergence: " << r.divergence << "\n";
  }
  list.push_back({{"stimulus", name},
                  {"ok", r.ok},
                  {"cycles", r.cycles},
                  {"divergence", r.divergence},
                  {"coverage", to_json(r.coverage)}});
  return code;
}

// A file name from a stimulus's name (a replay's queue names are the file's to choose).
std::string vcd_of(const command_options& o, std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') c = '_';
  }
  return o.vcd_dir.empty() ? "" : o.vcd_dir + "/cq_dut_" + name + ".rtl.vcd";
}

// A recording's queues against what the RTL holds (the SystemC twin holds any size): a
// refusal names the line and the field, where the model's own exception would not.
int check_rtl_entries(const command_options& o, cq_model dut,
                      const std::vector<cq_stimulus>& stimuli, std::ostream& err) {
  if (dut == cq_model::systemc) return 0;
  for (const cq_stimulus& s : stimuli) {
    const uint64_t n = s.entries;
    if (n != 0 && n <= hw::tofu2::rtl_max_toq_entries && (n & (n - 1)) == 0) continue;
    err << "bcastsim: error: --replay '" << *o.replay << "' line " << s.line << ": entries = " << n
        << " (queue " << s.name
        << ") is not a size the RTL command queue holds; allowed with --dut " << o.dut
        << ": a power of two up to " << hw::tofu2::rtl_max_toq_entries
        << " (--dut systemc: up to 2097152)\n";
    return 2;
  }
  return 0;
}

// A DUT's VCD that could not be written whole (a full disk): the run stops there, exit 2
// naming --vcd, as `run --vcd` does. Earlier stimuli's VCDs were whole and stay.
int waveform_failed(const cq_lockstep_report& r, std::ostream& err) {
  err << "bcastsim: error: --vcd: " << r.waveform_error << "\n";
  return 2;
}

}  // namespace

int run_cq_command(const command_options& o, std::ostream& out, std::ostream& err) {
  cq_lockstep_options base;
  if (!hw::tofu2::parse_cq_model(o.dut, base.dut)) {
    std::string allowed;
    for (const std::string& n : hw::tofu2::cq_model_names())
      allowed += (allowed.empty() ? "" : ", ") + n;
    err << "bcastsim: error: --dut '" << o.dut
        << "' is not a Tofu2 command queue model; allowed: " << allowed << "\n";
    return 2;
  }
  if (!hw::tofu2::cq_model_available(base.dut)) {
    err << "bcastsim: error: --dut " << o.dut
        << " needs a build with Verilator (the RTL command queue is not in this build)\n";
    return 2;
  }
  if (!o.replay && (o.random_cycles == 0 || o.random_cycles > max_random_cycles)) {
    err << "bcastsim: error: --random-cycles must be 1 to " << max_random_cycles << "\n";
    return 2;
  }
  uint64_t first = o.seed, last = o.seed;
  if (!o.seeds.empty() && !parse_seed_range(o.seeds, first, last)) {
    err << "bcastsim: error: --seeds '" << o.seeds << "' is not a seed range; allowed: A-B or A "
        << "with 0 <= A <= B < 2^64 and at most " << max_seeds << " seeds\n";
    return 2;
  }
  if (!o.vcd_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.vcd_dir, ec);
    if (ec) {
      err << "bcastsim: error: --vcd '" << o.vcd_dir << "' cannot be created: " << ec.message()
          << "\n";
      return 2;
    }
  }
  nlohmann::json list = nlohmann::json::array();
  int code = 0;
  try {
    if (o.replay) {
      const std::vector<cq_stimulus> stimuli = load_cq_replay(*o.replay);
      if (const int bad = check_rtl_entries(o, base.dut, stimuli, err)) return bad;
      for (const cq_stimulus& s : stimuli) {
        cq_lockstep_options opt = base;
        opt.entries = s.entries;
        opt.mode = s.mode;
        opt.vcd_path = vcd_of(o, s.name);
        const cq_lockstep_report r = run_cq_lockstep(s.cycles, opt);
        code = std::max(code, report_line(out, s.name, base.dut, r, o.quiet, list));
        if (!r.waveform_error.empty()) return waveform_failed(r, err);
      }
    } else {
      for (uint64_t seed = first;; ++seed) {
        cq_lockstep_options opt = base;
        opt.seed = seed;
        opt.cycles = o.random_cycles;
        opt.vcd_path = vcd_of(o, "seed_" + std::to_string(seed));
        const cq_lockstep_report r = run_cq_lockstep(opt);
        code = std::max(
            code, report_line(out, "seed " + std::to_string(seed), base.dut, r, o.quiet, list));
        if (!r.waveform_error.empty()) return waveform_failed(r, err);
        if (seed == last) break;
      }
    }
  } catch (const cq_replay_error& e) {
    err << "bcastsim: error: --replay " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {  // a ring the RTL cannot hold
    err << "bcastsim: error: " << (o.replay ? "--replay " + *o.replay + ": " : "") << e.what()
        << "\n";
    return 2;
  }
  if (!o.json_file.empty()) {
    try {
      write_file_atomically(
          o.json_file,
          nlohmann::json{{"block", "tofu2-cq"}, {"dut", o.dut}, {"stimuli", list}}.dump(2) + "\n",
          "--json");
    } catch (const std::exception& e) {
      err << "bcastsim: error: " << e.what() << "\n";
      return 2;
    }
  }
  return code;
}

}  // namespace bcastsim::tb::cosim
