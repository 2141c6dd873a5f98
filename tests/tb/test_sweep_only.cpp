// `bcastsim sweep --only`: a subset of a study's points now, the rest later on the same
// seeds, and the keys and values it takes.
#include <boost/test/unit_test.hpp>

#include "sweep_runner.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>

using namespace bcastsim::test;
namespace fs = std::filesystem;

// --only runs a subset now (the cheap half of a long study first) and leaves the rest for a
// later run: the CSV keeps every finished point, and the rest run without it.
BOOST_AUTO_TEST_CASE(only_runs_the_points_it_chooses_and_a_later_run_the_rest) {
  const std::string dir = fresh_dir();
  const std::string study = write_study(dir, small_study);
  const std::string out = dir + "/out";
  const outcome some =
      run_cli("sweep " + study + " -j 2 --only collective.algorithm=forest --out " + out);
  BOOST_TEST_INFO(some.output);
  BOOST_REQUIRE_EQUAL(some.code, 0);
  BOOST_CHECK(
      contains(some.output, "4 points, 2 to run (0 finished earlier, 2 left out by --only)"));
  BOOST_CHECK(contains(some.output, "4 points, 2 ok, 0 failed, 2 not run"));
  auto csv = read_csv(out + "/results.csv");
  BOOST_REQUIRE_EQUAL(csv.size(), 5u);  // every point has its row
  const size_t status = column(csv, "status"), algorithm = column(csv, "collective.algorithm");
  for (size_t i = 1; i <= 4; ++i) {
    BOOST_CHECK_EQUAL(csv[i][status], csv[i][algorithm] == "forest" ? "ok" : "pending");
  }
  BOOST_CHECK(!fs::exists(out + "/points/0000"));  // binomial, 1 KiB: not run

  // Two keys must both match; a key's values are alternatives.
  const outcome two = run_cli("sweep " + study +
                              " -j 2 --only collective.algorithm=binomial,forest "
                              "--only collective.bytes=4096 --out " +
                              out);
  BOOST_TEST_INFO(two.output);
  BOOST_CHECK(
      contains(two.output, "4 points, 1 to run (2 finished earlier, 1 left out by --only)"));
  BOOST_CHECK(fs::exists(out + "/points/0001/result.json"));  // binomial, 4 KiB
  BOOST_CHECK(!fs::exists(out + "/points/0000"));

  const outcome rest = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_CHECK(contains(rest.output, "4 points, 1 to run (3 finished earlier)"));
  BOOST_CHECK_EQUAL(rest.code, 0);
  // The same CSV as one run of the whole study (the same seeds, so the same results).
  const std::string whole = dir + "/whole";
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + study + " -j 2 -q --out " + whole).code, 0);
  BOOST_CHECK(read_file(out + "/results.csv") == read_file(whole + "/results.csv"));

  const std::string listed =
      run_cli("sweep " + study + " --list --only collective.bytes=1024").output;
  BOOST_CHECK(contains(listed, "small: 4 points, 2 chosen by --only"));
  BOOST_CHECK(contains(listed, "points/0002"));
  BOOST_CHECK(!contains(listed, "points/0001"));
}

BOOST_AUTO_TEST_CASE(only_names_the_keys_and_values_it_allows) {
  const std::string dir = fresh_dir();
  const std::string study = write_study(dir, small_study);
  const struct {
    const char* arg;
    const char* says;
  } bad[] = {
      {"collective.size=1024",
       "--only: 'collective.size' is not a key the study varies; allowed: "
       "collective.algorithm, collective.bytes"},
      {"collective.bytes=2048",
       "--only collective.bytes: '2048' is not one of the study's values (as the study writes "
       "them); allowed: 1024, 4096"},
      {"collective.bytes", "--only: 'collective.bytes' is not KEY=VALUE[,VALUE...]"},
      {"=1024", "--only: '=1024' is not KEY=VALUE[,VALUE...]"},
  };
  for (const auto& b : bad) {
    const outcome o = run_cli("sweep " + study + " --only " + b.arg + " --out " + dir + "/out");
    BOOST_TEST_INFO(o.output);
    BOOST_CHECK_EQUAL(o.code, 2);
    BOOST_CHECK(contains(o.output, b.says));
  }
  BOOST_CHECK(!fs::exists(dir + "/out"));  // checked before anything is written

  // A value with a comma in it is chosen whole; a trailing comma is an empty value.
  const std::string ranks = write_study(dir,
                                        "cross:\n  collective.ranks: ['0-35', '0-15,40-55']\n"
                                        "  collective.bytes: [1024, 4096]\n");
  const outcome whole = run_cli("sweep " + ranks + " --list --only collective.ranks=0-15,40-55");
  BOOST_TEST_INFO(whole.output);
  BOOST_CHECK(contains(whole.output, "4 points, 2 chosen by --only"));
  const outcome half = run_cli("sweep " + ranks + " --list --only collective.ranks=0-15");
  BOOST_CHECK_EQUAL(half.code, 2);
  BOOST_CHECK(contains(half.output, "allowed: '0-35', '0-15,40-55'"));
  const outcome trailing = run_cli("sweep " + ranks + " --list --only collective.bytes=1024,");
  BOOST_CHECK_EQUAL(trailing.code, 2);
  BOOST_CHECK(contains(trailing.output, "--only collective.bytes: '' is not one of"));
  // Each key's values exist, but no zipped point has both.
  const std::string zipped = write_study(dir,
                                         "zip:\n  - collective.bytes: [1024, 4096]\n"
                                         "    collective.algorithm: [binomial, forest]\n");
  const outcome none = run_cli("sweep " + zipped +
                               " --only collective.bytes=1024 --only collective.algorithm=forest"
                               " --out " +
                               dir + "/out");
  BOOST_CHECK_EQUAL(none.code, 2);
  BOOST_CHECK(contains(none.output, "--only: no point of the study has all the values chosen"));
  BOOST_CHECK(!fs::exists(dir + "/out"));
}

// Two sweeps in one output directory at once would start each other's points again: while one
// holds the directory (here the test, as a running sweep does), another is refused.
BOOST_AUTO_TEST_CASE(a_second_sweep_in_the_same_directory_is_refused_while_one_runs) {
  const std::string dir = fresh_dir();
  const std::string study = write_study(dir, small_study);
  const std::string out = dir + "/out";
  fs::create_directories(out);
  const int fd = open(out.c_str(), O_RDONLY | O_DIRECTORY);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE(flock(fd, LOCK_EX | LOCK_NB) == 0);
  const outcome busy = run_cli("sweep " + study + " --only collective.bytes=1024 --out " + out);
  BOOST_TEST_INFO(busy.output);
  BOOST_CHECK_EQUAL(busy.code, 2);
  BOOST_CHECK(contains(busy.output, "another bcastsim sweep is running in it"));
  BOOST_CHECK(!fs::exists(out + "/results.csv"));
  close(fd);
  const outcome free = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(free.output);
  BOOST_CHECK_EQUAL(free.code, 0);
  BOOST_CHECK(contains(free.output, "4 points, 4 to run"));
}
