// Temporary files removed when the process is stopped by SIGINT, SIGTERM or SIGHUP (Ctrl-C, a
// `kill`, a closed terminal, a sweep stopping its points): a waveform's FILE.part<pid>.vcd or
// an atomic_file's FILE.tmp.XXXXXX would otherwise be left beside the output (issue 39,
// defect 7). The process still ends by the signal, as it would without the handler, so its
// parent sees the usual status (128 + the signal's number in a shell).
#pragma once

#include <string>

namespace bcastsim::tlm_net {

// Installs the handler of the three signals (once per process; sc_main does it).
void install_interrupt_cleanup();

// Removes `path` if one of the signals stops the process while this object lives; release()
// (or the destructor) forgets it. At most 64 paths at a time, each shorter than 4 KiB; beyond
// that a path is not guarded (a leftover file, no error).
class removed_if_interrupted {
 public:
  explicit removed_if_interrupted(const std::string& path);
  ~removed_if_interrupted() { release(); }
  removed_if_interrupted(const removed_if_interrupted&) = delete;
  removed_if_interrupted& operator=(const removed_if_interrupted&) = delete;

  void release();

 private:
  int m_slot = -1;
};

}  // namespace bcastsim::tlm_net
