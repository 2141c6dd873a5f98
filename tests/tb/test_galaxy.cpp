// Router-level all-to-all broadcasts in whole runs (collective.algorithm: sfata, rfata, a2a):
// every router's engine ends holding every origin (and every rank every block: the watchdog
// checks it, exit 1 otherwise); the simulated redundancy equals the plan's; the paper's
// metrics are consistent with the per-router figures; `analyze` gives the plan's account
// without SystemC; runs are deterministic; bad input exits 2 naming the key.
//
// Every case runs the real binary (one SystemC design per process).
#include "cli_result.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace bcastsim;
using test::contains;
using test::fresh_dir;
using test::run_cli;

namespace {

using test::run_result;
using test::set_args;

const std::vector<std::string> k_galaxyfly = {"topology.kind=galaxyfly", "topology.n=3",
                                              "topology.q=5", "topology.a=4", "topology.h=1"};

// Galaxyfly(3, 5, 4) with h = 1 unless `shape` says otherwise, one rank per router, 160-B
// packets; `sets` come last.
run_result run_galaxy(const std::string& command, const std::string& algorithm,
                      const std::vector<std::string>& sets = {},
                      const std::vector<std::string>& shape = k_galaxyfly) {
  std::vector<std::string> all = shape;
  const bool torus = std::find(shape.begin(), shape.end(), "topology.kind=torus") != shape.end();
  if (!torus) all.push_back("topology.p=1");  // the torus has terminals_per_node instead
  for (const char* s : {"job.ranks_per_node=1", "collective.bytes=160"}) all.push_back(s);
  all.push_back("collective.algorithm=" + algorithm);
  all.insert(all.end(), sets.begin(), sets.end());
  return test::run_for_json(command, set_args(all),
                            command == "analyze" ? "analyze.json" : "result.json");
}

double num(const nlohmann::json& j) {
  return j.get<double>();
}

}  // namespace

BOOST_AUTO_TEST_CASE(sfata_and_rfata_deliver_every_origin_to_every_router) {
  for (const std::string a : {"sfata", "rfata"}) {
    for (const std::string root : {"0", "28", "59"}) {
      BOOST_TEST_CONTEXT(a << " root " << root) {
        const run_result r = run_galaxy("run", a, {"collective.root=" + root});
        BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
        const nlohmann::json& g = r.result["galaxy"];
        BOOST_TEST(num(g["success_rate"]) == 1.0);
        BOOST_TEST(num(g["failure_rate"]) == 0.0);
        BOOST_TEST(g["routers"] == 60);
        // The root rank's router (rank r sits on router r) picks the root supernode.
        BOOST_TEST(g["root_supernode"] == std::stoi(root) / 4);
        // What the engines counted is what the plan said, and each router got 59 origins.
        BOOST_TEST(g["redundant_packets"] == g["plan_redundant_packets"]);
        uint64_t received = 0;
        double max = 0, min = 1e300, sum = 0;
        for (const nlohmann::json& row : g["per_router"]) {
          BOOST_TEST(row["held"] == 60);
          BOOST_TEST(row["received"].get<uint64_t>() - row["redundant"].get<uint64_t>() == 59u);
          received += row["received"].get<uint64_t>();
          max = std::max(max, num(row["complete_ns"]));
          min = std::min(min, num(row["complete_ns"]));
          sum += num(row["complete_ns"]);
          // A router holds its supernode's packets no later than all of them.
          BOOST_TEST(num(row["router_time_ns"]) <= num(row["complete_ns"]));
        }
        BOOST_TEST(received == g["packets_sent"].get<uint64_t>());
        BOOST_TEST(num(g["max_time_ns"]) == max);
        BOOST_TEST(num(g["min_time_ns"]) == min);
        BOOST_TEST(num(g["avg_time_ns"]) == sum / 60, boost::test_tools::tolerance(1e-9));
        BOOST_TEST(num(g["avg_channel_utilization"]) > 0.0);
        BOOST_TEST(num(g["avg_channel_utilization"]) < 1.0);
        // The hosts' view: the last rank holds every block when the last router does.
        BOOST_TEST(num(r.result["collectives"][0]["completion_ns"]) == max,
                   boost::test_tools::tolerance(1e-9));
        if (a == "sfata") BOOST_TEST(g["redundant_packets"] == 0);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(rfata_collects_its_supernode_first) {
  const run_result sf = run_galaxy("run", "sfata", {"collective.root=28"});
  const run_result rf = run_galaxy("run", "rfata", {"collective.root=28"});
  BOOST_TEST_REQUIRE(sf.out.code == 0, sf.out.output);
  BOOST_TEST_REQUIRE(rf.out.code == 0, rf.out.output);
  // RouterTime: RFATA gathers a supernode's packets before anything else.
  BOOST_TEST(num(rf.result["galaxy"]["router_time_ns"]) <
             num(sf.result["galaxy"]["router_time_ns"]) / 4);
  BOOST_TEST(num(rf.result["galaxy"]["avg_redundant_packets"]) > 0.0);
}

BOOST_AUTO_TEST_CASE(a2a_runs_on_a_dragonfly) {
  const std::vector<std::string> df = {"topology.kind=dragonfly", "topology.g=3", "topology.a=20",
                                       "topology.h=1"};
  const run_result r = run_galaxy("run", "a2a", {}, df);
  BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
  BOOST_TEST(num(r.result["galaxy"]["success_rate"]) == 1.0);
  BOOST_TEST(r.result["galaxy"]["redundant_packets"] == 0);
  // Every foreign packet crosses one global link: 3 groups x 2 others x 20 packets.
  BOOST_TEST(r.result["traversals"]["global"]["packets"] == 120);
  // On a Galaxyfly with q > 1 some supernodes are not joined: refused, naming the key.
  const run_result bad = run_galaxy("run", "a2a");
  BOOST_TEST(bad.out.code == 2);
  BOOST_TEST(contains(bad.out.output, "collective.algorithm"));
  BOOST_TEST(contains(bad.out.output, "every pair of groups"));
}

// A2A has no root: collective.root is only warned about, so any value runs as root 0 does
// (a root past the ranks had crashed analyze with a segmentation fault, a fuzz finding).
BOOST_AUTO_TEST_CASE(a2a_ignores_its_root_whatever_its_value) {
  const std::vector<std::string> df = {"topology.kind=dragonfly", "topology.g=3", "topology.a=4",
                                       "topology.h=1"};
  for (const std::string command : {"analyze", "run"}) {
    BOOST_TEST_CONTEXT(command) {
      const run_result base = run_galaxy(command, "a2a", {}, df);
      BOOST_TEST_REQUIRE(base.out.code == 0, base.out.output);
      for (const std::string root : {"5", "99999"}) {
        const run_result r = run_galaxy(command, "a2a", {"collective.root=" + root}, df);
        BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
        BOOST_TEST(contains(r.out.output, "has no effect"));
        BOOST_TEST(r.result["galaxy"] == base.result["galaxy"]);
        BOOST_TEST(r.result["traversals"] == base.result["traversals"]);
      }
    }
  }
}

// Both schedules, several roots and two shapes: analyze's account of the plan (every router
// gets every origin; SFATA each exactly once, Theorem 5) is what the run's engines counted.
BOOST_AUTO_TEST_CASE(analyze_gives_the_plans_account) {
  const std::vector<std::string> wide = {"topology.kind=galaxyfly", "topology.n=3", "topology.q=5",
                                         "topology.a=8", "topology.h=1"};
  for (const auto* shape : {&k_galaxyfly, &wide}) {
    for (const std::string alg : {"sfata", "rfata"}) {
      for (const std::string root : {"0", "28"}) {
        BOOST_TEST_CONTEXT(set_args(*shape) << " " << alg << " root " << root) {
          const std::vector<std::string> sets = {"collective.root=" + root};
          const run_result a = run_galaxy("analyze", alg, sets, *shape);
          BOOST_TEST_REQUIRE(a.out.code == 0, a.out.output);
          const run_result r = run_galaxy("run", alg, sets, *shape);
          BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
          const nlohmann::json& g = a.result["galaxy"];
          BOOST_TEST(g["every_router_receives_every_origin"] == true);
          BOOST_TEST(g["every_origin_received_once"] == (alg == "sfata"));
          BOOST_TEST(g["redundant_packets"] == r.result["galaxy"]["redundant_packets"]);
          BOOST_TEST(g["packets"] == r.result["galaxy"]["packets_sent"]);
          BOOST_TEST(g["transfers"] == r.result["galaxy"]["transfers"]);
          BOOST_TEST(g["global_packets"] == r.result["traversals"]["global"]["packets"]);
          BOOST_TEST(g["local_packets"] == r.result["traversals"]["local"]["packets"]);
        }
      }
    }
  }
}

// galaxy.report_transfers: every transfer of the plan, fired when its sender held all its
// origins (at the last of them; sends marked after_all, out of the root supernode, once it
// held every origin), and in SFATA (no redundant packets) each origin reaching the receiver
// no earlier.
BOOST_AUTO_TEST_CASE(transfer_trace_says_when_each_transfer_fired) {
  for (const std::string alg : {"sfata", "rfata"}) {
    BOOST_TEST_CONTEXT(alg) {
      const run_result r =
          run_galaxy("run", alg, {"galaxy.report_arrivals=on", "galaxy.report_transfers=on"});
      BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
      const nlohmann::json& g = r.result["galaxy"];
      std::vector<std::vector<double>> held(60, std::vector<double>(60, -1));
      std::vector<double> complete(60, 0);
      for (const nlohmann::json& row : g["per_router"]) {
        for (const nlohmann::json& e : row["arrivals"])
          held[row["router"].get<uint32_t>()][e[0].get<uint32_t>()] = num(e[1]);
        complete[row["router"].get<uint32_t>()] = num(row["complete_ns"]);
      }
      const nlohmann::json& trace = g["transfer_trace"];
      BOOST_TEST_REQUIRE(trace.size() == g["transfers"].get<size_t>());
      uint32_t after_all = 0;
      for (const nlohmann::json& t : trace) {
        const uint32_t from = t["from"], to = t["to"];
        BOOST_TEST_REQUIRE(!t["fired_ns"].is_null());
        const double fired = num(t["fired_ns"]);
        double last = 0;
        for (const nlohmann::json& o : t["origins"]) {
          last = std::max(last, held[from][o.get<uint32_t>()]);
          if (alg == "sfata") BOOST_TEST(held[to][o.get<uint32_t>()] > fired);
        }
        after_all += t["after_all"] == true ? 1 : 0;
        BOOST_TEST(fired == (t["after_all"] == true ? complete[from] : last));
      }
      BOOST_TEST(after_all == 4u);  // root supernode 0's four BFS children
    }
  }
  const run_result plain = run_galaxy("run", "sfata");
  BOOST_TEST(!plain.result["galaxy"].contains("transfer_trace"));
}

BOOST_AUTO_TEST_CASE(runs_are_deterministic) {
  const run_result a = run_galaxy("run", "rfata", {"collective.root=13"});
  const run_result b = run_galaxy("run", "rfata", {"collective.root=13"});
  BOOST_TEST_REQUIRE(a.out.code == 0, a.out.output);
  BOOST_TEST(a.result["galaxy"] == b.result["galaxy"]);
  BOOST_TEST(a.result["sim_time_ns"] == b.result["sim_time_ns"]);
}

BOOST_AUTO_TEST_CASE(bad_input_names_the_key) {
  struct bad {
    std::vector<std::string> sets;
    std::string says;
  };
  const std::vector<bad> cases = {
      {{"job.ranks_per_node=2", "topology.p=2"}, "one rank on every router"},
      {{"collective.bytes=0"}, "collective.bytes"},
      {{"collective.bytes=100000000"}, "collective.bytes"},
      {{"collective.repeat=2"}, "collective.repeat"},
      {{"galaxy.engine_ns=-1"}, "galaxy.engine_ns"},
      {{"topology.q=6"}, "topology.q"},
      {{"collective.root=60"}, "collective.root = 60 is not a rank of the job"},
  };
  for (const bad& c : cases) {
    BOOST_TEST_CONTEXT(set_args(c.sets)) {
      const run_result r = run_galaxy("run", "sfata", c.sets);
      BOOST_TEST(r.out.code == 2, r.out.output);
      BOOST_TEST(contains(r.out.output, c.says), r.out.output);
    }
  }
}

BOOST_AUTO_TEST_CASE(arrivals_say_which_origin_came_when) {
  const run_result r = run_galaxy("run", "sfata", {"galaxy.report_arrivals=on"});
  BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
  for (const nlohmann::json& row : r.result["galaxy"]["per_router"]) {
    const nlohmann::json& a = row["arrivals"];
    BOOST_TEST_REQUIRE(a.size() == 60u);   // each origin once: when the router first held it
    BOOST_TEST(a[0][0] == row["router"]);  // its own packet, at the start
    BOOST_TEST(num(a[0][1]) == 0.0);
    std::vector<bool> seen(60, false);
    double last = 0;
    for (const nlohmann::json& e : a) {
      BOOST_TEST(!seen[e[0].get<uint32_t>()]);
      seen[e[0].get<uint32_t>()] = true;
      BOOST_TEST(num(e[1]) >= last);  // in time order
      last = num(e[1]);
    }
    BOOST_TEST(last == num(row["complete_ns"]));
  }
  // Each arrival names the router that brought it first: RFATA sends some origins to a
  // router twice (redundant packets), and the sender named is the one of those transfers
  // whose packet came first, fired no later than the arrival.
  for (const char* alg : {"rfata", "sfata"}) {
    const run_result t =
        run_galaxy("run", alg, {"galaxy.report_arrivals=on", "galaxy.report_transfers=on"});
    BOOST_TEST_REQUIRE(t.out.code == 0, t.out.output);
    const nlohmann::json& g = t.result["galaxy"];
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, double> fired;  // (from, to, origin)
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> carriers;        // (to, origin)
    for (const nlohmann::json& tr : g["transfer_trace"]) {
      for (const nlohmann::json& o : tr["origins"]) {
        fired[{tr["from"].get<uint32_t>(), tr["to"].get<uint32_t>(), o.get<uint32_t>()}] =
            num(tr["fired_ns"]);
        ++carriers[{tr["to"].get<uint32_t>(), o.get<uint32_t>()}];
      }
    }
    uint32_t redundant_pairs = 0;  // (router, origin) brought by more than one transfer
    for (const nlohmann::json& row : g["per_router"]) {
      const uint32_t rt = row["router"].get<uint32_t>();
      BOOST_TEST(row["arrivals"][0][2].get<uint32_t>() == rt);  // its own, from itself
      for (size_t i = 1; i < row["arrivals"].size(); ++i) {
        const nlohmann::json& e = row["arrivals"][i];
        const auto it = fired.find({e[2].get<uint32_t>(), rt, e[0].get<uint32_t>()});
        BOOST_TEST_REQUIRE((it != fired.end()), alg << ": router " << rt << " origin " << e[0]);
        BOOST_TEST(it->second <= num(e[1]));
        redundant_pairs += carriers[{rt, e[0].get<uint32_t>()}] > 1 ? 1 : 0;
      }
    }
    BOOST_TEST((redundant_pairs > 0) == (std::string(alg) == "rfata"));
  }
  // Off by default: the rows carry no arrivals.
  const run_result plain = run_galaxy("run", "sfata");
  BOOST_TEST(!plain.result["galaxy"]["per_router"][0].contains("arrivals"));
}

BOOST_AUTO_TEST_CASE(scenarios_the_engines_cannot_run_are_refused) {
  // A torus's groups (12-node units) are not fully connected: exit 2 naming the key.
  const run_result torus =
      run_galaxy("run", "sfata", {}, {"topology.kind=torus", "topology.terminals_per_node=1"});
  BOOST_TEST(torus.out.code == 2, torus.out.output);
  BOOST_TEST(contains(torus.out.output, "collective.algorithm = sfata"), torus.out.output);
  BOOST_TEST(contains(torus.out.output, "not fully connected"), torus.out.output);
  const run_result analyzed =
      run_galaxy("analyze", "sfata", {}, {"topology.kind=torus", "topology.terminals_per_node=1"});
  BOOST_TEST(analyzed.out.code == 2, analyzed.out.output);
  // One offload family per run: a Ragasa broadcast beside a galaxy one is refused.
  const run_result mixed =
      run_galaxy("run", "sfata",
                 {"collectives.0.algorithm=sfata", "collectives.0.bytes=160",
                  "collectives.1.algorithm=ragasa", "collectives.1.bytes=1024"});
  BOOST_TEST(mixed.out.code == 2, mixed.out.output);
  BOOST_TEST(contains(mixed.out.output, "collectives.1.algorithm = ragasa"), mixed.out.output);
}

BOOST_AUTO_TEST_CASE(avg_channel_counts_the_engines_packets_only) {
  const run_result alone = run_galaxy("run", "sfata");
  const run_result loaded = run_galaxy("run", "sfata", {"topology.p=2", "traffic.kind=background"});
  BOOST_TEST_REQUIRE(alone.out.code == 0, alone.out.output);
  BOOST_TEST_REQUIRE(loaded.out.code == 0, loaded.out.output);
  // Background traffic slows the broadcast (MaxTime grows) but its own packets are not the
  // algorithm's: utilisation falls or stays, never jumps (it was 0.65 when every busy
  // picosecond counted).
  const nlohmann::json& a = alone.result["galaxy"];
  const nlohmann::json& b = loaded.result["galaxy"];
  BOOST_TEST(num(b["avg_channel_utilization"]) <= num(a["avg_channel_utilization"]) + 1e-9);
  // Alone: every engine packet crosses one link: its serialisation at the class's rate.
  // 160 B at 5.25 GiB/s (local) or 4.7 GiB/s (global); 2700 local and 840 global crossings.
  const double local_ns = 160 / (5.25 * 1.073741824), global_ns = 160 / (4.7 * 1.073741824);
  const double busy = 2700 * local_ns + 840 * global_ns;
  BOOST_TEST(alone.result["traversals"]["local"]["packets"] == 2700);
  BOOST_TEST(alone.result["traversals"]["global"]["packets"] == 840);
  BOOST_TEST(num(a["avg_channel_utilization"]) == busy / num(a["channels"]) / num(a["max_time_ns"]),
             boost::test_tools::tolerance(1e-3));
}
