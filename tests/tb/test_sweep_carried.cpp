// A study resumes from its results.csv when the points' directories are gone (a checkout that
// keeps results.csv and study.json, not points/), and only when study.json shows the same
// study: tb/sweep/carried.h.
#include <boost/test/unit_test.hpp>

#include "sweep_runner.h"
#include "tb/sweep/carried.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

using namespace bcastsim::test;
namespace fs = std::filesystem;

namespace {

// The small study on a scenario file of its own, so a test can edit the file.
std::string write_study_on_scenario(const std::string& dir) {
  std::ofstream(dir + "/base.yaml") << "seed: 1\n";
  return write_study(dir, std::string(small_study) + "scenario: base.yaml\n");
}

// The small study run whole on its own scenario file, then its points/ removed: a checkout.
struct checkout {
  std::string dir = fresh_dir();
  std::string study = write_study_on_scenario(dir);
  std::string out = dir + "/out";
  std::string csv_before;
  checkout() {
    BOOST_REQUIRE_EQUAL(run_cli("sweep " + study + " -j 2 -q --out " + out).code, 0);
    csv_before = read_file(out + "/results.csv");
    fs::remove_all(out + "/points");
  }
};

size_t point_dirs(const std::string& out) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(out + "/points")) ++n;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(csv_fields_may_hold_commas_quotes_and_line_breaks) {
  const auto rows = bcastsim::tb::sweep::parse_csv("a,b,c\r\n1,\"x, \"\"y\"\"\nz\",\n\"\",2,3");
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  BOOST_CHECK(rows[0] == (std::vector<std::string>{"a", "b", "c"}));
  BOOST_CHECK(rows[1] == (std::vector<std::string>{"1", "x, \"y\"\nz", ""}));
  BOOST_CHECK(rows[2] == (std::vector<std::string>{"", "2", "3"}));
}

BOOST_FIXTURE_TEST_CASE(a_checkout_without_points_resumes_from_results_csv, checkout) {
  const std::string study_before = read_file(out + "/study.json");

  // Every row stands for its point: nothing runs, and the CSV is the same, byte for byte.
  const outcome o = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(o.output);
  BOOST_REQUIRE_EQUAL(o.code, 0);
  BOOST_CHECK(contains(o.output,
                       "4 points, 0 to run (4 finished earlier, 4 of them only in "
                       "results.csv)"));
  BOOST_CHECK_EQUAL(point_dirs(out), 0u);
  BOOST_CHECK(read_file(out + "/results.csv") == csv_before);
  BOOST_CHECK(read_file(out + "/study.json") == study_before);

  // A row that is not its point's (another seed) runs that point again, to the same row.
  auto csv = read_csv(out + "/results.csv");
  const size_t seed = column(csv, "seed");
  std::string edited = csv_before;
  const std::string row2 = "\n2,forest,1024," + csv[3][seed] + ",";
  BOOST_REQUIRE(contains(edited, row2));
  edited.replace(edited.find(row2), row2.size(), "\n2,forest,1024,17,");
  std::ofstream(out + "/results.csv") << edited;
  const outcome again = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(again.output);
  BOOST_CHECK(contains(again.output, "4 points, 1 to run (3 finished earlier, 3 of them only"));
  BOOST_CHECK_EQUAL(point_dirs(out), 1u);
  BOOST_CHECK(read_file(out + "/results.csv") == csv_before);
}

BOOST_FIXTURE_TEST_CASE(rows_of_another_scenario_or_an_older_study_json_run_again, checkout) {
  // The base scenario edited (a comment: same results, another file) runs every point again.
  std::ofstream(dir + "/base.yaml") << "seed: 1  # edited\n";
  const outcome edited = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(edited.output);
  BOOST_CHECK(contains(edited.output, "4 points, 4 to run (0 finished earlier)"));
  BOOST_CHECK(contains(edited.output,
                       "are not taken as finished: study.json's scenario_fnv1a is "
                       "another (the base scenario's file changed)"));
  BOOST_CHECK(read_file(out + "/results.csv") == csv_before);

  // A study.json without the scenario's hash (an older bcastsim's) is not trusted.
  fs::remove_all(out + "/points");
  auto j = read_json(out + "/study.json");
  BOOST_REQUIRE(j.contains("scenario_fnv1a"));
  j.erase("scenario_fnv1a");
  std::ofstream(out + "/study.json") << j.dump(2);
  const outcome older = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_CHECK(contains(older.output, "4 points, 4 to run (0 finished earlier)"));

  // Nor is one whose values have other types, and it is no error.
  fs::remove_all(out + "/points");
  j = read_json(out + "/study.json");
  j["replicates"] = "1";
  std::ofstream(out + "/study.json") << j.dump(2);
  const outcome typed = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(typed.output);
  BOOST_CHECK_EQUAL(typed.code, 0);
  BOOST_CHECK(contains(typed.output, "4 points, 4 to run (0 finished earlier)"));
}

BOOST_FIXTURE_TEST_CASE(a_failed_row_stays_failed_until_retried, checkout) {
  // Row 1 recorded as a failure, its cells emptied as a failed point's are.
  auto csv = read_csv(out + "/results.csv");
  std::string failed = "1";
  for (size_t c = 1; c < column(csv, "status"); ++c) failed += "," + csv[2][c];
  failed += ",failed,1";
  for (size_t c = column(csv, "exit_code") + 1; c + 1 < csv[0].size(); ++c) failed += ",";
  failed += ",\"bcastsim: stalled, as recorded\"";
  std::string text = csv_before;
  const size_t at = text.find("\n1,") + 1;
  text.replace(at, text.find('\n', at) - at, failed);
  std::ofstream(out + "/results.csv") << text;

  const outcome kept = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(kept.output);
  BOOST_CHECK_EQUAL(kept.code, 1);
  BOOST_CHECK(contains(kept.output, "0 to run (4 finished earlier, 4 of them only"));
  BOOST_CHECK(contains(kept.output, "bcastsim: stalled, as recorded"));
  BOOST_CHECK(read_file(out + "/results.csv") == text);

  const outcome retried = run_cli("sweep " + study + " -j 2 --retry-failed --out " + out);
  BOOST_TEST_INFO(retried.output);
  BOOST_CHECK_EQUAL(retried.code, 0);
  BOOST_CHECK(contains(retried.output, "1 to run (3 finished earlier, 3 of them only"));
  BOOST_CHECK(read_file(out + "/results.csv") == csv_before);
}

// A sweep killed just after it started on an edited scenario (study.json already has the new
// hash) must not leave the old scenario's rows to be read back as the new one's.
BOOST_AUTO_TEST_CASE(a_sweep_killed_at_its_start_leaves_no_row_of_the_old_scenario) {
  const std::string dir = fresh_dir();
  // Slow points (1 MiB through 512-byte buffers), so the kill comes before any finishes.
  const std::string study =
      write_study(dir, "scenario: base.yaml\n" + slow_set() +
                           "cross: {collective.algorithm: [binomial, forest]}\n");
  const std::string out = dir + "/out";
  std::ofstream(dir + "/base.yaml") << "routing: {kind: minimal}\n";
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + study + " -j 2 -q --out " + out).code, 0);
  const std::string csv_minimal = read_file(out + "/results.csv");
  const std::string old_hash = read_json(out + "/study.json")["scenario_fnv1a"];
  fs::remove_all(out + "/points");

  std::ofstream(dir + "/base.yaml") << "routing: {kind: nonminimal}\n";
  const pid_t pid = start_sweep(study, out, dir + "/sweep.log");
  BOOST_REQUIRE(pid >= 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    const auto j = nlohmann::json::parse(read_file(out + "/study.json"), nullptr, false);
    if (j.is_object() && j.value("scenario_fnv1a", old_hash) != old_hash) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  BOOST_REQUIRE(WIFSIGNALED(status));
  fs::remove_all(out + "/points");

  const outcome resumed = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(resumed.output);
  BOOST_CHECK(contains(resumed.output, "2 points, 2 to run (0 finished earlier)"));
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + study + " -j 2 -q --out " + dir + "/fresh").code, 0);
  const std::string csv_nonminimal = read_file(dir + "/fresh/results.csv");
  BOOST_CHECK(csv_nonminimal != csv_minimal);
  BOOST_CHECK(read_file(out + "/results.csv") == csv_nonminimal);
}

BOOST_FIXTURE_TEST_CASE(a_column_added_to_the_study_runs_every_point_again, checkout) {
  write_study(dir, std::string(small_study) + "scenario: base.yaml\ncolumns: [collective.root]\n");
  const outcome o = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(o.output);
  BOOST_CHECK(contains(o.output, "4 points, 4 to run (0 finished earlier)"));
  BOOST_CHECK(contains(o.output, "it has no column collective.root"));
  const auto csv = read_csv(out + "/results.csv");
  BOOST_CHECK_EQUAL(csv[1][column(csv, "collective.root")], "0");
}

// A cell no result could hold (not UTF-8) makes its row run again; one nested past any list's
// depth is kept as text (reading it as JSON would recurse as deep), and neither crashes.
BOOST_FIXTURE_TEST_CASE(hostile_cells_neither_crash_nor_pass_as_results, checkout) {
  auto csv = read_csv(out + "/results.csv");
  const size_t hops = column(csv, "packets.hops_avg");
  std::string text = csv_before;
  const std::string cell1 = "," + csv[2][hops] + ",";
  const size_t at1 = text.find(cell1, text.find("\n1,"));
  text.replace(at1, cell1.size(), ",\xff" + csv[2][hops] + ",");
  const std::string nested = std::string(100000, '[') + std::string(100000, ']');
  const std::string cell2 = "," + csv[3][hops] + ",";
  const size_t at2 = text.find(cell2, text.find("\n2,"));
  text.replace(at2, cell2.size(), "," + nested + ",");
  std::ofstream(out + "/results.csv") << text;
  const outcome o = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(o.output);
  BOOST_CHECK_EQUAL(o.code, 0);
  BOOST_CHECK(contains(o.output, "4 points, 1 to run (3 finished earlier, 3 of them only"));
  const auto after = read_csv(out + "/results.csv");
  BOOST_CHECK_EQUAL(after[2][hops], csv[2][hops]);  // run again
  BOOST_CHECK(after[3][hops] == nested);
}

// A family's section whose columns are all empty still adds them: the CSV stays the same.
BOOST_AUTO_TEST_CASE(sections_with_only_empty_cells_keep_their_columns) {
  const std::string dir = fresh_dir();
  const std::string study =
      write_study(dir, "command: analyze\ncross: {collective.algorithm: [binomial, nic-cb]}\n");
  const std::string out = dir + "/out";
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + study + " -j 2 -q --out " + out).code, 0);
  const std::string csv_before = read_file(out + "/results.csv");
  BOOST_REQUIRE(contains(csv_before, "lanai."));
  fs::remove_all(out + "/points");
  const outcome o = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(o.output);
  BOOST_CHECK(contains(o.output, "2 points, 0 to run (2 finished earlier, 2 of them only"));
  BOOST_CHECK(read_file(out + "/results.csv") == csv_before);
}
