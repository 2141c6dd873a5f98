// Ragasa's Working Memory (hw/ragasa/bcast_unit.h): chunks close once the descriptor threshold
// is in or their message is complete, never early because memory is short. So a smaller
// Working Memory never finishes sooner: each case runs one scenario at several sizes (a
// process each, through the CLI) and checks that completion and memory stall never improve
// as the memory shrinks. The single-router networks keep the network's own dynamics out (on
// a dragonfly a slower unit can pace its copies into less contention downstream: see
// experiments/ragasa/README.md). The scenarios that deadlocked before issue 40 complete
// (hw/ragasa/README.md: the mechanisms, each tested here).
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
// A broadcast reserves all of its message that the memory holds (hw/ragasa/README.md): so
// the memory, not the default four chunks, bounds what it stores.
const std::string k_whole = "--set ragasa.reserved_chunks=1024 ";

struct point {
  double completion_ns;
  double stall_ns;
};

point run_with_memory(const std::string& args, uint64_t memory) {
  const std::string dir = fresh_dir();
  const outcome o =
      run_cli("run -q " + args + " --set ragasa.working_memory_bytes=" + std::to_string(memory) +
              " --out " + dir);
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

json run_json(const std::string& args) {
  const std::string dir = fresh_dir();
  const outcome o = run_cli("run -q " + args + " --out " + dir);
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  std::ifstream in(dir + "/result.json");
  return json::parse(in);
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_broadcast_never_finishes_sooner_with_less_memory) {
  check_monotone(k_torus + k_whole + "--set collective.bytes=65536",
                 {4096, 8192, 16384, 32768, 65536, 131072});
}

// 8 roots on one router, 8 KiB each, each reserving its whole message at admission: a
// smaller memory admits fewer at once, and the rest wait for their set-up
// (mini_packet_wait_ns), never for memory. Less memory serialises the broadcasts at the
// unit's port instead of interleaving them; the last one then ends up to 0.7 % sooner (a
// service-order effect: experiments/ragasa/README.md), never more than 1 %.
BOOST_AUTO_TEST_CASE(all_roots_wait_for_admission_not_memory_as_memory_shrinks) {
  const std::vector<uint64_t> memories = {12288, 16384, 24576, 32768, 65536};
  std::vector<json> rs;
  for (const uint64_t m : memories) {
    rs.push_back(run_json(k_torus + k_whole +
                          "--set job.ranks=8 --set job.placement=contiguous "
                          "--set collective.roots=all --set collective.bytes=8192 "
                          "--set ragasa.descriptor_threshold_bytes=1024 "
                          "--set ragasa.working_memory_bytes=" +
                          std::to_string(m)));
  }
  const auto wait = [](const json& r) {
    return r["ragasa"]["setup"]["mini_packet_wait_ns"].get<double>();
  };
  const auto done = [](const json& r) { return r["collective"]["completion_ns"].get<double>(); };
  for (size_t k = 0; k < rs.size(); ++k) {
    BOOST_TEST_CONTEXT(memories[k] << " B") {
      BOOST_TEST(rs[k]["ragasa"]["units"]["memory_stall_ns"].get<double>() == 0.0);
      if (k > 0) {
        BOOST_TEST(wait(rs[k - 1]) > wait(rs[k]));
        BOOST_TEST(done(rs[k - 1]) >= 0.99 * done(rs[k]));
      }
    }
  }
  BOOST_TEST(wait(rs.back()) == 0.0);  // 64 KiB holds all eight
}

BOOST_AUTO_TEST_CASE(units_relaying_on_the_dragonfly_never_finish_sooner_with_less_memory) {
  check_monotone(
      "--set collective.algorithm=ragasa --set ragasa.relay=unit "
      "--set collective.bytes=16384 --set ragasa.rx_queue_packets=2",
      {4096, 8192, 16384, 32768, 65536});
}

// 32 roots on two routers, 16 on each: 16 open chunks of 4 KiB did not fit 16 KiB and the
// units deadlocked (before issue 40). Each broadcast now reserves its share of Working
// Memory when its Mini Packet is admitted (hw/ragasa/README.md, mechanism 3), so the
// management node holds the Mini Packets of the broadcasts that do not fit yet.
BOOST_AUTO_TEST_CASE(open_chunks_of_many_broadcasts_wait_for_admission_instead_of_deadlocking) {
  const json r = run_json(k_torus +
                          "--set job.ranks=32 --set job.placement=contiguous "
                          "--set collective.roots=all --set collective.bytes=8192 "
                          "--set ragasa.working_memory_bytes=16384");
  BOOST_TEST(r["ragasa"]["setup"]["mini_packets_held"].get<uint64_t>() > 0u);
  BOOST_TEST(r["ragasa"]["units"]["working_memory_peak_bytes"].get<uint64_t>() <= 16384u);
}

// Units relaying with all 72 nodes broadcasting 8 KiB: trees crossing in opposite directions
// waited on each other's memory through the routers (a message-dependent deadlock, before
// issue 40). A unit now sends a child unit a batch only with credits for it (mechanism 4).
BOOST_AUTO_TEST_CASE(units_relaying_with_every_node_broadcasting_completes) {
  const json r = run_json(
      "--set collective.algorithm=ragasa --set ragasa.relay=unit "
      "--set collective.roots=all --set collective.bytes=8KiB");
  BOOST_TEST(r["ragasa"]["units"]["credit_returns"].get<uint64_t>() > 0u);
  BOOST_TEST(r["collective"]["broadcasts"]["count"].get<uint64_t>() == 72u);
}

// One broadcast, a unit's reservation of one chunk: a parent sends a child unit no more
// than the child reserved, so no unit ever holds more than a chunk, and parents wait for
// the credits coming back.
BOOST_AUTO_TEST_CASE(a_parent_unit_never_sends_beyond_its_child_s_reservation) {
  const json r = run_json(
      "--set collective.algorithm=ragasa --set ragasa.relay=unit --set collective.bytes=64KiB "
      "--set ragasa.reserved_chunks=1 --set output.block_stats=on");
  BOOST_TEST(r["ragasa"]["units"]["credit_wait_ns"].get<double>() > 0.0);
  for (const auto& [name, b] : r["blocks"].items()) {
    if (name.find("fabric.unit_") != 0) continue;
    BOOST_TEST(b["working_memory_peak_bytes"].get<uint64_t>() <= 4096u, name);
  }
}

// The run's summary splits what the units took in: Mini Packets, credit returns, data.
BOOST_AUTO_TEST_CASE(the_summary_counts_credit_returns_apart_from_data) {
  const std::string dir = fresh_dir();
  const outcome o =
      run_cli("run --set collective.algorithm=ragasa --set ragasa.relay=unit --out " + dir);
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  std::ifstream in(dir + "/result.json");
  const json r = json::parse(in);
  const uint64_t taken = r["ragasa"]["units"]["packets_in"];
  const uint64_t mini = r["ragasa"]["setup"]["mini_packets"];
  const uint64_t credits = r["ragasa"]["units"]["credit_returns"];
  BOOST_TEST(credits > 0u);
  BOOST_TEST(contains(o.output, "(" + std::to_string(mini) + " Mini Packets, " +
                                    std::to_string(credits) + " credit returns, " +
                                    std::to_string(taken - mini - credits) + " data)"),
             o.output);
}

// A unit port with fewer than three VCs cannot keep the classes apart: refused up front.
BOOST_AUTO_TEST_CASE(ragasa_with_fewer_than_three_vcs_is_refused_naming_the_key) {
  const outcome o = run_cli("run -q --set collective.algorithm=ragasa --set router.vcs=2");
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "router.vcs = 2"), o.output);
  BOOST_TEST(contains(o.output, "allowed: at least 3"), o.output);
}

// A credit return larger than a packet would never find room in the router's buffers.
BOOST_AUTO_TEST_CASE(a_credit_return_larger_than_a_packet_is_refused_naming_the_key) {
  const outcome o =
      run_cli("run -q --set collective.algorithm=ragasa --set ragasa.credit_packet_bytes=40886");
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "ragasa.credit_packet_bytes = 40886"), o.output);
  BOOST_TEST(contains(o.output, "allowed: 1 to 512"), o.output);
}

// The RTL model runs the same scenario to the same end (it deadlocked with the SystemC model
// at the same time before issue 40).
BOOST_AUTO_TEST_CASE(rtl_and_systemc_complete_the_former_deadlock_alike) {
  const std::string scenario =
      "--set collective.algorithm=ragasa --set ragasa.relay=unit "
      "--set collective.roots=all --set ragasa.working_memory_bytes=8192 "
      "--set ragasa.membership_entries=3 --set collective.bytes=2KiB";
#ifdef BCASTSIM_WITH_VERILATOR
  const json sc = run_json(scenario);
  const json rtl = run_json(scenario + " --set ragasa.model=rtl");
  BOOST_TEST(sc["collective"]["completion_ns"] == rtl["collective"]["completion_ns"]);
  BOOST_TEST(sc["ragasa"]["units"] == rtl["ragasa"]["units"]);
#else
  const outcome rtl = run_cli("run -q " + scenario + " --set ragasa.model=rtl");
  BOOST_TEST(rtl.code == 2, rtl.output);
  BOOST_TEST(contains(rtl.output, "needs a build with Verilator"), rtl.output);
#endif
}
