// Dragonfly wiring: port layout, symmetry, global-link arrangements (FACTS §1.2), errors.
#include "network/dragonfly.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace bcastsim::network;

namespace {

struct shape {
  uint32_t g, a, p, h;
};

// Maximal, L > 1, g-1 not dividing a*h (unused ports), larger, and the smallest one.
const std::vector<shape> k_shapes = {{9, 4, 2, 2}, {5, 4, 2, 2}, {7, 4, 2, 2},
                                     {6, 4, 2, 2}, {7, 4, 2, 3}, {33, 8, 4, 4},
                                     {3, 2, 1, 1}, {2, 3, 1, 2}, {4, 3, 2, 2}};
const global_arrangement k_arrangements[] = {global_arrangement::absolute,
                                             global_arrangement::relative};

dragonfly make(const shape& s, global_arrangement arr) {
  return dragonfly(dragonfly_params{s.g, s.a, s.p, s.h, arr});
}

std::vector<std::pair<router_id, router_id>> sorted_pairs(
    const std::vector<topology::router_pair>& v) {
  std::vector<std::pair<router_id, router_id>> out;
  for (const auto& rp : v) out.emplace_back(rp.first, rp.second);
  std::sort(out.begin(), out.end());
  return out;
}

// The error a constructor throws for these params, or "" when it throws none.
std::pair<std::string, std::string> error_of(const dragonfly_params& params) {
  try {
    dragonfly df(params);
  } catch (const topology_error& e) {
    return {e.key, e.what()};
  }
  return {"", ""};
}

}  // namespace

BOOST_AUTO_TEST_CASE(dragonfly_sizes_and_terminal_attachment) {
  for (const shape& s : k_shapes) {
    const dragonfly df = make(s, global_arrangement::absolute);
    BOOST_TEST_CONTEXT(df.describe()) {
      BOOST_TEST(df.num_groups() == s.g);
      BOOST_TEST(df.num_routers() == s.g * s.a);
      BOOST_TEST(df.num_terminals() == s.g * s.a * s.p);
      BOOST_TEST(df.links_per_group_pair() == s.a * s.h / (s.g - 1));
      BOOST_TEST(df.first_global_port() == s.p + s.a - 1);
      for (terminal_id t = 0; t < df.num_terminals(); ++t) {
        BOOST_TEST(df.router_of(t) == t / s.p);
        BOOST_TEST(df.attach(t).port == t % s.p);
        BOOST_TEST(df.group_of_terminal(t) == t / (s.p * s.a));
      }
      for (router_id r = 0; r < df.num_routers(); ++r) {
        BOOST_TEST(df.radix(r) == s.p + s.a - 1 + s.h);
        BOOST_TEST(df.group_of(r) == r / s.a);
        std::vector<terminal_id> expect;
        for (uint32_t i = 0; i < s.p; ++i) expect.push_back(r * s.p + i);
        BOOST_TEST(df.terminals_of(r) == expect, boost::test_tools::per_element());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(dragonfly_port_wiring_is_symmetric_and_classed) {
  for (const shape& s : k_shapes) {
    for (global_arrangement arr : k_arrangements) {
      const dragonfly df = make(s, arr);
      BOOST_TEST_CONTEXT(df.describe()) {
        const uint32_t unused_per_group = s.a * s.h - (s.g - 1) * df.links_per_group_pair();
        std::vector<uint32_t> unused(s.g, 0);
        for (router_id r = 0; r < df.num_routers(); ++r) {
          for (port_id p = 0; p < df.radix(r); ++p) {
            const port_info& pi = df.port(r, p);
            if (p < s.p) {
              BOOST_TEST((pi.peer_kind == port_info::kind::terminal));
              BOOST_TEST((pi.cls == dragonfly_classes::terminal));
              BOOST_TEST(df.attach(pi.peer).router == r);
              BOOST_TEST(df.attach(pi.peer).port == p);
              continue;
            }
            if (pi.peer_kind == port_info::kind::unused) {
              BOOST_TEST(p >= df.first_global_port());
              ++unused[df.group_of(r)];
              continue;
            }
            BOOST_REQUIRE((pi.peer_kind == port_info::kind::router));
            BOOST_TEST(pi.peer != r);
            const bool local = p < df.first_global_port();
            BOOST_TEST((pi.cls == (local ? dragonfly_classes::local : dragonfly_classes::global)));
            BOOST_TEST((df.group_of(pi.peer) == df.group_of(r)) == local);
            if (local) BOOST_TEST(df.local_port(r, pi.peer) == p);
            // Peer of peer is self, over the same cable class.
            const port_info& back = df.port(pi.peer, pi.peer_port);
            BOOST_TEST((back.peer_kind == port_info::kind::router));
            BOOST_TEST(back.peer == r);
            BOOST_TEST(back.peer_port == p);
            BOOST_TEST((back.cls == pi.cls));
          }
        }
        for (uint32_t grp = 0; grp < s.g; ++grp) BOOST_TEST(unused[grp] == unused_per_group);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(dragonfly_local_port_formula) {
  const dragonfly df(dragonfly_params{9, 4, 2, 2, global_arrangement::absolute});
  // Router 5 is r=1 of group 1: peers r=0,2,3 (routers 4,6,7) on ports 2,3,4.
  BOOST_TEST(df.local_port(5, 4) == 2u);
  BOOST_TEST(df.local_port(5, 6) == 3u);
  BOOST_TEST(df.local_port(5, 7) == 4u);
  BOOST_TEST(df.local_port(4, 5) == 2u);
  BOOST_TEST(df.local_port(7, 6) == 4u);
}

BOOST_AUTO_TEST_CASE(dragonfly_every_group_pair_has_floor_ah_over_g_minus_1_links) {
  for (const shape& s : k_shapes) {
    for (global_arrangement arr : k_arrangements) {
      const dragonfly df = make(s, arr);
      BOOST_TEST_CONTEXT(df.describe()) {
        const uint32_t links = s.a * s.h / (s.g - 1);
        BOOST_REQUIRE(df.links_per_group_pair() == links);
        // Count the wiring itself, independent of the global_link table.
        std::map<std::pair<group_id, group_id>, std::vector<std::pair<router_id, router_id>>> wired;
        for (router_id r = 0; r < df.num_routers(); ++r) {
          for (port_id p = df.first_global_port(); p < df.radix(r); ++p) {
            const port_info& pi = df.port(r, p);
            if (pi.peer_kind != port_info::kind::router) continue;
            wired[{df.group_of(r), df.group_of(pi.peer)}].emplace_back(r, pi.peer);
          }
        }
        for (group_id g1 = 0; g1 < s.g; ++g1) {
          BOOST_TEST(df.links_between_groups(g1, g1).empty());
          for (group_id g2 = 0; g2 < s.g; ++g2) {
            if (g1 == g2) continue;
            auto& w = wired[{g1, g2}];
            BOOST_TEST(w.size() == links);
            std::sort(w.begin(), w.end());
            const auto listed = df.links_between_groups(g1, g2);
            BOOST_TEST(listed.size() == links);
            BOOST_TEST(sorted_pairs(listed) == w);
            // The generic topology scan agrees with the dragonfly's table.
            BOOST_TEST(sorted_pairs(df.topology::links_between_groups(g1, g2)) == w);
            for (uint32_t k = 0; k < links; ++k) {
              // k-th link src->dst and k-th link dst->src are two ends of one cable,
              // and links_between_groups is ordered by k.
              const auto x = df.global_link(g1, g2, k);
              const auto y = df.global_link(g2, g1, k);
              BOOST_TEST(df.group_of(x.router) == g1);
              BOOST_TEST(df.port(x.router, x.port).peer == y.router);
              BOOST_TEST(df.port(x.router, x.port).peer_port == y.port);
              BOOST_TEST(listed[k].first == x.router);
              BOOST_TEST(listed[k].second == y.router);
            }
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(dragonfly_global_ports_follow_sst_getgloballink) {
  // FACTS §1.2: raw = r*h + j; raws past (g-1)*L unused; link k = raw / (g-1) to the
  // group that index raw % (g-1) names under the arrangement.
  for (const shape& s : k_shapes) {
    for (global_arrangement arr : k_arrangements) {
      const dragonfly df = make(s, arr);
      BOOST_TEST_CONTEXT(df.describe()) {
        const uint32_t used = (s.g - 1) * df.links_per_group_pair();
        for (group_id grp = 0; grp < s.g; ++grp) {
          for (uint32_t raw = 0; raw < s.a * s.h; ++raw) {
            const router_id r = grp * s.a + raw / s.h;
            const port_id p = df.first_global_port() + raw % s.h;
            const port_info& pi = df.port(r, p);
            if (raw >= used) {
              BOOST_TEST((pi.peer_kind == port_info::kind::unused));
              continue;
            }
            const uint32_t idx = raw % (s.g - 1);
            const group_id dst = arr == global_arrangement::absolute ? (idx >= grp ? idx + 1 : idx)
                                                                     : (idx + grp + 1) % s.g;
            BOOST_TEST(df.group_of(pi.peer) == dst);
            const auto e = df.global_link(grp, dst, raw / (s.g - 1));
            BOOST_TEST(e.router == r);
            BOOST_TEST(e.port == p);
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(dragonfly_absolute_maximal_matches_booksim_dragonflynew) {
  for (const shape& base : k_shapes) {
    const shape s{base.a * base.h + 1, base.a, base.p, base.h};
    const dragonfly df = make(s, global_arrangement::absolute);
    BOOST_TEST_CONTEXT(df.describe()) {
      for (group_id grp = 0; grp < s.g; ++grp) {
        for (uint32_t r = 0; r < s.a; ++r) {
          for (uint32_t j = 0; j < s.h; ++j) {
            // BookSim _BuildNet: port t = r*h + j goes to group t < G ? t : t+1.
            const uint32_t t = r * s.h + j;
            const port_info& pi = df.port(grp * s.a + r, df.first_global_port() + j);
            BOOST_TEST(df.group_of(pi.peer) == (t < grp ? t : t + 1));
          }
        }
        for (group_id dst = 0; dst < s.g; ++dst) {
          if (dst == grp) continue;
          // BookSim min_dragonflynew: grp_output = D if G > D else D-1.
          const uint32_t out = grp > dst ? dst : dst - 1;
          const auto e = df.global_link(grp, dst, 0);
          BOOST_TEST(e.router == grp * s.a + out / s.h);
          BOOST_TEST(e.port == s.p + (s.a - 1) + out % s.h);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(dragonfly_relative_maximal_follows_sst_formula) {
  const shape s{9, 4, 2, 2};
  const dragonfly df = make(s, global_arrangement::relative);
  for (group_id grp = 0; grp < s.g; ++grp) {
    for (uint32_t t = 0; t < s.a * s.h; ++t) {
      const port_info& pi = df.port(grp * s.a + t / s.h, df.first_global_port() + t % s.h);
      BOOST_TEST(df.group_of(pi.peer) == (t + grp + 1) % s.g);
    }
  }
}

// CODES dragonfly.c router_setup (USE_DIRECT_SCHEME): global port j of router (g, i) goes to
// group t = i + j*a, or G-1 when that is g, and reaches router t*a + (g % a), or t*a + (t % a)
// from the last group. One cable per group pair (experiments/codes/codes-dragonfly-notes.md).
BOOST_AUTO_TEST_CASE(dragonfly_codes_arrangement_follows_codes_router_setup) {
  for (const shape& base : k_shapes) {
    const shape s{base.a * base.h + 1, base.a, base.p, base.h};
    const dragonfly df = make(s, global_arrangement::codes);
    BOOST_TEST_CONTEXT(df.describe()) {
      BOOST_REQUIRE(df.links_per_group_pair() == 1u);
      std::set<std::pair<group_id, group_id>> pairs;
      for (group_id g = 0; g < s.g; ++g) {
        for (uint32_t i = 0; i < s.a; ++i) {
          for (uint32_t j = 0; j < s.h; ++j) {
            group_id t = i + j * s.a;
            if (t == g) t = s.g - 1;
            const uint32_t pos = g == s.g - 1 ? t % s.a : g % s.a;
            const port_info& pi = df.port(g * s.a + i, df.first_global_port() + j);
            BOOST_TEST(pi.peer == t * s.a + pos);
            BOOST_TEST(df.port(pi.peer, pi.peer_port).peer == g * s.a + i);  // one cable
            BOOST_TEST(pairs.insert({g, t}).second);                         // once per pair
          }
        }
      }
      BOOST_TEST(pairs.size() == size_t{s.g} * (s.g - 1));
    }
  }
  // The 72-terminal case by hand (the notes' table): router 0 -> 32 and 16, 1 -> 4 and 20,
  // 5 -> 33 and 21.
  const dragonfly df(dragonfly_params{9, 4, 2, 2, global_arrangement::codes});
  const port_id g0 = df.first_global_port();
  BOOST_TEST(df.port(0, g0).peer == 32u);
  BOOST_TEST(df.port(0, g0 + 1).peer == 16u);
  BOOST_TEST(df.port(1, g0).peer == 4u);
  BOOST_TEST(df.port(1, g0 + 1).peer == 20u);
  BOOST_TEST(df.port(5, g0).peer == 33u);
  BOOST_TEST(df.port(5, g0 + 1).peer == 21u);
  // Only the maximal dragonfly: CODES builds no other.
  const auto e = error_of(dragonfly_params{5, 4, 2, 2, global_arrangement::codes});
  BOOST_TEST(e.first == "topology.arrangement");
  BOOST_TEST(e.second.find("g = a*h+1 = 9") != std::string::npos, e.second);
}

// Hand-worked g=3 a=2 p=1 h=1: routers 2G+r, global port is port 2.
BOOST_AUTO_TEST_CASE(dragonfly_smallest_wiring_by_hand) {
  const dragonfly abs(dragonfly_params{3, 2, 1, 1, global_arrangement::absolute});
  BOOST_TEST(abs.port(0, 2).peer == 2u);  // 0.r0 - 1.r0
  BOOST_TEST(abs.port(1, 2).peer == 4u);  // 0.r1 - 2.r0
  BOOST_TEST(abs.port(3, 2).peer == 5u);  // 1.r1 - 2.r1
  const dragonfly rel(dragonfly_params{3, 2, 1, 1, global_arrangement::relative});
  BOOST_TEST(rel.port(0, 2).peer == 3u);  // 0.r0 - 1.r1
  BOOST_TEST(rel.port(1, 2).peer == 4u);  // 0.r1 - 2.r0
  BOOST_TEST(rel.port(2, 2).peer == 5u);  // 1.r0 - 2.r1
  // g=5 a=4 h=2 absolute, L=2: raw 0 (r0 j0) is link 0 to group 1, raw 4 (r2 j0) link 1.
  const dragonfly two(dragonfly_params{5, 4, 2, 2, global_arrangement::absolute});
  BOOST_TEST(two.global_link(0, 1, 0).router == 0u);
  BOOST_TEST(two.global_link(0, 1, 1).router == 2u);
  BOOST_TEST(two.global_link(0, 1, 1).port == two.first_global_port());
}

BOOST_AUTO_TEST_CASE(dragonfly_g_zero_means_maximum) {
  const dragonfly df(dragonfly_params{0, 4, 2, 2, global_arrangement::absolute});
  BOOST_TEST(df.g() == 9u);
  BOOST_TEST(df.num_routers() == 36u);
  BOOST_TEST(df.describe() == "dragonfly g=9 a=4 p=2 h=2 absolute (36 routers, 72 terminals)");
  const dragonfly rel(dragonfly_params{5, 4, 2, 2, global_arrangement::relative});
  BOOST_TEST(rel.describe() == "dragonfly g=5 a=4 p=2 h=2 relative (20 routers, 40 terminals)");
  BOOST_TEST(rel.kind() == "dragonfly");
}

BOOST_AUTO_TEST_CASE(dragonfly_bad_parameters_throw_with_key) {
  const auto too_many = error_of({10, 4, 2, 2, global_arrangement::absolute});
  BOOST_TEST(too_many.first == "topology.g");
  BOOST_TEST(too_many.second.find("topology.g = 10") != std::string::npos);
  BOOST_TEST(too_many.second.find("[2, 9]") != std::string::npos);
  const auto one = error_of({1, 4, 2, 2, global_arrangement::relative});
  BOOST_TEST(one.first == "topology.g");
  BOOST_TEST(one.second.find("[2, 9]") != std::string::npos);
  BOOST_TEST(error_of({12, 4, 2, 2, global_arrangement::absolute}).second ==
             "topology.g = 12 is out of range: a dragonfly with a=4, h=2 has a*h = 8 global "
             "ports per group, so g must be in [2, 9]");
  BOOST_TEST(error_of({5, 0, 2, 2, global_arrangement::absolute}).first == "topology.a");
  BOOST_TEST(error_of({5, 4, 0, 2, global_arrangement::absolute}).first == "topology.p");
  BOOST_TEST(error_of({5, 4, 2, 0, global_arrangement::absolute}).first == "topology.h");
  // The boundaries themselves are fine.
  BOOST_TEST(error_of({2, 4, 2, 2, global_arrangement::absolute}).first == "");
  BOOST_TEST(error_of({9, 4, 2, 2, global_arrangement::relative}).first == "");
  // topology_error is an invalid_argument, so generic config handlers catch it.
  BOOST_CHECK_THROW(dragonfly(dragonfly_params{1, 1, 1, 1}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(dragonfly_to_string) {
  BOOST_TEST(std::string(to_string(global_arrangement::absolute)) == "absolute");
  BOOST_TEST(std::string(to_string(global_arrangement::relative)) == "relative");
  const dragonfly df(dragonfly_params{0, 2, 1, 1, global_arrangement::absolute});
  BOOST_TEST(df.class_name(dragonfly_classes::terminal) == "terminal");
  BOOST_TEST(df.class_name(dragonfly_classes::local) == "local");
  BOOST_TEST(df.class_name(dragonfly_classes::global) == "global");
  BOOST_TEST(df.num_link_classes() == 3u);
}
