#include "tb/sweep/progress.h"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace bcastsim::tb::sweep {

std::string clock_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

progress_meter::progress_meter(std::ostream& out, size_t total, size_t done_before, bool tty,
                               bool quiet)
    : m_out(out),
      m_total(total),
      m_done_before(done_before),
      m_tty(tty),
      m_quiet(quiet),
      m_start(std::chrono::steady_clock::now()),
      m_last_draw(m_start) {}

double progress_meter::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

std::string progress_meter::eta() const {
  if (m_done_now == 0) return "--";
  const size_t left = m_total - m_done_before - m_done_now;
  return clock_text(elapsed_s() / static_cast<double>(m_done_now) * static_cast<double>(left));
}

void progress_meter::finished(size_t index, bool ok, double wall_s, const std::string& label) {
  ++m_done_now;
  if (!ok) ++m_failed;
  if (m_quiet) return;
  if (m_tty) {
    if (!ok) {
      m_out << "\r\033[K"
            << "point " << index << " failed: " << label << "\n";
      m_drawn = false;
    }
    draw();
    return;
  }
  char head[96];
  std::snprintf(head, sizeof head,
                "[%zu/%zu] point %zu %s in %.2f s, ETA %s: ", m_done_before + m_done_now, m_total,
                index, ok ? "ok" : "FAILED", wall_s, eta().c_str());
  m_out << head << label << "\n" << std::flush;
}

void progress_meter::tick() {
  if (m_quiet || !m_tty) return;
  const auto now = std::chrono::steady_clock::now();
  if (m_drawn && now - m_last_draw < std::chrono::milliseconds(250)) return;
  draw();
}

void progress_meter::draw() {
  const size_t done = m_done_before + m_done_now;
  char line[160];
  std::snprintf(line, sizeof line,
                "\r\033[K[%zu/%zu] %3.0f%%  %zu running, %zu failed, elapsed %s, ETA %s", done,
                m_total, m_total ? 100.0 * static_cast<double>(done) / m_total : 100.0, m_running,
                m_failed, clock_text(elapsed_s()).c_str(), eta().c_str());
  m_out << line << std::flush;
  m_drawn = true;
  m_last_draw = std::chrono::steady_clock::now();
}

void progress_meter::close() {
  if (m_quiet || !m_tty) return;
  draw();
  m_out << "\n" << std::flush;
}

}  // namespace bcastsim::tb::sweep
