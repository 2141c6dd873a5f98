// Test helpers shared by the sweep CLI tests: study files, CSV and JSON readers, a sweep in
// the background.
#pragma once

#include "cli_runner.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace bcastsim::test {

// Four points of the 72-terminal default scenario, a second each.
inline const char* small_study =
    "name: small\n"
    "seed: 5\n"
    "set: {job.placement: random}\n"
    "cross:\n"
    "  collective.algorithm: [binomial, forest]\n"
    "  collective.bytes: [1024, 4096]\n";

// A study's `set:` line that makes each point of the default scenario slow (1 MiB through
// 512-byte buffers: seconds a point), for the tests that stop a sweep before it ends; `more`
// adds entries, each after ", ".
inline std::string slow_set(const std::string& more = "") {
  return "set: {collective.bytes: 1048576, router.vc_buffer_bytes.terminal: 512,"
         " router.vc_buffer_bytes.local: 512, router.vc_buffer_bytes.global: 512" +
         more + "}\n";
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string write_study(const std::string& dir, const std::string& text) {
  const std::string path = dir + "/study.yaml";
  std::ofstream(path) << text;
  return path;
}

inline nlohmann::json read_json(const std::string& path) {
  return nlohmann::json::parse(read_file(path));
}

// The CSV as rows of fields (no field of these tests holds a comma or a quote, except
// `error`, which is last and read whole).
inline std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(read_file(path));
  std::string line;
  size_t columns = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> row;
    size_t at = 0;
    for (;;) {
      if (columns && row.size() + 1 == columns) {  // the last field: error, maybe quoted
        row.push_back(line.substr(at));
        break;
      }
      const size_t comma = line.find(',', at);
      row.push_back(line.substr(at, comma - at));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    if (!columns) columns = row.size();
    rows.push_back(std::move(row));
  }
  return rows;
}

inline size_t column(const std::vector<std::vector<std::string>>& csv, const std::string& name) {
  for (size_t i = 0; i < csv.at(0).size(); ++i) {
    if (csv[0][i] == name) return i;
  }
  BOOST_FAIL("no column " << name);
  return 0;
}

// `bcastsim sweep STUDY -j 1 --out OUT` started in the background, its output to `log`; in a
// process group of its own, so kill(-pid) stops its points too.
inline pid_t start_sweep(const std::string& study, const std::string& out, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    std::freopen(log.c_str(), "w", stdout);
    std::freopen(log.c_str(), "a", stderr);
    execl(BCASTSIM_BINARY, BCASTSIM_BINARY, "sweep", study.c_str(), "-j", "1", "--out", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

}  // namespace bcastsim::test
