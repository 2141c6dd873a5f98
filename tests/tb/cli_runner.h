// Test helper shared by the CLI tests: runs the real bcastsim binary and captures its exit
// code and output (stdout and stderr).
#pragma once

#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace bcastsim::test {

struct outcome {
  int code = -1;
  std::string output;  // stdout and stderr
};

inline outcome run_cli(const std::string& args) {
  outcome o;
  const std::string cmd = std::string(BCASTSIM_BINARY) + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  BOOST_REQUIRE(f != nullptr);
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) o.output.append(buf.data(), n);
  const int status = pclose(f);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

// A new empty directory under /tmp for one run's outputs.
inline std::string fresh_dir() {
  char tmpl[] = "/tmp/bcastsim_cli_XXXXXX";
  const char* d = mkdtemp(tmpl);
  BOOST_REQUIRE(d != nullptr);
  return d;
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace bcastsim::test
