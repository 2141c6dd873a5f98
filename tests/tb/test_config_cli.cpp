// Scenario and study keys through the CLI (issue 13): memory estimated before allocating
// (reproduction 6), study integer keys and scenario paths (reproductions 8 and 11), byte
// sizes with binary suffixes, and warnings for keys a scenario does not read.
#include "tests/tb/cli_runner.h"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <string>

using bcastsim::test::contains;
using bcastsim::test::fresh_dir;
using bcastsim::test::run_cli;

namespace {

const std::string huge_dragonfly = " --set topology.a=64 --set topology.h=64 --set topology.p=64";

std::string write_study(const std::string& text) {
  const std::string path = fresh_dir() + "/study.yaml";
  std::ofstream(path) << text;
  return path;
}

}  // namespace

// Reproduction 11: seed -1 became 18446744073709551615; 1e300 and 1.5 were accepted.
BOOST_AUTO_TEST_CASE(study_seed_must_be_an_integer_in_range) {
  for (const char* bad : {"-1", "1e300", "1.5"}) {
    const auto o = run_cli("sweep --list " + write_study(std::string("seed: ") + bad + "\n"));
    BOOST_TEST(o.code == 2, bad << ": " << o.output);
    BOOST_TEST(contains(o.output, "seed: '" + std::string(bad) +
                                      "' is not valid; allowed: an integer in [0, "
                                      "18446744073709551615]"),
               o.output);
  }
  BOOST_TEST(run_cli("sweep --list " + write_study("seed: 18446744073709551615\n")).code == 0);
}

// Reproduction 8: `scenario: .` and `scenario: [a]` ran the built-in default.
BOOST_AUTO_TEST_CASE(study_scenario_must_be_one_regular_file) {
  auto o = run_cli("sweep --list " + write_study("scenario: .\n"));
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "scenario: cannot read scenario file"), o.output);
  BOOST_TEST(contains(o.output, "it is a directory; allowed: a regular file"), o.output);
  o = run_cli("sweep --list " + write_study("scenario: [a]\n"));
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "scenario: expected a single value"), o.output);
}
