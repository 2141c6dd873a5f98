// Dragonfly (Kim, Dally, Scott, Abts, ISCA'08): g groups of a routers, p terminals and h
// global ports per router, routers of a group fully connected by local links.
// Global link arrangements follow FACTS §1.2 exactly.
#pragma once

#include "network/topology.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace bcastsim::network {

enum class global_arrangement : uint8_t {
  absolute,  // BookSim2 dragonflynew / SST "absolute": port t = r*h+j goes to group t<G ? t : t+1
  relative,  // SST "relative": index d goes to group (d + G + 1) mod g
  // CODES dragonfly.c (USE_DIRECT_SCHEME): port j of router i goes to group i + j*a, its own
  // group replaced by the last; maximal dragonflies only (g = a*h+1), as CODES builds them.
  codes,
};
const char* to_string(global_arrangement a);

struct dragonfly_params {
  uint32_t g = 0;  // groups; 0 means the maximum a*h+1
  uint32_t a = 4;  // routers per group
  uint32_t p = 2;  // terminals per router
  uint32_t h = 2;  // global ports per router
  global_arrangement arrangement = global_arrangement::absolute;
};

// The dragonfly's link classes.
namespace dragonfly_classes {
inline constexpr link_class terminal = terminal_class;
inline constexpr link_class local = 1;
inline constexpr link_class global = 2;
}  // namespace dragonfly_classes

// The kind's declaration (network/dragonfly_kind.cpp), registered in topology_kind.cpp.
struct topology_kind;
topology_kind dragonfly_kind();

class dragonfly final : public topology {
 public:
  // Throws topology_error when g > a*h+1, g < 2, or a, p, h are zero.
  explicit dragonfly(const dragonfly_params& params);

  std::string kind() const override { return "dragonfly"; }
  std::string describe() const override;
  std::vector<std::pair<std::string, uint64_t>> shape() const override {
    return {{"groups", m_g},
            {"routers_per_group", a()},
            {"terminals_per_router", p()},
            {"global_ports_per_router", h()}};
  }
  // A global hop costs more than two local ones: least-cost paths then take one global link
  // at most, as minimal routing does (two globals cost 6 > local + global + local = 5).
  std::vector<double> graph_costs() const override { return {0, 1, 3}; }
  std::vector<std::pair<std::string, std::string>> effective_params() const override {
    return {{"topology.g", std::to_string(m_g)}};
  }

  uint32_t num_groups() const override { return m_g; }
  group_id group_of(router_id r) const override { return r / m_a; }
  std::vector<router_pair> links_between_groups(group_id g1, group_id g2) const override;

  const dragonfly_params& params() const { return m_params; }
  uint32_t g() const { return m_g; }
  uint32_t a() const { return m_params.a; }
  uint32_t p() const { return m_params.p; }
  uint32_t h() const { return m_params.h; }
  // Global links joining every pair of distinct groups: floor(a*h / (g-1)).
  uint32_t links_per_group_pair() const { return m_links_per_pair; }

  // Port layout of every router: [0,p) terminals, [p, p+a-1) local (own index skipped),
  // [p+a-1, p+a-1+h) global (unused when a*h is not a multiple of g-1).
  port_id local_port(router_id from, router_id to) const;  // same group, from != to
  port_id first_global_port() const { return m_params.p + m_params.a - 1; }

  // The k-th global link from group src to group dst (k < links_per_group_pair()):
  // the router of src holding it and its port.
  struct global_link_end {
    router_id router;
    port_id port;
  };
  global_link_end global_link(group_id src, group_id dst, uint32_t k) const;

 private:
  // The constructor's steps, once the sizes are checked and m_ports and m_terminals sized.
  void attach_terminals();
  void wire_local_links();
  void wire_global_links();

  dragonfly_params m_params;
  uint32_t m_g = 0;
  uint32_t m_a = 0;  // copy of params.a, read by the inline group_of()
  uint32_t m_links_per_pair = 0;
  // [src*g + dst][k] -> end in src; precomputed so routing is a table lookup.
  std::vector<global_link_end> m_global_end;
};

}  // namespace bcastsim::network
