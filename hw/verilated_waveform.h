// A verilated model's own VCD (Verilator's VerilatedVcdC), written whole or not at all: under
// <name>.part<pid>.vcd, closed and checked, then renamed to <name>.vcd (tlm_net::own_waveform)
// or removed. Shared by the RTL Bcast Unit and the RTL Tofu2 command queue; only the *_rtl.cpp
// sources (built with Verilator) include it.
#pragma once

#include "tlm/interrupt_cleanup.h"
#include "tlm/trace_window.h"

// Verilator's headers look for SystemC's time in the global namespace once SystemC is in.
using sc_core::sc_time_stamp;

#include "verilated_vcd_c.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

namespace bcastsim::hw {

// Verilator's own file reports a failed write (a full disk) to vl_fatal, which runs the flush
// callbacks; the trace's waits for the lock its own dump() holds, and the process hangs for
// ever (Verilator 5.006, seen in gdb); past that, vl_fatal would abort. This one keeps the
// first error, drops what follows so the simulation goes on, and lets the owner report it
// when the file is closed.
class checked_vcd_file final : public VerilatedVcdFile {
 public:
  bool open(const std::string& name) override {
    m_error = 0;
    m_fd = ::open(name.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0666);
    if (m_fd < 0) m_error = errno;
    return m_fd >= 0;
  }
  void close() override {
    if (m_fd < 0) return;
    if (::close(m_fd) != 0 && m_error == 0) m_error = errno;
    m_fd = -1;
  }
  ssize_t write(const char* data, ssize_t len) override {
    for (ssize_t done = 0; m_error == 0 && done < len;) {
      const ssize_t n = ::write(m_fd, data + done, static_cast<size_t>(len - done));
      if (n > 0) {
        done += n;
      } else if (n == 0) {
        m_error = ENOSPC;  // a regular file takes nothing only when it has no room
      } else if (errno != EINTR) {
        m_error = errno;
      }
    }
    return len;  // written or dropped: Verilator must neither retry nor stop
  }
  // The first failed write's errno, 0 if none.
  int error() const { return m_error; }

 private:
  int m_fd = -1;
  int m_error = 0;
};

// The VCD of one verilated model, every signal of it: Verilator buffers what it writes, and a
// run leaves without destructors, so the file is written under a temporary name and renamed
// when its owner finishes the waveforms (tlm_net::finish_own_waveforms), or removed.
class verilated_waveform final : public tlm_net::own_waveform {
 public:
  explicit verilated_waveform(std::string path) : m_path(std::move(path)) {
    const bool vcd = m_path.size() > 4 && m_path.compare(m_path.size() - 4, 4, ".vcd") == 0;
    const std::string base = vcd ? m_path.substr(0, m_path.size() - 4) : m_path;
    m_part = base + ".part" + std::to_string(getpid()) + ".vcd";
  }
  ~verilated_waveform() override { discard(); }
  verilated_waveform(const verilated_waveform&) = delete;
  verilated_waveform& operator=(const verilated_waveform&) = delete;

  // Give it to the model's trace() first, then open it.
  VerilatedVcdC& file() { return m_file; }
  void open() {
    m_guard.emplace(m_part);
    m_file.open(m_part.c_str());
    m_state = m_file.isOpen() ? state::open : state::none;
  }
  const std::string& path() const override { return m_path; }
  bool opened() const override { return m_state == state::open; }

  std::string close() override {
    if (m_state != state::open) return "it could not be opened";
    m_file.close();
    m_state = state::closed;
    std::string why;
    if (m_sink.error() != 0) {
      why = std::strerror(m_sink.error());
    } else if (!tlm_net::vcd_complete(m_part)) {
      why = "it came out incomplete (disk full?)";
    }
    if (!why.empty()) discard();
    return why;
  }
  std::string commit() override {
    if (m_state != state::closed) return "it was not closed";
    if (std::rename(m_part.c_str(), m_path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      discard();
      return why;
    }
    m_state = state::committed;
    m_guard.reset();
    return {};
  }
  void discard() noexcept override {
    if (m_state == state::open) m_file.close();
    if (m_state == state::open || m_state == state::closed) std::remove(m_part.c_str());
    m_state = state::none;
    m_guard.reset();
  }

 private:
  enum class state { none, open, closed, committed };
  std::string m_path, m_part;
  checked_vcd_file m_sink;  // before m_file, which writes into it until it is destroyed
  VerilatedVcdC m_file{&m_sink};
  state m_state = state::none;
  std::optional<tlm_net::removed_if_interrupted> m_guard;  // the part file, on a Ctrl-C or kill
};

}  // namespace bcastsim::hw
