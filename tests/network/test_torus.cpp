// Tofu 6D mesh/torus: ids and coordinates, port wiring (symmetry, classes, mesh ends),
// errors, dimension-order routing (order, minimality, VC rule), deadlock freedom by the
// dateline rule (channel dependency graphs), and the topology kind registry.
#include "counting_new.h"
#include "network/topology_kind.h"
#include "network/torus.h"
#include "routing_checks.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace bcastsim::network;
using namespace bcastsim::network::routing_checks;

namespace {

constexpr uint32_t k_vcs = 2;

torus make(uint32_t x, uint32_t y, uint32_t z, const std::string& mesh = "",
           uint32_t terminals_per_node = 1) {
  torus_params p;
  p.x = x;
  p.y = y;
  p.z = z;
  p.terminals_per_node = terminals_per_node;
  p.mesh = parse_torus_mesh(mesh);
  return torus(p);
}

struct shape {
  uint32_t x, y, z;
  std::string mesh;
  uint32_t terminals_per_node;
};

// Links between coordinates `from` and `to` of a dimension of size k: a line's or a ring's
// distance (a ring of 2 is a line of 2).
uint32_t expected_distance(const torus& t, uint32_t dim, uint32_t from, uint32_t to) {
  const uint32_t k = t.size(dim);
  const uint32_t straight = from > to ? from - to : to - from;
  if (t.is_mesh(dim) || k <= 2) return straight;
  return std::min(straight, k - straight);
}

// Router id by the documented formula, written out independently of router_at().
router_id formula_id(const torus& t, const torus_coords& c) {
  return c[0] +
         t.size(0) * (c[1] + t.size(1) * (c[2] + t.size(2) * (c[3] + 2 * (c[4] + 3 * c[5]))));
}

// The (neighbour coordinate, reached) the "+" or "-" port of coordinate c should have.
std::pair<uint32_t, bool> expected_neighbour(const torus& t, uint32_t dim, uint32_t c, bool plus) {
  const uint32_t k = t.size(dim);
  if (k == 2) return {1 - c, true};
  if (plus) {
    if (c + 1 < k) return {c + 1, true};
    return {0, !t.is_mesh(dim)};
  }
  if (c > 0) return {c - 1, true};
  return {k - 1, !t.is_mesh(dim)};
}

// The error the kind's parser or the constructor throws, or {"", ""}.
std::pair<std::string, std::string> error_of(uint32_t x, uint32_t y, uint32_t z,
                                             const std::string& mesh, uint32_t tpn = 1) {
  try {
    make(x, y, z, mesh, tpn);
  } catch (const topology_error& e) {
    return {e.key, e.what()};
  }
  return {"", ""};
}

// What every route must satisfy: it ejects at dst's port on VC 0; its router hops correct
// the dimensions in order x..c, each in one direction, never returning to an earlier
// dimension; their number is the sum of the per-dimension distances; a hop uses VC 1
// exactly when it is on or after the wrap-around link of a ring in its dimension; a tie on
// an even ring goes "+". Returns the first problem found, "" when there is none (plain
// checks: one Boost assertion per hop would make the all-pairs tests slow).
std::string route_problem(const torus& t, const routing_policy& policy, terminal_id src,
                          terminal_id dst) {
  const std::vector<hop> path = walk(t, policy, src, dst, 0, nullptr, 4 * 32 + 8);
  const router_id dst_router = t.router_of(dst);
  const hop& last = path.back();
  if (last.at != dst_router || last.out.port != t.attach(dst).port || last.out.vc != 0) {
    return "does not eject at the destination's port on VC 0";
  }
  const torus_coords from = t.coords(t.router_of(src));
  const torus_coords to = t.coords(dst_router);
  uint32_t expected_hops = 0;
  for (uint32_t d = 0; d < torus_num_dims; ++d) {
    expected_hops += expected_distance(t, d, from[d], to[d]);
  }
  if (path.size() - 1 != expected_hops || last.before.local_hops != expected_hops) {
    return "takes " + std::to_string(path.size() - 1) +
           " hops (state: " + std::to_string(last.before.local_hops) + "), minimal is " +
           std::to_string(expected_hops);
  }
  uint32_t dim = 0;
  bool wrapped = false;
  port_id direction = invalid_id;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const hop& h = path[i];
    const port_info& pi = t.port(h.at, h.out.port);
    const std::string where = "hop " + std::to_string(i) + ": ";
    if (pi.peer_kind != port_info::kind::router || pi.cls < torus_class(0)) {
      return where + "not a router link";
    }
    const uint32_t d = pi.cls - torus_class(0);
    if (d < dim) return where + "back to an earlier dimension";
    if (d != dim) {
      for (uint32_t done = dim; done < d; ++done) {
        if (t.coord(h.at, done) != to[done]) return where + "leaves a dimension unfinished";
      }
      dim = d;
      wrapped = false;
      direction = invalid_id;
    }
    const uint32_t here = t.coord(h.at, d);
    const uint32_t next = t.coord(pi.peer, d);
    const uint32_t k = t.size(d);
    if (direction == invalid_id) {
      direction = h.out.port;
      if (t.wraps(d) && k % 2 == 0 && expected_distance(t, d, here, to[d]) == k / 2 &&
          h.out.port != t.plus_port(d)) {
        return where + "a tie not broken toward +";
      }
    }
    if (h.out.port != direction) return where + "turns around within a dimension";
    wrapped =
        wrapped || (t.wraps(d) && ((here == k - 1 && next == 0) || (here == 0 && next == k - 1)));
    if (h.out.vc != (wrapped ? 1 : 0))
      return where + "VC " + std::to_string(h.out.vc) + " breaks the dateline rule";
  }
  return "";
}

// All ordered pairs of distinct terminals (a stride > 1 samples the destinations); reports
// the first few bad routes.
void check_all_pairs(const torus& t, uint32_t dst_stride = 1) {
  const torus_dor_routing policy(t);
  uint32_t failures = 0;
  uint64_t routes = 0;
  for (terminal_id src = 0; src < t.num_terminals(); ++src) {
    for (terminal_id dst = src % dst_stride; dst < t.num_terminals(); dst += dst_stride) {
      if (src == dst) continue;
      ++routes;
      const std::string problem = route_problem(t, policy, src, dst);
      if (!problem.empty() && ++failures <= 5) {
        BOOST_ERROR(t.describe() + ": route " + std::to_string(src) + " -> " + std::to_string(dst) +
                    " " + problem);
      }
    }
  }
  BOOST_TEST(failures == 0u, t.describe() << ": " << failures << " bad routes of " << routes);
  BOOST_TEST(routes > 0u);
}

// Dimension-order routing with the dateline removed: everything on VC 0.
using no_dateline_routing = routing_checks::single_vc<torus_dor_routing, torus>;

graph torus_dependency_graph(const torus& t, const routing_policy& policy) {
  dependency_graph_builder builder(t, k_vcs);
  for (terminal_id src = 0; src < t.num_terminals(); ++src) {
    for (terminal_id dst = 0; dst < t.num_terminals(); ++dst) {
      if (src != dst) builder.add(src, walk(t, policy, src, dst, 0, nullptr, 4 * 32 + 8));
    }
  }
  return builder.finish();
}

// params::values over a map, holding every declared default of a kind until overridden.
class map_values final : public bcastsim::params::values {
 public:
  explicit map_values(const topology_kind& kind) {
    for (const auto& d : kind.params) m_map[d.key] = d.default_value;
  }
  map_values& set(const std::string& key, const std::string& value) {
    m_map[key] = value;
    return *this;
  }
  const std::string& text(const std::string& key) const override { return m_map.at(key); }

 private:
  std::map<std::string, std::string> m_map;
};

}  // namespace

BOOST_AUTO_TEST_CASE(torus_ids_coordinates_groups_and_terminals) {
  const std::vector<shape> shapes = {{1, 1, 1, "", 1}, {2, 3, 4, "", 2}, {4, 4, 4, "x,z", 3}};
  for (const shape& s : shapes) {
    const torus t = make(s.x, s.y, s.z, s.mesh, s.terminals_per_node);
    BOOST_TEST_CONTEXT(t.describe()) {
      const uint32_t nodes = s.x * s.y * s.z * 12;
      BOOST_TEST(t.num_routers() == nodes);
      BOOST_TEST(t.num_terminals() == nodes * s.terminals_per_node);
      BOOST_TEST(t.num_groups() == s.x * s.y * s.z);
      BOOST_TEST(
          t.link_classes() == (std::vector<std::string>{"terminal", "x", "y", "z", "a", "b", "c"}),
          boost::test_tools::per_element());
      uint32_t ports = s.terminals_per_node;
      for (uint32_t d = 0; d < torus_num_dims; ++d) ports += t.size(d) >= 3 ? 2 : t.size(d) - 1;
      for (router_id r = 0; r < t.num_routers(); ++r) {
        const torus_coords c = t.coords(r);
        BOOST_TEST(formula_id(t, c) == r);
        BOOST_TEST(t.router_at(c) == r);
        BOOST_TEST(t.group_of(r) == c[0] + s.x * (c[1] + s.y * c[2]));
        BOOST_TEST(t.radix(r) == ports);
        std::vector<terminal_id> expect;
        for (uint32_t i = 0; i < s.terminals_per_node; ++i)
          expect.push_back(r * s.terminals_per_node + i);
        BOOST_TEST(t.terminals_of(r) == expect, boost::test_tools::per_element());
      }
      for (terminal_id term = 0; term < t.num_terminals(); ++term) {
        BOOST_TEST(t.router_of(term) == term / s.terminals_per_node);
        BOOST_TEST(t.attach(term).port == term % s.terminals_per_node);
        const port_info& pi = t.port(t.router_of(term), t.attach(term).port);
        BOOST_TEST((pi.peer_kind == port_info::kind::terminal));
        BOOST_TEST(pi.cls == terminal_class);
        BOOST_TEST(pi.peer == term);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(torus_port_wiring_is_symmetric_classed_and_unused_at_mesh_ends) {
  const std::vector<shape> shapes = {
      {1, 1, 1, "", 1},    {1, 1, 1, "a,b,c", 1}, {2, 3, 4, "", 1},   {2, 3, 4, "x,y,z,a,b,c", 2},
      {2, 3, 4, "y,b", 1}, {4, 4, 4, "", 1},      {4, 4, 4, "x,z", 1}};
  for (const shape& s : shapes) {
    const torus t = make(s.x, s.y, s.z, s.mesh, s.terminals_per_node);
    BOOST_TEST_CONTEXT(t.describe()) {
      // The ports a router has: terminals, then per dimension 0, 1 or 2, in order.
      port_id next = s.terminals_per_node;
      for (uint32_t d = 0; d < torus_num_dims; ++d) {
        const uint32_t k = t.size(d);
        BOOST_TEST(t.plus_port(d) == (k >= 2 ? next : invalid_id));
        BOOST_TEST(t.minus_port(d) == (k >= 3 ? next + 1 : t.plus_port(d)));
        next += k >= 3 ? 2 : k - 1;
      }
      uint32_t unused = 0;
      uint32_t expected_unused = 0;
      for (router_id r = 0; r < t.num_routers(); ++r) {
        for (uint32_t d = 0; d < torus_num_dims; ++d) {
          if (t.size(d) < 2) continue;
          const uint32_t c = t.coord(r, d);
          for (const bool plus : {true, false}) {
            const port_id p = plus ? t.plus_port(d) : t.minus_port(d);
            const port_info& pi = t.port(r, p);
            BOOST_TEST(pi.cls == torus_class(d));
            const auto [peer_coord, reached] = expected_neighbour(t, d, c, plus);
            if (!reached) {
              ++expected_unused;
              BOOST_TEST((pi.peer_kind == port_info::kind::unused));
              continue;
            }
            BOOST_REQUIRE((pi.peer_kind == port_info::kind::router));
            torus_coords want = t.coords(r);
            want[d] = peer_coord;
            BOOST_TEST(pi.peer == formula_id(t, want));
            const port_info& back = t.port(pi.peer, pi.peer_port);
            BOOST_TEST((back.peer_kind == port_info::kind::router));
            BOOST_TEST(back.peer == r);
            BOOST_TEST(back.peer_port == p);
            BOOST_TEST(back.cls == pi.cls);
          }
        }
        for (port_id p = 0; p < t.radix(r); ++p)
          unused += t.port(r, p).peer_kind == port_info::kind::unused;
      }
      // Nothing else is unused: a line of k >= 3 leaves two per line.
      BOOST_TEST(unused == expected_unused);
      uint32_t lines_ends = 0;
      for (uint32_t d = 0; d < torus_num_dims; ++d) {
        if (t.is_mesh(d) && t.size(d) >= 3) lines_ends += 2 * t.num_routers() / t.size(d);
      }
      BOOST_TEST(unused == lines_ends);
    }
  }
}

BOOST_AUTO_TEST_CASE(torus_describe_names_shape_mesh_and_size) {
  BOOST_TEST(make(4, 4, 4, "x,z").describe() ==
             "torus 4x4x4x2x3x2 (x,y,z,a,b,c; mesh: x,z) (768 routers, 768 terminals)");
  BOOST_TEST(make(1, 1, 1, "", 2).describe() ==
             "torus 1x1x1x2x3x2 (x,y,z,a,b,c) (12 routers, 24 terminals)");
  BOOST_TEST(make(3, 2, 1, "[b, X]").describe() ==
             "torus 3x2x1x2x3x2 (x,y,z,a,b,c; mesh: x,b) (72 routers, 72 terminals)");
}

BOOST_AUTO_TEST_CASE(torus_mesh_list_parses_both_forms) {
  using mesh = std::array<bool, torus_num_dims>;
  BOOST_TEST((parse_torus_mesh("") == mesh{}));
  BOOST_TEST((parse_torus_mesh(" [ ] ") == mesh{}));
  BOOST_TEST((parse_torus_mesh("x,z") == mesh{true, false, true, false, false, false}));
  BOOST_TEST((parse_torus_mesh("[x, z]") == mesh{true, false, true, false, false, false}));
  BOOST_TEST(
      (parse_torus_mesh(" [ 'A' , \"c\" ] ") == mesh{false, false, false, true, false, true}));
  BOOST_TEST((parse_torus_mesh("b") == mesh{false, false, false, false, true, false}));
}

BOOST_AUTO_TEST_CASE(torus_errors_name_the_key) {
  for (const auto& [x, y, z, key] :
       std::vector<std::tuple<uint32_t, uint32_t, uint32_t, std::string>>{
           {0, 2, 2, "topology.x"}, {2, 0, 2, "topology.y"}, {2, 2, 0, "topology.z"}}) {
    const auto [k, msg] = error_of(x, y, z, "");
    BOOST_TEST(k == key);
    BOOST_TEST(msg.find(key + " = 0") != std::string::npos, msg);
    BOOST_TEST(msg.find(">= 1") != std::string::npos, msg);
  }
  const auto [tk, tmsg] = error_of(2, 2, 2, "", 0);
  BOOST_TEST(tk == "topology.terminals_per_node");
  // 12 * 65536 * 65536 routers do not fit 32-bit ids; y is the factor that overflows.
  const auto [ok, omsg] = error_of(65536, 65536, 1, "");
  BOOST_TEST(ok == "topology.y");
  BOOST_TEST(omsg.find("32-bit") != std::string::npos, omsg);
  for (const std::string bad : {"q", "x,,z", "[x, w]", "xy"}) {
    const auto [mk, mmsg] = error_of(2, 2, 2, bad);
    BOOST_TEST(mk == "topology.mesh", bad);
    BOOST_TEST(mmsg.find("allowed: x, y, z, a, b, c") != std::string::npos, mmsg);
  }
}

BOOST_AUTO_TEST_CASE(torus_mesh_naming_a_dimension_twice_is_refused) {
  // Issue 39: "x,x" was accepted as "x" (a typo for another dimension passed unnoticed).
  for (const std::string bad : {"x,x", "[x, z, X]", "'b',b"}) {
    const auto [mk, mmsg] = error_of(2, 2, 2, bad);
    BOOST_TEST(mk == "topology.mesh", bad);
    BOOST_TEST(
        mmsg.find("twice; allowed: each of x, y, z, a, b, c at most once") != std::string::npos,
        mmsg);
  }
}

BOOST_AUTO_TEST_CASE(dor_routes_every_pair_in_dimension_order_and_minimally) {
  check_all_pairs(make(1, 1, 1));           // the 12-node ABC unit
  check_all_pairs(make(1, 1, 1, "a,b,c"));  // the unit as lines
  check_all_pairs(make(3, 2, 1));
  check_all_pairs(make(4, 1, 1));  // an even ring: ties
  check_all_pairs(make(4, 1, 1, "x"));
  check_all_pairs(make(5, 3, 2, "y,b"));  // mixed rings and lines
  check_all_pairs(make(6, 1, 1, "", 2));  // several terminals per node
  check_all_pairs(make(2, 5, 4, "x,y,z,a,b,c"));
}

BOOST_AUTO_TEST_CASE(dor_is_minimal_on_the_768_node_torus) {
  check_all_pairs(make(4, 4, 4));
  check_all_pairs(make(4, 4, 4, "x,z"));
}

BOOST_AUTO_TEST_CASE(dor_takes_the_plus_direction_on_a_tie_and_vc1_after_the_dateline) {
  const torus t = make(4, 1, 1);
  const torus_dor_routing policy(t);
  // From x=1 to x=3 (distance 2 both ways): "+", through 2, no wrap: VC 0 throughout.
  std::vector<hop> path = walk(t, policy, 1, 3, 0, nullptr, 16);
  BOOST_REQUIRE_EQUAL(path.size(), 3u);
  BOOST_TEST(path[0].out.port == t.plus_port(dim_x));
  BOOST_TEST(path[1].out.vc == 0);
  // From x=3 to x=1: "+" again, over the wrap-around 3 -> 0 on VC 1, then 0 -> 1 on VC 1.
  path = walk(t, policy, 3, 1, 0, nullptr, 16);
  BOOST_REQUIRE_EQUAL(path.size(), 3u);
  BOOST_TEST(path[0].out.port == t.plus_port(dim_x));
  BOOST_TEST(path[0].out.vc == 1);
  BOOST_TEST(path[1].out.vc == 1);
  BOOST_TEST(path[2].out.vc == 0);  // ejection
  // From x=0 to x=3 and on to b=1: "-" over the wrap 0 -> 3 on VC 1, then b starts on VC 0.
  torus_coords c{};
  c[dim_x] = 3;
  c[dim_b] = 1;
  path = walk(t, policy, 0, t.router_at(c), 0, nullptr, 16);
  BOOST_REQUIRE_EQUAL(path.size(), 3u);
  BOOST_TEST(path[0].out.port == t.minus_port(dim_x));
  BOOST_TEST(path[0].out.vc == 1);
  BOOST_TEST(path[1].out.port == t.plus_port(dim_b));
  BOOST_TEST(path[1].out.vc == 0);
}

BOOST_AUTO_TEST_CASE(dor_route_does_not_allocate) {
  const torus t = make(4, 4, 4, "z");
  const torus_dor_routing policy(t);
  const counting_new::walk_count c = counting_new::route_from(t, policy, 3, 5);
  BOOST_TEST(c.allocations == 0u);
  BOOST_TEST(c.hops > 0u);
}

BOOST_AUTO_TEST_CASE(dateline_makes_single_rings_deadlock_free) {
  // X = k, Y = Z = 1: one x ring beside the fixed a, b, c (rings of 2, 3, 2).
  for (uint32_t k = 2; k <= 8; ++k) {
    const torus t = make(k, 1, 1);
    BOOST_TEST_CONTEXT(t.describe()) {
      BOOST_TEST(!has_cycle(torus_dependency_graph(t, torus_dor_routing(t))));
      // Without the dateline a ring of 4 or more closes a cycle; in rings of 2 and 3 every
      // minimal path takes at most one link of the ring, so no dependency stays in it.
      const bool cyclic = has_cycle(torus_dependency_graph(t, no_dateline_routing(t)));
      BOOST_TEST(cyclic == (k >= 4));
    }
  }
}

BOOST_AUTO_TEST_CASE(dateline_makes_multi_dimensional_tori_deadlock_free) {
  for (const torus& t : {make(4, 4, 1), make(5, 3, 2, "y,b"), make(1, 1, 1), make(3, 4, 1, "y")}) {
    BOOST_TEST_CONTEXT(t.describe()) {
      BOOST_TEST(!has_cycle(torus_dependency_graph(t, torus_dor_routing(t))));
    }
  }
  // Lines need no dateline at all.
  const torus lines = make(5, 4, 1, "x,y,z,a,b,c");
  BOOST_TEST(!has_cycle(torus_dependency_graph(lines, no_dateline_routing(lines))));
}

BOOST_AUTO_TEST_CASE(torus_kind_is_registered_and_builds_from_values) {
  const topology_kind& kind = find_topology_kind("torus");
  BOOST_TEST(kind.name == "torus");
  BOOST_TEST(kind.routings == std::vector<std::string>{"dimension-order"},
             boost::test_tools::per_element());
  BOOST_TEST(routing_names("torus") == std::vector<std::string>{"dimension-order"},
             boost::test_tools::per_element());
  std::vector<std::string> class_names;
  for (const link_class_decl& c : kind.classes) {
    class_names.push_back(c.name);
    BOOST_TEST(c.bandwidth_gib_per_s == 11.641532182693481, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(c.latency_ns > 0);
    BOOST_TEST(c.vc_buffer_bytes == 16384u);
  }

  map_values v(kind);
  v.set("topology.x", "4").set("topology.y", "3").set("topology.z", "2");
  v.set("topology.terminals_per_node", "2").set("topology.mesh", "[x, b]");
  const std::unique_ptr<topology> topo = kind.make(v);
  BOOST_TEST(topo->kind() == "torus");
  BOOST_TEST(topo->describe() ==
             "torus 4x3x2x2x3x2 (x,y,z,a,b,c; mesh: x,b) (288 routers, 576 terminals)");
  BOOST_TEST(topo->link_classes() == class_names, boost::test_tools::per_element());
  const torus& t = dynamic_cast<const torus&>(*topo);
  BOOST_TEST(t.is_mesh(dim_x));
  BOOST_TEST(!t.is_mesh(dim_y));
  BOOST_TEST(t.is_mesh(dim_b));

  const std::unique_ptr<routing_policy> policy = make_routing("dimension-order", *topo);
  BOOST_TEST(policy->name() == "dimension-order");
  BOOST_TEST(policy->min_vcs() == 2u);
  BOOST_TEST(route_problem(t, *policy, 0, t.num_terminals() - 1) == "");
  try {
    make_routing("minimal", *topo);
    BOOST_FAIL("an unknown routing name must throw");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    BOOST_TEST(msg.find("'minimal'") != std::string::npos, msg);
    BOOST_TEST(msg.find("allowed: dimension-order") != std::string::npos, msg);
  }

  // Defaults: 2x2x2, one terminal per node, all rings.
  const std::unique_ptr<topology> small = kind.make(map_values(kind));
  BOOST_TEST(small->num_routers() == 96u);
  // Errors name the key through the kind as well.
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"topology.x", "0"}, {"topology.mesh", "q"}}) {
    map_values bad(kind);
    bad.set(key, value);
    try {
      kind.make(bad);
      BOOST_FAIL(key + " = " + value + " must throw");
    } catch (const topology_error& e) {
      BOOST_TEST(e.key == key);
    }
  }
}

BOOST_AUTO_TEST_CASE(torus_kind_declares_its_keys_with_ranges) {
  const topology_kind& kind = find_topology_kind("torus");
  std::map<std::string, bcastsim::params::decl> decls;
  for (const auto& d : kind.params) decls[d.key] = d;
  for (const char* dim : {"topology.x", "topology.y", "topology.z"}) {
    BOOST_REQUIRE(decls.count(dim) == 1u);
    BOOST_TEST(decls[dim].default_value == "2");
    BOOST_TEST(decls[dim].min == 1);
    BOOST_TEST(decls[dim].max == 32);
  }
  BOOST_TEST(decls.at("topology.terminals_per_node").max == 64);
  BOOST_TEST(decls.at("topology.mesh").default_value == "");
  BOOST_TEST((decls.at("topology.mesh").type == bcastsim::params::value_type::text));
  BOOST_TEST(decls.at("routing.kind").default_value == "dimension-order");
  BOOST_TEST(decls.at("routing.kind").allowed == std::vector<std::string>{"dimension-order"},
             boost::test_tools::per_element());
}
