// Every broadcast algorithm on graph-file topologies (network/graph_topology.h): rings of
// routers whose groups are neither fully connected inside nor all joined. Every schedule
// verifies, LLF/FOREST reach unjoined groups as distant groups, and Ragasa's in-router
// tree is made of links.
#include "algorithms/ragasa_tree.h"
#include "algorithms/registry.h"
#include "algorithms/topology_aware.h"
#include "algorithms/verify.h"
#include "fixtures.h"
#include "network/graph_topology.h"
#include "network/placement.h"
#include "tests/network/graph_test_files.h"
#include "tree_checks.h"

#include <boost/test/unit_test.hpp>

#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::algorithms;
using bcastsim::network::graph_test_files::scratch_dir;

namespace {

constexpr uint64_t k_bytes = 4096;

// A ring of `groups.size()` routers (i joined to i + 1, the last to 0, in that order), two
// terminals each, one link class.
std::string ring_yaml(const std::vector<uint32_t>& groups) {
  const size_t n = groups.size();
  std::ostringstream os;
  os << "routers: " << n << "\nterminals_per_router: 2\nclasses: [{name: wire}]\ngroups: [";
  for (size_t r = 0; r < n; ++r) os << (r == 0 ? "" : ", ") << groups[r];
  os << "]\nlinks:\n";
  for (size_t r = 0; r < n; ++r) os << "  - [" << r << ", " << (r + 1) % n << ", wire]\n";
  return os.str();
}

// Every algorithm with every root on every terminal a rank (recursive doubling on the
// largest power of two of ranks, as it refuses others), and on random jobs; every Ragasa
// tree tried keeps its contract.
void check_every_algorithm(const network::topology& topo) {
  const uint32_t n = topo.num_terminals();
  std::vector<network::placement> places;
  places.push_back(test::make_placement(topo, network::placement_kind::all, 0));
  for (const uint64_t seed : {1u, 2u, 3u}) {
    places.push_back(test::make_placement(topo, network::placement_kind::random, 5, 0, seed));
  }
  uint32_t power_of_two = 1;
  while (power_of_two * 2 <= n) power_of_two *= 2;
  const network::placement block =
      test::make_placement(topo, network::placement_kind::contiguous, power_of_two);
  // The router-level all-to-all broadcasts need one rank on every router.
  network::placement_params one;
  one.per_router = 1;
  const network::placement per_router(topo, one);
  for (const algorithm_info& a : algorithms::algorithms()) {
    for (const network::placement& place : places) {
      const bool rd =
          a.name == "scatter-rd-allgather" || a.name == "allgather-rd" || a.name == "nic-rd";
      const network::placement& job = a.offload == "galaxy" ? per_router : rd ? block : place;
      for (uint32_t root = 0; root < job.num_ranks(); ++root) {
        BOOST_TEST_CONTEXT(a.name << " on " << topo.describe() << ", " << job.num_ranks()
                                  << " ranks, root " << root) {
          const verify_result v =
              verify_schedule(a.make({&topo, &job, job.num_ranks(), root, k_bytes}), a.contract);
          BOOST_TEST(v.ok, (v.errors.empty() ? std::string() : v.errors.front()));
        }
      }
    }
  }
  for (const network::placement& place : places) {
    for (uint32_t root = 0; root < place.num_ranks(); ++root) {
      BOOST_TEST_CONTEXT(topo.describe() << ", " << place.num_ranks() << " ranks, root " << root) {
        const test::tree_faults f =
            test::find_tree_faults(topo, place, make_ragasa_tree(topo, place, root));
        BOOST_TEST(f.not_links == 0u);
        BOOST_TEST(f.routers_twice == 0u);
        BOOST_TEST(f.terminals_wrong == 0u);
      }
    }
  }
}

}  // namespace

// Ring of 6 in groups [0, 0, 0, 1, 1, 1]: the groups are joined (2-3, 5-0) but router 0 is
// not router 2's neighbour.
BOOST_AUTO_TEST_CASE(every_algorithm_verifies_on_a_grouped_ring) {
  const scratch_dir dir;
  const network::graph_topology ring(dir.write("ring.yaml", ring_yaml({0, 0, 0, 1, 1, 1})));
  BOOST_TEST_REQUIRE(ring.num_groups() == 2u);
  check_every_algorithm(ring);
}

// Ring of 8 in groups [0, 0, 1, 1, 2, 2, 3, 3]: groups 0 and 2, 1 and 3 are not joined.
BOOST_AUTO_TEST_CASE(every_algorithm_verifies_on_a_ring_of_unjoined_groups) {
  const scratch_dir dir;
  const network::graph_topology ring(dir.write("ring.yaml", ring_yaml({0, 0, 1, 1, 2, 2, 3, 3})));
  BOOST_TEST_REQUIRE(ring.links_between_groups(0, 2).empty());
  check_every_algorithm(ring);
}

// The ring of 6, root 0: the paper's step 2 would send 0 -> 2, not a link, so the tree is
// breadth first. Router 0's links are 0-1 then 5-0 (file order); 2 reaches 3 before 4 does.
BOOST_AUTO_TEST_CASE(ragasa_tree_hand_checked_grouped_ring) {
  const scratch_dir dir;
  const network::graph_topology ring(dir.write("ring.yaml", ring_yaml({0, 0, 0, 1, 1, 1})));
  const auto place = test::make_placement(ring, network::placement_kind::all, 0);
  const ragasa_tree t = make_ragasa_tree(ring, place, 0);
  BOOST_TEST((t.rule == tree_rule::shortest_path));
  const auto r = [](uint32_t id) { return bcast_child{child_kind::router, id}; };
  const auto term = [](uint32_t id) { return bcast_child{child_kind::terminal, id}; };
  const std::vector<std::vector<bcast_child>> expected = {
      {r(1), r(5), term(1)}, {r(2), term(2), term(3)}, {r(3), term(4), term(5)},
      {term(6), term(7)},    {term(8), term(9)},       {r(4), term(10), term(11)}};
  for (uint32_t i = 0; i < expected.size(); ++i) {
    BOOST_TEST((t.children[i] == expected[i]), "router " << i);
  }
  BOOST_TEST(t.depth() == 4u);  // 0 -> 1 -> 2 -> 3 -> terminal 6
}

// The ring of 8, root 0; rank i on terminal i, router i / 2; root team [0, 2] (routers 0,
// 1). Group 1: first link 1-2, r2 = router 1 hosts ranks, so rank 2 sends to router 2's
// rank 4. Group 3: first link 0-7, r2 = the root's router, so the root sends to rank 14.
// Group 2 is not joined: distant, and with both team ranks used the root team is taken
// round robin from its start, 0; the receiver is its first used router's first rank, 8.
BOOST_AUTO_TEST_CASE(llf_forest_couples_on_a_ring_of_unjoined_groups) {
  const scratch_dir dir;
  const network::graph_topology ring(dir.write("ring.yaml", ring_yaml({0, 0, 1, 1, 2, 2, 3, 3})));
  const auto place = test::make_placement(ring, network::placement_kind::all, 0);
  const std::set<std::pair<uint32_t, uint32_t>> want = {{2, 4}, {0, 8}, {0, 14}};
  for (const auto make : {llf_bcast, forest_bcast}) {
    const schedule s = make({&ring, &place, place.num_ranks(), 0, k_bytes});
    std::set<std::pair<uint32_t, uint32_t>> between;
    for (uint32_t rank = 0; rank < s.num_ranks; ++rank) {
      for (const op& o : s.ranks[rank].ops) {
        if (o.kind == op_kind::send && ring.group_of_terminal(place.terminal_of(rank)) !=
                                           ring.group_of_terminal(place.terminal_of(o.peer))) {
          between.insert({rank, o.peer});
        }
      }
    }
    BOOST_TEST((between == want));
    BOOST_TEST(verify_schedule(s).ok);
  }
}
