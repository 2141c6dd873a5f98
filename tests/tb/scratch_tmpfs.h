// A small file system for tests of a full disk: a tmpfs mounted on a folder of the test's own
// scratch directory (never a path of the machine's), unmounted when it goes out of scope. It
// needs CAP_SYS_ADMIN (root); where mount is not permitted, mounted() is false and why() says
// so, and the test skips with that reason.
#pragma once

#include "cli_runner.h"

#include <sys/mount.h>
#include <sys/stat.h>

#include <dirent.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace bcastsim::test {

class scratch_tmpfs {
 public:
  explicit scratch_tmpfs(const std::string& size = "64k") : m_dir(fresh_dir() + "/disk") {
    if (mkdir(m_dir.c_str(), 0755) != 0) {
      m_why = "cannot make " + m_dir + ": " + std::strerror(errno);
      return;
    }
    const std::string options = "size=" + size;
    if (mount("tmpfs", m_dir.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      m_why = "mount -t tmpfs on " + m_dir + " is not permitted here (" + std::strerror(errno) +
              "; it needs root or CAP_SYS_ADMIN)";
      return;
    }
    m_mounted = true;
  }
  ~scratch_tmpfs() {
    if (m_mounted) umount2(m_dir.c_str(), MNT_DETACH);
  }
  scratch_tmpfs(const scratch_tmpfs&) = delete;
  scratch_tmpfs& operator=(const scratch_tmpfs&) = delete;

  bool mounted() const { return m_mounted; }
  const std::string& why() const { return m_why; }
  const std::string& dir() const { return m_dir; }

  // Writes a filler file until the file system is full, then frees `leave_bytes` of it.
  void fill_leaving(size_t leave_bytes) {
    const std::string filler = m_dir + "/filler";
    {
      std::ofstream out(filler, std::ios::binary);
      const std::string block(512, 'x');
      while (out.write(block.data(), block.size()) && out.flush()) {
      }
    }
    struct stat st {};
    BOOST_REQUIRE(stat(filler.c_str(), &st) == 0);
    const off_t keep = st.st_size > static_cast<off_t>(leave_bytes)
                           ? st.st_size - static_cast<off_t>(leave_bytes)
                           : 0;
    BOOST_REQUIRE(truncate(filler.c_str(), keep) == 0);
  }

  // Every name in the file system but the filler, folders walked ("vcd/a.vcd").
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    walk(m_dir, "", names);
    return names;
  }

 private:
  static void walk(const std::string& dir, const std::string& prefix,
                   std::vector<std::string>& names) {
    DIR* d = opendir(dir.c_str());
    if (!d) return;
    while (const dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n == "." || n == ".." || (prefix.empty() && n == "filler")) continue;
      struct stat st {};
      if (stat((dir + "/" + n).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        walk(dir + "/" + n, prefix + n + "/", names);
      } else {
        names.push_back(prefix + n);
      }
    }
    closedir(d);
  }

  std::string m_dir;
  std::string m_why;
  bool m_mounted = false;
};

}  // namespace bcastsim::test
