// Output files written whole or not at all: the text goes to a temporary file in the target's
// folder (the same file system), renamed over the target once complete. A reader, a resumed
// sweep or a second bcastsim writing the same path at the same time sees the old file or a
// new one, never part of one. Guards against a crash or a failed write of this process, not
// against power loss (no fsync: a sweep writes thousands of small files).
#pragma once

#include "tlm/interrupt_cleanup.h"

#include <fstream>
#include <optional>
#include <string>

namespace bcastsim::tb {

class atomic_file {
 public:
  // Creates a uniquely named temporary file beside `path`. Throws config_error naming `key`
  // (the flag or config key that chose the path) if it cannot.
  atomic_file(std::string path, std::string key);
  // Not committed: the temporary file is removed and the target left as it was.
  ~atomic_file();
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;

  std::ostream& stream() { return m_out; }
  // Closes the temporary file and renames it over the target; throws config_error naming the
  // key if any write failed or the target is not a regular file (the target is then
  // untouched). The constructor refuses such a target too.
  void commit();

 private:
  [[noreturn]] void fail(const std::string& why);
  void refuse_unless_regular();

  std::string m_path;
  std::string m_key;
  std::string m_tmp;
  std::ofstream m_out;
  // No temporary file left by a Ctrl-C or a kill.
  std::optional<tlm_net::removed_if_interrupted> m_tmp_guard;
  bool m_committed = false;
};

// Replaces `path` with `text` through an atomic_file.
void write_file_atomically(const std::string& path, const std::string& text,
                           const std::string& key);

}  // namespace bcastsim::tb
