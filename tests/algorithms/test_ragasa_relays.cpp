// algorithms/ragasa_tree: Ragasa with nodes relaying (ragasa_relays, the paper's reading): a
// hand-checked relay plan on a tiny dragonfly, and on dragonflies, tori, random placements
// and roots: every rank but the root has one parent, units send only to ranks, and the
// schedule delivers every byte exactly once.
#include "algorithms/ragasa_tree.h"
#include "algorithms/registry.h"
#include "algorithms/verify.h"
#include "network/dragonfly.h"
#include "network/placement.h"

#include <boost/test/unit_test.hpp>

#include "fixtures.h"

#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::algorithms;

using bcastsim::test::make_dragonfly;
using bcastsim::test::make_placement;
using bcastsim::test::make_torus;

// Nodes relaying (ragasa_relays), by hand: g=3 a=2 p=2 h=1 absolute, terminals 2r and 2r+1
// on router r; global links 0-2 (groups 0-1), 1-4 (0-2), 3-5 (1-2). Root 0.
BOOST_AUTO_TEST_CASE(ragasa_relays_hand_checked) {
  const auto df = make_dragonfly(3, 2, 2, 1, network::global_arrangement::absolute);
  const auto place = make_placement(df, network::placement_kind::all, 0);
  const ragasa_relays rl = make_ragasa_relays(df, place, 0);
  const std::vector<std::vector<network::terminal_id>> expected = {
      {4, 8, 2, 1},  // level 1: groups 1 and 2's entry routers; level 2: router 1; router 0
      {3},           // level 3
      {6, 5},        // group 1's node: router 3, then its own router
      {7},
      {10, 9},  // group 2's node
      {11},
  };
  BOOST_TEST_REQUIRE(rl.children.size() == expected.size());
  for (size_t r = 0; r < expected.size(); ++r) {
    BOOST_TEST((rl.children[r] == expected[r]), "router " << r);
    BOOST_TEST(rl.relay[r] == 2 * r, "router " << r);
  }
  const std::vector<network::terminal_id> parent = {network::invalid_id, 0, 0, 2, 0, 4,
                                                    4, 6, 0, 8, 8, 10};
  BOOST_TEST(rl.parent == parent, boost::test_tools::per_element());
  BOOST_TEST((rl.participating_routers() == std::vector<network::router_id>{0, 1, 2, 3, 4, 5}));
}

namespace {

// Every rank but the root has one parent, a relay on another router or its own router's
// relay; each relay's unit sends only to ranks; the nodes-relaying schedule verifies with
// every byte received exactly once.
void check_relays(const network::topology& topo, const network::placement& place, uint32_t root) {
  BOOST_TEST_CONTEXT(topo.describe() << " ranks " << place.num_ranks() << " root " << root) {
    const ragasa_relays rl = make_ragasa_relays(topo, place, root);
    std::vector<uint32_t> in(topo.num_terminals(), 0);
    for (network::router_id r = 0; r < topo.num_routers(); ++r) {
      for (const network::terminal_id t : rl.children[r]) {
        ++in[t];
        BOOST_TEST(place.rank_of(t) != network::invalid_id);
        BOOST_TEST(rl.parent[t] == rl.relay[r]);
      }
    }
    for (uint32_t rank = 0; rank < place.num_ranks(); ++rank) {
      BOOST_TEST(in[place.terminal_of(rank)] == (rank == root ? 0u : 1u), "rank " << rank);
    }
    const schedule s = ragasa_relay_bcast(topo, place, root, 1000);
    const verify_result v = verify_schedule(s, delivery::exactly_once);
    BOOST_TEST(v.ok, (v.errors.empty() ? std::string() : v.errors.front()));
    BOOST_TEST(v.messages == place.num_ranks() - 1u);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(ragasa_relays_reach_every_rank_once_on_dragonflies_and_tori) {
  const auto df = make_dragonfly(5, 4, 2, 1, network::global_arrangement::relative);
  for (const uint32_t root : {0u, 7u, 39u}) {
    check_relays(df, make_placement(df, network::placement_kind::all, 0), root);
  }
  for (const uint64_t seed : {1u, 2u, 3u}) {
    check_relays(df, make_placement(df, network::placement_kind::random, 13, 0, seed), 5);
  }
  const auto t = make_torus(3, 3, 2);
  check_relays(t, make_placement(t, network::placement_kind::all, 0), 4);
  check_relays(t, make_placement(t, network::placement_kind::random, 7, 0, 9), 0);
}
