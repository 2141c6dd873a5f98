#include "tb/cosim/command.h"

#include "hw/ragasa/unit_factory.h"
#include "tb/atomic_file.h"
#ifdef BCASTSIM_WITH_VERILATOR
#include "hw/ragasa/bcast_unit_rtl.h"
#endif

#include <filesystem>
#include <fstream>
#include <ostream>

namespace bcastsim::tb::cosim {

int run_command(const command_options& o, std::ostream& out, std::ostream& err) {
  using hw::ragasa::unit_model;
  unit_model model{};
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
  // The stimulus is drawn cycle by cycle into memory: a bound keeps a typo (or -1, which
  // the option reads as 2^64 - 1) from allocating until the machine gives out.
  if (o.replay.empty() && (o.random_cycles == 0 || o.random_cycles > max_random_cycles)) {
    err << "bcastsim: error: --random-cycles must be 1 to " << max_random_cycles << "\n";
    return 2;
  }

  std::vector<stimulus> stimuli;
  if (o.replay.empty()) {
    stimuli.push_back(random_stimulus(o.seed, o.random_cycles));
  } else {
    try {
      stimuli = load_replay(o.replay);
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
        err << "bcastsim: error: " << (o.replay.empty() ? "the random stimulus" : o.replay) << " ("
            << s.name << "): " << why << "\n";
        return 2;
      }
    }
  }
#endif

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
  const report r = run_cosim(stimuli, co);
  if (!o.quiet || !r.ok()) {
    if (o.replay.empty()) out << "stimulus " << summary(stimuli.front()) << "\n";
    print(out, r);
  }
  // Whole or not at all (a config_error: exit 2 naming --json).
  if (!o.json_file.empty()) write_file_atomically(o.json_file, to_json(r).dump(2) + "\n", "--json");
  return r.ok() ? 0 : 1;
}

}  // namespace bcastsim::tb::cosim
