// algorithms/ragasa_tree: Ragasa's contention-free in-network broadcast tree. Hand-checked
// trees on a tiny dragonfly, and on many dragonflies, placements, sizes and roots: every rank
// reached exactly once, edges are physical links, a tree rooted at the root's router, each
// link direction used at most once, bounded depth, one global link per other used group.
// Where the paper's tree is not made of links (torus, graph files): the pruned
// breadth-first tree, hand-checked and by its properties (links, shortest-path depth).
#include "algorithms/ragasa_tree.h"
#include "algorithms/registry.h"
#include "algorithms/verify.h"
#include "network/dragonfly.h"
#include "network/graph_topology.h"
#include "network/placement.h"
#include "network/torus.h"
#include "tests/network/graph_test_files.h"

#include <boost/test/unit_test.hpp>

#include "fixtures.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::algorithms;

using bcastsim::test::make_dragonfly;
using bcastsim::test::make_placement;
using bcastsim::test::make_torus;

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

namespace {

using network::graph_test_files::scratch_dir;

// Hop distances from `from` to every router over router-to-router links.
std::vector<uint32_t> hop_distances(const network::topology& topo, network::router_id from) {
  std::vector<uint32_t> dist(topo.num_routers(), network::invalid_id);
  std::vector<network::router_id> queue{from};
  dist[from] = 0;
  for (size_t i = 0; i < queue.size(); ++i) {
    const network::router_id r = queue[i];
    for (network::port_id p = 0; p < topo.radix(r); ++p) {
      const network::port_info& info = topo.port(r, p);
      if (info.peer_kind != network::port_info::kind::router) continue;
      if (dist[info.peer] != network::invalid_id) continue;
      dist[info.peer] = dist[r] + 1;
      queue.push_back(info.peer);
    }
  }
  return dist;
}

// The contract on any topology: every router edge a link (link_class_between does not
// throw), every router reached at most once and from the root router, every rank terminal
// but the root's reached exactly once from its own router, every router taking part
// holding a rank in its subtree. The shortest-path rule also puts every router at its hop
// distance from the root router, so depth = farthest rank router's distance + 1.
ragasa_tree check_any_tree(const network::topology& topo, const network::placement& place,
                           uint32_t root) {
  const ragasa_tree t = make_ragasa_tree(topo, place, root);
  BOOST_TEST_CONTEXT(topo.describe() << " ranks " << place.num_ranks() << " root " << root) {
    BOOST_TEST_REQUIRE(t.children.size() == topo.num_routers());
    std::vector<uint32_t> router_in(topo.num_routers(), 0);
    std::vector<uint32_t> terminal_in(topo.num_terminals(), 0);
    for (network::router_id r = 0; r < topo.num_routers(); ++r) {
      for (const bcast_child& c : t.children[r]) {
        if (c.kind == child_kind::terminal) {
          BOOST_TEST(topo.router_of(c.id) == r, "terminal " << c.id << " under " << r);
          ++terminal_in[c.id];
          continue;
        }
        BOOST_CHECK_NO_THROW(link_class_between(topo, r, c.id));
        ++router_in[c.id];
      }
    }
    std::vector<bool> router_has_rank(topo.num_routers(), false);
    for (network::terminal_id term = 0; term < topo.num_terminals(); ++term) {
      const bool rank = place.rank_of(term) != network::invalid_id;
      if (rank) router_has_rank[topo.router_of(term)] = true;
      const bool wanted = rank && term != t.root_terminal;
      BOOST_TEST(terminal_in[term] == (wanted ? 1u : 0u), "terminal " << term);
    }
    const std::vector<network::router_id> part = t.participating_routers();
    const std::set<network::router_id> part_set(part.begin(), part.end());
    BOOST_TEST(part_set.size() == part.size());
    BOOST_TEST(router_in[t.root_router] == 0u);
    for (network::router_id r = 0; r < topo.num_routers(); ++r) {
      BOOST_TEST(router_in[r] <= 1u, "router " << r);
      if (part_set.count(r) == 0) BOOST_TEST(t.children[r].empty(), "router " << r);
      if (router_has_rank[r]) BOOST_TEST(part_set.count(r) == 1u, "router " << r);
    }
    // Pruned: children come after their parent in `part`, so one backward pass.
    std::vector<bool> holds(topo.num_routers(), false);
    for (auto it = part.rbegin(); it != part.rend(); ++it) {
      holds[*it] = router_has_rank[*it];
      for (const bcast_child& c : t.children[*it]) {
        if (c.kind == child_kind::router && holds[c.id]) holds[*it] = true;
      }
      BOOST_TEST(holds[*it], "router " << *it << " holds no rank in its subtree");
    }
    if (t.rule == tree_rule::shortest_path) {
      const std::vector<uint32_t> dist = hop_distances(topo, t.root_router);
      uint32_t want_depth = 0;
      for (const network::terminal_id term : place.terminals()) {
        if (term != t.root_terminal) {
          want_depth = std::max(want_depth, dist[topo.router_of(term)] + 1);
        }
      }
      BOOST_TEST(t.depth() == want_depth);
      for (network::router_id r = 0; r < topo.num_routers(); ++r) {
        for (const bcast_child& c : t.children[r]) {
          if (c.kind == child_kind::router) BOOST_TEST(dist[c.id] == dist[r] + 1);
        }
      }
    } else {
      BOOST_TEST(t.depth() <= 4u);
    }
  }
  return t;
}

// Every terminal, and random and contiguous jobs of a few sizes, several roots. With every
// terminal a rank the paper's tree is never physical on a torus (the unit is not fully
// connected), so those trees are the shortest-path ones.
void check_torus(const network::torus& t) {
  const uint32_t n = t.num_terminals();
  const auto all = make_placement(t, network::placement_kind::all, 0);
  for (const uint32_t root : {0u, n / 2, n - 1}) {
    BOOST_TEST((check_any_tree(t, all, root).rule == tree_rule::shortest_path));
  }
  for (const uint32_t ranks : {2u, 5u, n / 3}) {
    for (const uint64_t seed : {1u, 7u, 42u}) {
      const auto place = make_placement(t, network::placement_kind::random, ranks, 0, seed);
      for (const uint32_t root : {0u, ranks - 1}) check_any_tree(t, place, root);
    }
    const auto block = make_placement(t, network::placement_kind::contiguous, ranks, n - ranks);
    check_any_tree(t, block, ranks / 2);
  }
}

// A graph file (network/GRAPH_FILES.md) of one link class "wire".
std::string graph_yaml(uint32_t routers, const std::string& terminals, const std::string& groups,
                       const std::string& links) {
  std::ostringstream os;
  os << "routers: " << routers << "\nterminals: " << terminals
     << "\nclasses: [{name: wire}]\ngroups: " << groups << "\nlinks: " << links << "\n";
  return os.str();
}

// Two routers with a terminal each and no link: a topology no graph file can make.
class two_islands final : public network::topology {
 public:
  two_islands() {
    using network::port_info;
    m_ports = {{{port_info::kind::terminal, network::terminal_class, 0, network::invalid_id}},
               {{port_info::kind::terminal, network::terminal_class, 1, network::invalid_id}}};
    m_terminals = {{0, 0}, {1, 0}};
  }
  std::string kind() const override { return "islands"; }
  std::string describe() const override { return "two routers without a link"; }
};

}  // namespace

// Every dragonfly keeps the paper's tree (its output is fixed by the cases above).
BOOST_AUTO_TEST_CASE(ragasa_tree_dragonfly_uses_the_paper_rule) {
  for (const auto arr :
       {network::global_arrangement::absolute, network::global_arrangement::relative}) {
    for (const auto& df : {make_dragonfly(3, 2, 1, 1, arr), make_dragonfly(9, 4, 2, 2, arr),
                           make_dragonfly(5, 4, 2, 2, arr)}) {
      const uint32_t n = df.num_terminals();
      for (const uint64_t seed : {1u, 2u}) {
        const auto place = make_placement(df, network::placement_kind::random, n / 2, 0, seed);
        BOOST_TEST((make_ragasa_tree(df, place, 0).rule == tree_rule::paper), df.describe());
      }
      const auto all = make_placement(df, network::placement_kind::all, 0);
      BOOST_TEST((make_ragasa_tree(df, all, n - 1).rule == tree_rule::paper), df.describe());
    }
  }
}

// The 12-node unit, every node a rank, root 0 (a=1 is +1, b +2, c +6; b is a ring of 3, so
// all of a b line are neighbours). Router 0's ports: a -> 1, b+ -> 2, b- -> 4, c -> 6.
// Breadth first: 1 reaches 3, 5, 7; 2 reaches 8; 4 reaches 10; 3 reaches 9; 5 reaches 11.
BOOST_AUTO_TEST_CASE(ragasa_tree_hand_checked_torus_unit) {
  const network::torus unit = make_torus(1, 1, 1);
  const auto place = make_placement(unit, network::placement_kind::all, 0);
  const ragasa_tree t = check_any_tree(unit, place, 0);
  BOOST_TEST((t.rule == tree_rule::shortest_path));
  std::vector<std::vector<bcast_child>> expected(12);
  expected[0] = {router_child(1), router_child(2), router_child(4), router_child(6)};
  expected[1] = {router_child(3), router_child(5), router_child(7), terminal_child(1)};
  expected[2] = {router_child(8), terminal_child(2)};
  expected[3] = {router_child(9), terminal_child(3)};
  expected[4] = {router_child(10), terminal_child(4)};
  expected[5] = {router_child(11), terminal_child(5)};
  for (uint32_t r = 6; r < 12; ++r) expected[r] = {terminal_child(r)};
  for (uint32_t r = 0; r < 12; ++r) BOOST_TEST((t.children[r] == expected[r]), "router " << r);
  BOOST_TEST(t.depth() == 4u);  // 0 -> 1 -> 3 -> 9 -> terminal 9: a, b and c differ
}

BOOST_AUTO_TEST_CASE(ragasa_tree_properties_torus_unit) {
  check_torus(make_torus(1, 1, 1));
}

// 4x4x4: ABC units not neighbours are not joined. Farthest router from 0: 2 + 2 + 2 hops in
// x, y, z and 1 + 1 + 1 in a, b, c; + 1 to its terminal.
BOOST_AUTO_TEST_CASE(ragasa_tree_properties_torus_768) {
  const network::torus t = make_torus(4, 4, 4);
  check_torus(t);
  const auto all = make_placement(t, network::placement_kind::all, 0);
  BOOST_TEST(make_ragasa_tree(t, all, 0).depth() == 10u);
}

// 3x2x1 with x, y and b lines: from router 0, 2 hops in x, 1 in y, 2 in b, 1 in a and c.
BOOST_AUTO_TEST_CASE(ragasa_tree_properties_torus_mesh) {
  const network::torus t = make_torus(3, 2, 1, {network::dim_x, network::dim_y, network::dim_b});
  check_torus(t);
  const auto all = make_placement(t, network::placement_kind::all, 0);
  BOOST_TEST(make_ragasa_tree(t, all, 0).depth() == 8u);
}

// Where the paper's edges all are links, the paper's tree is kept on any topology, even
// when a shorter tree exists. 3x2x1: ranks on routers 6 (unit 0, a=1; the root) and 7 (unit
// 1, a=1). Step 1 takes the first link between the units, 0 -> 1, through gateway 0 (R0's a
// neighbour); step 2 goes 1 -> 7 (a). Depth 4, where 6 -> 7 (x) would be 2.
BOOST_AUTO_TEST_CASE(ragasa_tree_torus_keeps_the_paper_tree_where_it_is_links) {
  const network::torus t = make_torus(3, 2, 1);
  const auto place = make_placement(t, network::placement_kind::contiguous, 2, 6);
  const ragasa_tree tree = check_any_tree(t, place, 0);
  BOOST_TEST((tree.rule == tree_rule::paper));
  std::vector<std::vector<bcast_child>> expected(t.num_routers());
  expected[6] = {router_child(0)};
  expected[0] = {router_child(1)};
  expected[1] = {router_child(7)};
  expected[7] = {terminal_child(7)};
  for (uint32_t r = 0; r < t.num_routers(); ++r) {
    BOOST_TEST((tree.children[r] == expected[r]), "router " << r);
  }
  BOOST_TEST(tree.depth() == 4u);
}

// A line 0-1-2-3-4, one group, 2 terminals a router, ranks on terminals 0..4 (routers 0, 0,
// 1, 1, 2): the paper's step 2 would send 0 -> 2, not a link. Routers 3 and 4 hold no rank
// and are pruned.
BOOST_AUTO_TEST_CASE(ragasa_tree_graph_prunes_routers_without_ranks) {
  const scratch_dir dir;
  const network::graph_topology line(dir.write(
      "line.yaml", graph_yaml(5, "[2, 2, 2, 2, 2]", "[0, 0, 0, 0, 0]",
                              "[[0, 1, wire], [1, 2, wire], [2, 3, wire], [3, 4, wire]]")));
  const auto place = make_placement(line, network::placement_kind::contiguous, 5, 0);
  const ragasa_tree t = check_any_tree(line, place, 0);
  BOOST_TEST((t.rule == tree_rule::shortest_path));
  const std::vector<std::vector<bcast_child>> expected = {
      {router_child(1), terminal_child(1)},
      {router_child(2), terminal_child(2), terminal_child(3)},
      {terminal_child(4)},
      {},
      {}};
  for (uint32_t r = 0; r < 5; ++r) BOOST_TEST((t.children[r] == expected[r]), "router " << r);
  BOOST_TEST((t.participating_routers() == std::vector<network::router_id>{0, 1, 2}));
  BOOST_TEST(t.depth() == 3u);
}

// Line 0-1-2-3, groups [0, 0, 0, 1], terminals only on routers 0 and 3. Step 1 would go
// through gateway 2 (link 2-3), which is not R0's neighbour; nothing else is wrong.
BOOST_AUTO_TEST_CASE(ragasa_tree_graph_gateway_not_a_neighbour) {
  const scratch_dir dir;
  const network::graph_topology line(dir.write(
      "line.yaml",
      graph_yaml(4, "[1, 0, 0, 1]", "[0, 0, 0, 1]", "[[0, 1, wire], [1, 2, wire], [2, 3, wire]]")));
  BOOST_TEST_REQUIRE(line.links_between_groups(0, 1).front().first == 2u);
  const auto place = make_placement(line, network::placement_kind::all, 0);
  const ragasa_tree t = check_any_tree(line, place, 0);
  BOOST_TEST((t.rule == tree_rule::shortest_path));
  const std::vector<std::vector<bcast_child>> expected = {
      {router_child(1)}, {router_child(2)}, {router_child(3)}, {terminal_child(1)}};
  for (uint32_t r = 0; r < 4; ++r) BOOST_TEST((t.children[r] == expected[r]), "router " << r);
  BOOST_TEST(t.depth() == 4u);
}

// Line 0-1-2 in groups 0, 1, 2: groups 0 and 2 are not joined, so step 1 has no link.
BOOST_AUTO_TEST_CASE(ragasa_tree_graph_groups_not_joined) {
  const scratch_dir dir;
  const network::graph_topology line(dir.write(
      "line.yaml", graph_yaml(3, "[1, 0, 1]", "[0, 1, 2]", "[[0, 1, wire], [1, 2, wire]]")));
  BOOST_TEST_REQUIRE(line.links_between_groups(0, 2).empty());
  const auto place = make_placement(line, network::placement_kind::all, 0);
  for (const uint32_t root : {0u, 1u}) {
    const ragasa_tree t = check_any_tree(line, place, root);
    BOOST_TEST((t.rule == tree_rule::shortest_path));
    BOOST_TEST((t.children[1] == std::vector<bcast_child>{router_child(root == 0 ? 2 : 0)}));
    BOOST_TEST(t.depth() == 3u);
  }
}

// A dragonfly written as a graph file is a graph_topology with fully connected groups all
// joined: the paper's tree is links there, so it is kept, with every dragonfly property.
BOOST_AUTO_TEST_CASE(ragasa_tree_dragonfly_graph_file_keeps_the_paper_tree) {
  const scratch_dir dir;
  for (const auto arr :
       {network::global_arrangement::absolute, network::global_arrangement::relative}) {
    const auto df = make_dragonfly(5, 4, 2, 2, arr);
    const network::graph_topology g(
        dir.write("df.yaml", network::graph_test_files::yaml_of(df, {0, 1, 3})));
    BOOST_TEST_REQUIRE(g.num_groups() == 5u);
    const uint32_t n = g.num_terminals();
    for (const uint32_t ranks : {5u, n / 2, n}) {
      const auto place = make_placement(g, network::placement_kind::random, ranks, 0, 3);
      for (const uint32_t root : {0u, ranks - 1}) {
        BOOST_TEST((check_any_tree(g, place, root).rule == tree_rule::paper));
        check_tree(g, place, root);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(ragasa_tree_refuses_ranks_it_cannot_reach) {
  const two_islands islands;
  const auto place = make_placement(islands, network::placement_kind::all, 0);
  BOOST_CHECK_EXCEPTION(make_ragasa_tree(islands, place, 0), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          return std::string(e.what()).find("cannot be reached") !=
                                 std::string::npos;
                        });
}
