// Tofu2 persistent broadcasts in whole runs (collective.algorithm: tofu2-*): every byte
// reaches every rank once (the watchdog checks it, exit 1 otherwise) for every algorithm,
// mode, root, segment count and repetition; MPI_Bcast_init is paid once and MPI_Start is
// cheap; the offload overlaps computation and the host-progressed baseline does not; a full
// TOQ back-pressures the host; runs are deterministic; bad input exits 2 naming the key.
//
// Every case runs the real binary (one SystemC design per process) on the paper's machine,
// a 12-node Tofu unit (topology x = y = z = 1) with 4 TNIs per node and one rank per node.
#include "cli_result.h"
#include "gtkw_reader.h"
#include "vcd_reader.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace bcastsim;
using test::contains;
using test::fresh_dir;
using test::run_cli;

namespace {

using test::run_result;
using test::set_args;

// The unit, one rank per node, 1 MiB unless a set says otherwise; `sets` come last.
run_result run_unit(const std::string& algorithm, const std::vector<std::string>& sets) {
  std::vector<std::string> all = {"topology.kind=torus",
                                  "topology.x=1",
                                  "topology.y=1",
                                  "topology.z=1",
                                  "topology.terminals_per_node=4",
                                  "job.ranks_per_node=1",
                                  "collective.bytes=1048576",
                                  "collective.algorithm=" + algorithm};
  all.insert(all.end(), sets.begin(), sets.end());
  return test::run_for_json("run", set_args(all));
}

const auto tolerance = boost::test_tools::tolerance(1e-9);

double num(const nlohmann::json& j) {
  return j.get<double>();
}

const std::vector<std::string> k_algorithms = {"tofu2-pipeline", "tofu2-trinary",
                                               "tofu2-trinaryx3"};

}  // namespace

BOOST_AUTO_TEST_CASE(every_tofu2_algorithm_delivers_every_byte_in_both_modes) {
  for (const std::string& a : k_algorithms) {
    for (const std::string mode : {"offload", "host"}) {
      for (const std::string root : {"0", "5", "11"}) {
        for (const std::string seg : {"1", "3"}) {
          const std::vector<std::string> sets = {"tofu2.mode=" + mode, "collective.root=" + root,
                                                 "tofu2.segments=" + seg, "collective.bytes=100003",
                                                 "collective.repeat=2"};
          BOOST_TEST_CONTEXT(a << set_args(sets)) {
            const run_result r = run_unit(a, sets);
            BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
            BOOST_TEST(r.result["collective"]["ranks_complete"] == 12);
            const nlohmann::json& reps = r.result["tofu2"]["collectives"][0]["repetitions"];
            BOOST_TEST(reps.size() == 2u);
            for (const nlohmann::json& rep : reps) BOOST_TEST(num(rep["completion_ns"]) > 0.0);
            BOOST_TEST(r.result["tofu2"]["mode"] == mode);
          }
        }
      }
    }
  }
}

// Beyond the unit: 20 ranks drawn on a 2 x 2 x 1 torus (48 nodes), and a zero-byte broadcast.
BOOST_AUTO_TEST_CASE(tofu2_runs_on_random_ranks_of_a_larger_torus_and_with_no_bytes) {
  for (const std::string& a : k_algorithms) {
    BOOST_TEST_CONTEXT(a) {
      const run_result big =
          run_unit(a, {"topology.x=2", "topology.y=2", "job.placement=random", "job.ranks=20",
                       "collective.root=7", "seed=3", "tofu2.segments=5"});
      BOOST_TEST_REQUIRE(big.out.code == 0, big.out.output);
      BOOST_TEST(big.result["collective"]["ranks_complete"] == 20);
      const run_result empty = run_unit(a, {"collective.bytes=0"});
      BOOST_TEST_REQUIRE(empty.out.code == 0, empty.out.output);
      BOOST_TEST(empty.result["collective"]["ranks_complete"] == 12);
    }
  }
}

// Three repetitions: init once (the address exchange and readiness reports are not repeated),
// every MPI_Start costs the same and far less than init, every repetition takes as long.
BOOST_AUTO_TEST_CASE(persistent_init_is_paid_once_and_start_is_cheap) {
  const run_result r = run_unit("tofu2-trinaryx3", {"tofu2.segments=4", "collective.repeat=3"});
  BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
  const nlohmann::json& t = r.result["tofu2"];
  const nlohmann::json& reps = t["collectives"][0]["repetitions"];
  BOOST_TEST_REQUIRE(reps.size() == 3u);
  BOOST_TEST(num(t["init_ns"]) > 5 * num(t["start_ns"]));
  for (const nlohmann::json& rep : reps) {
    BOOST_TEST(num(rep["start_ns"]) == num(reps[0]["start_ns"]));
    // Within a nanosecond: a repetition starts at another phase of the links' serialisation.
    BOOST_TEST(num(rep["completion_ns"]) == num(reps[0]["completion_ns"]),
               boost::test_tools::tolerance(1e-5));
  }
  // MPI_Start grows with the segments (the root enqueues more puts).
  const run_result more = run_unit("tofu2-trinaryx3", {"tofu2.segments=16"});
  BOOST_TEST_REQUIRE(more.out.code == 0, more.out.output);
  BOOST_TEST(num(more.result["tofu2"]["start_ns"]) > num(t["start_ns"]));
  // The address exchange and readiness reports: once, not per repetition.
  const run_result once = run_unit("tofu2-trinaryx3", {"tofu2.segments=4"});
  BOOST_TEST_REQUIRE(once.out.code == 0, once.out.output);
  const uint64_t m1 = once.result["tofu2"]["messages"].get<uint64_t>();
  const uint64_t m3 = t["messages"].get<uint64_t>();
  const uint64_t setup = 3 * 11 + 11;  // per fragment an address per child; 11 ready reports
  BOOST_TEST(m3 == 3 * (m1 - setup) + setup);
}

// 100 us of computation between MPI_Start and MPI_Wait: the offloaded broadcast hides all of
// it; the host-progressed one cannot progress while its CPU computes, so the run lengthens.
BOOST_AUTO_TEST_CASE(the_offload_overlaps_computation_and_the_host_baseline_does_not) {
  auto total = [](const std::string& mode, const std::string& compute) {
    const run_result r = run_unit(
        "tofu2-trinaryx3", {"tofu2.mode=" + mode, "tofu2.segments=16", "collective.mode=overlap",
                            "collective.compute_ns=" + compute});
    BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
    return r.result;
  };
  const nlohmann::json off0 = total("offload", "0");
  const nlohmann::json off1 = total("offload", "100000");
  const nlohmann::json host0 = total("host", "0");
  const nlohmann::json host1 = total("host", "100000");
  BOOST_TEST(num(off1["sim_time_ns"]) == num(off0["sim_time_ns"]));
  BOOST_TEST(num(host1["sim_time_ns"]) > num(host0["sim_time_ns"]) + 80000.0);
  // MPI_Wait shrinks by what the computation covered.
  BOOST_TEST(num(off0["tofu2"]["wait_ns"]) - num(off1["tofu2"]["wait_ns"]) == 100000.0, tolerance);
  // The offload's repetition beats the baseline's, which regenerates its sequence and
  // exchanges addresses on every call.
  BOOST_TEST(num(off0["tofu2"]["completion_ns"]) < num(host0["tofu2"]["completion_ns"]));
  BOOST_TEST(num(host0["tofu2"]["init_ns"]) == 0.0);
}

// 1,000 segments of trinaryx3: about 3,000 puts per root queue, more than a 2,048-entry
// TOQ holds. The driver keeps the rest until the engine frees slots, counts the refusals,
// and the broadcast still completes, no sooner than with room for everything.
BOOST_AUTO_TEST_CASE(a_full_toq_back_pressures_the_host_and_says_so) {
  const run_result small =
      run_unit("tofu2-trinaryx3", {"tofu2.segments=1000", "tofu2.toq_entries=2048"});
  BOOST_TEST_REQUIRE(small.out.code == 0, small.out.output);
  BOOST_TEST(small.result["collective"]["ranks_complete"] == 12);
  BOOST_TEST(small.result["tofu2"]["enqueue_refused"].get<uint64_t>() > 0u);
  const run_result big =
      run_unit("tofu2-trinaryx3", {"tofu2.segments=1000", "tofu2.toq_entries=8192"});
  BOOST_TEST_REQUIRE(big.out.code == 0, big.out.output);
  BOOST_TEST(big.result["tofu2"]["enqueue_refused"] == 0);
  BOOST_TEST(num(big.result["tofu2"]["completion_ns"]) <=
             num(small.result["tofu2"]["completion_ns"]));
}

BOOST_AUTO_TEST_CASE(the_same_tofu2_scenario_gives_identical_results) {
  const std::vector<std::string> sets = {"tofu2.segments=7", "collective.repeat=2",
                                         "collective.root=4"};
  run_result a = run_unit("tofu2-trinary", sets);
  run_result b = run_unit("tofu2-trinary", sets);
  BOOST_TEST_REQUIRE(a.out.code == 0, a.out.output);
  BOOST_TEST_REQUIRE(b.out.code == 0, b.out.output);
  a.result.erase("perf");
  b.result.erase("perf");
  BOOST_TEST(a.result.dump() == b.result.dump());
}

BOOST_AUTO_TEST_CASE(bad_tofu2_input_exits_2_naming_the_key) {
  auto bad = [](const std::string& algorithm, const std::vector<std::string>& sets,
                const std::string& text) {
    const run_result r = run_unit(algorithm, sets);
    BOOST_TEST(r.out.code == 2, set_args(sets) << " -> " << r.out.code << ": " << r.out.output);
    BOOST_TEST(contains(r.out.output, text), set_args(sets) << " output: " << r.out.output);
  };
  bad("tofu2-pipeline", {"tofu2.toq_entries=4096"}, "tofu2.toq_entries = 4096 is not a TOQ size");
  bad("tofu2-pipeline", {"tofu2.toq_entries=100"}, "tofu2.toq_entries");
  bad("tofu2-pipeline", {"tofu2.mode=both"}, "allowed: offload, host");
  bad("tofu2-pipeline", {"tofu2.segments=0"}, "tofu2.segments");
  bad("tofu2-pipeline", {"tofu2.descriptor_ns=-1"}, "tofu2.descriptor_ns");
  bad("tofu2-trinaryx3", {"topology.terminals_per_node=2"},
      "needs 3 TNIs per node (router): topology.terminals_per_node must give");
  bad("tofu2-trinaryx3", {"job.ranks_per_node=0"}, "job.ranks_per_node");
  bad("tofu2-trinaryx3",
      {"tofu2.queues_per_tni=1", "collective.repeat=2", "collectives.0.root=0",
       "collectives.1.root=5"},
      "tofu2.queues_per_tni = 1 is too few");
  bad("tofu2-trinaryx3", {"tofu2.mode=host", "job.ranks=12 --record-unit-inputs /tmp/x.jsonl"},
      "tofu2.mode = host does not use");
  bad("tofu2-pipeline", {"job.ranks=13"},
      "must be 0 or 12 (the network's terminals in the first 1");
}

// The CLI summary names the persistent calls' times (offload) or says there are none (host).
BOOST_AUTO_TEST_CASE(the_summary_shows_the_persistent_calls) {
  const std::string base =
      "run --out " + fresh_dir() +
      " --set topology.kind=torus --set topology.x=1 --set topology.y=1 --set topology.z=1"
      " --set topology.terminals_per_node=4 --set job.ranks_per_node=1"
      " --set collective.algorithm=tofu2-trinaryx3";
  const test::outcome off = run_cli(base);
  BOOST_TEST_REQUIRE(off.code == 0, off.output);
  BOOST_TEST(contains(off.output, "tofu2 offload         MPI_Bcast_init "), off.output);
  BOOST_TEST(contains(off.output, "0 descriptors refused by a full TOQ"), off.output);
  const test::outcome host = run_cli(base + " --set tofu2.mode=host");
  BOOST_TEST_REQUIRE(host.code == 0, host.output);
  BOOST_TEST(contains(host.output, "(no persistent calls)"), host.output);
}

// The root's TNI (terminal 0, a normal-mode queue: producer and consumer move) and rank 4's
// TNI 0 (terminal 16, a session-mode queue: arrivals move its scheduling pointer) in a VCD,
// with the save file written beside it naming only signals the VCD declares, one group per
// TNI, and only the queues the run opened.
BOOST_AUTO_TEST_CASE(the_vcd_shows_the_queue_pointers_and_its_save_file_matches) {
  const std::string dir = fresh_dir();
  const std::string vcd = dir + "/tni.vcd";
  const run_result r = run_unit("tofu2-pipeline", {"tofu2.segments=4", "trace.blocks=nic_0,nic_16",
                                                   "collective.bytes=65536 --vcd " + vcd});
  BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
  const test::vcd_summary v = test::read_vcd(vcd);
  std::set<std::string> declared;
  for (const auto& [id, name] : v.names) declared.insert(name);
  for (const char* tni : {"nic_0", "nic_16"}) {
    for (const char* sig : {"cq0.producer[31:0]", "cq0.consumer[31:0]", "cq0.scheduling[31:0]",
                            "cq0.occupancy[31:0]", "engine.busy"}) {
      BOOST_TEST(declared.count(std::string("SystemC.") + tni + "." + sig), tni << "." << sig);
    }
    BOOST_TEST(!declared.count(std::string("SystemC.") + tni + ".cq1.producer[31:0]"));
  }
  auto changed = [&v](const std::string& name) {
    const auto it = v.changes.find(name);
    return it != v.changes.end() && it->second > 0;
  };
  BOOST_TEST(changed("SystemC.nic_0.cq0.producer[31:0]"));
  BOOST_TEST(changed("SystemC.nic_0.cq0.consumer[31:0]"));
  BOOST_TEST(changed("SystemC.nic_16.cq0.scheduling[31:0]"));
  BOOST_TEST(changed("SystemC.nic_16.cq0.consumer[31:0]"));
  BOOST_TEST(changed("SystemC.nic_16.engine.busy"));
  const test::gtkw_summary g = test::read_gtkw(dir + "/tni.gtkw");
  for (const test::gtkw_row& row : g.rows)
    BOOST_TEST(declared.count(row.signal), "tni.gtkw shows " << row.signal << ", not in the VCD");
  BOOST_TEST(g.rows.size() == 2 * (3 + 4u));  // engine.busy, puts sent and received, 4 pointers
  BOOST_TEST(g.unclosed_groups == 0);
}

// `bcastsim run --record-unit-inputs` records what every TNI asked of its queues; `bcastsim
// cosim --block tofu2-cq` replays it in lock step (here the twin against itself; the RTL and
// its fault build: tests/tb/test_cosim_tofu2.cpp). Bad input exits 2.
BOOST_AUTO_TEST_CASE(a_run_records_its_queues_and_the_cosim_replays_them) {
  const std::string dir = fresh_dir();
  const std::string rec = dir + "/cq.jsonl";
  const run_result r = run_unit(
      "tofu2-trinary", {"tofu2.segments=6", "collective.repeat=2 --record-unit-inputs " + rec});
  BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
  std::ifstream in(rec);
  std::string line;
  uint64_t queues = 0, enqueues = 0;
  while (std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    BOOST_TEST(j["type"] == "tofu2_queue");
    ++queues;
    for (const nlohmann::json& c : j["cycles"]) enqueues += c.contains("enqueue") ? 1 : 0;
  }
  // The root's and the relays' queues (leaves enqueue nothing); every descriptor twice.
  BOOST_TEST(queues > 1u);
  BOOST_TEST(enqueues % 2 == 0u);
  const std::string json = dir + "/cq.json";
  const test::outcome self =
      run_cli("cosim --block tofu2-cq --dut systemc --replay " + rec + " --json " + json);
  BOOST_TEST(self.code == 0, self.output);
  BOOST_TEST(contains(self.output, "PASS after"), self.output);
  std::ifstream jin(json);
  const nlohmann::json report = nlohmann::json::parse(jin);
  BOOST_TEST(report["stimuli"].size() == queues);
  uint64_t replayed = 0;
  for (const nlohmann::json& s : report["stimuli"])
    replayed += s["coverage"]["enqueues"].get<uint64_t>();
  BOOST_TEST(replayed == enqueues);

  const test::outcome block = run_cli("cosim --block tofu3 --replay " + rec);
  BOOST_TEST(block.code == 2);
  BOOST_TEST(contains(block.output, "allowed: bcast-unit, tofu2-cq"), block.output);
  const test::outcome dut = run_cli("cosim --block tofu2-cq --dut rtl-fault-unfair");
  BOOST_TEST(dut.code == 2);
  BOOST_TEST(contains(dut.output, "is not a Tofu2 command queue model"), dut.output);
  std::ofstream(dir + "/unit.jsonl") << "{\"type\":\"unit\",\"unit\":\"unit_0\"}\n";
  const test::outcome wrong = run_cli("cosim --block tofu2-cq --replay " + dir + "/unit.jsonl");
  BOOST_TEST(wrong.code == 2);
  BOOST_TEST(contains(wrong.output, "line 1: type = \"unit\" is a Bcast Unit recording's"),
             wrong.output);
  BOOST_TEST(contains(wrong.output, "allowed: tofu2_queue"), wrong.output);
  std::ofstream(dir + "/cut.jsonl") << "{\"type\":\"tofu2_queue\",\"queue\":\"q\"}\n";
  const test::outcome cut = run_cli("cosim --block tofu2-cq --replay " + dir + "/cut.jsonl");
  BOOST_TEST(cut.code == 2);
  BOOST_TEST(contains(cut.output, "line 1"), cut.output);
}

// Background traffic runs between terminals outside the job, which leaves out the ranks'
// other TNIs: the host baseline receives fragments 1 and 2 on them.
BOOST_AUTO_TEST_CASE(background_traffic_leaves_the_ranks_tnis_alone) {
  for (const std::string mode : {"host", "offload"}) {
    const run_result r = run_unit(
        "tofu2-trinaryx3",
        {"tofu2.mode=" + mode, "traffic.kind=background", "traffic.mean_interarrival_ns=2000"});
    BOOST_TEST_REQUIRE(r.out.code == 0, mode << ": " << r.out.output);
    BOOST_TEST(r.result["collective"]["ranks_complete"] == 12);
  }
}

// Issue 39: roots = all with a Tofu2 offload ended in an uncaught exception of the driver
// (exit 1) while `analyze` exited 0. The persistent broadcast has one root: both commands
// refuse it before elaboration, naming the collective's roots key; the hosts run it.
BOOST_AUTO_TEST_CASE(tofu2_offload_with_every_rank_a_root_is_refused_naming_roots) {
  for (const std::string command : {"run", "analyze"}) {
    for (const std::string& a : k_algorithms) {
      const run_result r = test::run_for_json(
          command,
          set_args({"topology.kind=torus", "topology.x=1", "topology.y=1", "topology.z=1",
                    "topology.terminals_per_node=4", "job.ranks_per_node=1",
                    "collective.bytes=4096", "collective.algorithm=" + a, "collective.roots=all"}));
      BOOST_TEST(r.out.code == 2, command << " " << a << ": " << r.out.output);
      BOOST_TEST(contains(r.out.output, "collective.roots = all with " + a), r.out.output);
      BOOST_TEST(contains(r.out.output, "allowed: collective.roots = one, or tofu2.mode = host"),
                 r.out.output);
    }
    // On a dragonfly, and as the second entry of a collectives list.
    const run_result df = test::run_for_json(
        command, set_args({"topology.p=4", "job.ranks_per_node=1", "collective.bytes=1024",
                           "collectives.0.algorithm=binomial",
                           "collectives.1.algorithm=tofu2-pipeline", "collectives.1.roots=all"}));
    BOOST_TEST(df.out.code == 2, command << ": " << df.out.output);
    BOOST_TEST(contains(df.out.output, "collectives.1.roots = all with tofu2-pipeline"),
               df.out.output);
  }
  // The hosts progress one broadcast per root.
  const run_result host = run_unit(
      "tofu2-trinary", {"collective.roots=all", "tofu2.mode=host", "collective.bytes=4096"});
  BOOST_TEST(host.out.code == 0, host.out.output);
}

// Issue 39: on a Galaxyfly the refusal named topology.file; the key that gives a Galaxyfly
// router its terminals (a node its TNIs) is topology.p.
BOOST_AUTO_TEST_CASE(too_few_tnis_on_a_galaxyfly_names_topology_p) {
  const run_result r = test::run_for_json(
      "run", set_args({"topology.kind=galaxyfly", "topology.p=2", "job.ranks_per_node=1",
                       "collective.algorithm=tofu2-trinaryx3", "collective.bytes=1024"}));
  BOOST_TEST(r.out.code == 2, r.out.output);
  BOOST_TEST(contains(r.out.output,
                      "needs 3 TNIs per node (router): topology.p must give every "
                      "node at least that many terminals (topology.kind = galaxyfly)"),
             r.out.output);
}
