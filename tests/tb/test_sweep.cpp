// `bcastsim sweep` end to end with the real binary: the CSV and the points' files, resume,
// a failing point, an interrupt, determinism over -j, bad studies, and the example study's
// plots.
#include <boost/test/unit_test.hpp>

#include "sweep_runner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

using namespace bcastsim::test;
namespace fs = std::filesystem;

namespace {

// A valid PNG: the signature, an IHDR with a size, and an IEND chunk at the end.
void check_png(const std::string& path) {
  BOOST_TEST_INFO(path);
  const std::string png = read_file(path);
  BOOST_REQUIRE_GT(png.size(), 8u + 25u + 12u);
  BOOST_CHECK_EQUAL(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  BOOST_CHECK_EQUAL(png.substr(12, 4), "IHDR");
  auto be32 = [&](size_t at) {
    return (uint32_t(uint8_t(png[at])) << 24) | (uint32_t(uint8_t(png[at + 1])) << 16) |
           (uint32_t(uint8_t(png[at + 2])) << 8) | uint32_t(uint8_t(png[at + 3]));
  };
  BOOST_CHECK_GT(be32(16), 100u);  // width
  BOOST_CHECK_GT(be32(20), 100u);  // height
  BOOST_CHECK_EQUAL(png.substr(png.size() - 8, 4), "IEND");
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_point_gets_a_row_its_files_and_the_result_of_a_direct_run) {
  const std::string dir = fresh_dir();
  const std::string study = write_study(dir, small_study);
  const outcome o = run_cli("sweep " + study + " -j 2 --out " + dir + "/out");
  BOOST_TEST_INFO(o.output);
  BOOST_REQUIRE_EQUAL(o.code, 0);
  BOOST_CHECK(contains(o.output, "small: 4 points, 4 ok, 0 failed"));

  const auto csv = read_csv(dir + "/out/results.csv");
  BOOST_REQUIRE_EQUAL(csv.size(), 5u);
  const size_t algo = column(csv, "collective.algorithm"), bytes = column(csv, "collective.bytes");
  const size_t seed = column(csv, "seed"), status = column(csv, "status");
  const size_t completion = column(csv, "collective.completion_ns");
  BOOST_CHECK_EQUAL(algo, 1u);
  BOOST_CHECK_EQUAL(bytes, 2u);
  const auto study_json = read_json(dir + "/out/study.json");
  BOOST_CHECK_EQUAL(study_json["schema"], "bcastsim.sweep/1");
  BOOST_REQUIRE_EQUAL(study_json["points"].size(), 4u);
  for (size_t i = 1; i <= 4; ++i) {
    const auto& row = csv[i];
    BOOST_CHECK_EQUAL(row[0], std::to_string(i - 1));
    BOOST_CHECK_EQUAL(row[algo], i <= 2 ? "binomial" : "forest");
    BOOST_CHECK_EQUAL(row[bytes], i % 2 ? "1024" : "4096");
    BOOST_CHECK_EQUAL(row[status], "ok");
    const std::string pdir = dir + "/out/points/000" + std::to_string(i - 1);
    const auto point = read_json(pdir + "/point.json");
    BOOST_CHECK_EQUAL(std::to_string(point["seed"].get<uint64_t>()), row[seed]);
    const auto result = read_json(pdir + "/result.json");
    BOOST_CHECK_EQUAL(result["config"]["collective"]["algorithm"], row[algo]);
    BOOST_CHECK_EQUAL(result["seed"].dump(), row[seed]);
    BOOST_CHECK_EQUAL(result["collective"]["completion_ns"].dump(), row[completion]);
    BOOST_CHECK_EQUAL(read_json(pdir + "/status.json")["status"], "ok");
    BOOST_CHECK_EQUAL(study_json["points"][i - 1]["values"]["collective.algorithm"], row[algo]);
  }
  // A point is the plain run with its settings and seed: same completion time.
  const std::string direct = dir + "/direct";
  const outcome d = run_cli(
      "run --set job.placement=random --set collective.algorithm=forest "
      "--set collective.bytes=4096 --seed " +
      csv[4][seed] + " -q --out " + direct);
  BOOST_REQUIRE_EQUAL(d.code, 0);
  BOOST_CHECK_EQUAL(read_json(direct + "/result.json")["collective"]["completion_ns"].dump(),
                    csv[4][completion]);
  // Common random numbers: one replicate, so every point has the same seed (placement).
  for (size_t i = 2; i <= 4; ++i) BOOST_CHECK_EQUAL(csv[i][seed], csv[1][seed]);
}

// Issue 14: one collective's results as a column, by the list index in the path; the list's
// entry keys vary like any key.
BOOST_AUTO_TEST_CASE(columns_index_lists_and_collectives_entries_vary) {
  const std::string dir = fresh_dir();
  const std::string study = write_study(
      dir,
      "name: entries\n"
      "set: {collectives.0.algorithm: binomial, collectives.1.algorithm: forest, "
      "collectives.1.after: 0}\n"
      "cross:\n  collectives.1.bytes: [1024, 8192]\n"
      "columns: [collectives.1.completion_ns, collectives.1.bytes, collectives.7.bytes]\n");
  const outcome o = run_cli("sweep " + study + " -j 2 -q --out " + dir + "/out");
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  const auto csv = read_csv(dir + "/out/results.csv");
  BOOST_REQUIRE_EQUAL(csv.size(), 3u);
  const size_t done = column(csv, "collectives.1.completion_ns");
  const size_t bytes = column(csv, "collectives.1.bytes");
  for (size_t i = 1; i <= 2; ++i) {
    const auto r = read_json(dir + "/out/points/000" + std::to_string(i - 1) + "/result.json");
    BOOST_CHECK_EQUAL(csv[i][done], r["collectives"][1]["completion_ns"].dump());
    BOOST_CHECK_EQUAL(csv[i][bytes], i == 1 ? "1024" : "8192");
    BOOST_CHECK_EQUAL(csv[i][column(csv, "collectives.7.bytes")], "");  // no such entry
  }
}

BOOST_AUTO_TEST_CASE(a_varied_seed_is_the_seed_column_once) {
  // A study that varies seed itself runs each point with that seed, and results.csv names it
  // once: the seed column holds the value.
  const std::string dir = fresh_dir();
  const std::string study =
      write_study(dir, "name: seeds\nset: {job.placement: random}\ncross:\n  seed: [3, 4]\n");
  const outcome o = run_cli("sweep " + study + " -j 2 -q --out " + dir + "/out");
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  const auto csv = read_csv(dir + "/out/results.csv");
  BOOST_REQUIRE_EQUAL(csv.size(), 3u);
  BOOST_CHECK_EQUAL(std::count(csv[0].begin(), csv[0].end(), std::string("seed")), 1);
  BOOST_CHECK_EQUAL(csv[1][column(csv, "seed")], "3");
  BOOST_CHECK_EQUAL(csv[2][column(csv, "seed")], "4");
  BOOST_CHECK_EQUAL(csv[0].size(), csv[1].size());
  BOOST_CHECK_EQUAL(read_json(dir + "/out/points/0001/result.json")["seed"], 4);
}

// Issue 18: points that differ only in non-random choices share their random draws per
// replicate (paired comparisons); `random_draws: per_point` gives each point its own.
BOOST_AUTO_TEST_CASE(paired_points_share_allocation_and_root_per_replicate) {
  const std::string dir = fresh_dir();
  // ragasa.rx_queue_packets does not touch a binomial run: with the same draws its two
  // binomial points are the same run. The allocation itself is compared by its digest.
  const std::string body =
      "seed: 3\n"
      "replicates: 2\n"
      "set: {job.placement: random, job.ranks: 24, collective.random_root: on, "
      "collective.bytes: 2048}\n"
      "cross:\n"
      "  collective.algorithm: [binomial, forest]\n"
      "  ragasa.rx_queue_packets: [4, 8]\n";
  const auto run = [&](const std::string& name, const std::string& extra) {
    const std::string study = write_study(dir, "name: " + name + "\n" + extra + body);
    const outcome o = run_cli("sweep " + study + " -j 2 -q --out " + dir + "/" + name);
    BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
    return read_csv(dir + "/" + name + "/results.csv");
  };
  const auto result_of = [&](const std::string& name, const std::string& point) {
    return read_json(dir + "/" + name + "/points/" + point + "/result.json");
  };
  const auto allocation = [](const nlohmann::json& r) {
    return r.at("job").at("terminals_fnv1a").get<std::string>();
  };
  const auto csv = run("paired", "");
  BOOST_REQUIRE_EQUAL(csv.size(), 9u);  // 2 x 2 x 2 replicates, replicates innermost
  const size_t seed = column(csv, "seed"), rep = column(csv, "replicate");
  const size_t completion = column(csv, "collective.completion_ns");
  for (size_t i = 1; i <= 8; ++i) {
    const size_t first = 1 + (i - 1) % 2;  // the first point of i's replicate
    BOOST_CHECK_EQUAL(csv[i][rep], csv[first][rep]);
    BOOST_CHECK_EQUAL(csv[i][seed], csv[first][seed]);
    char p[8], q[8];
    std::snprintf(p, sizeof p, "%04zu", i - 1);
    std::snprintf(q, sizeof q, "%04zu", first - 1);
    const nlohmann::json mine = result_of("paired", p), first_of_rep = result_of("paired", q);
    BOOST_CHECK_EQUAL(mine.at("collectives").at(0).at("root"),
                      first_of_rep.at("collectives").at(0).at("root"));
    // The same terminals in the same rank order, binomial and forest alike.
    BOOST_CHECK_EQUAL(allocation(mine), allocation(first_of_rep));
  }
  BOOST_CHECK_NE(allocation(result_of("paired", "0000")),
                 allocation(result_of("paired", "0001")));  // another replicate, another allocation
  BOOST_CHECK_NE(csv[1][seed], csv[2][seed]);               // replicates draw anew
  BOOST_CHECK_EQUAL(csv[1][completion], csv[3][completion]);  // binomial, rx 4 and 8, rep 0
  BOOST_CHECK_EQUAL(csv[2][completion], csv[4][completion]);  // the same, rep 1
  BOOST_CHECK_NE(csv[1][completion], csv[2][completion]);     // another placement and root
  const auto own = run("own", "random_draws: per_point\n");
  BOOST_CHECK_NE(own[1][seed], own[3][seed]);
  BOOST_CHECK_NE(allocation(result_of("own", "0000")),   // binomial, replicate 0
                 allocation(result_of("own", "0004")));  // forest, replicate 0
}

BOOST_AUTO_TEST_CASE(the_same_study_gives_the_same_csv_with_j1_and_j2) {
  const std::string dir = fresh_dir();
  const std::string study = write_study(dir, small_study);
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + study + " -j 1 -q --out " + dir + "/a").code, 0);
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + study + " -j 2 -q --out " + dir + "/b").code, 0);
  BOOST_CHECK(read_file(dir + "/a/results.csv") == read_file(dir + "/b/results.csv"));
  BOOST_CHECK_GT(read_file(dir + "/a/results.csv").size(), 500u);
}

BOOST_AUTO_TEST_CASE(resume_skips_finished_points) {
  const std::string dir = fresh_dir();
  const std::string study = write_study(dir, small_study);
  const std::string out = dir + "/out";
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + study + " -j 2 -q --out " + out).code, 0);
  const std::string csv_before = read_file(out + "/results.csv");
  // Mark a finished point's result: a re-run would overwrite it.
  auto marked = read_json(out + "/points/0000/result.json");
  marked["marker"] = "kept";
  std::ofstream(out + "/points/0000/result.json") << marked.dump(2);
  // Point 2 was interrupted before it finished: no status.json.
  fs::remove(out + "/points/0002/status.json");
  fs::remove(out + "/points/0002/result.json");

  const outcome o = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(o.output);
  BOOST_REQUIRE_EQUAL(o.code, 0);
  BOOST_CHECK(contains(o.output, "4 points, 1 to run (3 finished earlier)"));
  BOOST_CHECK(contains(o.output, "(1 run now in "));
  BOOST_CHECK_EQUAL(read_json(out + "/points/0000/result.json")["marker"], "kept");
  BOOST_CHECK(fs::exists(out + "/points/0002/result.json"));
  BOOST_CHECK(read_file(out + "/results.csv") == csv_before);

  // Finished: nothing to run.
  const outcome again = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_CHECK(contains(again.output, "4 points, 0 to run (4 finished earlier)"));
  // A point whose definition changed (here: its point.json) runs again.
  auto changed = read_json(out + "/points/0001/point.json");
  changed["seed"] = 1;
  std::ofstream(out + "/points/0001/point.json") << changed.dump(2);
  const outcome rerun = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_CHECK(contains(rerun.output, "4 points, 1 to run (3 finished earlier)"));
  BOOST_CHECK(read_file(out + "/results.csv") == csv_before);
}

// Reproduction 15: status.json said ok, but the result was truncated (or emptied, or is not a
// result at all); the resume ran nothing and reported the point ok with empty columns.
BOOST_AUTO_TEST_CASE(resume_runs_again_a_point_whose_result_is_missing_or_invalid) {
  const std::string dir = fresh_dir();
  const std::string study = write_study(dir, small_study);
  const std::string out = dir + "/out";
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + study + " -j 2 -q --out " + out).code, 0);
  const std::string csv_before = read_file(out + "/results.csv");
  const std::string whole = read_file(out + "/points/0001/result.json");
  auto without_perf = [](nlohmann::json j) {  // wall time differs from run to run
    j.erase("perf");
    return j;
  };
  std::ofstream(out + "/points/0001/result.json") << whole.substr(0, whole.size() / 2);
  std::ofstream(out + "/points/0002/result.json") << "";
  std::ofstream(out + "/points/0003/result.json") << "{\"marker\": 1}\n";

  const outcome o = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(o.output);
  BOOST_REQUIRE_EQUAL(o.code, 0);
  BOOST_CHECK(contains(o.output, "4 points, 3 to run (1 finished earlier)"));
  BOOST_CHECK_EQUAL(without_perf(read_json(out + "/points/0001/result.json")),
                    without_perf(nlohmann::json::parse(whole)));
  BOOST_CHECK(!read_json(out + "/points/0003/result.json").contains("marker"));
  BOOST_CHECK(read_file(out + "/results.csv") == csv_before);
}

BOOST_AUTO_TEST_CASE(a_value_added_to_the_study_runs_only_the_new_points) {
  const std::string dir = fresh_dir();
  const std::string out = dir + "/out";
  const std::string study = write_study(dir, small_study);
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + study + " -j 2 -q --out " + out).code, 0);
  const auto before = read_csv(out + "/results.csv");
  // A size between the others: every forest point and binomial's 4096 move to a new index.
  std::string grown = small_study;
  grown.replace(grown.find("[1024, 4096]"), 12, "[1024, 2048, 4096]");
  write_study(dir, grown);
  const outcome o = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(o.output);
  BOOST_REQUIRE_EQUAL(o.code, 0);
  BOOST_CHECK(contains(
      o.output, "6 points, 2 to run (4 finished earlier, 3 of them moved to their new index)"));
  BOOST_CHECK(contains(o.output, "(2 run now in "));
  const auto after = read_csv(out + "/results.csv");
  BOOST_REQUIRE_EQUAL(after.size(), 7u);
  // The moved rows are the old rows, apart from the point index.
  for (const auto& [old_row, new_row] : {std::pair{1, 1}, {2, 3}, {3, 4}, {4, 6}}) {
    auto a = before[old_row], b = after[new_row];
    BOOST_CHECK_EQUAL(b[0], std::to_string(new_row - 1));
    a[0] = b[0];
    BOOST_CHECK(a == b);
  }
}

BOOST_AUTO_TEST_CASE(a_failing_point_is_recorded_and_the_rest_complete) {
  const std::string dir = fresh_dir();
  // 2000 ns of simulated time is too short for any broadcast: those points stall (exit 1).
  const std::string study = write_study(dir,
                                        "cross:\n"
                                        "  sim.max_time_ns: [10000000000, 2000]\n"
                                        "  collective.bytes: [1024, 4096, 16384]\n");
  const std::string out = dir + "/out";
  const outcome o = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(o.output);
  BOOST_CHECK_EQUAL(o.code, 1);
  BOOST_CHECK(contains(o.output, "6 points, 3 ok, 3 failed"));
  const auto csv = read_csv(out + "/results.csv");
  BOOST_REQUIRE_EQUAL(csv.size(), 7u);
  const size_t status = column(csv, "status"), code = column(csv, "exit_code");
  const size_t completion = column(csv, "collective.completion_ns"), error = column(csv, "error");
  for (size_t i = 1; i <= 6; ++i) {
    const bool fails = i > 3;
    BOOST_CHECK_EQUAL(csv[i][status], fails ? "failed" : "ok");
    BOOST_CHECK_EQUAL(csv[i][code], fails ? "1" : "0");
    BOOST_CHECK_EQUAL(csv[i][completion].empty(), fails);
    BOOST_CHECK_EQUAL(contains(csv[i][error], "sim.max_time_ns = 2000"), fails);
  }
  const auto st = read_json(out + "/points/0004/status.json");
  BOOST_CHECK_EQUAL(st["status"], "failed");
  BOOST_CHECK(contains(read_file(out + "/points/0004/log.txt"), "stalled"));

  // A resume leaves failed points alone; --retry-failed runs them again.
  const outcome resume = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_CHECK(contains(resume.output, "0 to run (6 finished earlier)"));
  BOOST_CHECK_EQUAL(resume.code, 1);
  const outcome retry = run_cli("sweep " + study + " -j 2 --retry-failed --out " + out);
  BOOST_CHECK(contains(retry.output, "3 to run (3 finished earlier)"));
  // Retrying a chosen few leaves the other failures recorded, and the sweep still fails.
  const outcome some =
      run_cli("sweep " + study + " -j 2 --retry-failed --only collective.bytes=1024 --out " + out);
  BOOST_TEST_INFO(some.output);
  BOOST_CHECK(contains(some.output, "1 to run (5 finished earlier)"));
  BOOST_CHECK(contains(some.output, "6 points, 3 ok, 3 failed"));
  BOOST_CHECK_EQUAL(some.code, 1);
  const auto after = read_csv(out + "/results.csv");
  for (size_t i = 4; i <= 6; ++i) BOOST_CHECK_EQUAL(after[i][status], "failed");
}

BOOST_AUTO_TEST_CASE(an_interrupted_study_resumes_where_it_stopped) {
  const std::string dir = fresh_dir();
  // Slow points: 1 MiB through 512-byte buffers, one at a time.
  const std::string study = write_study(dir, slow_set() +
                                                 "replicates: 12\n"
                                                 "set_placement: 1\n");
  // (a deliberate unknown key first: exit 2, nothing run)
  const outcome bad = run_cli("sweep " + study + " --out " + dir + "/out");
  BOOST_CHECK_EQUAL(bad.code, 2);
  BOOST_CHECK(contains(bad.output, "set_placement"));
  BOOST_CHECK(!fs::exists(dir + "/out"));
  write_study(dir, slow_set(", job.placement: random") + "replicates: 12\n");
  const std::string out = dir + "/out";
  const pid_t pid = start_sweep(study, out, dir + "/sweep.log");
  BOOST_REQUIRE(pid >= 0);
  // Wait for the first point to finish, then interrupt.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(out + "/points/0000/status.json") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  BOOST_TEST_INFO(read_file(dir + "/sweep.log"));
  BOOST_REQUIRE(WIFEXITED(status));
  BOOST_CHECK_EQUAL(WEXITSTATUS(status), 130);
  BOOST_CHECK(contains(read_file(dir + "/sweep.log"), "run the same command again to resume"));
  const auto partial = read_csv(out + "/results.csv");
  size_t ok = 0, pending = 0;
  for (size_t i = 1; i < partial.size(); ++i) {
    ok += partial[i][column(partial, "status")] == "ok";
    pending += partial[i][column(partial, "status")] == "pending";
  }
  BOOST_CHECK_GE(ok, 1u);
  BOOST_CHECK_GE(pending, 1u);
  BOOST_CHECK_EQUAL(ok + pending, 12u);  // the interrupted point is not counted as failed

  const outcome resume = run_cli("sweep " + study + " -j 2 --out " + out);
  BOOST_TEST_INFO(resume.output);
  BOOST_CHECK_EQUAL(resume.code, 0);
  BOOST_CHECK(contains(resume.output, std::to_string(pending) + " to run (" + std::to_string(ok) +
                                          " finished earlier)"));
  BOOST_CHECK(contains(resume.output, "12 points, 12 ok, 0 failed"));
}

BOOST_AUTO_TEST_CASE(bad_studies_exit_2_naming_the_key) {
  const std::string dir = fresh_dir();
  const outcome missing = run_cli("sweep " + dir + "/nothing.yaml");
  BOOST_CHECK_EQUAL(missing.code, 2);
  BOOST_CHECK(contains(missing.output, "cannot read study file"));
  const std::string study =
      write_study(dir, "cross:\n  collective.algorithm: [binomial, forset]\n");
  const outcome typo = run_cli("sweep " + study);
  BOOST_CHECK_EQUAL(typo.code, 2);
  BOOST_CHECK(
      contains(typo.output, "collective.algorithm: 'forset' is not an algorithm; allowed:"));
  const outcome list = run_cli("sweep " + write_study(dir, small_study) + " --list");
  BOOST_CHECK_EQUAL(list.code, 0);
  BOOST_CHECK(contains(list.output, "small: 4 points"));
  BOOST_CHECK(contains(list.output, "points/0003"));
  BOOST_CHECK(contains(list.output, "collective.algorithm=forest collective.bytes=4096"));
}

// A plot's kind, keys and columns are checked before any point runs: exit 2, nothing written.
BOOST_AUTO_TEST_CASE(a_bad_plot_exits_2_before_any_point_runs) {
  const std::string dir = fresh_dir();
  const std::string study = write_study(
      dir, std::string(small_study) + "plots:\n  - {kind: line, x: collective.bytes}\n");
  const outcome o = run_cli("sweep " + study + " --out " + dir + "/out");
  BOOST_TEST_INFO(o.output);
  BOOST_CHECK_EQUAL(o.code, 2);
  BOOST_CHECK(contains(o.output, "plots[0].kind: 'line' is not valid; allowed: lines, speedup"));
  BOOST_CHECK(!fs::exists(dir + "/out"));
  const std::string named = write_study(dir, "name: ..\ncommand: analyze\n");
  const outcome dots = run_cli("sweep " + named + " -q");
  BOOST_CHECK_EQUAL(dots.code, 2);
  BOOST_CHECK(contains(dots.output, "name: '..' is not a plain folder name"));
}

// Reproduction 9: four keys of 65,536 values (2^64 points) listed "0 points" and exited 0; a
// list under columns: became an empty column.
BOOST_AUTO_TEST_CASE(oversized_studies_and_list_columns_exit_2) {
  const std::string dir = fresh_dir();
  std::string text = "cross:\n";
  // Valid values all (buffers of 64 KiB and more), so only their number is wrong.
  for (const char* key : {"collective.bytes", "seed"}) {
    text += std::string("  ") + key + ": {from: 1, to: 65536, step: 1}\n";
  }
  for (const char* key : {"router.vc_buffer_bytes.local", "router.vc_buffer_bytes.global"}) {
    text += std::string("  ") + key + ": {from: 65536, to: 131071, step: 1}\n";
  }
  const outcome big = run_cli("sweep " + write_study(dir, text) + " --list");
  BOOST_CHECK_EQUAL(big.code, 2);
  BOOST_CHECK(contains(big.output, "cross: the study has 65536 x 65536 x 65536 x 65536 ="));
  BOOST_CHECK(contains(big.output,
                       "(collective.bytes, seed, router.vc_buffer_bytes.local, "
                       "router.vc_buffer_bytes.global)"));
  const outcome cols =
      run_cli("sweep " + write_study(dir, "columns: [sim_time_ns, [a, b]]\n") + " --list");
  BOOST_CHECK_EQUAL(cols.code, 2);
  BOOST_CHECK(contains(cols.output, "columns[1]: expected a result.json path"));
}

// A plot that passes the checks but cannot be drawn (no row matches its where) fails the sweep.
BOOST_AUTO_TEST_CASE(a_plot_failing_at_the_end_makes_the_sweep_exit_1) {
  const std::string dir = fresh_dir();
  const std::string study =
      write_study(dir,
                  "command: analyze\ncross:\n  collective.bytes: [1024, 2048]\n"
                  "columns: [perf.wall_s]\n"
                  "plots:\n  - {kind: lines, x: collective.bytes, y: collective.makespan_links, "
                  "where: {collective.bytes: 999}}\n");
  const outcome o = run_cli("sweep " + study + " -j 2 --out " + dir + "/out");
  BOOST_TEST_INFO(o.output);
  BOOST_CHECK_EQUAL(o.code, 1);
  BOOST_CHECK(contains(o.output, "no successful rows"));
  BOOST_CHECK(contains(o.output, "bcastsim: error: plots: the study's plots failed"));
  // The machine column went to perf.csv, not into the byte-identical results.csv.
  BOOST_CHECK(!contains(read_file(dir + "/out/results.csv"), "wall"));
  BOOST_CHECK(contains(read_file(dir + "/out/perf.csv"), ",perf.wall_s\n"));
  // Under --only too: no point left out matches its where.
  const outcome part =
      run_cli("sweep " + study + " -j 2 --only collective.bytes=1024 --out " + dir + "/part");
  BOOST_CHECK_EQUAL(part.code, 1);
  // A plot whose rows are all among the points left out waits for them: a note, exit 0.
  const std::string waits =
      write_study(dir,
                  "command: analyze\ncross:\n  collective.bytes: [1024, 2048]\n"
                  "plots:\n  - {kind: lines, x: collective.bytes, y: collective.makespan_links, "
                  "where: {collective.bytes: 2048}}\n");
  const outcome later =
      run_cli("sweep " + waits + " -j 2 --only collective.bytes=1024 --out " + dir + "/later");
  BOOST_TEST_INFO(later.output);
  BOOST_CHECK_EQUAL(later.code, 0);
  BOOST_CHECK(contains(later.output, "note: plot 0 waits for 1 points not run yet"));
  BOOST_CHECK(!contains(later.output, "bcastsim: error"));
  BOOST_CHECK_EQUAL(run_cli("sweep " + waits + " -j 2 --out " + dir + "/later").code, 0);
  check_png(dir + "/later/plots/00-lines.png");
}

BOOST_AUTO_TEST_CASE(the_example_study_runs_and_draws_valid_pngs) {
  const std::string dir = fresh_dir();
  const std::string study = std::string(BCASTSIM_SOURCE_DIR) + "/experiments/sweep-example.yaml";
  const outcome o = run_cli("sweep " + study + " -j 2 --out " + dir + "/out");
  BOOST_TEST_INFO(o.output);
  BOOST_REQUIRE_EQUAL(o.code, 0);
  const auto study_json = read_json(dir + "/out/study.json");
  BOOST_REQUIRE_GE(study_json["plots"].size(), 2u);
  for (const auto& plot : study_json["plots"]) {
    check_png(dir + "/out/plots/" + plot["file"].get<std::string>());
  }
}

BOOST_AUTO_TEST_CASE(points_with_several_collectives_get_their_spread_as_columns) {
  const std::string dir = fresh_dir();
  const std::string study =
      write_study(dir,
                  "name: several\n"
                  "set: {collective.bytes: 2048, collective.compute_ns: 1000}\n"
                  "cross:\n"
                  "  collective.repeat: [1, 3]\n");
  const outcome o = run_cli("sweep " + study + " -j 2 --out " + dir + "/out");
  BOOST_TEST_INFO(o.output);
  BOOST_REQUIRE_EQUAL(o.code, 0);
  const auto csv = read_csv(dir + "/out/results.csv");
  BOOST_REQUIRE_EQUAL(csv.size(), 3u);
  const size_t repeat = column(csv, "collective.repeat");
  const size_t count = column(csv, "collective.collectives");
  const size_t lo = column(csv, "collective.completion_ns_min");
  const size_t hi = column(csv, "collective.completion_ns_max");
  for (size_t row = 1; row < 3; ++row) {
    BOOST_CHECK_EQUAL(csv[row][count], csv[row][repeat]);
    BOOST_CHECK_LE(std::stod(csv[row][lo]), std::stod(csv[row][hi]));
  }
  // A study of single collectives keeps today's columns.
  const std::string single =
      write_study(dir, "name: single\ncross: {collective.bytes: [1024, 2048]}\n");
  BOOST_REQUIRE_EQUAL(run_cli("sweep " + single + " --out " + dir + "/one").code, 0);
  const auto one = read_csv(dir + "/one/results.csv");
  BOOST_CHECK(std::find(one[0].begin(), one[0].end(), "collective.collectives") == one[0].end());
}
