// Golden results: a run (or analyze) of a representative scenario compared with its committed
// reference, tests/golden/NAME.json, apart from `perf` (wall time). Any difference fails and
// names the first differing JSON paths. A refactor changes none of them; an intended change
// of results regenerates them in its own commit:
//   BCASTSIM_UPDATE_GOLDEN=1 ctest --preset release -L golden
#pragma once

#include "cli_runner.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace bcastsim::test {

inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  BOOST_REQUIRE_MESSAGE(in, "cannot read " + path);
  return nlohmann::json::parse(in);
}

// Runs `bcastsim COMMAND ARGS --out DIR -q` and compares its result without `perf`.
inline void check_golden(const std::string& name, const std::string& command,
                         const std::string& args) {
  const std::string dir = fresh_dir();
  const outcome o = run_cli(command + " " + args + " --out " + dir + " -q");
  BOOST_REQUIRE_MESSAGE(o.code == 0, "bcastsim " + command + " " + args + " exited " +
                                         std::to_string(o.code) + ":\n" + o.output);
  nlohmann::json got =
      read_json_file(dir + (command == "analyze" ? "/analyze.json" : "/result.json"));
  got.erase("perf");
  const std::string ref = std::string(BCASTSIM_SOURCE_DIR) + "/tests/golden/" + name + ".json";
  const char* update = std::getenv("BCASTSIM_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream out(ref);
    out << got.dump(1) << "\n";
    BOOST_REQUIRE_MESSAGE(out.good(), "cannot write " + ref);
    BOOST_TEST_MESSAGE("updated " + ref);
    return;
  }
  const nlohmann::json want = read_json_file(ref);
  if (got == want) return;
  std::ostringstream os;
  os << name << " differs from " << ref << " (bcastsim " << command << " " << args << "):";
  int shown = 0;
  for (const nlohmann::json& d : nlohmann::json::diff(want, got)) {
    if (++shown > 12) {
      os << "\n  ...";
      break;
    }
    os << "\n  " << d["op"].get<std::string>() << " " << d["path"].get<std::string>();
    if (d.contains("value")) os << ": got " << d["value"].dump();
    const nlohmann::json::json_pointer p(d["path"].get<std::string>());
    if (want.contains(p)) os << ", reference " << want[p].dump();
  }
  BOOST_ERROR(os.str());
}

}  // namespace bcastsim::test
