#include "tb/waveforms.h"

#include "tb/gtkwave_save_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace bcastsim::tb {

waveforms::waveforms(const scenario& s, fabric& fab) : m_s(s) {
  if (s.vcd_file.empty()) return;
  m_base = s.vcd_file;
  if (m_base.size() > 4 && m_base.compare(m_base.size() - 4, 4, ".vcd") == 0)
    m_base.resize(m_base.size() - 4);
  if (!std::ofstream(m_base + ".vcd")) {  // SystemC would only say so at the first sc_start
    throw config_error("trace.vcd", "trace.vcd (--vcd): cannot write '" + m_base +
                                        ".vcd': " + std::strerror(errno));
  }
  m_vcd = sc_core::sc_create_vcd_trace_file(m_base.c_str());
  m_vcd->set_time_unit(1, sc_core::SC_PS);
  tlm_net::trace_window window;
  window.file = m_vcd;
  window.catalog = &m_traced;
  const size_t slash = m_base.rfind('/');
  window.own_vcd_dir = slash == std::string::npos ? "." : m_base.substr(0, slash);
  window.start = sc_core::sc_time(s.trace_start_ns, sc_core::SC_NS);
  if (s.trace_end_ns > 0) window.end = sc_core::sc_time(s.trace_end_ns, sc_core::SC_NS);
  fab.trace(window, s.trace_blocks);
  // A block that cannot be traced is refused rather than shown empty.
  for (const std::string& name : s.trace_blocks) {
    const auto b = std::find_if(m_traced.blocks.begin(), m_traced.blocks.end(),
                                [&](const tlm_net::trace_block& t) { return t.name == name; });
    if (b == m_traced.blocks.end() || b->signals.empty())
      throw config_error(
          "trace.blocks",
          "trace.blocks names '" + name + "', which declares no signals to trace into the VCD");
  }
}

waveforms::~waveforms() {
  if (m_vcd) sc_core::sc_close_vcd_trace_file(m_vcd);
}

void waveforms::close() {
  if (!m_vcd) return;
  sc_core::sc_close_vcd_trace_file(m_vcd);
  m_vcd = nullptr;
  const std::string name = m_base.substr(m_base.rfind('/') + 1);
  gtkwave_view view;
  view.vcd_file = name + ".vcd";
  view.save_file = name + ".gtkw";
  view.start_ps = sc_core::sc_time(m_s.trace_start_ns, sc_core::SC_NS).value();
  view.end_ps = m_s.trace_end_ns > 0 ? sc_core::sc_time(m_s.trace_end_ns, sc_core::SC_NS).value()
                                     : sc_core::sc_time_stamp().value();
  write_file_whole(m_base + ".gtkw", gtkwave_save_file(m_traced, view));
}

}  // namespace bcastsim::tb
