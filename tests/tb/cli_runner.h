// Test helper shared by the CLI tests: runs the real bcastsim binary and captures its exit
// code and output (stdout and stderr).
#pragma once

#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace bcastsim::test {

struct outcome {
  int code = -1;
  std::string output;  // stdout and stderr
};

// `timeout_s` > 0: a run that outlives it is killed (timeout(1)) and seen as exit 124, so a
// hang fails the test rather than stalling it.
inline outcome run_cli(const std::string& args, unsigned timeout_s = 0) {
  outcome o;
  const std::string limit =
      timeout_s > 0 ? "timeout -k 5 " + std::to_string(timeout_s) + " " : std::string();
  const std::string cmd = limit + std::string(BCASTSIM_BINARY) + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  BOOST_REQUIRE(f != nullptr);
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) o.output.append(buf.data(), n);
  const int status = pclose(f);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

// The directories fresh_dir made; removed when the test process exits (thousands of test runs
// filled /tmp), unless BCASTSIM_KEEP_TEST_DIRS is set, to look at a failure's outputs.
class made_dirs {
 public:
  static made_dirs& instance() {
    static made_dirs dirs;
    return dirs;
  }
  void add(const std::string& dir) { m_dirs.push_back(dir); }
  ~made_dirs() {
    if (std::getenv("BCASTSIM_KEEP_TEST_DIRS") != nullptr) return;
    for (const auto& d : m_dirs) {
      std::error_code ec;  // best effort: never throw from a destructor at exit
      std::filesystem::remove_all(d, ec);
    }
  }

 private:
  made_dirs() = default;
  std::vector<std::string> m_dirs;
};

// A new empty directory under /tmp for one run's outputs, removed at exit (see made_dirs).
inline std::string fresh_dir() {
  char tmpl[] = "/tmp/bcastsim_cli_XXXXXX";
  const char* d = mkdtemp(tmpl);
  BOOST_REQUIRE(d != nullptr);
  made_dirs::instance().add(d);
  return d;
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace bcastsim::test
