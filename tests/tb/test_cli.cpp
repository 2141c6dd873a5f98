// The bcastsim program as a user runs it: exit codes, messages, result.json, determinism,
// waveforms. Each case runs the real binary in a fresh directory.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>
#include "cli_runner.h"
#include "vcd_reader.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

using bcastsim::test::contains;
using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;

namespace {

nlohmann::json load(const std::string& path) {
  std::ifstream in(path);
  BOOST_REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  return nlohmann::json::parse(in);
}

void expect_bad_input(const std::string& args, const std::string& text) {
  const outcome o = run_cli(args);
  BOOST_TEST(o.code == 2, args << " -> " << o.code << ": " << o.output);
  BOOST_TEST(contains(o.output, text), args << " output: " << o.output);
}

}  // namespace

BOOST_AUTO_TEST_CASE(run_default_prints_table_and_writes_result) {
  const std::string dir = fresh_dir();
  const outcome o = run_cli("run --out " + dir);
  BOOST_TEST(o.code == 0, o.output);
  for (const char* row : {"completion", "packets", "traversals global", "hops", "latency",
                          "wall time", "packet-hops/s"}) {
    BOOST_TEST(contains(o.output, row), row);
  }
  BOOST_TEST(!contains(o.output, "Copyright"));  // no SystemC banner
  const auto r = load(dir + "/result.json");
  for (const char* key :
       {"/schema", "/seed", "/config", "/job/terminals_fnv1a", "/sim_time_ns",
        "/collective/completion_ns", "/traversals/terminal/packets", "/traversals/local/messages",
        "/traversals/global/messages", "/packets/injected", "/packets/delivered",
        "/packets/hops_avg", "/packets/latency_ns_avg", "/packets/latency_ns_max", "/perf/wall_s",
        "/perf/packet_hops", "/perf/packet_hops_per_s", "/perf/peak_rss_mb"}) {
    BOOST_TEST(r.contains(nlohmann::json::json_pointer(key)), key);
  }
  BOOST_TEST(r["collective"]["ranks"].get<int>() == 72);
  BOOST_TEST(r["packets"]["delivered"] == r["packets"]["injected"]);
}

BOOST_AUTO_TEST_CASE(bad_input_exits_2_naming_the_key) {
  expect_bad_input("run --set topology.nodez=3", "unknown key 'topology.nodez'");
  expect_bad_input("run --set topology.nodes=3", "topology.nodes belongs to topology.kind myrinet");
  expect_bad_input("run --set topology.g=10", "topology.g = 10 is out of range");
  expect_bad_input("run --set topology.a=8 --set topology.h=2 --set topology.g=18", "topology.g");
  expect_bad_input("run --set router.vc_buffer_bytes.terminal=256", "cannot hold one packet");
  expect_bad_input("run --set collective.algorithm=hypercube", "allowed: binomial");
  expect_bad_input("run --set routing.kind=ugal",
                   "allowed: minimal, nonminimal, valiant, adaptive");
  expect_bad_input("run --set job.ranks=100", "job.ranks");
  expect_bad_input("run --no-such-flag", "--no-such-flag");
  expect_bad_input("run /nonexistent/scenario.yaml", "cannot read scenario file");
  expect_bad_input("frobnicate", "unknown command 'frobnicate'; allowed: run, list");
  const std::string dir = fresh_dir();
  {
    std::ofstream f(dir + "/s.yaml");
    f << "collective:\n  byte: 10\n";
  }
  expect_bad_input("run " + dir + "/s.yaml",
                   "unknown key 'collective.byte' (in " + dir + "/s.yaml)");
}

BOOST_AUTO_TEST_CASE(stalled_simulation_exits_1_with_diagnosis) {
  // The time limit stops the broadcast midway: the watchdog names what is still busy.
  const outcome o = run_cli("run --set sim.max_time_ns=4000 --out " + fresh_dir());
  BOOST_TEST(o.code == 1, o.output);
  BOOST_TEST(contains(o.output, "sim.max_time_ns"));
  BOOST_TEST(contains(o.output, "fabric.router_"));
  BOOST_TEST(contains(o.output, "VC"));
  BOOST_TEST(contains(o.output, "credit"));
  BOOST_TEST(contains(o.output, "waits for message 0 from rank"));  // its number from that rank
}

BOOST_AUTO_TEST_CASE(same_seed_gives_identical_result) {
  const std::string args =
      "run -q --set job.placement=random --set job.ranks=40 "
      "--set collective.bytes=3000 --set collective.root=5";
  const std::string a = fresh_dir(), b = fresh_dir(), c = fresh_dir();
  BOOST_REQUIRE(run_cli(args + " --seed 7 --out " + a).code == 0);
  BOOST_REQUIRE(run_cli(args + " --seed 7 --out " + b).code == 0);
  BOOST_REQUIRE(run_cli(args + " --seed 8 --out " + c).code == 0);
  auto ra = load(a + "/result.json"), rb = load(b + "/result.json"), rc = load(c + "/result.json");
  ra.erase("perf");
  rb.erase("perf");
  rc.erase("perf");
  BOOST_TEST(ra.dump() == rb.dump());
  BOOST_TEST(ra["seed"].get<int>() == 7);
  // Another seed places the ranks elsewhere: the run differs.
  BOOST_TEST(ra.dump() != rc.dump());
  BOOST_TEST(ra["collective"]["completion_ns"] != rc["collective"]["completion_ns"]);
}

BOOST_AUTO_TEST_CASE(vcd_of_a_router_and_a_nic_has_changing_signals) {
  const std::string dir = fresh_dir();
  const outcome o =
      run_cli("run -q --vcd " + dir + "/w.vcd --set trace.blocks=router_0,nic_0 --out " + dir);
  BOOST_TEST(o.code == 0, o.output);
  const bcastsim::test::vcd_summary v = bcastsim::test::read_vcd(dir + "/w.vcd");
  BOOST_TEST(v.names.size() > 10u);
  const std::map<std::string, int>& changes = v.changes;
  auto changed = [&](const std::string& part) {
    for (const auto& [name, n] : changes) {
      if (contains(name, part) && n > 0) return true;
    }
    return false;
  };
  BOOST_TEST(changed("router_0.packets"));
  BOOST_TEST(changed("router_0.port0.in.vc0.occupancy_bytes"));
  BOOST_TEST(changed("router_0.port1.out.busy"));  // toward rank 1 (terminal 1)
  BOOST_TEST(changed("nic_0.packets_injected"));
  BOOST_TEST(changed("nic_0.inject.vc0.credit_bytes"));
}

BOOST_AUTO_TEST_CASE(vcd_window_limits_the_changes) {
  const std::string dir = fresh_dir();
  const outcome o = run_cli("run -q --vcd " + dir +
                            "/w.vcd --set trace.start_ns=2000 "
                            "--set trace.end_ns=5000 --out " +
                            dir);
  BOOST_TEST(o.code == 0, o.output);
  std::ifstream in(dir + "/w.vcd");
  std::string line;
  // Timestamps followed by value changes (the file ends with a bare closing timestamp).
  std::vector<uint64_t> stamps;
  uint64_t current = 0;
  bool recorded = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '$') continue;
    if (line[0] == '#') {
      current = std::stoull(line.substr(1));
      recorded = false;
    } else if (!recorded) {
      stamps.push_back(current);
      recorded = true;
    }
  }
  BOOST_REQUIRE(stamps.size() > 2u);
  // After the initial values, every change lies inside [2000 ns, 5000 ns] (1 ps units).
  for (size_t i = 1; i < stamps.size(); ++i) {
    BOOST_TEST(stamps[i] >= 2000000u);
    BOOST_TEST(stamps[i] <= 5000000u);
  }
}

BOOST_AUTO_TEST_CASE(list_names_algorithms_routings_and_keys) {
  const outcome o = run_cli("list");
  BOOST_TEST(o.code == 0);
  for (const char* s : {"binomial", "tree", "minimal", "dragonfly", "collective.bytes", "wait_ps",
                        "busy_ps", "latency_ps", "cpu_busy_ps", "router.vc_buffer_bytes.global",
                        "link.global.bandwidth_gib_per_s"}) {
    BOOST_TEST(contains(o.output, s), s);
  }
  BOOST_TEST(run_cli("--help").code == 0);
}
