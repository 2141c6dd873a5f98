// `bcastsim analyze`: the link-count model of the paper's preliminary study (IV-A, IV-B).
// Hand-computed makespans and link counts on the default dragonfly (g=9 a=4 p=2 h=2,
// absolute: terminals 2r, 2r+1 on router r; routers 4k..4k+3 form group k; router 0 holds
// the one global link from group 0 to group 1, which lands on router 4), equality with a
// real run, the 16,512-terminal network, Ragasa's in-network broadcast tree, bad input, and
// the CLI.
#include "algorithms/link_count.h"
#include "algorithms/registry.h"
#include "network/dragonfly.h"
#include "network/placement.h"
#include "network/routing.h"
#include "network/topology_kind.h"
#include "tb/analyze.h"
#include "tb/simulation.h"

#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <systemc>
#include "cli_result.h"
#include "cli_runner.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

using bcastsim::test::contains;
using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;

namespace {

using bcastsim::tb::analyze_scenario;
using bcastsim::tb::config;
using bcastsim::tb::config_error;

config contiguous(uint32_t ranks) {
  config c;
  c.set("job.placement", "contiguous");
  c.set("job.ranks", std::to_string(ranks));
  return c;
}

uint64_t messages(const nlohmann::json& r, const char* cls) {
  return r["traversals"][cls]["messages"].get<uint64_t>();
}

uint64_t makespan(const nlohmann::json& r) {
  return r["collective"]["makespan_links"].get<uint64_t>();
}

std::string config_error_key(const config& c) {
  try {
    analyze_scenario(c);
  } catch (const config_error& e) {
    return e.key;
  }
  return "(no config_error)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(route_walk_counts_terminal_local_and_global_links) {
  const bcastsim::network::dragonfly df(bcastsim::network::dragonfly_params{});
  const auto routing = bcastsim::network::make_routing("minimal", df);
  // Terminal 0 -> 1: one router, terminal links only.
  auto w = bcastsim::tb::walk_route(*routing, 0, 1);
  BOOST_TEST(w.routers == 1u);
  BOOST_TEST(w.total_links() == 2u);
  // Terminal 0 -> 8 (router 4): router 0 -> global -> router 4.
  w = bcastsim::tb::walk_route(*routing, 0, 8);
  BOOST_TEST(w.routers == 2u);
  BOOST_TEST(w.links[0] == 2u);
  BOOST_TEST(w.links[1] == 0u);
  BOOST_TEST(w.links[2] == 1u);
  // Terminal 0 -> 10 (router 5): global to router 4, then local to router 5.
  w = bcastsim::tb::walk_route(*routing, 0, 10);
  BOOST_TEST(w.routers == 3u);
  BOOST_TEST(w.links[0] == 2u);
  BOOST_TEST(w.links[1] == 1u);
  BOOST_TEST(w.links[2] == 1u);
}

BOOST_AUTO_TEST_CASE(two_ranks_on_one_router_take_two_links) {
  // Terminal -> router -> terminal: 2 units (the paper's "two routers = 3 units", minus one).
  const auto r = analyze_scenario(contiguous(2));
  BOOST_TEST(r["schema"].get<std::string>() == "bcastsim.analyze/1");
  BOOST_TEST(r["collective"]["messages"].get<uint64_t>() == 1u);
  BOOST_TEST(makespan(r) == 2u);
  BOOST_TEST(messages(r, "terminal") == 2u);
  BOOST_TEST(messages(r, "local") == 0u);
  BOOST_TEST(messages(r, "global") == 0u);
  // 16384 B in 512 B packets: 32 packets per message.
  BOOST_TEST(r["traversals"]["terminal"]["packets"].get<uint64_t>() == 64u);
  BOOST_TEST(r["hops_avg"].get<double>() == 1.0);
  BOOST_TEST(sc_core::sc_get_top_level_objects().empty());  // nothing was elaborated
}

BOOST_AUTO_TEST_CASE(four_ranks_binomial_by_hand) {
  // Ranks 0,1 on router 0; 2,3 on router 1 (group 0).
  // t=0..3  rank 0 -> 2 (terminal, local, terminal)
  // t=3..5  rank 0 -> 1 (same router; the root waited for delivery of its first send)
  // t=3..5  rank 2 -> 3 (same router)                              makespan 5
  const auto r = analyze_scenario(contiguous(4));
  BOOST_TEST(makespan(r) == 5u);
  BOOST_TEST(r["collective"]["messages"].get<uint64_t>() == 3u);
  // In packet times: 32 packets a message; 0 -> 2 ends at 32, then 0 -> 1 and 2 -> 3 at 64.
  BOOST_TEST(r["collective"]["makespan_packets"].get<uint64_t>() == 64u);
  BOOST_TEST(r["collective"]["sends_max"].get<uint64_t>() == 2u);  // the root: to 2, then 1
  BOOST_TEST(r["collective"]["sends_max_rank"].get<uint32_t>() == 0u);
  BOOST_TEST(messages(r, "terminal") == 6u);
  BOOST_TEST(messages(r, "local") == 1u);
  BOOST_TEST(messages(r, "global") == 0u);
  BOOST_TEST(r["hops_avg"].get<double>() == 4.0 / 3.0, boost::test_tools::tolerance(1e-12));
}

// Ranks are taken relative to the root: element i is rank (i + 3) mod 4, so root 3 sends to
// element 2 (rank 1), then element 1 (rank 0); rank 1 sends to element 3 (rank 2).
BOOST_AUTO_TEST_CASE(busiest_sender_is_the_root_wherever_it_is) {
  config c = contiguous(4);
  c.set("collective.root", "3");
  const auto r = analyze_scenario(c);
  BOOST_TEST(r["collective"]["sends_max"].get<uint64_t>() == 2u);
  BOOST_TEST(r["collective"]["sends_max_rank"].get<uint32_t>() == 3u);
}

BOOST_AUTO_TEST_CASE(nine_ranks_binomial_crosses_one_global_link) {
  // Rank 8 sits on router 4 (group 1); the others in group 0, two per router.
  // rank 0: -> 8 t=0..3 (global), -> 4 t=3..6 (local), -> 2 t=6..9 (local), -> 1 t=9..11
  // rank 4 (has it at 6): -> 6 t=6..9 (local), -> 5 t=9..11
  // rank 2 (at 9): -> 3 t=9..11;  rank 6 (at 9): -> 7 t=9..11      makespan 11
  const auto r = analyze_scenario(contiguous(9));
  BOOST_TEST(makespan(r) == 11u);
  BOOST_TEST(r["collective"]["messages"].get<uint64_t>() == 8u);
  // In messages of 32 packets: the root sends at 0, 1, 2, 3; rank 4 (it has it at 2) and
  // ranks 2, 6 (at 3) end at 4: 4 x 32 packet times.
  BOOST_TEST(r["collective"]["makespan_packets"].get<uint64_t>() == 128u);
  BOOST_TEST(r["collective"]["sends_max"].get<uint64_t>() == 4u);  // the root: 8, 4, 2, 1
  BOOST_TEST(r["collective"]["sends_max_rank"].get<uint32_t>() == 0u);
  BOOST_TEST(messages(r, "terminal") == 16u);
  BOOST_TEST(messages(r, "local") == 3u);
  BOOST_TEST(messages(r, "global") == 1u);
  BOOST_TEST(r["hops_avg"].get<double>() == 1.5);  // routers 2,2,2,1,2,1,1,1
}

BOOST_AUTO_TEST_CASE(default_scenario_matches_the_known_run_counts) {
  // `bcastsim run` of the default scenario: terminal 142, local 37, global 8 messages.
  const auto r = analyze_scenario(config());
  BOOST_TEST(messages(r, "terminal") == 142u);
  BOOST_TEST(messages(r, "local") == 37u);
  BOOST_TEST(messages(r, "global") == 8u);
  BOOST_TEST(r["traversals"]["terminal"]["packets"].get<uint64_t>() == 142u * 32);
  BOOST_TEST(r["collective"]["ranks"].get<uint32_t>() == 72u);
  BOOST_TEST(r["collective"]["messages"].get<uint64_t>() == 71u);
  BOOST_TEST(r["config"]["topology"]["g"].get<uint32_t>() == 9u);  // effective, not 0
  for (const char* key : {"/seed", "/topology", "/collective/algorithm", "/collective/root",
                          "/collective/bytes", "/hops_avg", "/perf/wall_s"}) {
    BOOST_TEST(r.contains(nlohmann::json::json_pointer(key)), key);
  }
}

BOOST_AUTO_TEST_CASE(traversals_equal_a_simulated_run_of_the_same_scenario) {
  // 1000 B: two packets per message, the last one short.
  config c;
  c.set("job.placement", "random");
  c.set("job.ranks", "23");
  c.set("collective.root", "5");
  c.set("collective.bytes", "1000");
  c.set("seed", "7");
  const auto a = analyze_scenario(c);
  const auto r = bcastsim::tb::run_scenario(c);
  BOOST_TEST(a["traversals"] == r["traversals"], a["traversals"] << " vs " << r["traversals"]);
  BOOST_TEST(a["config"] == r["config"]);
  BOOST_TEST(a["collective"]["messages"] == r["collective"]["messages"]);
  // Every message has the same size, so per-message and per-packet averages agree.
  BOOST_TEST(a["hops_avg"].get<double>() == r["packets"]["hops_avg"].get<double>(),
             boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(ragasa_run_and_analyze_agree_on_hops) {
  // Hops are the routers on a delivered copy's path, each once: a copy re-entering its
  // router from the Bcast Unit is not a second router (issue 13: run said 6.68, analyze
  // 3.34). Every message has 32 packets, so per-message and per-packet averages agree.
  config c;
  c.set("collective.algorithm", "ragasa");
  c.set("ragasa.relay", "unit");  // the unit tree's edges
  const auto a = analyze_scenario(c);
  const auto r = bcastsim::tb::run_scenario(c);
  BOOST_TEST(a["hops_avg"].get<double>() == 237.0 / 71.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(r["packets"]["hops_avg"].get<double>() == a["hops_avg"].get<double>(),
             boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(randomised_routing_messages_equal_a_simulated_run) {
  // Valiant routing draws each packet's route from the NIC's entropy; analyze walks each
  // message's first packet with the same draw, so per-message counts match the run.
  config c;
  c.set("routing.kind", "nonminimal");
  c.set("job.placement", "random");
  c.set("job.ranks", "30");
  c.set("collective.bytes", "2048");
  c.set("seed", "3");
  const auto a = analyze_scenario(c);
  const auto r = bcastsim::tb::run_scenario(c);
  for (const char* cls : {"terminal", "local", "global"}) {
    BOOST_TEST(messages(a, cls) == messages(r, cls), cls);
  }
}

BOOST_AUTO_TEST_CASE(full_16512_terminal_network_matches_the_run_quickly) {
  config c;
  c.set("topology.a", "16");
  c.set("topology.p", "8");
  c.set("topology.h", "8");
  c.set("collective.bytes", "1024");
  const auto r = analyze_scenario(c);
  BOOST_TEST(r["collective"]["ranks"].get<uint32_t>() == 16512u);
  // From `build/release/bcastsim run --set topology.a=16 --set topology.p=8
  // --set topology.h=8 --set collective.bytes=1024` (commit 71532a3): terminal 33022,
  // local 2171, global 128 messages, hops_avg 1.139240506329114. 128 global messages: only
  // the ranks that are multiples of 128 (one group's terminals) receive across groups.
  BOOST_TEST(messages(r, "global") == 128u);
  BOOST_TEST(messages(r, "local") == 2171u);
  BOOST_TEST(messages(r, "terminal") == 33022u);
  BOOST_TEST(r["hops_avg"].get<double>() == 1.139240506329114, boost::test_tools::tolerance(1e-12));
  const double wall = r["perf"]["wall_s"].get<double>();
  BOOST_TEST_MESSAGE("16,512-rank binomial analyzed in " << wall << " s");
  BOOST_TEST(wall < 5.0);  // about 0.07 s in release; generous for sanitizer builds
}

BOOST_AUTO_TEST_CASE(random_10240_allocation_is_near_the_papers_tree_counts) {
  // Paper IV-B: TREE on a random 10,240-terminal allocation of this network uses 19,122
  // local and 10,160 global links (formulas of III-E, matched by their experiments).
  config c;
  c.set("topology.a", "16");
  c.set("topology.p", "8");
  c.set("topology.h", "8");
  c.set("collective.bytes", "1024");
  c.set("job.placement", "random");
  c.set("job.ranks", "10240");
  const auto r = analyze_scenario(c);
  BOOST_TEST(messages(r, "terminal") == 2u * 10239);
  BOOST_TEST(static_cast<double>(messages(r, "local")) == 19122.0,
             boost::test_tools::tolerance(0.01));
  BOOST_TEST(static_cast<double>(messages(r, "global")) == 10160.0,
             boost::test_tools::tolerance(0.01));
  BOOST_TEST_MESSAGE("random 10,240 ranks analyzed in " << r["perf"]["wall_s"] << " s");
  BOOST_TEST(r["perf"]["wall_s"].get<double>() < 5.0);
}

BOOST_AUTO_TEST_CASE(ragasa_offload_counts_each_tree_edge_once) {
  // Root 0 on router 0; router 0 holds the global links to groups 1 and 2, routers 1, 2, 3
  // those to groups 3-4, 5-6, 7-8. Tree: router 0 -> 3 gateways (3 local), 8 global edges,
  // 3 routers fed from each other group's entry (24 local); 71 terminal children plus the
  // injection. Deepest path: inject, local, global, local, eject = 5 links.
  // Routers on the delivery paths: 1 (router 0's other terminal), 2 (6 on the gateways, 4
  // on the entries of groups 1 and 2), 3 (12 in groups 1-2, 12 on the other entries),
  // 4 (36): 237 over 71 messages.
  config c;
  c.set("collective.algorithm", "ragasa");
  c.set("ragasa.relay", "unit");  // the unit tree's edges
  const auto r = analyze_scenario(c);
  BOOST_TEST(r["collective"]["algorithm"].get<std::string>() == "ragasa");
  BOOST_TEST(r["collective"]["ranks"].get<uint32_t>() == 72u);
  BOOST_TEST(r["collective"]["messages"].get<uint64_t>() == 71u);
  BOOST_TEST(messages(r, "terminal") == 72u);
  BOOST_TEST(messages(r, "local") == 27u);
  BOOST_TEST(messages(r, "global") == 8u);
  BOOST_TEST(r["traversals"]["terminal"]["packets"].get<uint64_t>() == 72u * 32);
  BOOST_TEST(r["traversals"]["local"]["packets"].get<uint64_t>() == 27u * 32);
  BOOST_TEST(r["traversals"]["global"]["packets"].get<uint64_t>() == 8u * 32);
  BOOST_TEST(makespan(r) == 5u);
  BOOST_TEST(r["collective"]["makespan_packets"].get<uint64_t>() == 32u);  // one offload
  BOOST_TEST(r["collective"]["sends_max"].get<uint64_t>() == 0u);          // no point-to-point send
  BOOST_TEST(r["hops_avg"].get<double>() == 237.0 / 71.0, boost::test_tools::tolerance(1e-12));

  // The same counts as the algorithms' link count of the tree, for other roots too.
  namespace net = bcastsim::network;
  const net::dragonfly df(net::dragonfly_params{});
  net::placement_params pp;
  pp.kind = net::placement_kind::all;
  const net::placement all(df, pp);
  for (const uint32_t root : {0u, 13u, 71u}) {
    BOOST_TEST_CONTEXT("root " << root) {
      c.set("collective.root", std::to_string(root));
      const auto a = analyze_scenario(c);
      const auto want = bcastsim::algorithms::count_minimal_links(
          bcastsim::algorithms::ragasa_bcast(72, root, 16384), df, all);
      BOOST_TEST(messages(a, "terminal") == want.terminal);
      BOOST_TEST(messages(a, "local") == want.local);
      BOOST_TEST(messages(a, "global") == want.global);
      BOOST_TEST(makespan(a) <= 5u);
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_input_is_a_config_error_naming_the_key) {
  config c = contiguous(100);  // 72 terminals
  BOOST_TEST(config_error_key(c) == "job.ranks");
  c = config();
  c.set("collective.algorithm", "no_such_algorithm");
  BOOST_TEST(config_error_key(c) == "collective.algorithm");
  c = config();
  c.set("collective.root", "72");
  BOOST_TEST(config_error_key(c) == "collective.root");
  c = config();
  c.set("topology.g", "100");
  BOOST_TEST(config_error_key(c) == "topology.g");
  c = config();
  c.set("router.vcs", "1");  // minimal routing needs 2, as in run
  BOOST_TEST(config_error_key(c) == "router.vcs");
}

BOOST_AUTO_TEST_CASE(cli_analyze_writes_analyze_json) {
  const std::string dir = fresh_dir();
  const outcome o = run_cli(std::string("analyze --set job.placement=contiguous --set "
                                        "job.ranks=9 --out ") +
                            dir);
  BOOST_TEST(o.code == 0, o.output);
  for (const char* row : {"makespan", "11 links, 128 packet times", "busiest sender",
                          "rank 0, 4 sends", "traversals global", "hops", "wall time"}) {
    BOOST_TEST(contains(o.output, row), row << " in " << o.output);
  }
  std::ifstream in(dir + "/analyze.json");
  BOOST_REQUIRE(in.good());
  const auto r = nlohmann::json::parse(in);
  BOOST_TEST(r["schema"].get<std::string>() == "bcastsim.analyze/1");
  BOOST_TEST(makespan(r) == 11u);
}

// The table's first line names the collective as run's does: an allgather has no root.
BOOST_AUTO_TEST_CASE(cli_analyze_names_allgathers_and_every_root_as_run_does) {
  const std::pair<const char*, const char*> cases[] = {
      {"--set collective.algorithm=allgather-ring",
       "allgather-ring allgather of 16384 B per rank among 72 ranks on"},
      {"--set collective.algorithm=nic-cb", "nic-cb allgather of 16384 B per rank among 72"},
      {"--set collective.roots=all", "binomial broadcast of 16384 B from every rank to 72"},
      {"", "binomial broadcast of 16384 B from rank 0 to 72 ranks on"}};
  for (const auto& [sets, line] : cases) {
    const outcome o = run_cli(std::string("analyze ") + sets + " --out " + fresh_dir());
    BOOST_TEST(o.code == 0, o.output);
    BOOST_TEST(contains(o.output, line), line << " in " << o.output);
  }
}

BOOST_AUTO_TEST_CASE(cli_analyze_bad_input_exits_2) {
  outcome o = run_cli("analyze --set bogus.key=1 -q --out /tmp");
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "unknown key 'bogus.key'"), o.output);
  o = run_cli("analyze --set collective.algorithm=nope -q --out /tmp");
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "nope"), o.output);
}

// Issue 39: `analyze` exited 0 on scenarios `run` refused during elaboration. One check for
// both (make_plan, the family's check_hardware): the same exit code and the same message.
BOOST_AUTO_TEST_CASE(analyze_refuses_what_run_refuses_with_the_same_message) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // Two ranks on one Tofu2 node would both drive its TNIs.
      {"--set topology.kind=torus --set topology.x=1 --set topology.y=1 --set topology.z=1 "
       "--set topology.terminals_per_node=4 --set job.ranks_per_node=2 "
       "--set collective.algorithm=tofu2-trinaryx3 --set collective.bytes=4096",
       "share a node and would both drive TNI"},
      // One more packet than 64 bits count.
      {"--set nic.kind=lanai --set fault.drop_packet=link_nic_0:18446744073709551616",
       "fault.drop_packet: 'link_nic_0:18446744073709551616' is not LINK:N"},
      // A link the fabric does not make.
      {"--set nic.kind=lanai --set fault.drop_packet=link_nic_72:1",
       "fault.drop_packet: 'link_nic_72' is not a link; allowed: link_r0_0 .. link_r35_6"},
      // Too few queues per TNI for two collectives on the same TNIs.
      {"--set topology.kind=torus --set topology.x=1 --set topology.y=1 --set topology.z=1 "
       "--set topology.terminals_per_node=4 --set job.ranks_per_node=1 "
       "--set tofu2.queues_per_tni=1 --set collectives.0.algorithm=tofu2-pipeline "
       "--set collectives.1.algorithm=tofu2-pipeline",
       "tofu2.queues_per_tni = 1 is too few"},
  };
  for (const auto& [args, message] : cases) {
    const outcome run = run_cli("run -q --out " + fresh_dir() + " " + args);
    const outcome an = run_cli("analyze -q --out " + fresh_dir() + " " + args);
    BOOST_TEST(run.code == 2, args << ": " << run.output);
    BOOST_TEST(an.code == 2, args << ": " << an.output);
    BOOST_TEST(contains(run.output, message), run.output);
    BOOST_TEST(an.output == run.output, "analyze: " << an.output << "\nrun: " << run.output);
  }
}

// Issue 39: analyze reported 0 traversals for nic-cb, nic-rd, sfata and a2a (their hardware
// moves the data; no host op shows it) and Tofu2's puts not at all, against the README's
// "equal to run's under minimal routing". Each offload family's hardware messages are now
// counted (and a family's NIC packet size used), so traversals equal run's; the makespans,
// which the link model does not time for those messages, are null with the reason.
BOOST_AUTO_TEST_CASE(offload_families_traversals_equal_run_and_untimed_makespans_are_null) {
  const std::string torus_unit =
      "--set topology.kind=torus --set topology.x=1 --set topology.y=1 --set topology.z=1 "
      "--set topology.terminals_per_node=4 --set job.ranks_per_node=1 ";
  const std::string myrinet = "--set topology.kind=myrinet --set topology.nodes=8 ";
  struct scenario_case {
    std::string args;
    bool timed;  // analyze times every message (no hardware messages of its own)
  };
  const std::vector<scenario_case> cases = {
      {myrinet + "--set collective.algorithm=nic-cb --set collective.bytes=9000", false},
      {myrinet + "--set collective.algorithm=nic-rd --set collective.bytes=5000", false},
      {myrinet + "--set nic.kind=lanai --set collective.bytes=1000", true},  // GM packets
      {"--set job.ranks_per_node=1 --set collective.algorithm=a2a --set collective.bytes=64",
       false},
      {"--set topology.kind=galaxyfly --set job.ranks_per_node=1 "
       "--set collective.algorithm=sfata --set collective.bytes=64",
       false},
      {torus_unit + "--set collective.algorithm=tofu2-trinaryx3 --set collective.bytes=4096 "
                    "--set tofu2.segments=4 --set collective.repeat=2",
       false},
      {torus_unit + "--set collective.algorithm=tofu2-trinary --set collective.bytes=4096 "
                    "--set tofu2.segments=4 --set tofu2.mode=host",
       true},  // Tofu frames
      {"--set collective.algorithm=ragasa --set collective.bytes=4096", true},
  };
  for (const scenario_case& c : cases) {
    BOOST_TEST_CONTEXT(c.args) {
      const bcastsim::test::run_result run = bcastsim::test::run_for_json("run", c.args);
      const bcastsim::test::run_result an =
          bcastsim::test::run_for_json("analyze", c.args, "analyze.json");
      BOOST_TEST_REQUIRE(run.out.code == 0, run.out.output);
      BOOST_TEST_REQUIRE(an.out.code == 0, an.out.output);
      BOOST_TEST(an.result["traversals"] == run.result["traversals"],
                 an.result["traversals"] << " vs " << run.result["traversals"]);
      const auto& col = an.result["collective"];
      BOOST_TEST(col["makespan_links"].is_null() == !c.timed, col);
      BOOST_TEST(col["makespan_packets"].is_null() == !c.timed, col);
      BOOST_TEST(col.contains("makespan_not_modelled") == !c.timed, col);
    }
  }
  // The printed table says why there is no makespan.
  const outcome o = run_cli("analyze --out " + fresh_dir() + " " + myrinet +
                            "--set collective.algorithm=nic-cb --set collective.bytes=64");
  BOOST_TEST(o.code == 0, o.output);
  BOOST_TEST(contains(o.output,
                      "makespan              not modelled (analyze counts the 56 "
                      "messages lanai's hardware sends by itself but does not time "
                      "them)"),
             o.output);
}
