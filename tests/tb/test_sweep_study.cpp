// tb/sweep/study and tb/sweep/table: a study's expansion (crossed, zipped, ranges,
// replicates), its seeds, its checks, and the CSV made from the points' outcomes.
#include "tb/config.h"
#include "tb/sweep/study.h"
#include "tb/sweep/table.h"

#include <boost/test/unit_test.hpp>

#include <set>

using namespace bcastsim;
using namespace bcastsim::tb::sweep;

namespace {

study parse(const std::string& text) {
  return parse_study_text(text, "test.yaml");
}

std::string value_of(const point& p, const std::string& key) {
  for (const auto& [k, v] : p.values) {
    if (k == key) return v;
  }
  return "<absent>";
}

// The error a bad study gives: a config_error (exit 2) whose message names `key`.
void expect_error(const std::string& text, const std::string& key, const std::string& part) {
  try {
    parse(text);
    BOOST_ERROR("no error for: " << text);
  } catch (const tb::config_error& e) {
    const std::string what = e.what();
    BOOST_TEST_INFO(what);
    BOOST_CHECK(what.find(key) != std::string::npos);
    BOOST_CHECK(what.find(part) != std::string::npos);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(crossed_parameters_give_every_combination_last_fastest) {
  const study s = parse(
      "cross:\n"
      "  collective.algorithm: [binomial, forest, ragasa]\n"
      "  collective.bytes: [1024, 4096]\n");
  const auto points = expand(s);
  BOOST_REQUIRE_EQUAL(points.size(), 6u);
  const char* algo[] = {"binomial", "binomial", "forest", "forest", "ragasa", "ragasa"};
  const char* bytes[] = {"1024", "4096", "1024", "4096", "1024", "4096"};
  for (size_t i = 0; i < 6; ++i) {
    BOOST_CHECK_EQUAL(points[i].index, i);
    BOOST_CHECK_EQUAL(value_of(points[i], "collective.algorithm"), algo[i]);
    BOOST_CHECK_EQUAL(value_of(points[i], "collective.bytes"), bytes[i]);
  }
  BOOST_CHECK_EQUAL(points[5].dir, "points/0005");
  BOOST_CHECK(s.parameters() ==
              (std::vector<std::string>{"collective.algorithm", "collective.bytes"}));
}

BOOST_AUTO_TEST_CASE(zipped_parameters_advance_together_and_cross_with_the_rest) {
  const study s = parse(
      "zip:\n"
      "  - collective.algorithm: [binomial, forest]\n"
      "    routing.kind: [minimal, adaptive]\n"
      "cross:\n"
      "  collective.bytes: [1024, 2048, 4096]\n");
  const auto points = expand(s);
  BOOST_REQUIRE_EQUAL(points.size(), 6u);  // 2 zipped steps x 3 sizes, not 2 x 2 x 3
  for (const point& p : points) {
    const bool first = value_of(p, "collective.algorithm") == "binomial";
    BOOST_CHECK_EQUAL(value_of(p, "routing.kind"), first ? "minimal" : "adaptive");
  }
  // File order: the zip group is the outer dimension here.
  BOOST_CHECK_EQUAL(value_of(points[2], "collective.algorithm"), "binomial");
  BOOST_CHECK_EQUAL(value_of(points[2], "collective.bytes"), "4096");
  BOOST_CHECK_EQUAL(value_of(points[3], "collective.algorithm"), "forest");
  BOOST_CHECK_EQUAL(value_of(points[3], "collective.bytes"), "1024");
  BOOST_CHECK(s.parameters() == (std::vector<std::string>{"collective.algorithm", "routing.kind",
                                                          "collective.bytes"}));
}

BOOST_AUTO_TEST_CASE(ranges_arithmetic_and_geometric_include_both_ends) {
  const study s = parse(
      "cross:\n"
      "  collective.bytes: {from: 1024, to: 1048576, times: 4}\n"
      "  traffic.load: {from: 0.1, to: 0.3, step: 0.1}\n"
      "  router.vcs: {from: 2, to: 7, step: 2}\n");
  BOOST_REQUIRE_EQUAL(s.dimensions.size(), 3u);
  BOOST_CHECK(s.dimensions[0].values ==
              (std::vector<std::vector<std::string>>{
                  {"1024"}, {"4096"}, {"16384"}, {"65536"}, {"262144"}, {"1048576"}}));
  BOOST_CHECK(s.dimensions[1].values ==
              (std::vector<std::vector<std::string>>{{"0.1"}, {"0.2"}, {"0.30000000000000004"}}));
  BOOST_CHECK(s.dimensions[2].values ==
              (std::vector<std::vector<std::string>>{{"2"}, {"4"}, {"6"}}));
  BOOST_CHECK_EQUAL(expand(s).size(), 6u * 3u * 3u);
}

// Common random numbers (the default): the points of one replicate share their seed, so their
// placement, root and traffic are the same draws; each replicate has its own.
BOOST_AUTO_TEST_CASE(replicates_vary_fastest_and_share_seeds_across_points) {
  const study s = parse("seed: 7\nreplicates: 3\ncross:\n  collective.bytes: [1024, 2048]\n");
  BOOST_CHECK(s.draws == random_draws::common);
  const auto points = expand(s);
  BOOST_REQUIRE_EQUAL(points.size(), 6u);
  std::set<uint64_t> seeds;
  for (size_t i = 0; i < points.size(); ++i) {
    BOOST_CHECK_EQUAL(points[i].replicate, i % 3);
    BOOST_CHECK_EQUAL(value_of(points[i], "collective.bytes"), i < 3 ? "1024" : "2048");
    BOOST_CHECK(points[i].seed > 0 && points[i].seed < (uint64_t{1} << 53));
    BOOST_CHECK_EQUAL(points[i].seed, points[i % 3].seed);  // same replicate, same seed
    seeds.insert(points[i].seed);
  }
  BOOST_CHECK_EQUAL(seeds.size(), 3u);
  // Another study seed, other seeds; the same study twice, the same.
  const auto other = expand(parse("seed: 8\nreplicates: 3\ncross:\n  collective.bytes: [1024]\n"));
  BOOST_CHECK_NE(other[0].seed, points[0].seed);
  BOOST_CHECK_EQUAL(expand(s)[4].seed, points[4].seed);
}

BOOST_AUTO_TEST_CASE(per_point_draws_give_every_point_its_own_seed) {
  const study s = parse(
      "seed: 7\nreplicates: 3\nrandom_draws: per_point\ncross:\n  collective.bytes: [1024, 2048]\n");
  std::set<uint64_t> seeds;
  for (const point& p : expand(s)) seeds.insert(p.seed);
  BOOST_CHECK_EQUAL(seeds.size(), 6u);
  expect_error("random_draws: paired\n", "random_draws", "allowed: common, per_point");
}

BOOST_AUTO_TEST_CASE(per_point_seeds_come_from_the_study_seed_and_the_point_not_its_index) {
  const auto a = expand(parse(
      "seed: 1\nrandom_draws: per_point\ncross:\n  collective.bytes: [1024, 2048]\n"));
  const auto b = expand(parse(
      "seed: 1\nrandom_draws: per_point\ncross:\n  collective.bytes: [512, 1024, 2048]\n"));
  const auto c = expand(parse(
      "seed: 2\nrandom_draws: per_point\ncross:\n  collective.bytes: [1024, 2048]\n"));
  // Adding a value moves the indices but not the seeds of the existing points.
  BOOST_CHECK_EQUAL(a[0].seed, b[1].seed);
  BOOST_CHECK_EQUAL(a[1].seed, b[2].seed);
  BOOST_CHECK_NE(a[0].seed, a[1].seed);
  BOOST_CHECK_NE(a[0].seed, c[0].seed);  // another study seed, other seeds
  // Same study twice: same seeds.
  BOOST_CHECK_EQUAL(expand(parse("seed: 1\nrandom_draws: per_point\ncross:\n  collective.bytes: "
                                 "[1024, 2048]\n"))[1]
                        .seed,
                    a[1].seed);
  // A study that varies seed itself uses it as it is.
  const auto s = expand(parse("cross:\n  seed: [11, 12]\n"));
  BOOST_CHECK_EQUAL(s[0].seed, 11u);
  BOOST_CHECK_EQUAL(s[1].seed, 12u);
}

BOOST_AUTO_TEST_CASE(fixed_keys_scenario_plots_and_a_study_without_dimensions) {
  const study s = parse(
      "name: mine\n"
      "scenario: " BCASTSIM_SOURCE_DIR
      "/experiments/../experiments/default.yaml\n"
      "command: analyze\n"
      "set:\n"
      "  collective: {algorithm: forest}\n"
      "  job.ranks: 64\n"
      "columns: [hops_avg]\n"
      "plots:\n"
      "  - {kind: lines, x: collective.messages, y: hops_avg, logx: true, where: {point: 6}}\n");
  BOOST_CHECK_EQUAL(s.name, "mine");
  BOOST_CHECK_EQUAL(s.scenario, BCASTSIM_SOURCE_DIR "/experiments/default.yaml");
  BOOST_CHECK_EQUAL(s.command, "analyze");
  BOOST_REQUIRE_EQUAL(s.fixed.size(), 2u);
  BOOST_CHECK_EQUAL(s.fixed[0].first, "collective.algorithm");
  BOOST_CHECK_EQUAL(s.fixed[1].second, "64");
  BOOST_CHECK_EQUAL(s.plots[0]["kind"], "lines");
  BOOST_CHECK_EQUAL(s.plots[0]["logx"], true);
  BOOST_CHECK_EQUAL(s.plots[0]["where"]["point"], 6.0);
  BOOST_CHECK_EQUAL(expand(s).size(), 1u);  // the base scenario, once
}

// The collectives list's entry keys vary as any key does (they were refused as unknown), and
// are checked as collective.X, with the list's own messages for a bad index or key.
BOOST_AUTO_TEST_CASE(collectives_entry_keys_can_be_set_and_varied) {
  const study s = parse(
      "set:\n  collectives.0.algorithm: binomial\n  collectives.1.algorithm: forest\n"
      "cross:\n  collectives.1.bytes: [1KiB, 2048]\n");
  const auto points = expand(s);
  BOOST_REQUIRE_EQUAL(points.size(), 2u);
  BOOST_CHECK_EQUAL(value_of(points[1], "collectives.1.bytes"), "2048");
  expect_error("cross:\n  collectives.0.algorithm: [binomial, nope]\n",
               "collectives.0.algorithm", "'nope' is not an algorithm");
  expect_error("cross:\n  collectives.0.bytes: [abc]\n", "collectives.0.bytes", "an integer");
  expect_error("cross:\n  collectives.1000.bytes: [1]\n", "collectives.1000.bytes",
               "not an entry index");
  expect_error("set:\n  collectives.0.nokey: 1\n", "collectives.0.nokey",
               "allowed keys under 'collective'");
}

BOOST_AUTO_TEST_CASE(bad_studies_name_the_key_and_what_is_allowed) {
  expect_error("cross:\n  collective.byts: [1]\n", "collective.byts", "not a scenario key");
  expect_error("crosss:\n  collective.bytes: [1]\n", "crosss", "allowed: name, scenario");
  expect_error("zip:\n  - {collective.bytes: [1, 2], router.vcs: [1]}\n", "router.vcs",
               "same number of values");
  expect_error("cross:\n  collective.bytes: [1024]\nset:\n  collective.bytes: 2\n",
               "set.collective.bytes", "both fixed");
  expect_error("cross:\n  collective.bytes: [1024, -5]\n", "collective.bytes", "-5");
  expect_error("cross:\n  collective.algorithm: [binomial, quick]\n", "collective.algorithm",
               "quick");
  expect_error("cross:\n  collective.bytes: {from: 8, to: 1}\n", "collective.bytes",
               "exactly one of step");
  expect_error("cross:\n  collective.bytes: {from: 8, to: 1, step: 1}\n", "collective.bytes",
               "below from");
  expect_error("cross:\n  collective.bytes: {from: 1, to: 8, times: 1}\n", "collective.bytes",
               "times must be > 1");
  expect_error("cross:\n  collective.bytes: {from: 1, to: 1e9, step: 1}\n", "collective.bytes",
               "1,000,000");
  expect_error("command: simulate\n", "command", "run, analyze");
  expect_error("replicates: 2\ncross:\n  seed: [1, 2]\n", "replicates", "varies seed");
  expect_error("scenario: /nonexistent/base.yaml\n", "", "/nonexistent/base.yaml");
}

// Reproduction 9: four keys of 65,536 values make 2^64 points, which wrapped to 0.
BOOST_AUTO_TEST_CASE(a_point_count_past_the_limit_is_refused_even_when_it_overflows) {
  std::string text = "cross:\n";
  // Valid values all (buffers of 64 KiB and more), so only their number is wrong.
  for (const char* key : {"collective.bytes", "seed"}) {
    text += std::string("  ") + key + ": {from: 1, to: 65536, step: 1}\n";
  }
  for (const char* key : {"router.vc_buffer_bytes.local", "router.vc_buffer_bytes.global"}) {
    text += std::string("  ") + key + ": {from: 65536, to: 131071, step: 1}\n";
  }
  expect_error(
      text, "collective.bytes, seed, router.vc_buffer_bytes.local, router.vc_buffer_bytes.global",
      "65536 x 65536 x 65536 x 65536 = 1.845e+19 points");
  expect_error(text, "cross", "at most 1,000,000 points per study");
  expect_error("replicates: 1000\ncross:\n  collective.bytes: {from: 1, to: 1001, step: 1}\n",
               "1001 x 1000 replicates = 1.001e+06 points", "at most 1,000,000");
  study big;
  big.replicates = 2;
  for (int i = 0; i < 4; ++i) {
    dimension d;
    d.keys = {"k" + std::to_string(i)};
    d.values.resize(65536, {"1"});
    big.dimensions.push_back(std::move(d));
  }
  BOOST_CHECK_EQUAL(big.num_points(), SIZE_MAX);  // saturates, never wraps
  BOOST_CHECK_EQUAL(
      parse("cross:\n  collective.bytes: {from: 1, to: 1000000, step: 1}\n").num_points(),
      1000000u);
}

BOOST_AUTO_TEST_CASE(a_name_that_is_not_a_plain_folder_name_is_refused) {
  for (const char* name : {"..", ".", "a/b", "/tmp", "\"\"", "\"a\\tb\""}) {
    BOOST_TEST_INFO(name);
    expect_error(std::string("name: ") + name + "\n", "name", "not a plain folder name");
  }
  try {
    parse_study_text("seed: 1\n", "/tmp/...yaml");  // the default name, the file's stem: ..
    BOOST_ERROR("a study file named ...yaml was accepted");
  } catch (const tb::config_error& e) {
    BOOST_CHECK_EQUAL(e.key, "name");
  }
  BOOST_CHECK_EQUAL(parse("name: my study-2.b\n").name, "my study-2.b");
}

BOOST_AUTO_TEST_CASE(columns_entries_must_be_result_paths) {
  expect_error("columns: [packets.hops_avg, [a, b]]\n", "columns[1]", "not a list or mapping");
  expect_error("columns: [{a: 1}]\n", "columns[0]", "result.json path");
  expect_error("columns: [\"\"]\n", "columns[0]", "result.json path");
  BOOST_CHECK_EQUAL(parse("columns: [packets.hops_avg]\n").columns.size(), 1u);
}

BOOST_AUTO_TEST_CASE(plots_are_checked_before_any_point_runs) {
  const std::string head = "cross:\n  collective.bytes: [1024, 4096]\nplots:\n";
  expect_error(head + "  - {kind: scatter, x: collective.bytes, y: sim_time_ns}\n", "plots[0].kind",
               "allowed: lines, speedup, heatmap, links, dragonfly");
  expect_error(head + "  - {x: collective.bytes}\n", "plots[0].kind", "missing");
  expect_error(head + "  - {kind: lines, x: collective.bytes}\n", "plots[0].y", "needs x, y");
  expect_error(head + "  - {kind: lines, x: collective.bytes, y: sim_time_ns, colour: red}\n",
               "plots[0].colour", "not a key of a lines plot; allowed: kind, file");
  expect_error(head + "  - {kind: lines, x: collective.byte, y: sim_time_ns}\n", "plots[0].x",
               "'collective.byte' is not a column of results.csv");
  expect_error(head + "  - {kind: lines, x: collective.bytes, y: perf.wall_s}\n", "plots[0].y",
               "not a column");
  expect_error(head +
                   "  - {kind: heatmap, x: collective.bytes, y: seed, value: sim_time_ns, "
                   "normalize: rows}\n",
               "plots[0].normalize", "allowed: none, row, column");
  expect_error(head + "  - {kind: links, metric: bytes}\n", "plots[0].metric",
               "allowed: messages, packets");
  expect_error(head +
                   "  - {kind: lines, x: collective.bytes, y: sim_time_ns, where: {algo: "
                   "binomial}}\n",
               "plots[0].where.algo", "not a column");
  expect_error(head + "  - [lines]\n", "plots[0]", "expected a mapping");
  // A fuzz finding: matplotlib refused 'x.png ]' only once every point had run.
  for (const char* file : {"\"x.png ]\"", "x", "../x.png", "a/x.png", "\"\"", "[x.png]"}) {
    BOOST_TEST_INFO(file);
    expect_error(
        head + "  - {kind: lines, x: collective.bytes, y: sim_time_ns, file: " + file + "}\n",
        "plots[0].file", "allowed: a file name without '/' ending in .png, .pdf or .svg");
  }
  // Columns a result brings (a family's, traffic's, a graph's link classes) and the study's own.
  const study s = parse(head +
                        "  - {kind: lines, x: collective.bytes, y: ragasa.units.memory_stall_ns}\n"
                        "  - {kind: lines, x: collective.bytes, y: traversals.spine.packets}\n"
                        "  - {kind: heatmap, x: collective.bytes, y: seed, value: blocks.x}\n"
                        "  - {kind: links, metric: packets, logy: true}\n"
                        "columns: [blocks.x]\n");
  BOOST_CHECK_EQUAL(s.plots.size(), 4u);
}

BOOST_AUTO_TEST_CASE(machine_columns_go_to_perf_csv_not_results_csv) {
  const study s = parse(
      "cross:\n  collective.algorithm: [binomial, forest]\n"
      "columns: [perf.wall_s, perf.packet_hops, packets.hops_avg]\n");
  const auto points = expand(s);
  std::vector<std::optional<point_outcome>> outcomes(points.size());
  point_outcome ok;
  ok.ok = true;
  ok.wall_s = 1.5;
  ok.host = "node1";
  ok.result = R"({"perf": {"wall_s": 0.25, "packet_hops": 7}, "packets": {"hops_avg": 2}})";
  outcomes[0] = ok;
  const std::string csv = make_csv(s, points, outcomes);
  BOOST_TEST_INFO(csv);
  BOOST_CHECK(csv.find("wall") == std::string::npos);
  BOOST_CHECK(csv.find(",packets.hops_avg,") != std::string::npos);
  const std::string perf = make_perf_csv(s, points, outcomes);
  BOOST_TEST_INFO(perf);
  BOOST_CHECK_EQUAL(perf.substr(0, perf.find('\n')),
                    "point,collective.algorithm,seed,status,wall_s,host,perf.wall_s");
  BOOST_CHECK(perf.find(",binomial," + std::to_string(points[0].seed) + ",ok,1.5,node1,0.25\n") !=
              std::string::npos);
  BOOST_CHECK(perf.find(",forest," + std::to_string(points[1].seed) + ",pending,,,\n") !=
              std::string::npos);
  BOOST_CHECK(make_perf_csv(parse("columns: [perf.packet_hops]\n"), points, outcomes).empty());
}

// Issue 13, reproduction 11: -1 wrapped to 2^64-1; 1e300 and 1.5 were accepted.
BOOST_AUTO_TEST_CASE(study_integer_keys_are_integers_in_range) {
  for (const char* bad : {"-1", "1e300", "1.5", "18446744073709551616", "[1]", "''"}) {
    expect_error(std::string("seed: ") + bad + "\n", "seed",
                 "allowed: an integer in [0, 18446744073709551615]");
  }
  BOOST_CHECK_EQUAL(parse("seed: 18446744073709551615\n").seed, UINT64_MAX);
  for (const char* bad : {"0", "1.5", "1e3", "-1", "100001"}) {
    expect_error(std::string("replicates: ") + bad + "\n", "replicates",
                 "allowed: an integer in [1, 100000]");
  }
  BOOST_CHECK_EQUAL(parse("replicates: 100000\n").replicates, 100000u);
}

// Issue 13, reproduction 8: `scenario: .` and `scenario: [a]` ran the built-in default.
BOOST_AUTO_TEST_CASE(study_scenario_is_a_single_readable_file) {
  expect_error("scenario: .\n", "scenario", "is a directory");
  expect_error("scenario: [a]\n", "scenario", "expected a single value");
  expect_error("scenario: {a: 1}\n", "scenario", "expected a single value");
  expect_error("scenario:\n", "scenario", "expected a single value");
  expect_error("name: [a]\n", "name", "expected a single value");
  expect_error("command: [run]\n", "command", "expected a single value");
}

BOOST_AUTO_TEST_CASE(csv_has_a_row_per_point_with_results_and_errors) {
  const study s = parse("cross:\n  collective.algorithm: [binomial, ragasa, forest]\n");
  const auto points = expand(s);
  std::vector<std::optional<point_outcome>> outcomes(points.size());
  point_outcome ok;
  ok.index = 0;
  ok.ok = true;
  ok.wall_s = 1.5;  // never in the CSV
  ok.result = R"({"collective": {"completion_ns": 26120.868, "messages": 71},
                  "traversals": {"global": {"messages": 8}}})";
  outcomes[0] = ok;
  point_outcome rg = ok;
  rg.index = 1;
  rg.result =
      R"({"collective": {"completion_ns": 8430.608}, "ragasa": {"units": {"memory_stall_ns": 0.0}}})";
  outcomes[1] = rg;
  point_outcome bad;
  bad.index = 2;
  bad.exit_code = 1;
  bad.error = "bcastsim: stalled, \"router_3\"";
  outcomes[2] = bad;
  const std::string csv = make_csv(s, points, outcomes);
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = csv.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.push_back(csv.substr(at, nl - at));
  }
  BOOST_REQUIRE_EQUAL(lines.size(), 4u);
  BOOST_CHECK_EQUAL(lines[0].rfind("point,collective.algorithm,seed,status,exit_code,"
                                   "collective.completion_ns,sim_time_ns,collective.messages,",
                                   0),
                    0u);
  // A ragasa result adds the Ragasa columns for every row.
  BOOST_CHECK(lines[0].find(",ragasa.units.memory_stall_ns,") != std::string::npos);
  BOOST_CHECK(lines[0].find("wall") == std::string::npos);
  BOOST_CHECK(lines[1].find(",binomial," + std::to_string(points[0].seed) +
                            ",ok,0,26120.868,,71,") != std::string::npos);
  BOOST_CHECK(lines[2].find(",8430.608,") != std::string::npos);
  BOOST_CHECK(lines[3].find(",failed,1,") != std::string::npos);
  BOOST_CHECK(lines[3].find(",\"bcastsim: stalled, \"\"router_3\"\"\"") != std::string::npos);
  // Without an outcome (interrupted): pending.
  outcomes[2].reset();
  BOOST_CHECK(make_csv(s, points, outcomes)
                  .find(",forest," + std::to_string(points[2].seed) + ",pending,,") !=
              std::string::npos);
}
