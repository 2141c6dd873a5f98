#include "tb/waveforms.h"

#include "tb/atomic_file.h"
#include "tb/gtkwave_save_file.h"
#include "tb/output_path.h"
#include "tb/sc_vcd_waveform.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace bcastsim::tb {

namespace {

config_error vcd_error(const std::string& what) {
  return config_error("trace.vcd", "trace.vcd (--vcd): " + what);
}

// Refuses what SystemC would write into or past (writes to /dev/full fail silently) or the
// rename would replace: a directory, a device, a pipe, a socket, a folder that does not
// exist; beside it, a verilated block's own BLOCK.rtl.vcd too. The CLI checks --vcd before
// anything runs; trace.vcd may come from a scenario.
void check_vcd_path(const std::string& given, const std::string& base) {
  const char* const flag = "trace.vcd (--vcd)";
  try {
    for (const std::string& path : {given, base + ".vcd", base + ".gtkw"})
      check_output_file(path, flag);
    const size_t slash = base.rfind('/');
    check_output_dir(slash == std::string::npos ? "." : base.substr(0, slash + 1), flag,
                     {"*.rtl.vcd"});
  } catch (const config_error& e) {
    throw config_error("trace.vcd", e.what());
  }
}

// FILE of FILE.vcd: the --vcd argument without its ".vcd".
std::string base_of(const std::string& vcd_file) {
  std::string base = vcd_file;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".vcd") == 0)
    base.resize(base.size() - 4);
  return base;
}

// SystemC writes the VCD's header at its first traced cycle and, when there is none (nothing
// to simulate: one rank, a time limit before the first event), refuses to close the file
// (W715). Its cycle() is protected; a derived class may name it for us.
struct vcd_header_writer : sc_core::sc_trace_file {
  static void write(sc_core::sc_trace_file& f) { (f.*&vcd_header_writer::cycle)(false); }
};

}  // namespace

void check_vcd_file(const std::string& vcd_file) {
  check_vcd_path(vcd_file, base_of(vcd_file));
}

waveforms::waveforms(const scenario& s, fabric& fab) : m_s(s) {
  if (s.vcd_file.empty()) return;
  m_base = base_of(s.vcd_file);
  check_vcd_path(s.vcd_file, m_base);
  m_vcd = std::make_unique<sc_vcd_waveform>(m_base + ".vcd");
  if (!m_vcd->opened()) {  // SystemC would terminate the process at the first sc_start
    const std::string why = std::strerror(errno);
    m_vcd.reset();
    throw vcd_error("cannot write '" + m_base + ".vcd': " + why);
  }
  tlm_net::trace_window window;
  window.file = m_vcd->file();
  window.catalog = &m_traced;
  const size_t slash = m_base.rfind('/');
  window.own_vcd_dir = slash == std::string::npos ? "." : m_base.substr(0, slash);
  window.start = sc_core::sc_time(s.trace_start_ns, sc_core::SC_NS);
  if (s.trace_end_ns > 0) window.end = sc_core::sc_time(s.trace_end_ns, sc_core::SC_NS);
  try {
    fab.trace(window, s.trace_blocks);
  } catch (...) {
    discard();  // the constructor throws: no destructor will remove the part file
    throw;
  }
  // A block's own waveform must open, and not under the run's VCD's name.
  for (const tlm_net::own_waveform* w : m_traced.own) {
    const bool clash = w->path() == m_base + ".vcd";
    if (clash || !w->opened()) {
      discard();
      throw vcd_error("cannot write '" + w->path() + "'" +
                      (clash ? ": it is the name of the run's VCD; give --vcd another name"
                             : ": it cannot be opened for writing"));
    }
  }
  // A block that cannot be traced is refused rather than shown empty.
  for (const std::string& name : s.trace_blocks) {
    const auto b = std::find_if(m_traced.blocks.begin(), m_traced.blocks.end(),
                                [&](const tlm_net::trace_block& t) { return t.name == name; });
    if (b == m_traced.blocks.end() || b->signals.empty()) {
      discard();
      throw config_error("trace.blocks", "trace.blocks names '" + name +
                                             "', which declares no signals to trace into the VCD");
    }
  }
  // The header now, with the initial values: the VCD is whole even if nothing is simulated.
  vcd_header_writer::write(*m_vcd->file());
}

waveforms::~waveforms() {
  discard();
}

void waveforms::discard() noexcept {
  if (!m_vcd) return;
  // Unwinding from an error before the run ended: no VCD rather than a partial one.
  m_vcd.reset();
  for (tlm_net::own_waveform* w : m_traced.own) w->discard();
}

void waveforms::close() {
  if (!m_vcd) return;
  // Every file closed and found whole, and the save file written, before any VCD is renamed:
  // a save file that does not fit (a full disk) leaves no VCD either. The blocks' own first.
  std::vector<tlm_net::own_waveform*> all = m_traced.own;
  all.push_back(m_vcd.get());
  std::string why = tlm_net::finish_own_waveforms(all, tlm_net::own_step::close);
  if (why.empty()) {
    try {
      write_save_file();
    } catch (...) {
      discard();
      throw;
    }
    why = tlm_net::finish_own_waveforms(all, tlm_net::own_step::commit);
    if (!why.empty()) std::remove((m_base + ".gtkw").c_str());
  }
  m_vcd.reset();
  if (!why.empty()) throw vcd_error(why);
}

void waveforms::write_save_file() const {
  const std::string name = m_base.substr(m_base.rfind('/') + 1);
  gtkwave_view view;
  view.vcd_file = name + ".vcd";
  view.save_file = name + ".gtkw";
  view.start_ps = sc_core::sc_time(m_s.trace_start_ns, sc_core::SC_NS).value();
  view.end_ps = m_s.trace_end_ns > 0 ? sc_core::sc_time(m_s.trace_end_ns, sc_core::SC_NS).value()
                                     : sc_core::sc_time_stamp().value();
  write_file_atomically(m_base + ".gtkw", gtkwave_save_file(m_traced, view), "trace.vcd");
}

}  // namespace bcastsim::tb
