// The command-queue factory and model names; the RTL half is in command_queue_rtl.cpp, which
// is built only with Verilator.
#include "hw/tofu2/command_queue_rtl.h"

#include <stdexcept>

namespace bcastsim::hw::tofu2 {

const char* to_string(cq_model m) {
  switch (m) {
    case cq_model::systemc:
      return "systemc";
    case cq_model::rtl:
      return "rtl";
    case cq_model::rtl_fault_pass_scheduling:
      return "rtl-fault-pass-scheduling";
  }
  return "?";
}

std::vector<std::string> cq_model_names() {
  return {"systemc", "rtl", "rtl-fault-pass-scheduling"};
}

bool parse_cq_model(const std::string& name, cq_model& out) {
  for (const cq_model m : {cq_model::systemc, cq_model::rtl, cq_model::rtl_fault_pass_scheduling}) {
    if (name == to_string(m)) {
      out = m;
      return true;
    }
  }
  return false;
}

bool cq_model_available(cq_model m) {
#ifdef BCASTSIM_WITH_VERILATOR
  (void)m;
  return true;
#else
  return m == cq_model::systemc;
#endif
}

std::unique_ptr<command_queue_port> make_command_queue(cq_model m, uint64_t entries,
                                                       queue_mode mode, const std::string& vcd_path,
                                                       uint64_t start) {
  if (m == cq_model::systemc) return std::make_unique<command_queue>(entries, mode, start);
  if (!cq_model_available(m)) {
    throw std::invalid_argument(std::string("command queue model ") + to_string(m) +
                                " needs a build with Verilator");
  }
  if (entries == 0 || entries > rtl_max_toq_entries || (entries & (entries - 1)) != 0) {
    throw std::invalid_argument("the RTL command queue holds a power of two of entries up to " +
                                std::to_string(rtl_max_toq_entries) + ", not " +
                                std::to_string(entries));
  }
#ifdef BCASTSIM_WITH_VERILATOR
  return make_command_queue_rtl(m, entries, mode, vcd_path, start);
#else
  (void)vcd_path;
  (void)start;
  return nullptr;
#endif
}

}  // namespace bcastsim::hw::tofu2
