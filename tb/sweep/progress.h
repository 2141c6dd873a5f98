// Progress of a study on the terminal: a status line redrawn in place (points done, failed,
// running, elapsed, ETA from this session's rate) when stderr is a terminal, otherwise one
// line per finished point.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace bcastsim::tb::sweep {

class progress_meter {
 public:
  progress_meter(std::ostream& out, size_t total, size_t done_before, bool tty, bool quiet);

  void finished(size_t index, bool ok, double wall_s, const std::string& label);
  void running(size_t n) { m_running = n; }
  void tick();   // redraws the status line, at most a few times a second
  void close();  // ends the status line

  size_t failed() const { return m_failed; }
  double elapsed_s() const;
  std::string eta() const;  // "1:23", or "--" before the first point finishes

 private:
  void draw();

  std::ostream& m_out;
  size_t m_total, m_done_before, m_done_now = 0, m_failed = 0, m_running = 0;
  bool m_tty, m_quiet, m_drawn = false;
  std::chrono::steady_clock::time_point m_start, m_last_draw;
};

std::string clock_text(double seconds);  // 75 -> "1:15", 3725 -> "1:02:05"

}  // namespace bcastsim::tb::sweep
