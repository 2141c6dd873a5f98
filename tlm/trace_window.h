// Waveforms of chosen blocks in a time window. SystemC cannot pause a VCD file, so traced
// blocks copy their state into mirror variables only inside the window; outside it the
// mirrors hold still and the VCD records nothing.
#pragma once

#include <string>
#include <systemc>

namespace bcastsim::tlm_net {

struct trace_window {
  sc_core::sc_trace_file* file = nullptr;
  sc_core::sc_time start = sc_core::SC_ZERO_TIME;
  sc_core::sc_time end = sc_core::sc_max_time();
  // Blocks that write a waveform of their own (verilated RTL) put it in this folder.
  std::string own_vcd_dir = ".";
  bool active(const sc_core::sc_time& now) const { return now >= start && now <= end; }
};

}  // namespace bcastsim::tlm_net
