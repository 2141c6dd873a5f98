// `bcastsim list` (tb/list_command.h): tables of plain numbers, sources users can look up,
// and statistics that say how the summaries combine them over blocks.
#include "cli_runner.h"

#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>

using bcastsim::test::contains;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;

namespace {

// The line of `text` that contains `part`, empty if none does.
std::string line_with(const std::string& text, const std::string& part) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (contains(line, part)) return line;
  }
  return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(list_prints_plain_numbers_and_no_internal_references) {
  // Issue 13: ranges printed as 6.87195e+10, descriptions citing "FACTS §7".
  const outcome o = run_cli("list");
  BOOST_REQUIRE(o.code == 0);
  for (const char* bad : {"e+", "e-0", "FACTS", "\xc2\xa7"}) {
    BOOST_TEST(!contains(o.output, bad), "found '" << bad << "' in: " << line_with(o.output, bad));
  }
  // Every digit of a range: collective.bytes up to 64 GiB, rates from 0.000001 GiB/s.
  BOOST_TEST(contains(line_with(o.output, "collective.bytes "), "68719476736"));
  BOOST_TEST(contains(line_with(o.output, "link.global.bandwidth_gib_per_s"), "0.000001"));
  BOOST_TEST(contains(line_with(o.output, "sim.max_time_ns"), "10000000000"));
  // The sources named instead.
  BOOST_TEST(contains(line_with(o.output, "binomial, tree"), "bcast_intra_binomial.c"));
}

BOOST_AUTO_TEST_CASE(list_keys_are_a_table_with_a_header) {
  const outcome o = run_cli("list");
  BOOST_REQUIRE(o.code == 0);
  const std::string keys = o.output.substr(o.output.find("Scenario keys"));
  const std::string header = line_with(keys, "  key ");
  BOOST_TEST(contains(header, "default"));
  BOOST_TEST(contains(header, "allowed"));
  BOOST_TEST(contains(header, "description"));
  // Each column starts where its header does.
  const std::string row = line_with(keys, "  collective.bytes ");
  BOOST_TEST(row.find("16384") == header.find("default"), row << "\n" << header);
  BOOST_TEST(row.find("0 .. 68719476736") == header.find("allowed"), row << "\n" << header);
  BOOST_TEST(row.find("bytes broadcast") == header.find("description"), row << "\n" << header);
}

BOOST_AUTO_TEST_CASE(list_says_how_statistics_combine_over_blocks) {
  // Issue 13: the memory stall is summed over the units in the summary while `list`
  // described one unit's.
  const outcome o = run_cli("list");
  BOOST_REQUIRE(o.code == 0);
  BOOST_TEST(contains(o.output, "over blocks"));
  BOOST_TEST(contains(o.output, "sum = summed over the blocks"));
  const std::string stall = line_with(o.output, "memory_stall_ps");
  BOOST_TEST(contains(stall, " sum "), stall);
  BOOST_TEST(contains(line_with(o.output, "working_memory_peak_bytes"), " max "));
}
