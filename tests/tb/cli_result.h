// A run of the real binary whose JSON result a test reads: `bcastsim COMMAND -q --out DIR
// ARGS` in a fresh directory, then DIR/FILE parsed when it exited 0.
#pragma once

#include "cli_runner.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace bcastsim::test {

struct run_result {
  outcome out;
  nlohmann::json result;  // null unless the run exited 0
};

inline run_result run_for_json(const std::string& command, const std::string& args,
                               const std::string& file = "result.json") {
  const std::string dir = fresh_dir();
  run_result r;
  r.out = run_cli(command + " -q --out " + dir + " " + args);
  if (r.out.code == 0) {
    std::ifstream in(dir + "/" + file);
    BOOST_REQUIRE_MESSAGE(in.good(), "no " << file << " in " << dir << ": " << r.out.output);
    r.result = nlohmann::json::parse(in);
  }
  return r;
}

// " --set A --set B ...".
inline std::string set_args(const std::vector<std::string>& sets) {
  std::string a;
  for (const std::string& s : sets) a += " --set " + s;
  return a;
}

}  // namespace bcastsim::test
