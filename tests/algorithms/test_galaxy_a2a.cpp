// algorithms/galaxy_a2a: the router-level all-to-all broadcasts' plans (SFATA, RFATA, A2A):
// the paper's RPC example, every router receiving every origin, redundancy, causality (a
// transfer's sender holds its origins when it sends), one-hop transfers, bad input.
#include "algorithms/galaxy_a2a.h"
#include "network/dragonfly.h"
#include "network/galaxyfly.h"
#include "network/graph_topology.h"
#include "tests/network/graph_test_files.h"

#include <boost/test/unit_test.hpp>

#include "fixtures.h"

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::algorithms;
using bcastsim::test::make_dragonfly;

namespace {

network::galaxyfly make_galaxyfly(uint32_t n, uint32_t q, uint32_t a, uint32_t h) {
  network::galaxyfly_params gp;
  gp.n = n;
  gp.q = q;
  gp.a = a;
  gp.p = 1;
  gp.h = h;
  return network::galaxyfly(gp);
}

// Replays the plan in its logical order: every sender holds what it sends, every transfer
// crosses one link, and the plan's own account (received, redundant, complete) is right.
void check_plan(const network::topology& topo, const galaxy_plan& plan) {
  const uint32_t n = topo.num_routers();
  std::vector<std::set<uint32_t>> hold(n);
  for (uint32_t r = 0; r < n; ++r) hold[r].insert(r);
  std::vector<uint32_t> received(n, 0), redundant(n, 0);
  for (const galaxy_transfer& t : plan.transfers) {
    BOOST_TEST_REQUIRE(t.count > 0u);
    bool adjacent = false;
    for (uint32_t p = 0; p < topo.radix(t.from); ++p) {
      const network::port_info& pi = topo.port(t.from, p);
      adjacent |= pi.peer_kind == network::port_info::kind::router && pi.peer == t.to;
    }
    BOOST_TEST_REQUIRE(adjacent, "transfer " << t.from << " -> " << t.to << " is not one hop");
    if (t.after_all) BOOST_TEST_REQUIRE(hold[t.from].size() == n);
    for (uint32_t i = t.first; i < t.first + t.count; ++i) {
      const uint32_t o = plan.origins[i];
      BOOST_TEST_REQUIRE(hold[t.from].count(o) == 1u,
                         "router " << t.from << " sends " << o << " before holding it");
      ++received[t.to];
      if (!hold[t.to].insert(o).second) ++redundant[t.to];
    }
  }
  uint32_t complete = 0;
  for (uint32_t r = 0; r < n; ++r) complete += hold[r].size() == n ? 1 : 0;
  BOOST_TEST(complete == n);
  BOOST_TEST(plan.complete_routers == n);
  BOOST_TEST(received == plan.received, boost::test_tools::per_element());
  BOOST_TEST(redundant == plan.redundant, boost::test_tools::per_element());
  for (uint32_t r = 0; r < n; ++r) BOOST_TEST(received[r] - redundant[r] == n - 1);
}

}  // namespace

// The paper's Figure 3: RPC({R1..R8}, R4) sends R2 and R7 to R4, R1 and R3 to R2, R5 and R8
// to R7; the paper sends R6 to R5 where the upper-median rule takes R6 as {R5, R6}'s
// collector (R5 -> R6), an equal-cost leaf.
BOOST_AUTO_TEST_CASE(rpc_reproduces_the_papers_figure_3) {
  const std::vector<uint32_t> routers = {1, 2, 3, 4, 5, 6, 7, 8};
  const auto edges = galaxy_rpc_edges(routers, 4);
  const std::set<std::pair<uint32_t, uint32_t>> got(edges.begin(), edges.end());
  const std::set<std::pair<uint32_t, uint32_t>> want = {{1, 2}, {3, 2}, {2, 4}, {5, 6},
                                                        {6, 7}, {8, 7}, {7, 4}};
  BOOST_TEST(got == want);
  BOOST_TEST(edges.size() == 7u);
  // Post-order: a collector sends only after everything under it.
  BOOST_TEST((edges.back() == std::pair<uint32_t, uint32_t>{7, 4}));
}

BOOST_AUTO_TEST_CASE(bfs_follows_the_papers_figure_4) {
  // Galaxyfly(3, 5, a=1): supernode i is router i. From S8 (7) the paper sends S1, S4, S13 to
  // S5; S3, S6, S14 to S7; S2, S10, S15 to S9; S11 to S12 (ids one less).
  const network::galaxyfly g = make_galaxyfly(3, 5, 1, 4);
  const galaxy_bfs t = galaxy_bfs_tree(galaxy_view::of(g), 7);
  const std::vector<std::pair<uint32_t, std::vector<uint32_t>>> want = {
      {4, {0, 3, 12}}, {6, {2, 5, 13}}, {8, {1, 9, 14}}, {11, {10}}};
  for (const auto& [x, children] : want) {
    BOOST_TEST(t.parent[x] == 7u);
    for (uint32_t y : children) BOOST_TEST(t.parent[y] == x, "S" << y + 1);
  }
}

BOOST_AUTO_TEST_CASE(every_router_receives_every_origin_on_galaxyfly) {
  const std::vector<std::array<uint32_t, 4>> shapes = {{3, 5, 4, 1}, {4, 5, 4, 2}, {4, 5, 5, 1},
                                                       {4, 7, 4, 2}, {3, 5, 8, 1}, {3, 4, 3, 2},
                                                       {2, 9, 3, 2}};
  for (const auto& [n, q, a, h] : shapes) {
    const network::galaxyfly g = make_galaxyfly(n, q, a, h);
    const galaxy_view v = galaxy_view::of(g);
    for (uint32_t root : {0u, 7u % (n * q), n * q - 1}) {
      BOOST_TEST_CONTEXT("Galaxyfly(" << n << "," << q << "," << a << ") root " << root) {
        const galaxy_plan sf = make_galaxy_plan(galaxy_algorithm::sfata, v, root);
        check_plan(g, sf);
        BOOST_TEST(sf.redundant_total() == 0u);  // the paper's Theorem 5
        const galaxy_plan rf = make_galaxy_plan(galaxy_algorithm::rfata, v, root);
        check_plan(g, rf);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a2a_on_dragonfly_has_no_redundant_packets) {
  for (const auto& [g, a, h] :
       std::vector<std::array<uint32_t, 3>>{{9, 4, 2}, {3, 20, 1}, {4, 28, 1}}) {
    const network::dragonfly df = make_dragonfly(g, a, 1, h);
    const galaxy_view v = galaxy_view::of(df);
    const galaxy_plan plan = make_galaxy_plan(galaxy_algorithm::a2a, v, 0);
    check_plan(df, plan);
    BOOST_TEST(plan.redundant_total() == 0u);
    // Every foreign packet crosses exactly one global link.
    uint64_t global = 0;
    for (const galaxy_transfer& t : plan.transfers)
      if (v.group_of[t.from] != v.group_of[t.to]) global += t.count;
    BOOST_TEST(global == uint64_t{g} * (g - 1) * a);
    // SFATA and RFATA run on a dragonfly too (a Galaxyfly with q = 1).
    check_plan(df, make_galaxy_plan(galaxy_algorithm::sfata, v, 1));
    check_plan(df, make_galaxy_plan(galaxy_algorithm::rfata, v, 1));
  }
}

BOOST_AUTO_TEST_CASE(rfata_is_router_first) {
  // After RFATA's first phase every router holds its supernode's packets: the first
  // transfers that leave a supernode come after those that stay in it, supernode by supernode.
  const network::galaxyfly g = make_galaxyfly(3, 5, 4, 1);
  const galaxy_view v = galaxy_view::of(g);
  const galaxy_plan rf = make_galaxy_plan(galaxy_algorithm::rfata, v, 7);
  const uint32_t a = 4;
  size_t i = 0;
  for (; i < rf.transfers.size() &&
         v.group_of[rf.transfers[i].from] == v.group_of[rf.transfers[i].to];
       ++i) {
  }
  // 15 supernodes x (RPC + RPD) of 4 routers: 15 x 2 x 3 transfers, all local.
  BOOST_TEST(i == 15u * 2 * (a - 1));
  const galaxy_plan sf = make_galaxy_plan(galaxy_algorithm::sfata, v, 7);
  BOOST_TEST(sf.transfers.size() < rf.transfers.size());
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused) {
  const network::dragonfly df = make_dragonfly(5, 4, 1, 1);  // a*h = 4 = g - 1
  const galaxy_view v = galaxy_view::of(df);
  BOOST_CHECK_THROW(make_galaxy_plan(galaxy_algorithm::sfata, v, 5), std::invalid_argument);
  // g < a*h + 1 with one link per pair is fine; a Galaxyfly with q > 1 is not complete.
  const network::galaxyfly g = make_galaxyfly(3, 5, 4, 1);
  try {
    make_galaxy_plan(galaxy_algorithm::a2a, galaxy_view::of(g), 0);
    BOOST_FAIL("a2a on a Galaxyfly with q > 1 was accepted");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()).find("every pair of groups") != std::string::npos);
  }
}

// Graph files can break the readings' assumptions: parallel local links do not make a group
// fully connected, and an A2A whose gateway links do not pair up (group 0's first link to
// group 1 is 0-3, group 1's first to group 0 is 2-1) would leave routers short: both refused.
BOOST_AUTO_TEST_CASE(graph_files_the_readings_do_not_fit_are_refused) {
  const network::graph_test_files::scratch_dir dir;
  const network::graph_topology path(dir.write("path.txt", R"(routers 3
terminals_per_router 1
class local 5.25 10 16384 1
link 0 1 local
link 0 1 local
link 1 2 local
link 1 2 local
)"));
  BOOST_CHECK_THROW(galaxy_view::of(path), std::invalid_argument);
  const network::graph_topology crossed(dir.write("crossed.txt", R"(routers 4
terminals_per_router 1
class local 5.25 10 16384 1
class global 4.7 100 32768 3
group 0 0
group 1 0
group 2 1
group 3 1
link 0 1 local
link 2 3 local
link 0 3 global
link 1 2 global
)"));
  const galaxy_view v = galaxy_view::of(crossed);
  // Each group's gateway: group 0 holds 0-3 first, group 1 holds 2-1 first.
  BOOST_TEST(v.find(0, 1)->router == 0u);
  BOOST_TEST(v.find(1, 0)->router == 2u);
  const galaxy_plan plan = make_galaxy_plan(galaxy_algorithm::a2a, v, 0);
  check_plan(crossed, plan);  // complete: packets are forwarded from where they land
  for (galaxy_algorithm a : {galaxy_algorithm::sfata, galaxy_algorithm::rfata})
    check_plan(crossed, make_galaxy_plan(a, v, 1));
}

namespace {

// [router][origin] the sender of the transfer that first brought the origin to the router.
std::vector<std::vector<uint32_t>> first_senders(const galaxy_plan& plan) {
  std::vector<std::vector<uint32_t>> by(plan.routers,
                                        std::vector<uint32_t>(plan.routers, 0xffffffffu));
  for (const galaxy_transfer& t : plan.transfers) {
    for (uint32_t i = t.first; i < t.first + t.count; ++i) {
      uint32_t& s = by[t.to][plan.origins[i]];
      if (s == 0xffffffffu) s = t.from;
    }
  }
  return by;
}

// For every non-root supernode X, BFS child C and origin o outside X's BFS subtree: the
// router of X that feeds C, out = gw(X, C), first got o from `want(entry, out)`, the entry
// router being gw(X, P). Returns how many (X, C) pairs had out's RPD parent != entry.
template <typename Want>
uint32_t check_spd_feeders(const galaxy_view& v, uint32_t root, const galaxy_plan& plan,
                           Want want) {
  const galaxy_bfs t = galaxy_bfs_tree(v, root);
  const auto by = first_senders(plan);
  uint32_t deep = 0;
  for (uint32_t x : t.order) {
    if (x == root) continue;
    const uint32_t entry = v.find(x, t.parent[x])->router;
    std::vector<bool> inside(v.members.size(), false);  // X's BFS subtree
    for (uint32_t g : t.order) {
      for (uint32_t y = g; y != root; y = t.parent[y]) inside[g] = inside[g] || y == x;
    }
    for (uint32_t c = 0; c < v.members.size(); ++c) {
      if (c == root || t.parent[c] != x) continue;
      const uint32_t out = v.find(c, x)->peer;
      if (out == entry) continue;
      uint32_t rpd_parent = entry;
      for (const auto& [child, parent] : galaxy_rpc_edges(v.members[x], entry))
        if (child == out) rpd_parent = parent;
      deep += rpd_parent != entry ? 1 : 0;
      for (uint32_t o = 0; o < plan.routers; ++o) {
        if (inside[v.group_of[o]]) continue;
        BOOST_TEST_REQUIRE(by[out][o] == want(entry, rpd_parent),
                           "supernode " << x << " -> child " << c << ": router " << out
                                        << " got origin " << o << " from " << by[out][o]);
      }
    }
  }
  return deep;
}

}  // namespace

// Issue 40, the paper's one defined difference. SFATA (§4.1, supernode-first): "once one
// supernode receives the packets, this supernode will distribute them to the next supernode
// immediately": X's entry router sends the set from X's parent straight to X's gateway toward
// each child, not through the RPD inside X. RFATA (§4.2, router-first): "distribute it to all
// routers inside it in priority, instead of distributing it to other supernodes
// immediately": the gateway toward a child gets the set from its parent in the entry router's
// RPD tree. Shapes whose RPD trees put some gateway two levels down (so the two differ).
BOOST_AUTO_TEST_CASE(sfata_feeds_the_next_supernode_before_distributing_inside) {
  for (const auto& [n, q, a, h] :
       std::vector<std::array<uint32_t, 4>>{{3, 5, 4, 1}, {3, 5, 8, 1}, {4, 7, 4, 2}}) {
    const network::galaxyfly g = make_galaxyfly(n, q, a, h);
    const galaxy_view v = galaxy_view::of(g);
    for (uint32_t root : {0u, 7u, n * q - 1}) {
      BOOST_TEST_CONTEXT("Galaxyfly(" << n << "," << q << "," << a << ") root " << root) {
        const uint32_t sf_deep =
            check_spd_feeders(v, root, make_galaxy_plan(galaxy_algorithm::sfata, v, root),
                              [](uint32_t entry, uint32_t) { return entry; });
        check_spd_feeders(v, root, make_galaxy_plan(galaxy_algorithm::rfata, v, root),
                          [](uint32_t, uint32_t rpd_parent) { return rpd_parent; });
        BOOST_TEST(sf_deep > 0u);  // the case the two rules tell apart occurs
      }
    }
  }
}

// SFATA's transfer toward a child supernode depends on the entry router alone: counting
// transfers in the supernode from the arrival, the set leaves X after two hops (entry ->
// gateway -> child), whatever the RPD tree's depth; RFATA's leaves after the RPD path.
BOOST_AUTO_TEST_CASE(sfata_forwards_out_of_a_supernode_in_two_hops) {
  const network::galaxyfly g = make_galaxyfly(3, 5, 8, 1);
  const galaxy_view v = galaxy_view::of(g);
  const uint32_t root = 7;
  for (galaxy_algorithm alg : {galaxy_algorithm::sfata, galaxy_algorithm::rfata}) {
    const galaxy_plan plan = make_galaxy_plan(alg, v, root);
    // hops[r]: transfers since the root supernode's origin r0 entered r's supernode.
    const uint32_t r0 = v.members[root].front();
    std::vector<uint32_t> hops(plan.routers, 0xffffffffu);
    uint32_t longest = 0;  // over transfers that leave a non-root supernode
    for (const galaxy_transfer& tr : plan.transfers) {
      bool carries = false;
      for (uint32_t i = tr.first; i < tr.first + tr.count; ++i) carries |= plan.origins[i] == r0;
      if (!carries || v.group_of[tr.from] == root) {
        if (carries) hops[tr.to] = 0;
        continue;
      }
      const bool leaves = v.group_of[tr.from] != v.group_of[tr.to];
      if (leaves) longest = std::max(longest, hops[tr.from] + 1);
      if (hops[tr.to] == 0xffffffffu) hops[tr.to] = leaves ? 0 : hops[tr.from] + 1;
    }
    BOOST_TEST_CONTEXT(to_string(alg)) {
      if (alg == galaxy_algorithm::sfata) BOOST_TEST(longest == 2u);
      if (alg == galaxy_algorithm::rfata) BOOST_TEST(longest > 2u);  // RPD of 8: 3 levels
    }
  }
}

// SFATA's SPC (galaxy_a2a.h): every supernode's packets go up on their own. Before SPD
// begins, each transfer that leaves a non-root supernode X toward its parent carries exactly
// one supernode's packets, each of X's BFS subtree once (so X's own do not wait for its
// children's: a transfer fires when its sender holds all it carries); a set from another supernode
// moves inside X only along X's RPC tree toward gw(X, P) (RPC again for each arrival), never mixed
// with another supernode's.
BOOST_AUTO_TEST_CASE(sfata_sends_each_arrival_up_on_its_own) {
  for (const auto& [n, q, a, h] :
       std::vector<std::array<uint32_t, 4>>{{3, 5, 4, 1}, {3, 5, 8, 1}, {4, 5, 5, 2}}) {
    const network::galaxyfly g = make_galaxyfly(n, q, a, h);
    const galaxy_view v = galaxy_view::of(g);
    for (uint32_t root : {0u, n * q - 1}) {
      BOOST_TEST_CONTEXT("Galaxyfly(" << n << "," << q << "," << a << ") root " << root) {
        const galaxy_bfs t = galaxy_bfs_tree(v, root);
        const galaxy_plan plan = make_galaxy_plan(galaxy_algorithm::sfata, v, root);
        std::vector<std::vector<uint32_t>> sent_up(v.members.size());  // [X] supernodes, in order
        uint32_t mixed = 0, off_tree = 0;
        for (const galaxy_transfer& tr : plan.transfers) {
          const uint32_t x = v.group_of[tr.from];
          if (tr.after_all) break;  // SPD begins: out of A once it holds every origin
          if (x == root) continue;
          const uint32_t y = v.group_of[plan.origins[tr.first]];
          bool one = true;
          for (uint32_t i = tr.first; i < tr.first + tr.count; ++i)
            one &= v.group_of[plan.origins[i]] == y;
          const uint32_t m = v.find(x, t.parent[x])->router;
          if (v.group_of[tr.to] == t.parent[x] && tr.from == m) {
            mixed += one && tr.count == v.members[y].size() ? 0 : 1;
            sent_up[x].push_back(y);
          } else if (v.group_of[tr.to] == x && y != x && t.depth[y] > t.depth[x]) {
            const auto edges = galaxy_rpc_edges(v.members[x], m);
            const bool on_tree = std::find(edges.begin(), edges.end(),
                                           std::make_pair(tr.from, tr.to)) != edges.end();
            off_tree += on_tree ? 0 : 1;
            mixed += one ? 0 : 1;
          }
        }
        BOOST_TEST(mixed == 0u);
        BOOST_TEST(off_tree == 0u);
        for (uint32_t x : t.order) {
          if (x == root) continue;
          std::vector<uint32_t> subtree;  // X and its BFS descendants
          for (uint32_t y : t.order) {
            for (uint32_t z = y; z != root; z = t.parent[z]) {
              if (z == x) {
                subtree.push_back(y);
                break;
              }
            }
          }
          BOOST_TEST_REQUIRE(!sent_up[x].empty());
          std::vector<uint32_t> got = sent_up[x];
          std::sort(got.begin(), got.end());
          std::sort(subtree.begin(), subtree.end());
          BOOST_TEST(got == subtree, boost::test_tools::per_element());
        }
      }
    }
  }
}
