// The Tofu2 command queue as its verilated RTL (rtl/tofu2_cq.sv) behind the same cycle
// interface as the SystemC twin (command_queue_port, hw/tofu2/command_queue.h). The wrapper
// keeps the descriptors; the RTL's ring holds their handles, so a wrong slot or pointer in the
// RTL shows as a wrong head descriptor. Built only with Verilator (BCASTSIM_WITH_VERILATOR).
#pragma once

#include "hw/tofu2/command_queue.h"

#include <memory>
#include <string>
#include <vector>

namespace bcastsim::hw::tofu2 {

enum class cq_model : uint8_t {
  systemc,
  rtl,
  rtl_fault_pass_scheduling,  // the consumer may pass the scheduling pointer by one
};
const char* to_string(cq_model m);
// Parses a model name (systemc, rtl, rtl-fault-pass-scheduling); false when it is none.
bool parse_cq_model(const std::string& name, cq_model& out);
std::vector<std::string> cq_model_names();
// False for the RTL models when the build has no Verilator.
bool cq_model_available(cq_model m);

// The most entries the verilated ring holds (2^LOG2_ENTRIES of rtl/tofu2_cq.sv).
inline constexpr uint64_t rtl_max_toq_entries = 2048;

// Throws std::invalid_argument for an RTL model without Verilator, or entries the RTL cannot
// hold (a power of two up to rtl_max_toq_entries, as the hardware's TOQ sizes are).
// `vcd_path`: the RTL writes its own Verilator VCD there (empty: none).
// `start`: the count the pointers start from (command_queue's constructor; the RTL keeps its
// low 32 bits).
std::unique_ptr<command_queue_port> make_command_queue(cq_model m, uint64_t entries,
                                                       queue_mode mode,
                                                       const std::string& vcd_path = "",
                                                       uint64_t start = 0);

// The RTL models (command_queue_rtl.cpp, built only with Verilator); make_command_queue is
// the way in.
std::unique_ptr<command_queue_port> make_command_queue_rtl(cq_model m, uint64_t entries,
                                                           queue_mode mode,
                                                           const std::string& vcd_path,
                                                           uint64_t start);

}  // namespace bcastsim::hw::tofu2
