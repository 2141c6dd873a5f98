// A Myrinet-2000 network (Yu, Buntinas, Panda; FACTS §5): hosts with one NIC each on
// 16-port crossbar switches. Up to switch_ports nodes share one crossbar; beyond that the
// switches form a two-level folded Clos, as Myricom's M3-E chassis build 32 to 128 ports from
// 16-port crossbars: leaf crossbars with half their ports to hosts and half up, one up link to
// each of switch_ports/2 spine crossbars, so every leaf has as many up links as hosts (full
// bisection). Larger networks need a third level, which is not built (refused, naming
// topology.nodes).
//
// Switch ids: [0, leaves) the leaf crossbars, then [leaves, leaves + spines) the spines (no
// spines with one crossbar). Host t sits on leaf t / hosts_per_leaf, at port
// t % hosts_per_leaf. A leaf's up port hosts_per_leaf + j goes to spine j, arriving at the
// spine's port equal to the leaf's id. Every switch has switch_ports ports; a port with
// nothing attached is unused, as on the real crossbar.
#pragma once

#include "network/routing.h"
#include "network/topology.h"

#include <cstdint>
#include <string>

namespace bcastsim::network {

struct myrinet_classes {
  static constexpr link_class terminal = terminal_class;  // host NIC to leaf crossbar
  static constexpr link_class clos = 1;                   // leaf crossbar to spine crossbar
};

struct myrinet_params {
  uint32_t nodes = 16;
  uint32_t switch_ports = 16;  // Myrinet-2000's crossbar (Xbar16)
};

// The kind's declaration (network/myrinet_kind.cpp), registered in topology_kind.cpp.
struct topology_kind;
topology_kind myrinet_kind();

class myrinet final : public topology {
 public:
  // Throws topology_error naming the key: nodes 0, switch_ports below 4 or odd when a Clos is
  // needed, or more nodes than a two-level Clos of these crossbars holds.
  explicit myrinet(const myrinet_params& params);

  std::string kind() const override { return "myrinet"; }
  // e.g. "myrinet 64 nodes, Clos of 16-port crossbars (8 leaves, 8 spines)".
  std::string describe() const override;
  std::vector<std::pair<std::string, uint64_t>> shape() const override;

  const myrinet_params& params() const { return m_params; }
  uint32_t leaves() const { return m_leaves; }
  uint32_t spines() const { return m_spines; }
  uint32_t hosts_per_leaf() const { return m_hosts_per_leaf; }
  bool is_spine(router_id r) const { return r >= m_leaves; }
  router_id leaf_of(terminal_id t) const { return t / m_hosts_per_leaf; }
  // The leaf's port up to spine j (0 <= j < spines()).
  port_id up_port(uint32_t j) const { return m_hosts_per_leaf + j; }
  // Most nodes a two-level folded Clos of `switch_ports`-port crossbars holds.
  static uint64_t max_nodes(uint32_t switch_ports);

 private:
  myrinet_params m_params;
  uint32_t m_leaves = 0;
  uint32_t m_spines = 0;
  uint32_t m_hosts_per_leaf = 0;
};

// Source routing ("source"): Myrinet's switches carry no routing tables; the sending NIC
// writes the whole route into the header, one output port per switch, and each crossbar
// takes the first entry and strips it (GM's mapper computes the routes; FACTS §5). Routes
// here are up*/down*, as the mapper's: a host on the same crossbar gets [its port]; another
// leaf's host gets [up port to spine j, the spine's port to that leaf, the host's port], with
// j the destination's port on its leaf (mod spines), so each spine-to-leaf link carries the
// packets of one destination host only and a flow always takes one path.
//
// route_state: aux holds the remaining entries, 8 bits each, the next one lowest; choice
// counts them. local_hops counts crossbar-to-crossbar links taken. A packet that reaches a
// crossbar with no entry left (one injected inside the fabric, with no source) is given the
// route from that crossbar, as a NIC there would have written it.
//
// Deadlock freedom: every route goes up at most once and then only down (up*/down*), so
// channel dependencies run from host-to-leaf to leaf-to-spine to spine-to-leaf to
// leaf-to-host links, never back: one VC suffices. Ejection uses VC 0. route() does not
// allocate.
class myrinet_source_routing final : public routing_policy {
 public:
  explicit myrinet_source_routing(const myrinet& net);
  std::string name() const override { return "source"; }
  uint32_t min_vcs() const override { return 1; }
  void init_state(terminal_id src, terminal_id dst, uint64_t entropy,
                  route_state& state) const override;
  route_decision route(router_id at, terminal_id dst, route_state& state,
                       const port_occupancy_view* occupancy) const override;

 private:
  // The route from crossbar `at` to terminal dst, entries in aux, count in choice.
  void write_route(router_id at, terminal_id dst, route_state& state) const;

  const myrinet& m_net;
};

}  // namespace bcastsim::network
