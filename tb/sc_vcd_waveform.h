// A SystemC VCD (sc_create_vcd_trace_file) written whole or not at all, as one of the
// waveforms a run or a co-simulation finishes together (tlm_net::finish_own_waveforms): it is
// written as <name>.part<pid>.vcd, closed and checked, then renamed to <name>.vcd, or removed.
#pragma once

#include "tlm/interrupt_cleanup.h"
#include "tlm/trace_window.h"

#include <optional>
#include <string>

namespace bcastsim::tb {

class sc_vcd_waveform final : public tlm_net::own_waveform {
 public:
  // `path` ends in ".vcd". Opens the temporary file; opened() says whether it could.
  explicit sc_vcd_waveform(std::string path);
  ~sc_vcd_waveform() override { discard(); }
  sc_vcd_waveform(const sc_vcd_waveform&) = delete;
  sc_vcd_waveform& operator=(const sc_vcd_waveform&) = delete;

  // The SystemC trace file; null unless opened.
  sc_core::sc_trace_file* file() const { return m_file; }
  const std::string& path() const override { return m_path; }
  bool opened() const override { return m_file != nullptr; }
  std::string close() override;
  std::string commit() override;
  void discard() noexcept override;

 private:
  std::string m_path, m_part;
  sc_core::sc_trace_file* m_file = nullptr;
  bool m_closed = false;                                   // closed and whole, not yet renamed
  std::optional<tlm_net::removed_if_interrupted> m_guard;  // the part file, on a Ctrl-C or kill
};

// SystemC neither checks its writes nor says when one failed: what the C library still holds
// is written now, and an empty string or the write's error (strerror) comes back. Called just
// before a SystemC VCD is closed; a VCD cut short earlier is caught by vcd_complete.
std::string flush_sc_vcd_writes();

}  // namespace bcastsim::tb
