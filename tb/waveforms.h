// A run's waveforms: trace.vcd (--vcd FILE.vcd) of the blocks in trace.blocks inside the
// window trace.start_ns .. trace.end_ns, and beside it FILE.gtkw, the GTKWave save file made
// from the traced blocks' declarations (tb/gtkwave_save_file.h) once the simulated time is
// known. Nothing without trace.vcd.
#pragma once

#include "tb/config.h"
#include "tb/fabric.h"
#include "tlm/trace_window.h"

#include <string>

namespace bcastsim::tb {

class waveforms {
 public:
  // Opens the VCD and registers the traced blocks. Throws config_error (trace.vcd when the
  // file cannot be written, trace.blocks for a block that is not one or declares no signal).
  waveforms(const scenario& s, fabric& fab);
  waveforms(const waveforms&) = delete;
  waveforms& operator=(const waveforms&) = delete;
  ~waveforms();

  // Closes the VCD and writes FILE.gtkw, zoomed to the window (to the end of the simulated
  // time when trace.end_ns is 0). Throws config_error if the save file cannot be written.
  void close();

 private:
  const scenario& m_s;
  sc_core::sc_trace_file* m_vcd = nullptr;
  std::string m_base;  // FILE of FILE.vcd and FILE.gtkw
  tlm_net::trace_catalog m_traced;
};

}  // namespace bcastsim::tb
