// algorithms/ragasa_tree: Ragasa's contention-free in-network broadcast tree. Hand-checked
// trees on a tiny dragonfly, and on many dragonflies, placements, sizes and roots: every rank
// reached exactly once, edges are physical links, a tree rooted at the root's router, each
// link direction used at most once, bounded depth, one global link per other used group.
#include "algorithms/ragasa_tree.h"
#include "network/dragonfly.h"
#include "network/placement.h"

#include <boost/test/unit_test.hpp>

#include "fixtures.h"

#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::algorithms;

using bcastsim::test::make_dragonfly;
using bcastsim::test::make_placement;

namespace {

bcast_child router_child(uint32_t id) {
  return {child_kind::router, id};
}
bcast_child terminal_child(uint32_t id) {
  return {child_kind::terminal, id};
}

bool has_router_port(const network::topology& topo, network::router_id r, network::router_id to) {
  for (network::port_id p = 0; p < topo.radix(r); ++p) {
    const network::port_info& info = topo.port(r, p);
    if (info.peer_kind == network::port_info::kind::router && info.peer == to) return true;
  }
  return false;
}

// Checks every structural property of the tree, failures reported with their context.
void check_tree(const network::topology& topo, const network::placement& place, uint32_t root) {
  BOOST_TEST_CONTEXT(topo.describe() << " ranks " << place.num_ranks() << " root " << root) {
    const ragasa_tree t = make_ragasa_tree(topo, place, root);
    const network::terminal_id root_term = place.terminal_of(root);
    BOOST_TEST(t.root_terminal == root_term);
    BOOST_TEST(t.root_router == topo.router_of(root_term));
    BOOST_TEST_REQUIRE(t.children.size() == topo.num_routers());

    std::vector<uint32_t> router_in(topo.num_routers(), 0);
    std::vector<uint32_t> terminal_in(topo.num_terminals(), 0);
    std::set<std::pair<uint32_t, uint32_t>> directions;  // (router, child router)
    uint32_t global_edges = 0;
    for (network::router_id r = 0; r < topo.num_routers(); ++r) {
      for (const bcast_child& c : t.children[r]) {
        if (c.kind == child_kind::router) {
          BOOST_TEST_REQUIRE(c.id < topo.num_routers());
          BOOST_TEST(c.id != r);
          BOOST_TEST(has_router_port(topo, r, c.id), "edge " << r << " -> " << c.id);
          BOOST_TEST(directions.insert({r, c.id}).second);
          ++router_in[c.id];
          if (topo.group_of(r) != topo.group_of(c.id)) {
            ++global_edges;
            // Step 1 enters a group at the far end of links_between_groups(root group, g)[0].
            const auto links =
                topo.links_between_groups(topo.group_of(t.root_router), topo.group_of(c.id));
            BOOST_TEST_REQUIRE(!links.empty());
            BOOST_TEST(links.front().first == r);
            BOOST_TEST(links.front().second == c.id);
          }
        } else {
          BOOST_TEST_REQUIRE(c.id < topo.num_terminals());
          BOOST_TEST(topo.router_of(c.id) == r, "terminal " << c.id << " under " << r);
          ++terminal_in[c.id];
        }
      }
    }

    // Every rank's terminal but the root's is reached exactly once; no other terminal is.
    for (network::terminal_id term = 0; term < topo.num_terminals(); ++term) {
      const bool wanted = place.rank_of(term) != network::invalid_id && term != root_term;
      BOOST_TEST(terminal_in[term] == (wanted ? 1u : 0u), "terminal " << term);
    }

    // A tree rooted at the root's router: in-degree 0 at the root, at most 1 elsewhere, and
    // every router with an edge (in or out) reachable from the root.
    BOOST_TEST(router_in[t.root_router] == 0u);
    const std::vector<network::router_id> part = t.participating_routers();
    BOOST_TEST_REQUIRE(!part.empty());
    BOOST_TEST(part.front() == t.root_router);
    std::set<network::router_id> part_set(part.begin(), part.end());
    BOOST_TEST(part_set.size() == part.size());
    std::vector<bool> router_has_rank(topo.num_routers(), false);
    std::set<network::group_id> other_groups;
    for (const network::terminal_id term : place.terminals()) {
      router_has_rank[topo.router_of(term)] = true;
      if (topo.group_of_terminal(term) != topo.group_of(t.root_router)) {
        other_groups.insert(topo.group_of_terminal(term));
      }
    }
    for (network::router_id r = 0; r < topo.num_routers(); ++r) {
      BOOST_TEST(router_in[r] <= 1u, "router " << r);
      const bool touched = router_in[r] > 0 || !t.children[r].empty();
      if (touched) BOOST_TEST(part_set.count(r) == 1u, "router " << r << " unreachable");
      if (part_set.count(r) == 0) BOOST_TEST(t.children[r].empty());
      if (router_has_rank[r]) BOOST_TEST(part_set.count(r) == 1u, "router " << r);
    }

    BOOST_TEST(t.depth() <= 4u);
    if (place.num_ranks() > 1) BOOST_TEST(t.depth() >= 1u);
    BOOST_TEST(global_edges == other_groups.size());
  }
}

void check_many(const network::topology& topo) {
  const uint32_t n = topo.num_terminals();
  for (const uint32_t ranks : {1u, 2u, 5u, 17u, n / 2, n}) {
    for (const uint32_t root : {0u, ranks / 2, ranks - 1}) {
      check_tree(topo, make_placement(topo, network::placement_kind::all, 0), root % n);
      check_tree(topo, make_placement(topo, network::placement_kind::contiguous, ranks, 0), root);
      check_tree(topo, make_placement(topo, network::placement_kind::contiguous, ranks, n - ranks),
                 root);
      for (const uint64_t seed : {1u, 7u, 42u}) {
        check_tree(topo, make_placement(topo, network::placement_kind::random, ranks, 0, seed),
                   root);
      }
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(ragasa_tree_hand_checked_absolute) {
  // g=3 a=2 p=1 h=1 absolute: global links 0-2 (groups 0-1), 1-4 (0-2), 3-5 (1-2);
  // terminal t on router t. Root 0 on router 0.
  const auto df = make_dragonfly(3, 2, 1, 1, network::global_arrangement::absolute);
  const auto place = make_placement(df, network::placement_kind::all, 0);
  const ragasa_tree t = make_ragasa_tree(df, place, 0);
  BOOST_TEST(t.root_terminal == 0u);
  BOOST_TEST(t.root_router == 0u);
  const std::vector<std::vector<bcast_child>> expected = {
      {router_child(2), router_child(1)},    // group 1 directly, group 2 via gateway 1
      {router_child(4), terminal_child(1)},  // gateway to group 2's entry
      {router_child(3), terminal_child(2)},  // group 1's entry
      {terminal_child(3)},                   //
      {router_child(5), terminal_child(4)},  // group 2's entry
      {terminal_child(5)},                   //
  };
  BOOST_TEST_REQUIRE(t.children.size() == expected.size());
  for (size_t r = 0; r < expected.size(); ++r) {
    BOOST_TEST((t.children[r] == expected[r]), "router " << r);
  }
  BOOST_TEST((t.participating_routers() == std::vector<network::router_id>{0, 2, 1, 3, 4, 5}));
  BOOST_TEST(t.depth() == 4u);  // 0 -> 1 -> 4 -> 5 -> terminal 5
}

BOOST_AUTO_TEST_CASE(ragasa_tree_hand_checked_relative_root_3) {
  // g=3 a=2 p=1 h=1 relative: global links 0-3 (groups 0-1), 1-4 (0-2), 2-5 (1-2).
  // Root rank 3 on router 3 (group 1).
  const auto df = make_dragonfly(3, 2, 1, 1, network::global_arrangement::relative);
  const auto place = make_placement(df, network::placement_kind::all, 0);
  const ragasa_tree t = make_ragasa_tree(df, place, 3);
  const std::vector<std::vector<bcast_child>> expected = {
      {router_child(1), terminal_child(0)},  // group 0's entry
      {terminal_child(1)},                   //
      {router_child(5), terminal_child(2)},  // gateway to group 2
      {router_child(0), router_child(2)},    // root router
      {terminal_child(4)},                   //
      {router_child(4), terminal_child(5)},  // group 2's entry
  };
  BOOST_TEST_REQUIRE(t.children.size() == expected.size());
  for (size_t r = 0; r < expected.size(); ++r) {
    BOOST_TEST((t.children[r] == expected[r]), "router " << r);
  }
  BOOST_TEST(t.depth() == 4u);
}

BOOST_AUTO_TEST_CASE(ragasa_tree_single_rank_and_same_router) {
  const auto df = make_dragonfly(3, 2, 2, 1, network::global_arrangement::absolute);
  // One rank: only the root router takes part, with nothing to do.
  const auto one = make_placement(df, network::placement_kind::contiguous, 1, 5);
  const ragasa_tree t1 = make_ragasa_tree(df, one, 0);
  BOOST_TEST((t1.participating_routers() == std::vector<network::router_id>{2}));
  BOOST_TEST(t1.depth() == 0u);
  for (const auto& c : t1.children) BOOST_TEST(c.empty());
  // Two ranks on one router (terminals 4, 5 on router 2): router 2 delivers to the other.
  const auto two = make_placement(df, network::placement_kind::contiguous, 2, 4);
  const ragasa_tree t2 = make_ragasa_tree(df, two, 1);
  BOOST_TEST(t2.root_terminal == 5u);
  BOOST_TEST((t2.children[2] == std::vector<bcast_child>{terminal_child(4)}));
  BOOST_TEST(t2.depth() == 1u);
}

BOOST_AUTO_TEST_CASE(ragasa_tree_rejects_bad_root) {
  const auto df = make_dragonfly(3, 2, 1, 1, network::global_arrangement::absolute);
  const auto place = make_placement(df, network::placement_kind::contiguous, 3);
  BOOST_CHECK_THROW(make_ragasa_tree(df, place, 3), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(ragasa_tree_properties_g9_absolute) {
  check_many(make_dragonfly(9, 4, 2, 2, network::global_arrangement::absolute));
}

BOOST_AUTO_TEST_CASE(ragasa_tree_properties_g9_relative) {
  check_many(make_dragonfly(9, 4, 2, 2, network::global_arrangement::relative));
}

BOOST_AUTO_TEST_CASE(ragasa_tree_properties_g5_several_links_per_pair) {
  for (const auto arr :
       {network::global_arrangement::absolute, network::global_arrangement::relative}) {
    const auto df = make_dragonfly(5, 4, 2, 2, arr);
    BOOST_TEST(df.links_per_group_pair() == 2u);
    check_many(df);
  }
}

BOOST_AUTO_TEST_CASE(ragasa_tree_properties_tiny) {
  for (const auto arr :
       {network::global_arrangement::absolute, network::global_arrangement::relative}) {
    const auto df = make_dragonfly(3, 2, 1, 1, arr);
    for (uint32_t root = 0; root < df.num_terminals(); ++root) {
      check_tree(df, make_placement(df, network::placement_kind::all, 0), root);
    }
  }
}
