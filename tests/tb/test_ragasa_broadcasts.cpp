// Each Ragasa broadcast's set-up reported beside its data, not inside it (tb/ragasa/report.h,
// tb/broadcast_figures.h): with every rank broadcasting, each broadcast's data completion runs
// from its own start, after its set-up, and ends within the run; the aggregates are those of
// the per-broadcast list (written only with output.block_stats = on); with one root the
// broadcast's figures are the collective's; the sweep's CSV carries the aggregates.
#include "cli_result.h"
#include "sweep_runner.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace bcastsim;

namespace {

// A small dragonfly (3 groups of 2 routers, 12 ranks) every rank broadcasting 4 KiB with
// Ragasa, nodes relaying (the default): 12 broadcasts whose set-ups end one after another.
std::vector<std::string> all_roots(bool block_stats) {
  std::vector<std::string> sets = {"topology.p=2",         "topology.a=2",
                                   "topology.h=1",         "collective.algorithm=ragasa",
                                   "collective.roots=all", "collective.bytes=4096"};
  if (block_stats) sets.push_back("output.block_stats=on");
  return sets;
}

test::run_result run(const std::vector<std::string>& sets) {
  test::run_result r = test::run_for_json("run", test::set_args(sets));
  BOOST_REQUIRE_MESSAGE(r.out.code == 0, "bcastsim run exited " << r.out.code << ":\n"
                                                                << r.out.output);
  return r;
}

double num(const nlohmann::json& j) {
  return j.get<double>();
}

// mean, min and max of `key` over the list's entries.
void check_aggregate(const nlohmann::json& list, const nlohmann::json& agg, const char* key) {
  double sum = 0, lo = 1e300, hi = -1e300;
  for (const nlohmann::json& e : list) {
    sum += num(e[key]);
    lo = std::min(lo, num(e[key]));
    hi = std::max(hi, num(e[key]));
  }
  BOOST_TEST_INFO(key);
  BOOST_TEST(agg["count"].get<size_t>() == list.size());
  BOOST_TEST(num(agg["mean"]) == sum / static_cast<double>(list.size()),
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(num(agg["min"]) == lo);
  BOOST_TEST(num(agg["max"]) == hi);
}

}  // namespace

BOOST_AUTO_TEST_CASE(each_broadcast_of_all_roots_runs_from_its_own_start_after_its_setup) {
  const test::run_result r = run(all_roots(true));
  const nlohmann::json& c = r.result["collective"];
  const nlohmann::json& b = r.result["ragasa"]["broadcasts"];
  const nlohmann::json& list = b["list"];
  BOOST_REQUIRE_EQUAL(list.size(), 12u);
  BOOST_TEST(b["count"].get<size_t>() == 12u);
  const double overall = num(c["completion_ns"]);
  double first_start = 1e300;
  for (const nlohmann::json& e : list) first_start = std::min(first_start, num(e["start_ns"]));
  std::vector<uint32_t> roots;
  for (const nlohmann::json& e : list) {
    BOOST_TEST_INFO("broadcast of root " << e["root"]);
    roots.push_back(e["root"].get<uint32_t>());
    // Its root offloads once its set-up is complete.
    BOOST_TEST(num(e["setup_ns"]) > 0);
    BOOST_TEST(num(e["setup_ns"]) <= num(e["start_ns"]));
    BOOST_TEST(num(e["data_completion_ns"]) > 0);
    BOOST_TEST(num(e["data_completion_ns"]) < overall);
    BOOST_TEST(num(e["rank_average_ns"]) > 0);
    BOOST_TEST(num(e["rank_average_ns"]) <= num(e["data_completion_ns"]));
    // It ends within the run: a data completion counted from time 0 (its set-up inside it)
    // would end the later broadcasts after the run's last rank.
    BOOST_TEST(num(e["start_ns"]) + num(e["data_completion_ns"]) <= first_start + overall + 1e-6);
  }
  std::sort(roots.begin(), roots.end());
  for (uint32_t k = 0; k < roots.size(); ++k) BOOST_TEST(roots[k] == k);
  // The set-ups end one after another (one management node sends every Mini Packet), and
  // the run's last set-up is ragasa.setup.setup_ns.
  BOOST_TEST(num(b["setup_ns"]["min"]) < num(b["setup_ns"]["max"]));
  BOOST_TEST(num(b["setup_ns"]["max"]) == num(r.result["ragasa"]["setup"]["setup_ns"]));
  check_aggregate(list, b["setup_ns"], "setup_ns");
  check_aggregate(list, b["data_completion_ns"], "data_completion_ns");
  check_aggregate(list, b["rank_average_ns"], "rank_average_ns");
  // The collective's own per-broadcast figures (every algorithm has them with all roots).
  const nlohmann::json& cb = c["broadcasts"];
  BOOST_TEST(cb["count"].get<size_t>() == 12u);
  for (const char* k : {"count", "mean", "min", "max"}) {
    BOOST_TEST_INFO(k);
    BOOST_TEST(cb["data_completion_ns"][k] == b["data_completion_ns"][k]);
    BOOST_TEST(cb["rank_average_ns"][k] == b["rank_average_ns"][k]);
  }
  // The headline is not the run's span: the mean broadcast takes less.
  BOOST_TEST(num(cb["data_completion_ns"]["mean"]) < overall);
}

BOOST_AUTO_TEST_CASE(the_per_broadcast_list_needs_block_stats_and_the_aggregates_do_not) {
  const test::run_result off = run(all_roots(false));
  const test::run_result on = run(all_roots(true));
  const nlohmann::json& b = off.result["ragasa"]["broadcasts"];
  BOOST_TEST(!b.contains("list"));
  nlohmann::json without = on.result["ragasa"]["broadcasts"];
  without.erase("list");
  BOOST_TEST(b == without);
}

BOOST_AUTO_TEST_CASE(zero_byte_broadcasts_from_every_rank_complete_each) {
  std::vector<std::string> sets = all_roots(true);
  sets.push_back("collective.bytes=0");
  const test::run_result r = run(sets);
  const nlohmann::json& b = r.result["ragasa"]["broadcasts"];
  BOOST_TEST(b["data_completion_ns"]["count"].get<size_t>() == 12u);
  for (const nlohmann::json& e : b["list"]) BOOST_TEST(num(e["data_completion_ns"]) > 0);
}

BOOST_AUTO_TEST_CASE(one_root_gives_the_collectives_figures_per_broadcast) {
  for (const char* relay : {"node", "unit"}) {
    BOOST_TEST_CONTEXT("ragasa.relay = " << relay) {
      const test::run_result r =
          run({"collective.algorithm=ragasa", "collective.root=5", "output.block_stats=on",
               std::string("ragasa.relay=") + relay});
      const nlohmann::json& c = r.result["collective"];
      const nlohmann::json& b = r.result["ragasa"]["broadcasts"];
      BOOST_TEST(!c.contains("broadcasts"));  // only with every rank broadcasting
      BOOST_REQUIRE_EQUAL(b["list"].size(), 1u);
      const nlohmann::json& e = b["list"][0];
      BOOST_TEST(e["root"] == 5);
      BOOST_TEST(num(e["data_completion_ns"]) == num(c["completion_ns"]));
      BOOST_TEST(num(e["rank_average_ns"]) == num(c["rank_completion_ns_avg"]),
                 boost::test_tools::tolerance(1e-9));
      BOOST_TEST(num(e["setup_ns"]) == num(r.result["ragasa"]["setup"]["setup_ns"]));
      BOOST_TEST(num(e["start_ns"]) == num(r.result["collectives"][0]["start_ns"]));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_summary_shows_each_broadcast_beside_its_setup) {
  const std::string dir = test::fresh_dir();
  const test::outcome o =
      test::run_cli("run --out " + dir + " " + test::set_args(all_roots(false)));
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  BOOST_TEST_INFO(o.output);
  BOOST_TEST(test::contains(o.output, "(first start to last completion; rank average "));
  BOOST_TEST(test::contains(o.output,
                            "per broadcast         12 broadcasts, each from its own "
                            "start to its last receiver: mean "));
  BOOST_TEST(test::contains(o.output,
                            "ragasa broadcasts     12: set-up (time 0 to its last Mini "
                            "Packet) mean "));
}

BOOST_AUTO_TEST_CASE(binomial_from_every_rank_reports_each_broadcast_from_its_own_start) {
  const test::run_result r =
      run({"topology.p=2", "topology.a=2", "topology.h=1", "collective.algorithm=binomial",
           "collective.roots=all", "collective.bytes=4096"});
  const nlohmann::json& c = r.result["collective"];
  const nlohmann::json& cb = c["broadcasts"];
  BOOST_TEST(cb["count"].get<size_t>() == 12u);
  BOOST_TEST(cb["data_completion_ns"]["count"].get<size_t>() == 12u);
  BOOST_TEST(num(cb["data_completion_ns"]["max"]) <= num(c["completion_ns"]));
  BOOST_TEST(num(cb["data_completion_ns"]["min"]) > 0);
  BOOST_TEST(num(cb["rank_average_ns"]["mean"]) <= num(cb["data_completion_ns"]["mean"]));
  BOOST_TEST(!r.result.contains("ragasa"));
}

BOOST_AUTO_TEST_CASE(the_sweep_csv_carries_each_broadcasts_aggregates_beside_the_setup) {
  const std::string dir = test::fresh_dir();
  const std::string study = test::write_study(
      dir,
      "name: broadcasts\n"
      "seed: 1\n"
      "set: {topology.p: 2, topology.a: 2, topology.h: 1, collective.bytes: 4096}\n"
      "cross:\n"
      "  collective.algorithm: [binomial, ragasa]\n"
      "  collective.roots: [one, all]\n");
  const test::outcome o = test::run_cli("sweep " + study + " -j 2 -q --out " + dir + "/out");
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  const auto csv = test::read_csv(dir + "/out/results.csv");
  BOOST_REQUIRE_EQUAL(csv.size(), 5u);
  const size_t alg = test::column(csv, "collective.algorithm");
  const size_t roots = test::column(csv, "collective.roots");
  const size_t data = test::column(csv, "collective.broadcasts.data_completion_ns.mean");
  const size_t count = test::column(csv, "collective.broadcasts.count");
  const size_t setup = test::column(csv, "ragasa.broadcasts.setup_ns.mean");
  const size_t setup_max = test::column(csv, "ragasa.broadcasts.setup_ns.max");
  const size_t span = test::column(csv, "collective.completion_ns");
  for (size_t i = 1; i < csv.size(); ++i) {
    const std::vector<std::string>& row = csv[i];
    BOOST_TEST_INFO(row[alg] << ", roots " << row[roots]);
    const bool all = row[roots] == "all";
    BOOST_TEST(row[count] == (all ? "12" : ""));
    BOOST_TEST(row[data].empty() == !all);
    if (all) BOOST_TEST(std::stod(row[data]) < std::stod(row[span]));
    BOOST_TEST(row[setup].empty() == (row[alg] != "ragasa"));
    if (row[alg] == "ragasa" && all) BOOST_TEST(std::stod(row[setup]) < std::stod(row[setup_max]));
  }
}
