// A router graph read from a file (SST merlin's anytopo): any routers, any cables, link
// classes declared by the file with their rates and routing costs. Two formats carry the
// same content, chosen by the file's extension: .yaml / .yml is YAML, anything else is the
// line-oriented edge list. network/GRAPH_FILES.md describes both; every problem in a file
// is refused with a topology_error on topology.file naming the file, the line and the
// problem. Pure C++17; no SystemC.
#pragma once

#include "network/topology.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace bcastsim::network {

// A router-to-router link class as the file declares it. Classes keep the file's order:
// class c (1, 2, ...) has rank c - 1, which the graph routing's VC rule orders hops by.
struct graph_link_class {
  std::string name;
  link_class_rates rates;  // bandwidth_gib_per_s == 0: not given (class_rates() is nullptr)
  uint32_t cost = 1;       // what one hop on this class costs least-cost routing
};

// Limits, so the all-pairs distance table (routers x routers x 4 bytes) and the port table
// stay in memory and every distance fits 32 bits.
inline constexpr uint32_t max_graph_routers = 16384;
inline constexpr uint32_t max_graph_radix = 65536;
inline constexpr uint32_t max_graph_cost = 65535;
inline constexpr uint64_t max_graph_ports = uint64_t{1} << 24;  // routers x radix, summed

class graph_topology final : public topology {
 public:
  // Reads and checks `path`; throws topology_error("topology.file", "FILE:LINE: problem").
  explicit graph_topology(const std::string& path);

  std::string kind() const override { return "graph"; }
  std::string describe() const override;
  const link_class_rates* class_rates(link_class c) const override;

  uint32_t num_groups() const override { return m_num_groups; }
  group_id group_of(router_id r) const override { return m_groups[r]; }

  const std::string& file() const { return m_file; }
  // The cost of one hop on class c (0 for the terminal class, which routing never sums).
  uint32_t class_cost(link_class c) const {
    return c == terminal_class ? 0 : m_link_classes[c - 1].cost;
  }
  // The file's classes, [0] = class 1.
  const std::vector<graph_link_class>& file_classes() const { return m_link_classes; }

 private:
  struct build_state;
  void build_terminals(build_state& b);
  void build_groups(const build_state& b);
  void build_links(build_state& b);
  void check_connected(const build_state& b) const;

  std::string m_file;
  std::vector<graph_link_class> m_link_classes;  // [class - 1]
  link_class_rates m_terminal_rates;             // terminal_link; bandwidth 0: not given
  std::vector<group_id> m_groups;                // [router]
  uint32_t m_num_groups = 1;
};

// Writes any topology as a graph file that loads back to the identical port table: same
// radix, port numbers, classes, peers, terminals and groups. Terminals must sit on ports
// [0, n) of their router and be numbered router by router (as a graph file places them);
// otherwise std::invalid_argument.
//   class_cost: cost of class c at [c] ([0], the terminal class, is ignored); empty: every
//     class costs 1 (a graph_topology keeps its own costs); otherwise one entry per class,
//     each a whole number in [1, max_graph_cost]. A dragonfly written with {0, 1, 3} routes
//     as its own minimal routing does (one global hop at most: 3+3 > 1+3+1).
//   class_rates: rates of class c at [c], used when topo.class_rates(c) gives none; a class
//     with neither is written without rates ("not given": its class_rates() is nullptr
//     when loaded back). [0], the terminal links' rates, is written as terminal_link, so a
//     topology whose terminal links differ from the graph kind's default keeps them.
void write_graph_yaml(const topology& topo, std::ostream& os,
                      const std::vector<double>& class_cost = {},
                      const std::vector<link_class_rates>& class_rates = {});
// The same content in the edge-list format.
void write_graph_edge_list(const topology& topo, std::ostream& os,
                           const std::vector<double>& class_cost = {},
                           const std::vector<link_class_rates>& class_rates = {});

// The kind's declaration (network/graph_kind.cpp), registered in topology_kind.cpp.
struct topology_kind;
topology_kind graph_kind();

}  // namespace bcastsim::network
