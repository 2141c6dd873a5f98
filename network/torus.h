// The Tofu interconnect's 6D mesh/torus (Ajima et al.; FACTS §4): X, Y, Z given, A = 2,
// B = 3, C = 2 fixed, so every (x, y, z) position holds a 12-node ABC unit. One router per
// node; any dimension may be a line (mesh) instead of a ring.
#pragma once

#include "network/routing.h"
#include "network/topology.h"

#include <array>
#include <cstdint>
#include <string>

namespace bcastsim::network {

// Dimensions in routing order; a dimension's link class is its index + 1.
enum torus_dim : uint32_t { dim_x, dim_y, dim_z, dim_a, dim_b, dim_c };
inline constexpr uint32_t torus_num_dims = 6;
inline constexpr std::array<const char*, torus_num_dims> torus_dim_names = {"x", "y", "z",
                                                                            "a", "b", "c"};
// The ABC unit's fixed sizes (Tofu coordinates: A 1 bit, B 2 bits, C 1 bit).
inline constexpr uint32_t torus_a = 2;
inline constexpr uint32_t torus_b = 3;
inline constexpr uint32_t torus_c = 2;

inline constexpr link_class torus_class(uint32_t dim) {
  return static_cast<link_class>(dim + 1);
}

using torus_coords = std::array<uint32_t, torus_num_dims>;

struct torus_params {
  uint32_t x = 2;
  uint32_t y = 2;
  uint32_t z = 2;
  uint32_t terminals_per_node = 1;
  std::array<bool, torus_num_dims> mesh{};  // [dim]: a line, not a ring
};

// topology.mesh: "x,z" or "[x, z]" (names may be quoted, either case); "" or "[]" = none.
// Throws topology_error("topology.mesh", ...) naming the allowed dimensions.
std::array<bool, torus_num_dims> parse_torus_mesh(const std::string& text);

// The kind's declaration (network/torus_kind.cpp), registered in topology_kind.cpp.
struct topology_kind;
topology_kind torus_kind();

class torus final : public topology {
 public:
  // Throws topology_error naming the key when x, y, z or terminals_per_node is 0, or when
  // the routers or terminals would not fit 32-bit ids.
  explicit torus(const torus_params& params);

  std::string kind() const override { return "torus"; }
  // e.g. "torus 4x4x4x2x3x2 (x,y,z,a,b,c; mesh: x,z) (768 routers, 768 terminals)".
  std::string describe() const override;

  // A group is the ABC unit at one (x, y, z); its index is that of (x, y, z).
  uint32_t num_groups() const override { return m_num_groups; }
  group_id group_of(router_id r) const override { return r % m_num_groups; }

  const torus_params& params() const { return m_params; }
  uint32_t size(uint32_t dim) const { return m_size[dim]; }
  bool is_mesh(uint32_t dim) const { return m_params.mesh[dim]; }
  // A ring with a wrap-around link of its own: size >= 3 and not a line. (A ring of 2 is one
  // cable, exactly like a line of 2.)
  bool wraps(uint32_t dim) const { return m_size[dim] >= 3 && !m_params.mesh[dim]; }

  // Router id = x + X*(y + Y*(z + Z*(a + 2*(b + 3*c)))).
  uint32_t coord(router_id r, uint32_t dim) const { return r / m_stride[dim] % m_size[dim]; }
  torus_coords coords(router_id r) const;
  router_id router_at(const torus_coords& c) const;

  // Port layout, the same radix on every router: [0, terminals_per_node) terminals, then per
  // dimension in order x..c: size 1 no port; size 2 one port (plus_port == minus_port);
  // size >= 3 a "+" port then a "-" port. On a line, the "+" port of the last node and the
  // "-" port of the first are unused. invalid_id for a dimension of size 1.
  port_id plus_port(uint32_t dim) const { return m_plus_port[dim]; }
  port_id minus_port(uint32_t dim) const { return m_minus_port[dim]; }

 private:
  void wire_dimension(router_id r, uint32_t dim);

  torus_params m_params;
  torus_coords m_size{};
  std::array<uint32_t, torus_num_dims> m_stride{};
  std::array<port_id, torus_num_dims> m_plus_port{};
  std::array<port_id, torus_num_dims> m_minus_port{};
  uint32_t m_num_groups = 0;
};

// Dimension-order routing ("dimension-order"): dimensions corrected in the order x, y, z, a,
// b, c, each by a minimal path: on a ring the shorter direction, and on a tie (an even ring,
// distance k/2) the "+" direction, so a flow always takes one path.
//
// Deadlock freedom, dateline rule (Dally & Seitz): every ring (wraps()) has its dateline on
// its wrap-around links, k-1 -> 0 ("+") and 0 -> k-1 ("-"). A packet uses VC 0 in a
// dimension until it takes the wrap-around link, and VC 1 on that link and after it, until
// it leaves the dimension; the next dimension starts again on VC 0. A minimal path is
// shorter than the ring, so it crosses the dateline at most once: within one ring and
// direction, VC 0 channels depend on each other only in increasing coordinate order away
// from the dateline and VC 1 channels likewise, so no cycle closes. Dependencies between
// dimensions only go from earlier to later ones. Lines and rings of size <= 2 have no
// wrap-around link and use VC 0 only. Ejection uses VC 0.
//
// route_state: aux = the dimension whose wrap-around link the packet has taken (invalid_id:
// none yet); since dimensions are never revisited, it only matters while aux is the
// dimension being corrected. local_hops counts router-to-router links taken (every torus
// link counts as local; global_hops and choice stay 0). route() does not allocate.
class torus_dor_routing final : public routing_policy {
 public:
  explicit torus_dor_routing(const torus& t);
  std::string name() const override { return "dimension-order"; }
  uint32_t min_vcs() const override { return 2; }
  void init_state(terminal_id src, terminal_id dst, uint64_t entropy,
                  route_state& state) const override;
  route_decision route(router_id at, terminal_id dst, route_state& state,
                       const port_occupancy_view* occupancy) const override;

 private:
  const torus& m_torus;
};

}  // namespace bcastsim::network
