#include "tb/sc_vcd_waveform.h"

#include <sysc/tracing/sc_tracing_ids.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace bcastsim::tb {

std::string flush_sc_vcd_writes() {
  // The standard streams first, so that a failure of theirs is not taken for the VCD's.
  std::fflush(stdout);
  std::fflush(stderr);
  errno = 0;
  if (std::fflush(nullptr) != 0) return std::strerror(errno != 0 ? errno : EIO);
  return {};
}

sc_vcd_waveform::sc_vcd_waveform(std::string path) : m_path(std::move(path)) {
  const std::string base = m_path.substr(0, m_path.size() - 4);  // less ".vcd"
  const std::string part_base = base + ".part" + std::to_string(getpid());
  m_part = part_base + ".vcd";
  m_guard.emplace(m_part);
  if (!std::ofstream(m_part)) return;  // SystemC would terminate the process on it
  m_file = sc_core::sc_create_vcd_trace_file(part_base.c_str());
  m_file->set_time_unit(1, sc_core::SC_PS);
}

std::string sc_vcd_waveform::close() {
  if (!m_file) return "it could not be opened";
  std::string why = flush_sc_vcd_writes();
  sc_core::sc_close_vcd_trace_file(m_file);
  m_file = nullptr;
  if (why.empty() && !tlm_net::vcd_complete(m_part)) why = "it came out incomplete (disk full?)";
  if (!why.empty()) {
    std::remove(m_part.c_str());
    return why;
  }
  m_closed = true;
  return {};
}

std::string sc_vcd_waveform::commit() {
  if (!m_closed) return "it was not closed";
  m_closed = false;
  if (std::rename(m_part.c_str(), m_path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(m_part.c_str());
    return why;
  }
  m_guard.reset();
  return {};
}

void sc_vcd_waveform::discard() noexcept {
  if (m_file) {
    try {  // an empty VCD (nothing simulated) is no news while discarding it
      sc_core::sc_report_handler::set_actions(sc_core::SC_ID_TRACING_CLOSE_EMPTY_FILE_,
                                              sc_core::SC_DO_NOTHING);
      sc_core::sc_close_vcd_trace_file(m_file);
    } catch (...) {
    }
    m_file = nullptr;
    std::remove(m_part.c_str());
  }
  if (m_closed) std::remove(m_part.c_str());
  m_closed = false;
  m_guard.reset();
}

}  // namespace bcastsim::tb
