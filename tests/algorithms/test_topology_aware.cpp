// algorithms/topology_aware: GLF, LLF and FOREST (Dorier et al. Cluster 2016 III; CODES
// dfly_bcast.cpp, FACTS §2): hand-checked schedules on tiny dragonflies, verify_schedule on
// many placements, sizes and roots, and the paper's link bounds (III-E); groups not joined
// to the root group (a torus line, a graph file) handled as distant groups.
#include "algorithms/link_count.h"
#include "algorithms/registry.h"
#include "algorithms/topology_aware.h"
#include "algorithms/verify.h"
#include "network/dragonfly.h"
#include "network/graph_topology.h"
#include "network/placement.h"
#include "network/torus.h"
#include "tests/network/graph_test_files.h"

#include <boost/test/unit_test.hpp>

#include "fixtures.h"

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::algorithms;

using bcastsim::test::make_dragonfly;
using bcastsim::test::make_placement;

namespace {

collective_request make_request(const network::topology& topo, const network::placement& place,
                                uint32_t root, uint64_t bytes = 1024) {
  collective_request req;
  req.topo = &topo;
  req.place = &place;
  req.num_ranks = place.num_ranks();
  req.root = root;
  req.bytes = bytes;
  return req;
}

// "s9 s13 r0": the kinds and peers of one rank's ops, in order.
std::string program_text(const rank_program& prog) {
  std::string text;
  for (const op& o : prog.ops) {
    if (!text.empty()) text += ' ';
    text += (o.kind == op_kind::send ? 's' : 'r') + std::to_string(o.peer);
  }
  return text;
}

// Compares every rank's program; ranks missing from `want` must have no ops. Also checks
// whole-buffer ops and blocking deps (each op waits for the previous one).
void expect_programs(const schedule& s, const std::map<uint32_t, std::string>& want) {
  for (uint32_t rank = 0; rank < s.num_ranks; ++rank) {
    BOOST_TEST_CONTEXT("rank " << rank) {
      const auto it = want.find(rank);
      BOOST_TEST(program_text(s.ranks[rank]) == (it == want.end() ? "" : it->second));
      const auto& ops = s.ranks[rank].ops;
      for (size_t i = 0; i < ops.size(); ++i) {
        BOOST_TEST(ops[i].offset == 0u);
        BOOST_TEST(ops[i].bytes == s.bytes);
        const std::vector<uint32_t> blocking =
            i == 0 ? std::vector<uint32_t>{} : std::vector<uint32_t>{uint32_t(i - 1)};
        BOOST_TEST(ops[i].deps == blocking);
      }
    }
  }
  BOOST_TEST(verify_schedule(s).ok);
}

using builder = schedule (*)(const collective_request&);
const std::vector<std::pair<std::string, builder>> topology_aware_algorithms = {
    {"glf", glf_bcast}, {"llf", llf_bcast}, {"forest", forest_bcast}};

struct job_shape {
  uint64_t groups = 0;         // groups holding ranks
  uint64_t router_excess = 0;  // sum over groups of (used routers - 1)
};

job_shape shape_of(const network::topology& topo, const network::placement& place) {
  std::map<network::group_id, std::set<network::router_id>> used;
  for (uint32_t r = 0; r < place.num_ranks(); ++r) {
    const network::router_id rt = topo.router_of(place.terminal_of(r));
    used[topo.group_of(rt)].insert(rt);
  }
  job_shape js;
  js.groups = used.size();
  for (const auto& entry : used) js.router_excess += entry.second.size() - 1;
  return js;
}

// verify_schedule ok, one message into every remote group over a global link, and the
// paper's III-E local-link bound restricted to the groups and routers the job uses:
// 2 (G - 1) for the step into remote groups plus (used routers - 1) per group.
void check_algorithms(const network::dragonfly& df, const network::placement& place,
                      uint32_t root) {
  const job_shape js = shape_of(df, place);
  for (const auto& [name, make] : topology_aware_algorithms) {
    BOOST_TEST_CONTEXT(name << " " << df.describe() << " ranks " << place.num_ranks() << " root "
                            << root) {
      const schedule s = make(make_request(df, place, root));
      const verify_result v = verify_schedule(s);
      BOOST_TEST(v.ok);
      if (!v.ok) BOOST_TEST_MESSAGE(v.errors.front());
      BOOST_TEST(v.messages == place.num_ranks() - 1u);
      const link_counts c = count_minimal_links(s, df, place);
      BOOST_TEST(c.terminal == 2u * (place.num_ranks() - 1u));
      BOOST_TEST(c.global == js.groups - 1);
      BOOST_TEST(c.local <= 2 * (js.groups - 1) + js.router_excess);
    }
  }
}

std::vector<uint32_t> roots_for(uint32_t n) {
  std::set<uint32_t> roots{0, n / 2, n - 1, (n * 2) / 3};
  return {roots.begin(), roots.end()};
}

}  // namespace

// Paper Fig. 1 network (g=3 a=2 p=2 h=1). Global links: g0-g1 r0-r2, g0-g2 r1-r4,
// g1-g2 r3-r5. All 12 terminals, root 1 (on r0 with rank 0). Topology map in relative
// order 1..11,0: g0 {r0:[1,0], r1:[2,3]}, g1 {r2:[4,5], r3:[6,7]}, g2 {r4:[8,9], r5:[10,11]}.
BOOST_AUTO_TEST_CASE(topology_aware_hand_checked_fig1_root1) {
  const auto df = make_dragonfly(3, 2, 2, 1);
  const auto place = make_placement(df, network::placement_kind::all, 0);
  const collective_request req = make_request(df, place, 1);
  // GLF: groups [1,4,8]: 1->8, 1->4; routers g0 [1,2], g1 [4,6], g2 [8,10]; then routers.
  expect_programs(glf_bcast(req), {{0, "r1"},
                                   {1, "s8 s4 s2 s0"},
                                   {2, "r1 s3"},
                                   {3, "r2"},
                                   {4, "r1 s6 s5"},
                                   {5, "r4"},
                                   {6, "r4 s7"},
                                   {7, "r6"},
                                   {8, "r1 s10 s9"},
                                   {9, "r8"},
                                   {10, "r8 s11"},
                                   {11, "r10"}});
  // LLF: root team [1,2]; couples g1 via r0-r2: (1,4); g2 via r1-r4: (2,8); teams [4,6],
  // [8,10]; routers. FOREST: each sender has one couple, so the same schedule.
  const std::map<uint32_t, std::string> llf = {
      {0, "r1"},    {1, "s2 s4 s0"}, {2, "r1 s8 s3"},  {3, "r2"}, {4, "r1 s6 s5"}, {5, "r4"},
      {6, "r4 s7"}, {7, "r6"},       {8, "r2 s10 s9"}, {9, "r8"}, {10, "r8 s11"},  {11, "r10"}};
  expect_programs(llf_bcast(req), llf);
  expect_programs(forest_bcast(req), llf);
}

// g=5 a=2 p=2 h=2; links from g0: g1 r0-r2, g2 r0-r4, g3 r1-r6, g4 r1-r8. Contiguous ranks
// 0..16 on terminals 3..19: root 0 alone on r1 in g0; r0 unused, so g1 and g2 are distant.
// Map: g1 {r2:[1,2], r3:[3,4]}, g2 {r4:[5,6], r5:[7,8]}, g3 {r6:[9,10], r7:[11,12]},
// g4 {r8:[13,14], r9:[15,16]}.
BOOST_AUTO_TEST_CASE(topology_aware_hand_checked_distant_groups) {
  const auto df = make_dragonfly(5, 2, 2, 2);
  const auto place = make_placement(df, network::placement_kind::contiguous, 17, 3);
  const collective_request req = make_request(df, place, 0);
  // GLF: groups [0,1,5,9,13]: 0->13, 0->5, 0->1, 5->9; teams [1,3] [5,7] [9,11] [13,15].
  std::map<uint32_t, std::string> glf = {
      {0, "s13 s5 s1"},   {1, "r0 s3 s2"}, {2, "r1"},    {3, "r1 s4"},       {4, "r3"},
      {5, "r0 s9 s7 s6"}, {6, "r5"},       {7, "r5 s8"}, {8, "r7"},          {9, "r5 s11 s10"},
      {10, "r9"},         {11, "r9 s12"},  {12, "r11"},  {13, "r0 s15 s14"}, {14, "r13"},
      {15, "r13 s16"},    {16, "r15"}};
  expect_programs(glf_bcast(req), glf);
  // LLF couples: direct (0,9) and (0,13) via r1, then distant g1 (0,1) and g2 (0,5), whose
  // sender is the root team round robin (the root, once it was used by a direct couple).
  std::map<uint32_t, std::string> llf = glf;
  llf[0] = "s9 s13 s1 s5";
  llf[5] = "r0 s7 s6";
  llf[9] = "r0 s11 s10";
  expect_programs(llf_bcast(req), llf);
  // FOREST: one tree [0,9,13,1,5] for sender 0: 0->5, 0->13, 0->9, 13->1.
  std::map<uint32_t, std::string> forest = llf;
  forest[0] = "s5 s13 s9";
  forest[1] = "r13 s3 s2";
  forest[13] = "r0 s1 s15 s14";
  expect_programs(forest_bcast(req), forest);
}

BOOST_AUTO_TEST_CASE(topology_aware_binomial_over_is_mpich_binomial) {
  for (uint32_t n : {1u, 2u, 3u, 7u, 16u, 33u}) {
    for (uint32_t root : roots_for(n)) {
      schedule s(n);
      s.root = root;
      s.bytes = 64;
      std::vector<uint32_t> ranks;
      for (uint32_t i = 0; i < n; ++i) ranks.push_back((i + root) % n);
      binomial_over(s, ranks, 0, 64, 0);
      const schedule ref = binomial_bcast(n, root, 64);
      for (uint32_t r = 0; r < n; ++r) {
        BOOST_TEST(program_text(s.ranks[r]) == program_text(ref.ranks[r]));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(topology_aware_verify_all_and_contiguous) {
  for (const auto& df : {make_dragonfly(9, 4, 2, 2), make_dragonfly(5, 4, 2, 2)}) {
    const uint32_t t = df.num_terminals();
    const auto all = make_placement(df, network::placement_kind::all, 0);
    for (uint32_t root : roots_for(t)) check_algorithms(df, all, root);
    for (uint32_t n : {1u, 2u, 3u, 7u, 16u, 30u}) {
      for (uint32_t first : {0u, 1u, 5u, t - n}) {
        const auto place = make_placement(df, network::placement_kind::contiguous, n, first);
        for (uint32_t root : roots_for(n)) check_algorithms(df, place, root);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(topology_aware_verify_random_placements) {
  for (const auto& df :
       {make_dragonfly(9, 4, 2, 2), make_dragonfly(5, 4, 2, 2), make_dragonfly(33, 8, 4, 4)}) {
    const uint32_t t = df.num_terminals();
    for (uint32_t n : {1u, 2u, 3u, 7u, 16u, 50u, t}) {
      if (n > t) continue;
      for (uint64_t seed : {1u, 2u, 3u, 17u}) {
        const auto place = make_placement(df, network::placement_kind::random, n, 0, seed);
        for (uint32_t root : roots_for(n)) check_algorithms(df, place, root);
      }
    }
  }
}

// Paper III-E for a full allocation: at most g - 1 messages on global links (here exactly:
// one per remote group) and at most 2 (g - 1) + g (a - 1) on local links.
BOOST_AUTO_TEST_CASE(topology_aware_full_allocation_paper_bounds) {
  for (const auto& df :
       {make_dragonfly(9, 4, 2, 2), make_dragonfly(5, 4, 2, 2), make_dragonfly(33, 8, 4, 4)}) {
    const uint64_t g = df.g();
    const uint64_t a = df.a();
    const auto place = make_placement(df, network::placement_kind::all, 0);
    for (uint32_t root : roots_for(place.num_ranks())) {
      for (const auto& [name, make] : topology_aware_algorithms) {
        BOOST_TEST_CONTEXT(name << " " << df.describe() << " root " << root) {
          const link_counts c = count_minimal_links(make(make_request(df, place, root)), df, place);
          BOOST_TEST(c.global == g - 1);
          BOOST_TEST(c.local <= 2 * (g - 1) + g * (a - 1));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(topology_aware_needs_topology_and_placement) {
  const auto df = make_dragonfly(9, 4, 2, 2);
  const auto place = make_placement(df, network::placement_kind::all, 0);
  for (const std::string name : {"glf", "llf", "forest"}) {
    const algorithm_info& info = find_algorithm(name);
    BOOST_TEST(info.description.find("Dorier") != std::string::npos);
    collective_request req = make_request(df, place, 0);
    BOOST_TEST(verify_schedule(info.make(req)).ok);
    req.topo = nullptr;
    BOOST_CHECK_THROW(info.make(req), std::invalid_argument);
    req.topo = &df;
    req.place = nullptr;
    BOOST_CHECK_THROW(info.make(req), std::invalid_argument);
    req = make_request(df, place, 0);
    req.num_ranks = 5;  // disagrees with the placement
    BOOST_CHECK_THROW(info.make(req), std::invalid_argument);
  }
}

namespace {

// (sender, receiver) of every message between two groups, whatever its order.
std::set<std::pair<uint32_t, uint32_t>> messages_between_groups(const schedule& s,
                                                                const network::topology& topo,
                                                                const network::placement& place) {
  std::set<std::pair<uint32_t, uint32_t>> between;
  for (uint32_t rank = 0; rank < s.num_ranks; ++rank) {
    for (const op& o : s.ranks[rank].ops) {
      if (o.kind == op_kind::send && topo.group_of_terminal(place.terminal_of(rank)) !=
                                         topo.group_of_terminal(place.terminal_of(o.peer))) {
        between.insert({rank, o.peer});
      }
    }
  }
  return between;
}

}  // namespace

// Torus 3x1x1 with x a line: units 0 and 2 are not joined. Rank i on router i, in unit
// i mod 3; each unit's team is its 12 ranks in router order. From unit 0, unit 1 is direct
// (link 0-1, r2 = the root router: sender the root) and unit 2 distant: sender the smallest
// unused root-team rank, 3; receiver the first rank of its first used router, 2.
BOOST_AUTO_TEST_CASE(topology_aware_unjoined_torus_units_are_distant) {
  network::torus_params tp;
  tp.x = 3;
  tp.y = tp.z = 1;
  tp.mesh[network::dim_x] = true;
  const network::torus t(tp);
  BOOST_TEST_REQUIRE(t.links_between_groups(0, 2).empty());
  const auto place = make_placement(t, network::placement_kind::all, 0);
  using pairs = std::set<std::pair<uint32_t, uint32_t>>;
  // Root 1 (middle unit) reaches both over a link; root 2 (the other end) finds unit 0
  // distant: sender 5, the smallest unused rank of unit 2's team [2, 5, ..., 35].
  const std::map<uint32_t, pairs> want = {
      {0, {{0, 1}, {3, 2}}}, {1, {{1, 0}, {1, 2}}}, {2, {{2, 1}, {5, 0}}}};
  for (const auto& [root, between] : want) {
    for (const auto& [name, make] : topology_aware_algorithms) {
      if (name == "glf") continue;  // GLF never asks for links
      BOOST_TEST_CONTEXT(name << " root " << root) {
        const schedule s = make(make_request(t, place, root));
        BOOST_TEST(verify_schedule(s).ok);
        BOOST_TEST((messages_between_groups(s, t, place) == between));
      }
    }
  }
}

// A line of 4 routers, one group each, one terminal each (rank i on router i): from group
// 0 only group 1 is joined. The root team is the root alone, so once it served group 1 the
// distant groups 2 and 3 get it round robin too; FOREST serves them by one binomial tree
// [0, 1, 2, 3]. Root 1 reaches 0 and 2 directly and 3 as a distant group.
BOOST_AUTO_TEST_CASE(topology_aware_hand_checked_graph_line) {
  const network::graph_test_files::scratch_dir dir;
  const network::graph_topology line(
      dir.write("line.yaml",
                "routers: 4\n"
                "terminals_per_router: 1\n"
                "classes: [{name: wire}]\n"
                "groups: [0, 1, 2, 3]\n"
                "links: [[0, 1, wire], [1, 2, wire], [2, 3, wire]]\n"));
  BOOST_TEST_REQUIRE(line.num_groups() == 4u);
  const auto place = make_placement(line, network::placement_kind::all, 0);
  expect_programs(llf_bcast(make_request(line, place, 0)),
                  {{0, "s1 s2 s3"}, {1, "r0"}, {2, "r0"}, {3, "r0"}});
  expect_programs(forest_bcast(make_request(line, place, 0)),
                  {{0, "s2 s1"}, {1, "r0"}, {2, "r0 s3"}, {3, "r2"}});
  expect_programs(llf_bcast(make_request(line, place, 1)),
                  {{0, "r1"}, {1, "s0 s2 s3"}, {2, "r1"}, {3, "r1"}});
  expect_programs(forest_bcast(make_request(line, place, 1)),
                  {{0, "r1"}, {1, "s2 s0"}, {2, "r1 s3"}, {3, "r2"}});
}
