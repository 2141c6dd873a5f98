// Several collectives in one run (algorithms/program.h): whole runs in-process, one per test
// case. The run itself checks, at its end, that every member of every instance holds its
// whole buffer and, under an exactly-once contract, received each byte it lacked once
// (tb/watchdog.cpp); a mixed-up match records an error and fails the run (exit 1 here: an
// exception). These cases add what the results must say.
#include "cli_runner.h"
#include "tb/simulation.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <string>

using bcastsim::tb::config;
using bcastsim::tb::run_scenario;
using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;
using nlohmann::json;

namespace {

config from_yaml(const std::string& text) {
  return config::from_yaml_text(text, "test");
}

// The instances of collective `name`, in repetition order.
std::vector<json> instances_of(const json& r, const std::string& name) {
  std::vector<json> out;
  for (const json& e : r["collectives"]) {
    if (e["collective"] == name) out.push_back(e);
  }
  return out;
}

// Four collectives with overlapping ranks, different roots, sizes, algorithms and starts;
// the same algorithm and tags twice at once, so only contexts keep their messages apart.
const char* k_mixed = R"(
collectives:
  - {name: a, algorithm: binomial, bytes: 16KiB, root: 3}
  - {name: b, algorithm: binomial, bytes: 4000, ranks: 0-35, root: 10, repeat: 3, compute_ns: 2000}
  - {name: c, algorithm: allgather-ring, bytes: 1KiB, after: a}
  - {name: d, algorithm: binomial, roots: all, bytes: 512, ranks: 36-71, start_ns: 5000}
  - {name: e, algorithm: forest, bytes: 3000, ranks: 20-50, root: 0}
)";

}  // namespace

BOOST_AUTO_TEST_CASE(overlapping_collectives_each_complete_on_every_member) {
  const json r = run_scenario(from_yaml(k_mixed));
  BOOST_TEST(r["collectives"].size() == 7u);  // b three times
  BOOST_TEST(r["collective"]["ranks_complete"] == 72);
  for (const json& e : r["collectives"]) {
    BOOST_TEST_CONTEXT(e.dump()) {
      BOOST_TEST(e["ranks_complete"] == e["ranks"]);
      BOOST_TEST(e["completion_ns"].get<double>() > 0.0);
    }
  }
  // Messages: binomial p-1; ring p(p-1); every rank broadcasting: p(p-1) as well.
  BOOST_TEST(instances_of(r, "a")[0]["messages"] == 71);
  BOOST_TEST(instances_of(r, "b")[0]["messages"] == 35);
  BOOST_TEST(instances_of(r, "c")[0]["messages"] == 72 * 71);
  BOOST_TEST(instances_of(r, "d")[0]["messages"] == 36 * 35);
  BOOST_TEST(instances_of(r, "d")[0]["buffer_bytes"] == 36 * 512);
  BOOST_TEST(instances_of(r, "e")[0]["root"] == 20);  // communicator rank 0 is job rank 20
  BOOST_TEST(r["collective"]["messages"] == 71 + 3 * 35 + 72 * 71 + 36 * 35 + 30);
  BOOST_TEST(r["packets"]["injected"] == r["packets"]["delivered"]);
  // The run's completion spans the first start to the last completion.
  double first = 1e300, last = 0;
  for (const json& e : r["collectives"]) {
    first = std::min(first, e["start_ns"].get<double>());
    last = std::max(last, e["start_ns"].get<double>() + e["completion_ns"].get<double>());
  }
  BOOST_TEST(r["collective"]["completion_ns"].get<double>() == last - first);
}

BOOST_AUTO_TEST_CASE(starts_after_and_repetitions_order_the_instances) {
  const json r = run_scenario(from_yaml(k_mixed));
  // d waits for 5 us; b's repetitions follow each other with 2 us of computation between.
  BOOST_TEST(instances_of(r, "d")[0]["start_ns"].get<double>() >= 5000.0);
  const auto b = instances_of(r, "b");
  BOOST_TEST_REQUIRE(b.size() == 3u);
  for (size_t k = 1; k < b.size(); ++k) {
    BOOST_TEST(b[k]["repetition"] == k);
    BOOST_TEST(b[k]["start_ns"].get<double>() >= b[k - 1]["start_ns"].get<double>() + 2000.0);
  }
  // c starts at each rank after its part of a: no rank sends for c before a's root has
  // made its first send call.
  BOOST_TEST(instances_of(r, "c")[0]["start_ns"].get<double>() >
             instances_of(r, "a")[0]["start_ns"].get<double>());
}

BOOST_AUTO_TEST_CASE(the_same_seed_gives_the_same_result) {
  // Random placement and random roots: the seed decides them, and nothing else varies.
  const std::string dir = fresh_dir();
  {
    std::ofstream f(dir + "/s.yaml");
    f << "job: {placement: random}\ncollective: {random_root: on}\n" << k_mixed;
  }
  json runs[3];
  const char* seeds[] = {"7", "7", "8"};
  for (int i = 0; i < 3; ++i) {
    const std::string out = dir + "/r" + std::to_string(i);
    const outcome o = run_cli("run -q " + dir + "/s.yaml --seed " + seeds[i] + " --out " + out);
    BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
    std::ifstream in(out + "/result.json");
    runs[i] = json::parse(in);
    runs[i].erase("perf");
  }
  BOOST_TEST(runs[0].dump() == runs[1].dump());
  BOOST_TEST(runs[0]["collectives"].dump() != runs[2]["collectives"].dump());
}

BOOST_AUTO_TEST_CASE(every_rank_broadcasting_is_an_all_to_all_broadcast) {
  config c;
  c.set("collective.algorithm", "binomial");
  c.set("collective.roots", "all");
  c.set("collective.bytes", "1000");
  const json r = run_scenario(c);
  const json& e = r["collectives"][0];
  BOOST_TEST(e["root"] == "all");
  BOOST_TEST(e["buffer_bytes"] == 72 * 1000);
  BOOST_TEST(e["messages"] == 72 * 71);
  BOOST_TEST(e["ranks_complete"] == 72);
  // Each rank receives 71 blocks of 1000 B in 2 packets each; none twice.
  BOOST_TEST(r["packets"]["delivered"] == 72 * 71 * 2);
}

BOOST_AUTO_TEST_CASE(computation_beside_a_host_based_broadcast_delays_its_steps) {
  // A 64 KiB broadcast 4 times with 20 us of computation per repetition. Blocking computes
  // after each broadcast; overlap (start, compute, wait) computes beside it. A host-based
  // broadcast progresses only when its host's CPU makes the send and receive calls, and the
  // one CPU serialises them with the computation (hw/nic/host.h): beside computation its
  // steps wait, as MPI's without an asynchronous progress thread do.
  json r[3];
  const char* sets[] = {
      "--set collective.repeat=4 --set collective.compute_ns=20000 "
      "--set collective.mode=blocking",
      "--set collective.repeat=4 --set collective.compute_ns=20000 "
      "--set collective.mode=overlap",
      ""};
  for (int i = 0; i < 3; ++i) {
    const std::string out = fresh_dir();
    const outcome o =
        run_cli(std::string("run -q --set collective.bytes=64KiB ") + sets[i] + " --out " + out);
    BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
    std::ifstream in(out + "/result.json");
    r[i] = json::parse(in);
  }
  const json& blocking = r[0]["collectives"];
  const json& overlap = r[1]["collectives"];
  BOOST_TEST_REQUIRE(blocking.size() == 4u);
  BOOST_TEST_REQUIRE(overlap.size() == 4u);
  // Blocking: the first broadcast is the broadcast alone, the computation comes after it.
  BOOST_TEST(blocking[0]["completion_ns"] == r[2]["collective"]["completion_ns"]);
  // Overlap: the computation its root and forwarders started delays its steps.
  BOOST_TEST(overlap[0]["completion_ns"].get<double>() >
             blocking[0]["completion_ns"].get<double>());
  // Either way a rank enters the next repetition after its 20 us of computation.
  for (size_t k = 1; k < 4; ++k) {
    BOOST_TEST(blocking[k]["start_ns"].get<double>() >=
               blocking[k - 1]["start_ns"].get<double>() + 20000.0);
    BOOST_TEST(overlap[k]["start_ns"].get<double>() >=
               overlap[k - 1]["start_ns"].get<double>() + 20000.0);
  }
}

// Ragasa broadcasts in flight together, with others, over communicators and repeated, in
// both relay modes (one simulation per process: a case each): each its own tree and
// Membership entry (collective id = context + 1); every member of every one holds every
// byte, and every packet is delivered.
void check_many_ragasa_broadcasts(const std::string& relay) {
  const json r = run_scenario(from_yaml("ragasa: {relay: " + relay + R"(}
collectives:
  - {name: a, algorithm: ragasa, roots: all, bytes: 1KiB, ranks: 0-39}
  - {name: b, algorithm: ragasa, bytes: 5000, root: 7, repeat: 3, compute_ns: 500}
  - {name: c, algorithm: binomial, bytes: 2KiB, root: 1, after: a}
  - {name: d, algorithm: ragasa, bytes: 3000, ranks: 30-71, root: 5, mode: overlap, compute_ns: 800}
)"));
  BOOST_TEST(r["collectives"].size() == 6u);
  for (const json& e : r["collectives"]) {
    BOOST_TEST_CONTEXT(e.dump()) {
      BOOST_TEST(e["ranks_complete"] == e["ranks"]);
      BOOST_TEST(e["completion_ns"].get<double>() > 0.0);
    }
  }
  BOOST_TEST(instances_of(r, "a")[0]["messages"] == 40 * 39);
  BOOST_TEST(instances_of(r, "d")[0]["root"] == 35);
  const json& pk = r["packets"];
  BOOST_TEST(pk["injected"].get<uint64_t>() + pk["offload_copies"].get<uint64_t>() ==
             pk["delivered"].get<uint64_t>() + pk["offload_taken"].get<uint64_t>());
  // One Mini Packet per participating router and broadcast: 40 + 3 + 1 broadcasts.
  BOOST_TEST(r["ragasa"]["setup"]["mini_packets"].get<uint64_t>() >= 44u);
  // Step 10 freed every entry once its broadcast's data had left the unit.
  BOOST_TEST(r["ragasa"]["setup"]["entries_freed"] == r["ragasa"]["setup"]["mini_packets"]);
}

BOOST_AUTO_TEST_CASE(ragasa_broadcasts_run_many_at_once_nodes_relaying) {
  check_many_ragasa_broadcasts("node");
}

BOOST_AUTO_TEST_CASE(ragasa_broadcasts_run_many_at_once_units_relaying) {
  check_many_ragasa_broadcasts("unit");
}

// More broadcasts than a Membership Table holds: step 10 frees each unit's entry when the
// broadcast's data have left it, and the management node holds a unit's next Mini Packet
// until then. Every rank still gets every byte; no table ever holds more than 4 entries.
BOOST_AUTO_TEST_CASE(more_ragasa_broadcasts_than_table_entries_wait_for_freed_entries) {
  const json small = run_scenario(from_yaml(R"(
collective: {algorithm: ragasa, roots: all, bytes: 2KiB}
ragasa: {membership_entries: 4}
)"));
  BOOST_TEST(small["collective"]["ranks_complete"] == 72);
  BOOST_TEST(small["collectives"][0]["messages"] == 72 * 71);
  const json& setup = small["ragasa"]["setup"];
  const json& units = small["ragasa"]["units"];
  // Every entry a Mini Packet made was freed again, and some Mini Packets were held.
  BOOST_TEST(setup["entries_freed"] == setup["mini_packets"]);
  BOOST_TEST(units["membership_freed"] == setup["mini_packets"]);
  BOOST_TEST(setup["mini_packets_held"].get<uint64_t>() > 0u);
  BOOST_TEST(setup["mini_packet_wait_ns"].get<double>() > 0.0);
  // Held at the management node: a unit never finds its table full.
  BOOST_TEST(units["membership_stall_ns"].get<double>() == 0.0);
  // The fullest table held 4 (the report takes the highest unit's high-water mark).
  BOOST_TEST(units["membership_peak_entries"] == 4);
  const json& pk = small["packets"];
  BOOST_TEST(pk["injected"].get<uint64_t>() + pk["offload_copies"].get<uint64_t>() ==
             pk["delivered"].get<uint64_t>() + pk["offload_taken"].get<uint64_t>());
}

// Units free entries at the same picoseconds in both models of the unit, but the kernel runs
// them in another order; the management node settles what they reported in collective and
// router order, so held Mini Packets go out in the same order and the results agree (they
// differed by 39 ns of completion before).
BOOST_AUTO_TEST_CASE(both_unit_models_release_held_mini_packets_in_the_same_order) {
  const std::string run =
      "run -q --set collective.algorithm=ragasa --set collective.roots=all "
      "--set collective.bytes=1KiB --set ragasa.relay=unit --set ragasa.membership_entries=2";
#ifdef BCASTSIM_WITH_VERILATOR
  const std::string dir = fresh_dir();
  json r[2];
  const char* models[] = {"systemc", "rtl"};
  for (int i = 0; i < 2; ++i) {
    const std::string out = dir + "/" + models[i];
    const outcome o = run_cli(run + " --set ragasa.model=" + models[i] + " --out " + out);
    BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
    std::ifstream in(out + "/result.json");
    r[i] = json::parse(in);
  }
  BOOST_TEST(r[0]["ragasa"]["setup"]["mini_packets_held"].get<uint64_t>() > 0u);
  BOOST_TEST(r[0]["collective"]["completion_ns"] == r[1]["collective"]["completion_ns"]);
  BOOST_TEST(r[0]["ragasa"]["setup"]["setup_ns"] == r[1]["ragasa"]["setup"]["setup_ns"]);
  BOOST_TEST(r[0]["ragasa"]["setup"]["mini_packet_wait_ns"] ==
             r[1]["ragasa"]["setup"]["mini_packet_wait_ns"]);
#else
  const outcome o = run_cli(run + " --set ragasa.model=rtl");
  BOOST_TEST(o.code == 2, o.output);
#endif
}

BOOST_AUTO_TEST_CASE(a_zero_byte_allgather_is_complete_at_once_and_ends_background_traffic) {
  // Nothing to send: every member holds its (empty) buffer from the start, so the background
  // traffic, which runs until every collective is complete, stops at once.
  const std::string out = fresh_dir();
  const outcome o = run_cli(
      "run -q --set job.ranks=64 --set job.placement=contiguous --set traffic.kind=background "
      "--set collective.algorithm=allgather-ring --set collective.bytes=0 --out " +
      out);
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  std::ifstream in(out + "/result.json");
  const json r = json::parse(in);
  BOOST_TEST(r["collectives"][0]["ranks_complete"] == 64);
  BOOST_TEST(r["collective"]["ranks_complete"] == 64);  // the job's ranks
  BOOST_TEST(r["collective"]["completion_ns"] == 0.0);
  BOOST_TEST(r["sim_time_ns"].get<double>() < 1e6);
}

// A zero-byte Ragasa broadcast still sends a packet (one wire byte) per tree edge, so with
// every rank a root each rank is done when the last of its 71 messages has come, not the first
// (it was: rank average 2.1 us against 41.8 us for one byte).
BOOST_AUTO_TEST_CASE(zero_byte_broadcasts_from_every_rank_wait_for_every_message) {
  const auto run = [](uint64_t bytes) {  // in its own process: one SystemC design each
    const std::string out = fresh_dir();
    const outcome o = run_cli("run -q --set collective.algorithm=ragasa --set "
                              "collective.roots=all --set collective.bytes=" +
                              std::to_string(bytes) + " --out " + out);
    BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
    std::ifstream in(out + "/result.json");
    return json::parse(in);
  };
  const json zero = run(0);
  const json one = run(1);
  BOOST_TEST(zero["collective"]["ranks_complete"] == 72);
  BOOST_TEST(zero["collective"]["completion_ns"] == one["collective"]["completion_ns"]);
  BOOST_TEST(zero["collective"]["rank_completion_ns_avg"] ==
             one["collective"]["rank_completion_ns_avg"]);
}

BOOST_AUTO_TEST_CASE(collectives_beyond_the_job_or_simulated_time_are_refused_at_once) {
  using bcastsim::test::contains;
  struct refusal {
    const char* args;
    const char* says;
  };
  const refusal cases[] = {
      // Checked against the job before the range is expanded (was 400 MB and 3.5 s).
      {"--set collective.ranks=0-99999999", "collective.ranks names rank 99999999, not a rank"},
      {"--set collective.start_ns=20000000000", "collective.start_ns = 20000000000 is not before"},
      {"--set collective.repeat=100 --set collective.compute_ns=1000000000000000 "
       "--set sim.max_time_ns=0",
       "exceed 1e16 ns"},
      {"--set sim.max_time_ns=1e17", "sim.max_time_ns"},
      {"--set collectives.0.algorithm=nope", "collectives.0.algorithm = 'nope' is not known"},
      {"--set collectives.0.algorithm=allgather-rd --set collectives.0.ranks=0-2",
       "collectives.0.algorithm"},
      {"--set collective.repeat=100000 --set collective.bytes=1", "collective.repeat: the "},
  };
  for (const refusal& c : cases) {
    const outcome o = run_cli(std::string("run -q ") + c.args + " --out " + fresh_dir());
    BOOST_TEST(o.code == 2, c.args << ": " << o.output);
    BOOST_TEST(contains(o.output, c.says), c.args << ": " << o.output);
  }
}
