#include "tb/atomic_file.h"

#include "tb/config.h"
#include "tb/output_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace bcastsim::tb {

atomic_file::atomic_file(std::string path, std::string key)
    : m_path(std::move(path)), m_key(std::move(key)) {
  refuse_unless_regular();
  // mkstemp makes the name unique, so concurrent writers never share a temporary file.
  std::vector<char> name(m_path.begin(), m_path.end());
  for (const char c : std::string(".tmp.XXXXXX")) name.push_back(c);
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) fail(std::strerror(errno));
  m_tmp_guard.emplace(name.data());
  fchmod(fd, 0644);  // mkstemp's 0600 would hide results from the rest of a group
  close(fd);
  m_tmp = name.data();
  m_out.open(m_tmp, std::ios::binary | std::ios::trunc);
  if (!m_out) fail(std::strerror(errno));
}

atomic_file::~atomic_file() {
  if (!m_committed && !m_tmp.empty()) std::remove(m_tmp.c_str());
}

void atomic_file::fail(const std::string& why) {
  throw config_error(m_key, m_key + ": cannot write '" + m_path + "': " + why);
}

// A rename would replace a device, FIFO or socket with a regular file (as root, /dev/null
// itself) and fails on a directory: only a regular file, or nothing, is replaced. The
// commands check their paths before they run (output_path.h); this guards every other caller.
void atomic_file::refuse_unless_regular() {
  const std::string kind = not_a_regular_file(m_path);
  if (!kind.empty()) fail("it is " + kind + ", not a regular file to replace");
}

void atomic_file::commit() {
  errno = 0;
  m_out.close();
  if (m_out.fail()) fail(errno ? std::strerror(errno) : "write error");
  refuse_unless_regular();  // it may have become one while the file was written
  if (std::rename(m_tmp.c_str(), m_path.c_str()) != 0) fail(std::strerror(errno));
  m_committed = true;
  m_tmp_guard.reset();
}

void write_file_atomically(const std::string& path, const std::string& text,
                           const std::string& key) {
  atomic_file f(path, key);
  f.stream() << text;
  f.commit();
}

}  // namespace bcastsim::tb
