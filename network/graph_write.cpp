// Writing any topology as a graph file (both formats): every port explicit, so loading the
// file back gives the identical port table, whatever order the topology numbered its ports in.
#include "network/graph_topology.h"

#include "network/params.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace bcastsim::network {

namespace {

struct cable {
  router_id router[2];
  port_id port[2];
  link_class cls;
};

// What both formats write, checked once.
struct graph_content {
  std::vector<graph_link_class> classes;  // [class - 1]
  link_class_rates terminal;              // bandwidth 0: not written
  std::vector<uint32_t> terminals;        // [router]
  std::vector<group_id> groups;           // [router]
  std::vector<cable> cables;              // each once, from its lower (router, port) end
};

[[noreturn]] void refuse(const std::string& problem) {
  throw std::invalid_argument("writing a graph file: " + problem);
}

std::vector<graph_link_class> classes_of(const topology& topo,
                                         const std::vector<double>& class_cost,
                                         const std::vector<link_class_rates>& class_rates) {
  if (!class_cost.empty() && class_cost.size() != topo.num_link_classes()) {
    refuse("class_cost has " + std::to_string(class_cost.size()) + " entries; the topology has " +
           std::to_string(topo.num_link_classes()) + " classes (entry 0, terminal, is ignored)");
  }
  // A graph file's own costs are kept unless others are asked for.
  const auto* graph = dynamic_cast<const graph_topology*>(&topo);
  std::vector<graph_link_class> out;
  for (link_class c = 1; c < topo.num_link_classes(); ++c) {
    graph_link_class k;
    k.name = topo.class_name(c);
    if (const link_class_rates* r = topo.class_rates(c)) {
      k.rates = *r;
    } else if (c < class_rates.size() && class_rates[c].bandwidth_gib_per_s > 0) {
      k.rates = class_rates[c];
    }
    if (class_cost.empty()) {
      if (graph != nullptr) k.cost = graph->class_cost(c);
    } else {
      const double cost = class_cost[c];
      if (!(cost >= 1 && cost <= max_graph_cost) || std::floor(cost) != cost) {
        refuse("the cost of class '" + k.name + "' is " + params::format_real(cost) +
               "; allowed: a whole number in 1 .. " + std::to_string(max_graph_cost));
      }
      k.cost = static_cast<uint32_t>(cost);
    }
    out.push_back(k);
  }
  return out;
}

graph_content collect(const topology& topo, const std::vector<double>& class_cost,
                      const std::vector<link_class_rates>& class_rates) {
  if (topo.num_routers() == 0) refuse("the topology has no router");
  graph_content g;
  g.classes = classes_of(topo, class_cost, class_rates);
  if (const link_class_rates* r = topo.class_rates(terminal_class)) {
    g.terminal = *r;
  } else if (!class_rates.empty()) {
    g.terminal = class_rates.front();
  }
  terminal_id next_terminal = 0;
  for (router_id r = 0; r < topo.num_routers(); ++r) {
    uint32_t terms = 0;
    g.groups.push_back(topo.group_of(r));
    for (port_id p = 0; p < topo.radix(r); ++p) {
      const port_info& pi = topo.port(r, p);
      if (pi.peer_kind == port_info::kind::terminal) {
        // A graph file puts terminals on ports [0, n) of their router, numbered router by router.
        if (p != terms || pi.peer != next_terminal) {
          refuse("terminal " + std::to_string(pi.peer) + " sits on port " + std::to_string(p) +
                 " of router " + std::to_string(r) + "; a graph file can only place terminal " +
                 std::to_string(next_terminal) + " on port " + std::to_string(terms));
        }
        ++terms;
        ++next_terminal;
      } else if (pi.peer_kind == port_info::kind::router) {
        const port_info& back = topo.port(pi.peer, pi.peer_port);
        if (back.peer_kind != port_info::kind::router || back.peer != r || back.peer_port != p ||
            back.cls != pi.cls || pi.cls == terminal_class) {
          refuse("port " + std::to_string(p) + " of router " + std::to_string(r) +
                 " is not one end of a cable its peer port agrees on");
        }
        if (r < pi.peer || (r == pi.peer && p < pi.peer_port)) {
          g.cables.push_back({{r, pi.peer}, {p, pi.peer_port}, pi.cls});
        }
      }
    }
    g.terminals.push_back(terms);
  }
  return g;
}

template <typename T>
bool uniform(const std::vector<T>& v) {
  for (const T& x : v) {
    if (x != v.front()) return false;
  }
  return true;
}

std::vector<uint32_t> radices(const topology& topo) {
  std::vector<uint32_t> out;
  for (router_id r = 0; r < topo.num_routers(); ++r) out.push_back(topo.radix(r));
  return out;
}

template <typename T>
void write_flow_list(std::ostream& os, const std::vector<T>& v) {
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) os << (i == 0 ? "" : ", ") << v[i];
  os << "]\n";
}

bool has_groups(const graph_content& g) {
  return !g.groups.empty() && !(uniform(g.groups) && g.groups.front() == 0);
}

}  // namespace

void write_graph_yaml(const topology& topo, std::ostream& os, const std::vector<double>& class_cost,
                      const std::vector<link_class_rates>& class_rates) {
  const graph_content g = collect(topo, class_cost, class_rates);
  os << "# bcastsim graph file, written from: " << topo.describe() << "\n";
  os << "routers: " << topo.num_routers() << "\n";
  if (uniform(g.terminals)) {
    os << "terminals_per_router: " << g.terminals.front() << "\n";
  } else {
    os << "terminals: ";
    write_flow_list(os, g.terminals);
  }
  const std::vector<uint32_t> ports = radices(topo);
  os << "ports: ";
  if (uniform(ports)) {
    os << ports.front() << "\n";
  } else {
    write_flow_list(os, ports);
  }
  os << "# In rank order: a hop onto a class of lower or equal rank moves a packet to the next "
        "VC.\n";
  os << "classes:\n";
  for (const graph_link_class& c : g.classes) {
    os << "  - {name: " << c.name;
    if (c.rates.bandwidth_gib_per_s > 0) {
      os << ", bandwidth_gib_per_s: " << params::format_real(c.rates.bandwidth_gib_per_s)
         << ", latency_ns: " << params::format_real(c.rates.latency_ns)
         << ", vc_buffer_bytes: " << c.rates.vc_buffer_bytes;
    }
    os << ", cost: " << c.cost << "}\n";
  }
  if (g.terminal.bandwidth_gib_per_s > 0) {
    os << "terminal_link: {bandwidth_gib_per_s: "
       << params::format_real(g.terminal.bandwidth_gib_per_s)
       << ", latency_ns: " << params::format_real(g.terminal.latency_ns)
       << ", vc_buffer_bytes: " << g.terminal.vc_buffer_bytes << "}\n";
  }
  if (has_groups(g)) {
    os << "groups: ";
    write_flow_list(os, g.groups);
  }
  os << "# [router, port, router, port, class], one line per cable\n";
  os << "links:" << (g.cables.empty() ? " []" : "") << "\n";
  for (const cable& c : g.cables) {
    os << "  - [" << c.router[0] << ", " << c.port[0] << ", " << c.router[1] << ", " << c.port[1]
       << ", " << topo.class_name(c.cls) << "]\n";
  }
}

void write_graph_edge_list(const topology& topo, std::ostream& os,
                           const std::vector<double>& class_cost,
                           const std::vector<link_class_rates>& class_rates) {
  const graph_content g = collect(topo, class_cost, class_rates);
  os << "# bcastsim graph file (edge list), written from: " << topo.describe() << "\n";
  os << "routers " << topo.num_routers() << "\n";
  if (uniform(g.terminals)) {
    os << "terminals_per_router " << g.terminals.front() << "\n";
  } else {
    for (router_id r = 0; r < topo.num_routers(); ++r)
      os << "terminals " << r << ' ' << g.terminals[r] << "\n";
  }
  const std::vector<uint32_t> ports = radices(topo);
  if (uniform(ports)) {
    os << "ports " << ports.front() << "\n";
  } else {
    for (router_id r = 0; r < topo.num_routers(); ++r)
      os << "ports " << r << ' ' << ports[r] << "\n";
  }
  os << "# class NAME BANDWIDTH_GIB_PER_S LATENCY_NS VC_BUFFER_BYTES COST (0 0 0: rates not "
        "given),\n"
        "# in rank order: a hop onto a class of lower or equal rank moves a packet to the next "
        "VC\n";
  for (const graph_link_class& c : g.classes) {
    os << "class " << c.name << ' ' << params::format_real(c.rates.bandwidth_gib_per_s) << ' '
       << params::format_real(c.rates.latency_ns) << ' ' << c.rates.vc_buffer_bytes << ' ' << c.cost
       << "\n";
  }
  if (g.terminal.bandwidth_gib_per_s > 0) {
    os << "terminal_link " << params::format_real(g.terminal.bandwidth_gib_per_s) << ' '
       << params::format_real(g.terminal.latency_ns) << ' ' << g.terminal.vc_buffer_bytes << "\n";
  }
  if (has_groups(g)) {
    for (router_id r = 0; r < topo.num_routers(); ++r)
      os << "group " << r << ' ' << g.groups[r] << "\n";
  }
  os << "# link ROUTER PORT ROUTER PORT CLASS, one line per cable\n";
  for (const cable& c : g.cables) {
    os << "link " << c.router[0] << ' ' << c.port[0] << ' ' << c.router[1] << ' ' << c.port[1]
       << ' ' << topo.class_name(c.cls) << "\n";
  }
}

}  // namespace bcastsim::network
