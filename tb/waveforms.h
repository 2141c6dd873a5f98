// A run's waveforms: trace.vcd (--vcd FILE.vcd) of the blocks in trace.blocks inside the
// window trace.start_ns .. trace.end_ns, and beside it FILE.gtkw, the GTKWave save file made
// from the traced blocks' declarations (tb/gtkwave_save_file.h) once the simulated time is
// known. Nothing without trace.vcd. The VCD is written under a temporary name beside FILE.vcd
// and renamed once complete, so FILE.vcd is never left half-written.
#pragma once

#include "tb/config.h"
#include "tb/fabric.h"
#include "tb/sc_vcd_waveform.h"
#include "tlm/trace_window.h"

#include <memory>
#include <string>

namespace bcastsim::tb {

// Throws config_error (trace.vcd, the message naming --vcd) unless FILE.vcd and FILE.gtkw of
// `vcd_file` (FILE.vcd or FILE) can be written: the CLI's check before anything runs.
void check_vcd_file(const std::string& vcd_file);

class waveforms {
 public:
  // Opens the VCD and registers the traced blocks. Throws config_error (trace.vcd when the
  // file cannot be written or is a directory or a device, trace.blocks for a block that is
  // not one or declares no signal).
  waveforms(const scenario& s, fabric& fab);
  waveforms(const waveforms&) = delete;
  waveforms& operator=(const waveforms&) = delete;
  ~waveforms();

  // Closes the VCD, moves it to FILE.vcd and writes FILE.gtkw, zoomed to the window (to the
  // end of the simulated time when trace.end_ns is 0); finishes the traced blocks' own
  // waveforms (a verilated unit's <block>.rtl.vcd beside FILE.vcd). Throws config_error
  // (trace.vcd) if any of them or FILE.gtkw cannot be written whole (a full disk), leaving
  // none of them.
  void close();

 private:
  void discard() noexcept;       // closes and removes the unfinished VCDs, the blocks' own too
  void write_save_file() const;  // FILE.gtkw, zoomed to the window
  const scenario& m_s;
  std::unique_ptr<sc_vcd_waveform> m_vcd;  // under a temporary name beside FILE.vcd until close()
  std::string m_base;                      // FILE of FILE.vcd and FILE.gtkw
  tlm_net::trace_catalog m_traced;
};

}  // namespace bcastsim::tb
