// The files a study's points read (tb/sweep/inputs.h): an edited graph file runs its points
// again, from their directories and from results.csv alike; a relative topology.file is
// relative to the file naming it; a file that cannot be read stops the sweep before anything
// runs.
#include <boost/test/unit_test.hpp>

#include "sweep_runner.h"

#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

using namespace bcastsim::test;
namespace fs = std::filesystem;

namespace {

// Four routers of two terminals (network/GRAPH_FILES.md); `global_gib_per_s` slows the
// global links, so an edit changes every completion time.
std::string graph_text(const std::string& global_gib_per_s) {
  return "routers: 4\n"
         "terminals_per_router: 2\n"
         "classes:\n"
         "  - {name: local, bandwidth_gib_per_s: 5.25, latency_ns: 10, vc_buffer_bytes: 16384}\n"
         "  - {name: global, bandwidth_gib_per_s: " +
         global_gib_per_s +
         ", latency_ns: 100, vc_buffer_bytes: 16384, cost: 3}\n"
         "links:\n"
         "  - [0, 1, local]\n"
         "  - [2, 3, local]\n"
         "  - [1, 3, global]\n"
         "  - [0, 2, global]\n";
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A study in `dir` on sub/base.yaml, whose graph file sub/g.yaml it names by its absolute
// path (the resume cases do not depend on how a relative one resolves).
struct graph_study {
  std::string dir = fresh_dir();
  std::string study;
  std::string out = dir + "/out";
  explicit graph_study(const std::string& more = "") {
    fs::create_directories(dir + "/sub");
    write(dir + "/sub/g.yaml", graph_text("4.7"));
    write(dir + "/sub/base.yaml", "topology: {kind: graph, file: " + dir + "/sub/g.yaml}\n");
    study = write_study(dir,
                        "name: graph\nscenario: sub/base.yaml\n"
                        "cross: {collective.bytes: [1024, 4096]}\n" +
                            more);
  }
  outcome sweep() const { return run_cli("sweep " + study + " -j 2 --out " + out); }
  std::vector<std::string> completions() const {
    const auto csv = read_csv(out + "/results.csv");
    std::vector<std::string> c;
    for (size_t r = 1; r < csv.size(); ++r)
      c.push_back(csv[r][column(csv, "collective.completion_ns")]);
    return c;
  }
};

// A fresh sweep of the same study: what a resume must come to.
std::vector<std::string> fresh_completions(const graph_study& g) {
  const std::string fresh = g.dir + "/fresh";
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + g.study + " -j 2 -q --out " + fresh).code, 0);
  graph_study copy = g;
  copy.out = fresh;
  return copy.completions();
}

}  // namespace

// Defect 5 of issue 39: the base scenario was hashed, not the graph file it names.
BOOST_AUTO_TEST_CASE(an_edited_graph_file_runs_its_points_again_from_their_directories) {
  const graph_study g;
  const outcome first = g.sweep();
  BOOST_TEST_INFO(first.output);
  BOOST_REQUIRE_EQUAL(first.code, 0);
  const auto before = g.completions();
  const outcome same = g.sweep();
  BOOST_CHECK(contains(same.output, "2 points, 0 to run (2 finished earlier)"));

  write(g.dir + "/sub/g.yaml", graph_text("0.5"));
  const outcome edited = g.sweep();
  BOOST_TEST_INFO(edited.output);
  BOOST_CHECK_EQUAL(edited.code, 0);
  BOOST_CHECK(contains(edited.output, "2 points, 2 to run (0 finished earlier)"));
  const auto after = g.completions();
  BOOST_CHECK(after != before);
  BOOST_CHECK(after == fresh_completions(g));
}

BOOST_AUTO_TEST_CASE(an_edited_graph_file_runs_again_the_rows_of_results_csv) {
  const graph_study g;
  BOOST_REQUIRE_EQUAL(g.sweep().code, 0);
  const auto before = g.completions();
  fs::remove_all(g.out + "/points");
  const outcome same = g.sweep();
  BOOST_TEST_INFO(same.output);
  BOOST_CHECK(
      contains(same.output, "0 to run (2 finished earlier, 2 of them only in results.csv)"));

  fs::remove_all(g.out + "/points");
  write(g.dir + "/sub/g.yaml", graph_text("0.5"));
  const outcome edited = g.sweep();
  BOOST_TEST_INFO(edited.output);
  BOOST_CHECK_EQUAL(edited.code, 0);
  BOOST_CHECK(contains(edited.output, "2 points, 2 to run (0 finished earlier)"));
  BOOST_CHECK(contains(edited.output, "a file their point reads (topology.file) changed"));
  BOOST_CHECK(g.completions() != before);
  BOOST_CHECK(g.completions() == fresh_completions(g));

  // A study.json that does not say which files its points read (an older bcastsim's).
  fs::remove_all(g.out + "/points");
  auto j = read_json(g.out + "/study.json");
  for (auto& p : j["points"]) {
    BOOST_REQUIRE(p.contains("inputs_fnv1a"));
    p.erase("inputs_fnv1a");
  }
  write(g.out + "/study.json", j.dump(2));
  BOOST_CHECK(contains(g.sweep().output, "2 points, 2 to run (0 finished earlier)"));
}

// A varied graph file: only the points on the edited one run again, with or without points/.
BOOST_AUTO_TEST_CASE(a_varied_graph_file_reruns_only_its_own_points) {
  const std::string dir = fresh_dir();
  graph_study g("zip: [{topology.file: [" + dir + "/g.yaml, " + dir + "/h.yaml]}]\n");
  write(dir + "/g.yaml", graph_text("4.7"));
  write(dir + "/h.yaml", graph_text("4.7"));
  write(g.dir + "/sub/base.yaml", "topology: {kind: graph}\n");
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + g.study + " -j 2 -q --out " + g.out).code, 0);
  write(dir + "/h.yaml", graph_text("0.5"));
  const outcome dirs = g.sweep();
  BOOST_TEST_INFO(dirs.output);
  BOOST_CHECK(contains(dirs.output, "4 points, 2 to run (2 finished earlier)"));

  fs::remove_all(g.out + "/points");
  write(dir + "/g.yaml", graph_text("0.5"));
  const outcome rows = g.sweep();
  BOOST_TEST_INFO(rows.output);
  BOOST_CHECK(contains(rows.output, "4 points, 2 to run (2 finished earlier, 2 of them only"));
  BOOST_CHECK(g.completions() == fresh_completions(g));
}

// A relative topology.file in a scenario file is relative to that file's folder, wherever
// bcastsim runs; result.json records it resolved. With --set it is relative to the working
// directory.
BOOST_AUTO_TEST_CASE(topology_file_is_relative_to_the_scenario_file_naming_it) {
  const graph_study g;
  write(g.dir + "/sub/base.yaml", "topology: {kind: graph, file: g.yaml}\n");
  const std::string out = g.dir + "/run";
  const outcome o = run_cli("run " + g.dir + "/sub/base.yaml -q --out " + out);
  BOOST_TEST_INFO(o.output);
  BOOST_REQUIRE_EQUAL(o.code, 0);
  const auto result = read_json(out + "/result.json");
  BOOST_CHECK_EQUAL(result["config"]["topology"]["file"].get<std::string>(), g.dir + "/sub/g.yaml");
  const outcome sweep = g.sweep();  // the study's points read it too
  BOOST_TEST_INFO(sweep.output);
  BOOST_CHECK_EQUAL(sweep.code, 0);

  fs::current_path(g.dir);  // this case's own process (one per test case)
  const outcome set = run_cli("run --set topology.kind=graph --set topology.file=sub/g.yaml -q");
  BOOST_TEST_INFO(set.output);
  BOOST_CHECK_EQUAL(set.code, 0);
}

// Issue 39: a study with a relative graph file failed every point (exit 1); a study's own
// values are relative to the study file, and a file that cannot be read is refused before
// any point runs (exit 2, naming the key and the path).
BOOST_AUTO_TEST_CASE(a_study_reads_its_graph_files_before_any_point_runs) {
  const std::string dir = fresh_dir();
  fs::create_directories(dir + "/s");
  write(dir + "/s/g.yaml", graph_text("4.7"));
  const std::string study = dir + "/s/study.yaml";
  write(study,
        "name: rel\nset: {topology.kind: graph, topology.file: g.yaml}\n"
        "cross: {collective.bytes: [1024]}\n");
  const outcome ok = run_cli("sweep " + study + " -q --out " + dir + "/out");
  BOOST_TEST_INFO(ok.output);
  BOOST_CHECK_EQUAL(ok.code, 0);

  write(study,
        "name: rel\nset: {topology.kind: graph}\n"
        "cross: {topology.file: [g.yaml, missing.yaml]}\n");
  const outcome missing = run_cli("sweep " + study + " -q --out " + dir + "/missing");
  BOOST_TEST_INFO(missing.output);
  BOOST_CHECK_EQUAL(missing.code, 2);
  BOOST_CHECK(contains(missing.output, "topology.file"));
  BOOST_CHECK(contains(missing.output, "'" + dir + "/s/missing.yaml'"));
  BOOST_CHECK(contains(missing.output, "no such file"));
  BOOST_CHECK(!fs::exists(dir + "/missing"));

  // The base scenario's graph file is checked the same way; a folder is no file.
  fs::create_directories(dir + "/s/folder.yaml");
  write(dir + "/s/base.yaml", "topology: {kind: graph, file: folder.yaml}\n");
  write(study, "name: rel\nscenario: base.yaml\ncross: {collective.bytes: [1024]}\n");
  const outcome folder = run_cli("sweep " + study + " -q --out " + dir + "/folder");
  BOOST_TEST_INFO(folder.output);
  BOOST_CHECK_EQUAL(folder.code, 2);
  BOOST_CHECK(contains(folder.output, "topology.file: cannot read '" + dir + "/s/folder.yaml'"));
  BOOST_CHECK(contains(folder.output, "it is a directory"));
}

// A point running while its graph file is edited may have read either version: it is not
// recorded (exit 1, saying so), and the next run runs it on the file as it is then.
BOOST_AUTO_TEST_CASE(a_point_running_while_its_graph_file_changes_is_not_recorded) {
  const std::string dir = fresh_dir();
  write(dir + "/g.yaml", graph_text("4.7"));
  // One point of 128 MiB: a second or two, so the edit comes while it runs.
  const std::string study =
      write_study(dir, "name: slow\nset: {topology.kind: graph, topology.file: " + dir +
                           "/g.yaml, collective.bytes: 134217728}\n");
  const std::string out = dir + "/out";
  const pid_t pid = start_sweep(study, out, dir + "/sweep.log");
  BOOST_REQUIRE(pid >= 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(out + "/points/0000/point.json") &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  write(dir + "/g.yaml", graph_text("0.5"));
  int status = 0;
  waitpid(pid, &status, 0);
  const std::string log = read_file(dir + "/sweep.log");
  BOOST_TEST_INFO(log);
  BOOST_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  BOOST_CHECK(contains(log, "changed and are not recorded; run the same command again"));
  BOOST_CHECK(!fs::exists(out + "/points/0000/status.json"));

  fs::remove_all(out + "/points");  // its results.csv row alone must not pass for the new file
  const outcome again = run_cli("sweep " + study + " -q --out " + out);
  BOOST_TEST_INFO(again.output);
  BOOST_CHECK_EQUAL(again.code, 0);
  const outcome fresh = run_cli("sweep " + study + " -q --out " + dir + "/fresh");
  BOOST_CHECK_EQUAL(fresh.code, 0);
  BOOST_CHECK(read_file(out + "/results.csv") == read_file(dir + "/fresh/results.csv"));
}
