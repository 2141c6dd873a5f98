// Dragonfly Valiant ("nonminimal") and UGAL-L ("adaptive") routing: delivery, hop bounds,
// the CODES legacy VC rule, uniform intermediate groups, deadlock freedom (acyclic channel
// dependency graph over all pairs, many entropies and both adaptive decisions), the UGAL
// decision, determinism, and the registry names.
#include "network/dragonfly.h"
#include "network/routing.h"
#include "network/topology_kind.h"
#include "routing_checks.h"

#include <boost/test/unit_test.hpp>

#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace bcastsim::network;
using namespace bcastsim::network::routing_checks;

namespace {

constexpr uint32_t k_vcs = 3;

std::vector<uint64_t> entropies(uint64_t n) {
  std::vector<uint64_t> e;
  for (uint64_t i = 0; i < n; ++i) e.push_back(i);
  e.push_back(packet_entropy(7, 3, 1000));
  e.push_back(~uint64_t{0});
  return e;
}

// Fixed occupancy per output port: `base` unless set().
class fake_occupancy final : public port_occupancy_view {
 public:
  explicit fake_occupancy(uint32_t base = 0) : m_base(base) {}
  void set(port_id port, uint32_t bytes) { m_ports[port] = bytes; }
  uint32_t output_occupancy_bytes(port_id port) const override {
    const auto it = m_ports.find(port);
    return it == m_ports.end() ? m_base : it->second;
  }

 private:
  uint32_t m_base;
  std::map<port_id, uint32_t> m_ports;
};

// Occupancy hashed from the port number: a different "load" per seed.
class hashed_occupancy final : public port_occupancy_view {
 public:
  explicit hashed_occupancy(uint64_t seed) : m_seed(seed) {}
  uint32_t output_occupancy_bytes(port_id port) const override {
    return static_cast<uint32_t>(splitmix64(m_seed << 32 | port) % 8192);
  }

 private:
  uint64_t m_seed;
};

// CODES legacy dragonfly.c: global port VC = global hops so far; local port VC = local
// hops so far, or the global hop count once there is one; ejection VC 0.
uint8_t codes_legacy_vc(const hop& h, const topology& topo) {
  const port_info& pi = topo.port(h.at, h.out.port);
  if (pi.peer_kind == port_info::kind::terminal) return 0;
  if (pi.cls == dragonfly_classes::global || h.before.global_hops > 0) return h.before.global_hops;
  return h.before.local_hops;
}

struct path_shape {
  uint32_t locals = 0;
  uint32_t globals = 0;
  std::vector<group_id> global_landings;  // group reached by each global hop
  bool ok = true;
};

// Checks one walked route: it ejects at dst on VC 0, uses router links on the way, at most
// one local hop in any group visit, at most 2 global and 3 local hops, the CODES VC rule,
// and hop counters that match.
path_shape check_path(const dragonfly& df, const std::vector<hop>& path, terminal_id dst) {
  path_shape s;
  const hop& last = path.back();
  s.ok = last.at == df.router_of(dst) && last.out.port == df.attach(dst).port && last.out.vc == 0;
  uint32_t locals_in_group = 0;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const hop& h = path[i];
    const port_info& pi = df.port(h.at, h.out.port);
    s.ok = s.ok && pi.peer_kind == port_info::kind::router && h.out.vc < k_vcs &&
           h.out.vc == codes_legacy_vc(h, df);
    if (pi.cls == dragonfly_classes::global) {
      ++s.globals;
      s.global_landings.push_back(df.group_of(pi.peer));
      locals_in_group = 0;
    } else {
      ++s.locals;
      s.ok = s.ok && ++locals_in_group <= 1;
    }
  }
  s.ok = s.ok && s.globals <= 2 && s.locals <= 3 && last.before.global_hops == s.globals &&
         last.before.local_hops == s.locals && codes_legacy_vc(last, df) == 0;
  return s;
}

bool same_route(const std::vector<hop>& x, const std::vector<hop>& y) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].at != y[i].at || x[i].out.port != y[i].out.port || x[i].out.vc != y[i].out.vc) {
      return false;
    }
  }
  return true;
}

uint32_t links(const std::vector<hop>& path) {
  return static_cast<uint32_t>(path.size() - 1);
}

// Valiant routing with BookSim's 2-VC minimal dateline instead of the 3-VC rule.
class two_vc_valiant final : public routing_policy {
 public:
  explicit two_vc_valiant(const dragonfly& df) : routing_policy(df), m_inner(df) {}
  std::string name() const override { return "valiant-two-vc"; }
  uint32_t min_vcs() const override { return 2; }
  void init_state(terminal_id s, terminal_id d, uint64_t e, route_state& st) const override {
    m_inner.init_state(s, d, e, st);
  }
  route_decision route(router_id at, terminal_id dst, route_state& st,
                       const port_occupancy_view* occ) const override {
    route_decision d = m_inner.route(at, dst, st, occ);
    d.vc = d.vc > 1 ? 1 : d.vc;
    return d;
  }

 private:
  dragonfly_valiant_routing m_inner;
};

}  // namespace

BOOST_AUTO_TEST_CASE(valiant_routing_delivers_every_pair_through_one_intermediate_group) {
  for (const dragonfly_params& params : k_shapes) {
    const dragonfly df(params);
    const dragonfly_valiant_routing policy(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      std::vector<std::vector<uint32_t>> minimal(df.num_routers());
      for (router_id r = 0; r < df.num_routers(); ++r) minimal[r] = distances_from(df, r, 1);
      uint32_t failures = 0;
      uint32_t nonminimal = 0;
      for (terminal_id src = 0; src < df.num_terminals(); ++src) {
        for (terminal_id dst = 0; dst < df.num_terminals(); ++dst) {
          if (src == dst) continue;
          const group_id sg = df.group_of_terminal(src);
          const group_id dg = df.group_of_terminal(dst);
          for (const uint64_t e : entropies(8)) {
            const std::vector<hop> path = walk(df, policy, src, dst, e);
            const path_shape s = check_path(df, path, dst);
            bool ok = s.ok;
            if (sg == dg || s.globals < 2) {
              // Minimal: inside a group, or the drawn intermediate is the destination group.
              ok = ok && links(path) == minimal[df.router_of(src)][df.router_of(dst)];
              ok = ok && s.globals == (sg == dg ? 0u : 1u);
            } else {
              ++nonminimal;
              ok = ok && s.global_landings[0] != sg && s.global_landings[0] != dg &&
                   s.global_landings[1] == dg;
            }
            if (!ok && ++failures <= 5) {
              BOOST_ERROR("bad route " << src << " -> " << dst << " entropy " << e);
            }
          }
        }
      }
      BOOST_TEST(failures == 0u);
      BOOST_TEST((nonminimal > 0u) == (df.g() > 2));  // g = 2 has no third group
    }
  }
}

BOOST_AUTO_TEST_CASE(valiant_intermediate_group_is_uniform_over_the_other_groups) {
  const dragonfly_params shapes[] = {{9, 4, 2, 2, global_arrangement::absolute},
                                     {6, 4, 2, 2, global_arrangement::relative},
                                     {5, 4, 2, 2, global_arrangement::absolute}};
  for (const dragonfly_params& params : shapes) {
    const dragonfly df(params);
    const dragonfly_valiant_routing policy(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      const uint32_t per_group = 800;
      const uint32_t draws = per_group * (df.g() - 1);
      for (const terminal_id src : {0u, df.num_terminals() - 1}) {
        for (const terminal_id dst : {df.num_terminals() / 2, 5u}) {
          const group_id sg = df.group_of_terminal(src);
          const group_id dg = df.group_of_terminal(dst);
          if (sg == dg) continue;
          std::vector<uint32_t> count(df.g(), 0);
          for (uint64_t e = 0; e < draws; ++e) {
            route_state st;
            policy.init_state(src, dst, e, st);
            // The drawn group is aux; a draw of the destination group routes minimally.
            const group_id intermediate = st.aux == invalid_id ? dg : st.aux;
            BOOST_REQUIRE(intermediate < df.g());
            ++count[intermediate];
            if (e % 97 == 0) {  // the route really lands there first
              const path_shape s = check_path(df, walk(df, policy, src, dst, e), dst);
              BOOST_REQUIRE(s.ok);
              BOOST_REQUIRE(s.global_landings.front() == intermediate);
            }
          }
          BOOST_TEST(count[sg] == 0u);
          for (group_id g = 0; g < df.g(); ++g) {
            if (g == sg) continue;
            BOOST_TEST_CONTEXT("group " << g) {
              BOOST_TEST(count[g] > per_group * 85 / 100);
              BOOST_TEST(count[g] < per_group * 115 / 100);
            }
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(valiant_channel_dependencies_are_acyclic) {
  for (const dragonfly_params& params : k_shapes) {
    const dragonfly df(params);
    const dragonfly_valiant_routing policy(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      BOOST_TEST(policy.min_vcs() == k_vcs);
      BOOST_TEST(!has_cycle(channel_dependency_graph(df, policy, k_vcs, entropies(24))));
    }
  }
}

BOOST_AUTO_TEST_CASE(valiant_with_the_minimal_two_vc_dateline_is_cyclic) {
  // With the intermediate group's hops on the same VC as the destination group's, local
  // -> global -> local chains close a loop: the checker must see it.
  const dragonfly_params shapes[] = {{9, 4, 2, 2, global_arrangement::absolute},
                                     {9, 4, 2, 2, global_arrangement::relative},
                                     {6, 4, 2, 2, global_arrangement::absolute}};
  for (const dragonfly_params& params : shapes) {
    const dragonfly df(params);
    const two_vc_valiant policy(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      BOOST_TEST(has_cycle(channel_dependency_graph(df, policy, k_vcs, entropies(24))));
    }
  }
}

BOOST_AUTO_TEST_CASE(adaptive_routing_delivers_every_pair_under_any_load) {
  const fake_occupancy idle(0);
  const fake_occupancy even(4096);
  const hashed_occupancy load_a(1), load_b(2), load_c(3);
  const std::vector<const port_occupancy_view*> views = {nullptr, &idle,   &even,
                                                         &load_a, &load_b, &load_c};
  for (const dragonfly_params& params : k_shapes) {
    const dragonfly df(params);
    const dragonfly_adaptive_routing policy(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      std::vector<std::vector<uint32_t>> minimal(df.num_routers());
      for (router_id r = 0; r < df.num_routers(); ++r) minimal[r] = distances_from(df, r, 1);
      uint32_t failures = 0;
      for (terminal_id src = 0; src < df.num_terminals(); ++src) {
        for (terminal_id dst = 0; dst < df.num_terminals(); ++dst) {
          if (src == dst) continue;
          const uint32_t shortest = minimal[df.router_of(src)][df.router_of(dst)];
          for (const uint64_t e : entropies(4)) {
            for (const port_occupancy_view* v : views) {
              const std::vector<hop> path = walk(df, policy, src, dst, e, v);
              const path_shape s = check_path(df, path, dst);
              bool ok = s.ok;
              // No view, or an idle network: minimal (0 * H_min <= 0 * H_nonmin).
              if (v == nullptr || v == &idle) ok = ok && s.globals <= 1 && links(path) == shortest;
              if (!ok && ++failures <= 5) {
                BOOST_ERROR("bad route " << src << " -> " << dst << " entropy " << e);
              }
            }
          }
        }
      }
      BOOST_TEST(failures == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(adaptive_picks_minimal_when_occupancies_are_equal) {
  // Equal q: UGAL compares hop counts alone; minimal wins ties, so it goes non-minimal only
  // where the Valiant candidate is strictly shorter in links.
  const fake_occupancy even(2048);
  uint32_t compared = 0;
  for (const dragonfly_params& params : k_shapes) {
    const dragonfly df(params);
    const dragonfly_adaptive_routing policy(df);
    const dragonfly_valiant_routing valiant(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      uint32_t failures = 0;
      for (terminal_id src = 0; src < df.num_terminals(); ++src) {
        const std::vector<uint32_t> minimal = distances_from(df, df.router_of(src), 1);
        for (terminal_id dst = 0; dst < df.num_terminals(); ++dst) {
          if (src == dst) continue;
          for (const uint64_t e : entropies(4)) {
            const std::vector<hop> path = walk(df, policy, src, dst, e, &even);
            const std::vector<hop> candidate = walk(df, valiant, src, dst, e);
            const uint32_t h_min = minimal[df.router_of(dst)];
            const bool expect_minimal = h_min <= links(candidate);
            bool ok = expect_minimal
                          ? check_path(df, path, dst).globals <= 1 && links(path) == h_min
                          : same_route(path, candidate);
            compared += expect_minimal;
            if (!ok && ++failures <= 5) {
              BOOST_ERROR("bad decision " << src << " -> " << dst << " entropy " << e);
            }
          }
        }
      }
      BOOST_TEST(failures == 0u);
    }
  }
  BOOST_TEST(compared > 0u);
}

BOOST_AUTO_TEST_CASE(adaptive_goes_nonminimal_when_the_minimal_port_is_much_busier) {
  uint32_t went_nonminimal = 0;
  for (const dragonfly_params& params : k_shapes) {
    const dragonfly df(params);
    const dragonfly_adaptive_routing policy(df);
    const dragonfly_adaptive_routing patient(df, uint64_t{1} << 40);  // huge threshold
    const dragonfly_valiant_routing valiant(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      uint32_t failures = 0;
      for (terminal_id src = 0; src < df.num_terminals(); ++src) {
        const std::vector<uint32_t> minimal = distances_from(df, df.router_of(src), 1);
        for (terminal_id dst = 0; dst < df.num_terminals(); ++dst) {
          if (src == dst) continue;
          for (const uint64_t e : entropies(4)) {
            const std::vector<hop> min_path = walk(df, policy, src, dst, e, nullptr);
            const std::vector<hop> candidate = walk(df, valiant, src, dst, e);
            fake_occupancy view(512);
            view.set(min_path.front().out.port, 1u << 20);
            const std::vector<hop> path = walk(df, policy, src, dst, e, &view);
            const bool has_candidate = check_path(df, candidate, dst).globals == 2;
            const bool other_port = candidate.front().out.port != min_path.front().out.port;
            bool ok;
            if (has_candidate && other_port) {
              ok = same_route(path, candidate);  // 2^20 * H_min > 512 * H_nonmin
              ++went_nonminimal;
            } else if (has_candidate) {  // both start on the busy port: hop counts decide
              ok = same_route(path,
                              links(candidate) < minimal[df.router_of(dst)] ? candidate : min_path);
            } else {
              ok = same_route(path, min_path);
            }
            // A threshold above the difference keeps the packet minimal.
            ok = ok && same_route(walk(df, patient, src, dst, e, &view), min_path);
            if (!ok && ++failures <= 5) {
              BOOST_ERROR("bad decision " << src << " -> " << dst << " entropy " << e);
            }
          }
        }
      }
      BOOST_TEST(failures == 0u);
    }
  }
  BOOST_TEST(went_nonminimal > 0u);
}

// CODES's rule: minimal iff the minimal first-hop port holds no more bytes than the Valiant
// one's, whatever the path lengths. 600 against 500 bytes sends UGAL-L minimal wherever the
// Valiant path is at least 1.2 times as long (600 * H_min <= 500 * H_nonmin), but CODES's
// rule non-minimal; 500 against 600 sends both minimal.
BOOST_AUTO_TEST_CASE(adaptive_codes_compares_occupancy_without_hop_weighting) {
  uint32_t differs = 0;
  for (const dragonfly_params& params : k_shapes) {
    const dragonfly df(params);
    const dragonfly_adaptive_routing codes(df, 0, adaptive_rule::codes);
    const dragonfly_adaptive_routing ugal(df);
    const dragonfly_valiant_routing valiant(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      uint32_t failures = 0;
      for (terminal_id src = 0; src < df.num_terminals(); ++src) {
        for (terminal_id dst = 0; dst < df.num_terminals(); ++dst) {
          if (src == dst) continue;
          for (const uint64_t e : entropies(2)) {
            const std::vector<hop> min_path = walk(df, codes, src, dst, e, nullptr);
            const std::vector<hop> candidate = walk(df, valiant, src, dst, e);
            const bool has_candidate = check_path(df, candidate, dst).globals == 2;
            if (!has_candidate || candidate.front().out.port == min_path.front().out.port) {
              continue;  // no choice, or both start on one port: equal occupancy
            }
            fake_occupancy busier_min(0), busier_nonmin(0);
            busier_min.set(min_path.front().out.port, 600);
            busier_min.set(candidate.front().out.port, 500);
            busier_nonmin.set(min_path.front().out.port, 500);
            busier_nonmin.set(candidate.front().out.port, 600);
            bool ok = same_route(walk(df, codes, src, dst, e, &busier_min), candidate) &&
                      same_route(walk(df, codes, src, dst, e, &busier_nonmin), min_path);
            const bool ugal_minimal = 600 * links(min_path) <= 500 * links(candidate);
            ok = ok && same_route(walk(df, ugal, src, dst, e, &busier_min),
                                  ugal_minimal ? min_path : candidate);
            differs += ugal_minimal;
            if (!ok && ++failures <= 5) {
              BOOST_ERROR("bad decision " << src << " -> " << dst << " entropy " << e);
            }
          }
        }
      }
      BOOST_TEST(failures == 0u);
    }
  }
  BOOST_TEST(differs > 0u);  // cases where the two rules disagree were exercised
}

BOOST_AUTO_TEST_CASE(adaptive_channel_dependencies_are_acyclic_with_both_decisions) {
  for (const dragonfly_params& params : k_shapes) {
    const dragonfly df(params);
    const dragonfly_adaptive_routing policy(df);
    BOOST_TEST_CONTEXT(df.describe()) {
      BOOST_TEST(policy.min_vcs() == k_vcs);
      dependency_graph_builder cdg(df, k_vcs);
      const hashed_occupancy load(11);
      uint32_t routes[3] = {0, 0, 0};  // by global hops
      for (terminal_id src = 0; src < df.num_terminals(); ++src) {
        for (terminal_id dst = 0; dst < df.num_terminals(); ++dst) {
          if (src == dst) continue;
          for (const uint64_t e : entropies(12)) {
            const std::vector<hop> min_path = walk(df, policy, src, dst, e, nullptr);
            fake_occupancy busy_minimal(0);
            busy_minimal.set(min_path.front().out.port, 1u << 20);
            for (const port_occupancy_view* v :
                 std::vector<const port_occupancy_view*>{nullptr, &busy_minimal, &load}) {
              const std::vector<hop> path = walk(df, policy, src, dst, e, v);
              ++routes[check_path(df, path, dst).globals];
              cdg.add(src, path);
            }
          }
        }
      }
      BOOST_TEST(routes[1] > 0u);
      BOOST_TEST((routes[2] > 0u) == (df.g() > 2));
      BOOST_TEST(!has_cycle(cdg.finish()));
    }
  }
}

BOOST_AUTO_TEST_CASE(routes_are_deterministic_given_the_entropy) {
  const dragonfly df(dragonfly_params{6, 4, 2, 2, global_arrangement::absolute});
  const dragonfly_valiant_routing valiant(df);
  const dragonfly_adaptive_routing adaptive(df);
  const hashed_occupancy load(5);
  std::set<std::vector<router_id>> distinct;
  for (uint64_t i = 0; i < 64; ++i) {
    const uint64_t e = packet_entropy(42, 0, i);
    const std::vector<hop> v1 = walk(df, valiant, 0, 40, e);
    BOOST_REQUIRE(same_route(v1, walk(df, valiant, 0, 40, e)));
    BOOST_REQUIRE(
        same_route(walk(df, adaptive, 0, 40, e, &load), walk(df, adaptive, 0, 40, e, &load)));
    std::vector<router_id> routers;
    for (const hop& h : v1) routers.push_back(h.at);
    distinct.insert(routers);
  }
  BOOST_TEST(distinct.size() > 3u);  // packets of one flow spread over several paths

  // The NIC's entropy: a pure function of (seed, terminal, packet count), all of which matter.
  BOOST_TEST(packet_entropy(1, 2, 3) == packet_entropy(1, 2, 3));
  BOOST_TEST(packet_entropy(1, 2, 3) != packet_entropy(2, 2, 3));
  BOOST_TEST(packet_entropy(1, 2, 3) != packet_entropy(1, 3, 3));
  BOOST_TEST(packet_entropy(1, 2, 3) != packet_entropy(1, 2, 4));
}

BOOST_AUTO_TEST_CASE(routing_registry_knows_nonminimal_and_adaptive) {
  const dragonfly df(dragonfly_params{5, 4, 2, 2, global_arrangement::absolute});
  const std::pair<const char*, const char*> names[] = {{"minimal", "minimal"},
                                                       {"nonminimal", "nonminimal"},
                                                       {"valiant", "nonminimal"},
                                                       {"adaptive", "adaptive"},
                                                       {"adaptive-codes", "adaptive-codes"}};
  for (const auto& [asked, canonical] : names) {
    BOOST_TEST_CONTEXT(asked) {
      const std::unique_ptr<routing_policy> policy = make_routing(asked, df);
      BOOST_REQUIRE(policy != nullptr);
      BOOST_TEST(policy->name() == canonical);
      BOOST_TEST(policy->min_vcs() == (std::string(canonical) == "minimal" ? 2u : 3u));
      BOOST_TEST(&policy->topo() == &df);
    }
  }
  BOOST_TEST(dynamic_cast<dragonfly_adaptive_routing&>(*make_routing("adaptive", df)).threshold() ==
             0u);
  BOOST_TEST(
      routing_names("dragonfly") == (std::vector<std::string>{"minimal", "nonminimal", "adaptive",
                                                              "adaptive-codes"}),
      boost::test_tools::per_element());

  std::string message;
  try {
    make_routing("ugal", df);
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  BOOST_TEST(message ==
             "routing.kind = 'ugal' is not known for dragonfly; allowed: minimal, nonminimal, "
             "adaptive, adaptive-codes");
  BOOST_CHECK_THROW(make_routing("Valiant", df), std::invalid_argument);
}
