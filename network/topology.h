// The topology interface: an immutable graph of terminals, routers and typed links.
// Pure C++17; no SystemC. Routers and the fabric ask it questions; it never simulates.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bcastsim::network {

using router_id = uint32_t;
using terminal_id = uint32_t;
using port_id = uint32_t;
using group_id = uint32_t;

inline constexpr uint32_t invalid_id = 0xffffffffu;

// Link classes are how results are broken down (traversals.<class>) and how links and
// buffers are configured (link.<class>.*, router.vc_buffer_bytes.<class>). Each topology
// names its own (dragonfly: terminal, local, global; torus: terminal, x, y, z, a, b, c);
// a class is an index into topology::link_classes(), and class 0 is always "terminal".
using link_class = uint8_t;
inline constexpr link_class terminal_class = 0;
// Fixed-size tables indexed by class (per-packet statistics) are this large.
inline constexpr uint32_t max_link_classes = 16;

// What a topology may say of one of its classes itself (a graph file gives its links'
// rates); 0 = not given, the kind's declared keys decide.
struct link_class_rates {
  double bandwidth_gib_per_s = 0;
  double latency_ns = 0;
  uint32_t vc_buffer_bytes = 0;
};

// What one router port is wired to.
struct port_info {
  enum class kind : uint8_t { unused, terminal, router };
  kind peer_kind = kind::unused;
  link_class cls = terminal_class;
  uint32_t peer = invalid_id;      // terminal id, or router id
  port_id peer_port = invalid_id;  // port on the peer router (router links only)
};

// Where a terminal is attached.
struct terminal_attach {
  router_id router = invalid_id;
  port_id port = invalid_id;
};

// Thrown for parameters or files that do not make a topology; `key` names the offending
// parameter (topology.a, topology.file, ...).
struct topology_error : std::invalid_argument {
  topology_error(std::string key, const std::string& what)
      : std::invalid_argument(what), key(std::move(key)) {}
  std::string key;
};

class topology {
 public:
  virtual ~topology() = default;

  virtual std::string kind() const = 0;
  // A one-line human description, e.g. "dragonfly g=9 a=4 p=2 h=2 (absolute)".
  virtual std::string describe() const = 0;

  // Class names, [0] = "terminal".
  const std::vector<std::string>& link_classes() const { return m_classes; }
  uint32_t num_link_classes() const { return static_cast<uint32_t>(m_classes.size()); }
  const std::string& class_name(link_class c) const { return m_classes[c]; }
  // The shape, as named numbers, for reports that draw the network (link_traffic).
  virtual std::vector<std::pair<std::string, uint64_t>> shape() const {
    return {{"routers", num_routers()}, {"terminals", num_terminals()}};
  }
  // Costs per class ([0], terminal, unused) under which least-cost routing over this graph
  // takes the routes of the kind's minimal routing, for writing it as a graph file; empty:
  // every class costs 1.
  virtual std::vector<double> graph_costs() const { return {}; }
  // Parameters whose value the topology derived (dragonfly: topology.g when given as 0), as
  // (key, value text), for the effective configuration written beside the results.
  virtual std::vector<std::pair<std::string, std::string>> effective_params() const { return {}; }
  // Rates the topology itself gives for class c (a graph file's); nullptr: none.
  virtual const link_class_rates* class_rates(link_class /*c*/) const { return nullptr; }

  uint32_t num_routers() const { return static_cast<uint32_t>(m_ports.size()); }
  uint32_t num_terminals() const { return static_cast<uint32_t>(m_terminals.size()); }
  uint32_t radix(router_id r) const { return static_cast<uint32_t>(m_ports[r].size()); }
  const port_info& port(router_id r, port_id p) const { return m_ports[r][p]; }
  const terminal_attach& attach(terminal_id t) const { return m_terminals[t]; }
  router_id router_of(terminal_id t) const { return m_terminals[t].router; }

  // Groups: dragonfly groups; a topology without groups reports one group.
  virtual uint32_t num_groups() const { return 1; }
  virtual group_id group_of(router_id) const { return 0; }
  group_id group_of_terminal(terminal_id t) const { return group_of(router_of(t)); }

  // Router-to-router links between two different groups, as (router in g1, router in g2)
  // pairs: the netloc-style query of topology-aware algorithms. Empty when not joined.
  struct router_pair {
    router_id first;
    router_id second;
  };
  virtual std::vector<router_pair> links_between_groups(group_id g1, group_id g2) const;

  // Terminals attached to router r, in port order.
  std::vector<terminal_id> terminals_of(router_id r) const;

 protected:
  // Filled by the concrete topology's constructor.
  std::vector<std::string> m_classes{"terminal"};  // [class]
  std::vector<std::vector<port_info>> m_ports;  // [router][port]
  std::vector<terminal_attach> m_terminals;     // [terminal]
};

}  // namespace bcastsim::network
