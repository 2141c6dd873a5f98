// Ragasa's Working Memory (hw/ragasa/bcast_unit.h): chunks close once the descriptor threshold
// is in or their message is complete, never early because memory is short. So a smaller
// Working Memory never finishes sooner: each case runs one scenario at several sizes (a
// process each, through the CLI) and checks that completion and memory stall never improve
// as the memory shrinks. The single-router networks keep the network's own dynamics out (on
// a dragonfly a slower unit can pace its copies into less contention downstream: see
// experiments/ragasa/README.md). A memory too small for the open chunks of several
// collectives stops with a diagnosis naming the unit, its collectives and the stage.
#include "cli_runner.h"

#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

using bcastsim::test::contains;
using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;
using nlohmann::json;

namespace {

// A torus node's ABC unit (12 routers), 16 terminals on each.
const std::string k_torus =
    "--set topology.kind=torus --set topology.x=1 --set topology.y=1 --set topology.z=1 "
    "--set topology.terminals_per_node=16 --set collective.algorithm=ragasa "
    "--set ragasa.rx_queue_packets=2 ";

struct point {
  double completion_ns;
  double stall_ns;
};

point run_with_memory(const std::string& args, uint64_t memory) {
  const std::string dir = fresh_dir();
  const outcome o = run_cli("run -q " + args + " --set ragasa.working_memory_bytes=" +
                            std::to_string(memory) + " --out " + dir);
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  std::ifstream in(dir + "/result.json");
  const json r = json::parse(in);
  return {r["collective"]["completion_ns"].get<double>(),
          r["ragasa"]["units"]["memory_stall_ns"].get<double>()};
}

// Completion and stall never decrease as the memory shrinks; the smallest memory stalls.
void check_monotone(const std::string& args, const std::vector<uint64_t>& memories) {
  std::vector<point> pts;
  for (const uint64_t m : memories) pts.push_back(run_with_memory(args, m));
  for (size_t k = 1; k < pts.size(); ++k) {
    BOOST_TEST_CONTEXT(memories[k - 1] << " B against " << memories[k] << " B") {
      BOOST_TEST(pts[k - 1].completion_ns >= pts[k].completion_ns);
      BOOST_TEST(pts[k - 1].stall_ns >= pts[k].stall_ns);
    }
  }
  BOOST_TEST(pts.front().stall_ns > 0.0);
  BOOST_TEST(pts.back().stall_ns == 0.0);
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_broadcast_never_finishes_sooner_with_less_memory) {
  check_monotone(k_torus + "--set collective.bytes=65536",
                 {4096, 8192, 16384, 32768, 65536, 131072});
}

BOOST_AUTO_TEST_CASE(all_roots_never_finish_sooner_with_less_memory) {
  // 8 roots on one router: at most 8 open chunks of 1 KiB.
  check_monotone(k_torus +
                     "--set job.ranks=8 --set job.placement=contiguous --set collective.roots=all "
                     "--set collective.bytes=8192 --set ragasa.descriptor_threshold_bytes=1024",
                 {12288, 16384, 24576, 32768, 65536});
}

BOOST_AUTO_TEST_CASE(units_relaying_on_the_dragonfly_never_finish_sooner_with_less_memory) {
  check_monotone("--set collective.algorithm=ragasa --set ragasa.relay=unit "
                 "--set collective.bytes=16384 --set ragasa.rx_queue_packets=2",
                 {4096, 8192, 16384, 32768, 65536});
}

// 32 roots on two routers, 16 on each: 16 open chunks of 4 KiB cannot fit 16 KiB.
BOOST_AUTO_TEST_CASE(open_chunks_filling_the_memory_stop_with_a_diagnosis) {
  const outcome o = run_cli("run -q " + k_torus +
                            "--set job.ranks=32 --set job.placement=contiguous "
                            "--set collective.roots=all --set collective.bytes=8192 "
                            "--set ragasa.working_memory_bytes=16384");
  BOOST_TEST(o.code == 1, o.output);
  BOOST_TEST(contains(o.output, "stalled"), o.output);
  BOOST_TEST(contains(o.output, "fabric.unit_0: "), o.output);
  BOOST_TEST(contains(o.output, "Working Memory 16384/16384 bytes"), o.output);
  BOOST_TEST(contains(o.output, "waits for Working Memory"), o.output);
  BOOST_TEST(contains(o.output, "collective 16: 2 packets in an open chunk"), o.output);
  BOOST_TEST(contains(o.output, "message-dependent deadlock"), o.output);
}

// Units relaying with all 72 nodes broadcasting 8 KiB: trees crossing in opposite
// directions wait on each other's memory through the routers. The report shows the units
// first, and says so.
BOOST_AUTO_TEST_CASE(units_relaying_deadlock_is_named_in_the_stall_report) {
  const outcome o = run_cli(
      "run -q --set collective.algorithm=ragasa --set ragasa.relay=unit "
      "--set collective.roots=all --set collective.bytes=8KiB");
  BOOST_TEST(o.code == 1, o.output);
  BOOST_TEST(contains(o.output, "fabric.unit_"), o.output);
  BOOST_TEST(contains(o.output, "Working Memory 65536/65536 bytes"), o.output);
  BOOST_TEST(contains(o.output, "message-dependent deadlock"), o.output);
}

// The RTL model deadlocked the same way stops as promptly: its wrapper stops clocking a core
// that can change only through an input, so the simulation runs out of events (it was
// clocked on to the time limit, about a day of wall time at the default limit).
BOOST_AUTO_TEST_CASE(rtl_deadlock_stops_when_the_model_s_does) {
  const std::string deadlock =
      "run -q --set collective.algorithm=ragasa --set ragasa.relay=unit "
      "--set collective.roots=all --set ragasa.working_memory_bytes=8192 "
      "--set ragasa.membership_entries=3";
#ifdef BCASTSIM_WITH_VERILATOR
  const outcome sc = run_cli(deadlock);
  const outcome rtl = run_cli(deadlock + " --set ragasa.model=rtl");
  BOOST_TEST(sc.code == 1, sc.output);
  BOOST_TEST(rtl.code == 1, rtl.output);
  BOOST_TEST(contains(sc.output, "stalled at 33785826 ps: no event is pending"), sc.output);
  BOOST_TEST(contains(rtl.output, "stalled at 33785826 ps: no event is pending"), rtl.output);
  BOOST_TEST(contains(rtl.output, "fabric.unit_0 (RTL): "), rtl.output);
  BOOST_TEST(contains(rtl.output, "Working Memory 8192/8192 bytes"), rtl.output);
#else
  const outcome rtl = run_cli(deadlock + " --set ragasa.model=rtl");
  BOOST_TEST(rtl.code == 2, rtl.output);
  BOOST_TEST(contains(rtl.output, "needs a build with Verilator"), rtl.output);
#endif
}
