// graph_topology: checks what a graph file says (graph_file::spec, from either format)
// and builds the port table from it. Checks run in file order where they can, so the first
// problem in the file is the one reported.
#include "network/graph_topology.h"

#include "network/graph_spec.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace bcastsim::network {

namespace graph_file {

void fail(const std::string& file, int line, const std::string& problem) {
  throw topology_error("topology.file", file + ":" + std::to_string(line) + ": " + problem);
}

uint64_t parse_whole(const std::string& file, int line, const std::string& key,
                     const std::string& text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) {
    fail(file, line, key + " = '" + text + "' is not a whole number (0, 1, 2, ...)");
  }
  return v;
}

double parse_real(const std::string& file, int line, const std::string& key,
                  const std::string& text) {
  char* end = nullptr;
  const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) {
    fail(file, line, key + " = '" + text + "' is not a number");
  }
  return v;
}

bool is_yaml_path(const std::string& path) {
  auto ends_with = [&](const char* ext) {
    const size_t n = std::strlen(ext);
    return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
  };
  return ends_with(".yaml") || ends_with(".yml");
}

}  // namespace graph_file

using graph_file::fail;

namespace {

std::string read_text(const std::string& path) {
  // A folder opens and reads as empty, a device without end: say what it is instead.
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  if (type == std::filesystem::file_type::directory) {
    throw topology_error("topology.file",
                         path + ": cannot be read: it is a directory; allowed: a regular file");
  }
  if (!ec && type != std::filesystem::file_type::regular &&
      type != std::filesystem::file_type::not_found) {
    throw topology_error("topology.file", path +
                                              ": cannot be read: not a regular file (a device, "
                                              "pipe or socket); allowed: a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw topology_error("topology.file", path + ": cannot be read: " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string range(uint64_t lo, uint64_t hi) {
  return std::to_string(lo) + " .. " + std::to_string(hi);
}

// One per-router key resolved for every router, with the line each value came from.
struct router_values {
  std::vector<uint64_t> value;
  std::vector<int> line;
};

router_values resolve(const graph_file::spec& s, const graph_file::per_router& pr, uint32_t routers,
                      const std::string& key, uint64_t fallback) {
  if (pr.list_line != 0 && pr.list_size != routers) {
    fail(s.file, pr.list_line,
         key + " lists " + std::to_string(pr.list_size) +
             " values; routers = " + std::to_string(routers) + " needs one per router");
  }
  router_values out{std::vector<uint64_t>(routers, pr.all.line != 0 ? pr.all.value : fallback),
                    std::vector<int>(routers, pr.all.line)};
  std::vector<int> set_at(routers, 0);
  for (const graph_file::router_value& e : pr.each) {
    if (e.router >= routers) {
      fail(s.file, e.line,
           "router " + std::to_string(e.router) +
               " is out of range; allowed: " + range(0, routers - 1));
    }
    if (set_at[e.router] != 0) {
      fail(s.file, e.line,
           key + " of router " + std::to_string(e.router) + " is given twice (lines " +
               std::to_string(set_at[e.router]) + " and " + std::to_string(e.line) + ")");
    }
    set_at[e.router] = e.line;
    out.value[e.router] = e.value;
    out.line[e.router] = e.line;
  }
  return out;
}

bool is_class_name(const std::string& name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// A class's rates are all given (bandwidth > 0) or none (bandwidth absent or 0).
link_class_rates class_rates_of(const std::string& file, const graph_file::class_spec& c) {
  const std::string name = "class '" + c.name + "' ";
  if (c.bandwidth_gib_per_s.value < 0) {
    fail(file, c.bandwidth_gib_per_s.line,
         name + "bandwidth_gib_per_s is negative; allowed: > 0, or 0 for not given");
  }
  if (c.bandwidth_gib_per_s.value == 0) {
    if (c.latency_ns.value != 0 || c.vc_buffer_bytes.value != 0) {
      fail(file, c.line,
           name +
               "gives latency_ns or vc_buffer_bytes but no bandwidth_gib_per_s; "
               "give all three rates or none");
    }
    return {};
  }
  if (c.latency_ns.line == 0 || c.vc_buffer_bytes.line == 0) {
    fail(file, c.line,
         name + "gives bandwidth_gib_per_s but not " +
             (c.latency_ns.line == 0 ? "latency_ns" : "vc_buffer_bytes") +
             "; give all three rates or none");
  }
  if (c.latency_ns.value < 0) {
    fail(file, c.latency_ns.line, name + "latency_ns is negative; allowed: >= 0");
  }
  if (c.vc_buffer_bytes.value == 0 || c.vc_buffer_bytes.value > 0xffffffffull) {
    fail(file, c.vc_buffer_bytes.line,
         name + "vc_buffer_bytes = " + std::to_string(c.vc_buffer_bytes.value) +
             " is out of range; allowed: " + range(1, 0xffffffffull));
  }
  return {c.bandwidth_gib_per_s.value, c.latency_ns.value,
          static_cast<uint32_t>(c.vc_buffer_bytes.value)};
}

std::vector<graph_link_class> read_classes(const graph_file::spec& s) {
  std::vector<graph_link_class> out;
  std::map<std::string, int> seen;
  for (const graph_file::class_spec& c : s.classes) {
    if (c.name == "terminal") {
      fail(s.file, c.line,
           "class name 'terminal' is reserved (class 0: the links from "
           "terminals to routers)");
    }
    if (!is_class_name(c.name)) {
      fail(s.file, c.line,
           "class name '" + c.name +
               "' is not allowed: use a letter, then "
               "letters, digits or _ (it names keys such as traversals.<class>)");
    }
    if (!seen.emplace(c.name, c.line).second) {
      fail(s.file, c.line,
           "class '" + c.name + "' is declared twice (lines " + std::to_string(seen[c.name]) +
               " and " + std::to_string(c.line) + ")");
    }
    if (out.size() + 1 >= max_link_classes) {
      fail(s.file, c.line,
           "too many classes; allowed: at most " + std::to_string(max_link_classes - 1) +
               " besides terminal");
    }
    const uint64_t cost = c.cost.line != 0 ? c.cost.value : 1;
    if (cost < 1 || cost > max_graph_cost) {
      fail(s.file, c.cost.line,
           "cost = " + std::to_string(cost) + " of class '" + c.name +
               "' is out of range; allowed: " + range(1, max_graph_cost));
    }
    out.push_back({c.name, class_rates_of(s.file, c), static_cast<uint32_t>(cost)});
  }
  return out;
}

}  // namespace

// What the build steps share: the file as read and the per-router values resolved.
struct graph_topology::build_state {
  explicit build_state(const graph_file::spec& spec) : s(spec) {}
  const graph_file::spec& s;
  uint32_t routers = 0;
  router_values terminals;
  router_values ports;                // 0: not given, the radix is what the links need
  std::vector<link_class> link_cls;   // [link]
  std::vector<port_id> link_port[2];  // [end][link]
};

graph_topology::graph_topology(const std::string& path) : m_file(path) {
  const std::string text = read_text(path);
  const graph_file::spec s = graph_file::is_yaml_path(path)
                                 ? graph_file::read_yaml(path, text)
                                 : graph_file::read_edge_list(path, text);
  if (s.routers.line == 0) fail(path, s.whole_file_line, "routers is missing");
  if (s.routers.value < 1 || s.routers.value > max_graph_routers) {
    fail(path, s.routers.line,
         "routers = " + std::to_string(s.routers.value) +
             " is out of range; allowed: " + range(1, max_graph_routers));
  }
  build_state b(s);
  b.routers = static_cast<uint32_t>(s.routers.value);
  m_link_classes = read_classes(s);
  for (const graph_link_class& c : m_link_classes) m_classes.push_back(c.name);
  if (s.terminal_link.line != 0) m_terminal_rates = class_rates_of(path, s.terminal_link);
  build_terminals(b);
  build_groups(b);
  build_links(b);
  check_connected(b);
}

// Groups numbered 0 .. G-1 without gaps; all 0 when the file gives none.
void graph_topology::build_groups(const build_state& b) {
  const graph_file::spec& s = b.s;
  const router_values groups = resolve(s, s.groups, b.routers, "group", 0);
  group_id highest = 0;
  int highest_line = s.whole_file_line;  // where the highest group is given
  for (router_id r = 0; r < b.routers; ++r) {
    if (groups.value[r] >= b.routers) {
      fail(s.file, groups.line[r],
           "group " + std::to_string(groups.value[r]) + " of router " + std::to_string(r) +
               " is out of range; allowed: " + range(0, b.routers - 1));
    }
    m_groups.push_back(static_cast<group_id>(groups.value[r]));
    if (m_groups[r] > highest) {
      highest = m_groups[r];
      highest_line = groups.line[r];
    }
  }
  m_num_groups = highest + 1;
  std::vector<bool> used(m_num_groups, false);
  for (const group_id g : m_groups) used[g] = true;
  for (group_id g = 0; g < m_num_groups; ++g) {
    if (!used[g]) {
      fail(s.file, highest_line,
           "no router is in group " + std::to_string(g) + "; groups must be numbered " +
               range(0, highest) + " without gaps");
    }
  }
}

// Terminal counts and radices; terminals take ports [0, n) of their router, numbered
// router by router.
void graph_topology::build_terminals(build_state& b) {
  const graph_file::spec& s = b.s;
  if (s.terminals.all.line == 0 && s.terminals.list_line == 0 && s.terminals.each.empty()) {
    fail(s.file, s.whole_file_line,
         "terminals_per_router (or terminals, one count per router) is missing");
  }
  b.terminals = resolve(s, s.terminals, b.routers, "terminals", 0);
  b.ports = resolve(s, s.ports, b.routers, "ports", 0);
  uint64_t total = 0;
  for (router_id r = 0; r < b.routers; ++r) {
    const uint64_t t = b.terminals.value[r];
    if (t > max_graph_radix) {
      fail(s.file, b.terminals.line[r],
           "terminals = " + std::to_string(t) + " of router " + std::to_string(r) +
               " is out of range; allowed: " + range(0, max_graph_radix));
    }
    const uint64_t p = b.ports.value[r];
    if (b.ports.line[r] != 0 && (p < 1 || p > max_graph_radix)) {
      fail(s.file, b.ports.line[r],
           "ports = " + std::to_string(p) + " of router " + std::to_string(r) +
               " is out of range; allowed: " + range(1, max_graph_radix));
    }
    if (b.ports.line[r] != 0 && p < t) {
      fail(s.file, b.ports.line[r],
           "ports = " + std::to_string(p) + " of router " + std::to_string(r) +
               " leaves no room for its " + std::to_string(t) + " terminals");
    }
    total += t;
  }
  if (total == 0) fail(s.file, s.whole_file_line, "the graph has no terminal");
  m_terminals.reserve(total);
  for (router_id r = 0; r < b.routers; ++r) {
    for (port_id p = 0; p < b.terminals.value[r]; ++p) m_terminals.push_back({r, p});
  }
}

namespace {

// Where a router's link ports may go: after its terminals, below its radix if given.
std::string link_ports_allowed(uint64_t terminals, uint64_t ports_given) {
  const uint64_t last = (ports_given != 0 ? ports_given : max_graph_radix) - 1;
  if (terminals > last)
    return "none (all " + std::to_string(ports_given) + " ports hold terminals)";
  return range(terminals, last);
}

// Marks port p of router r wired by the link on `line`; wired[r][p] = that line.
void wire_port(const std::string& file, std::vector<int>& wired, router_id r, uint64_t p,
               uint64_t terminals, uint64_t ports_given, int line) {
  const std::string which = "port " + std::to_string(p) + " of router " + std::to_string(r);
  if (p < terminals) {
    fail(file, line,
         which + " holds a terminal (ports " + range(0, terminals - 1) +
             " do); allowed: " + link_ports_allowed(terminals, ports_given));
  }
  if (p >= (ports_given != 0 ? ports_given : max_graph_radix)) {
    fail(file, line,
         which + " is out of range; allowed: " + link_ports_allowed(terminals, ports_given));
  }
  if (wired.size() <= p) wired.resize(p + 1, 0);
  if (wired[p] != 0) {
    fail(file, line,
         which + " is wired twice (lines " + std::to_string(wired[p]) + " and " +
             std::to_string(line) + ")");
  }
  wired[p] = line;
}

}  // namespace

// Links in file order: routers, class, explicit ports; then the links without ports take
// the lowest free port after the terminals, in file order; then the port table.
void graph_topology::build_links(build_state& b) {
  const graph_file::spec& s = b.s;
  std::map<std::string, link_class> by_name;
  std::string declared;
  for (size_t c = 0; c < m_link_classes.size(); ++c) {
    by_name[m_link_classes[c].name] = static_cast<link_class>(c + 1);
    declared += (declared.empty() ? "" : ", ") + m_link_classes[c].name;
  }
  std::vector<std::vector<int>> wired(b.routers);  // [router][port] -> line; 0: free
  const size_t n = s.links.size();
  b.link_cls.assign(n, terminal_class);
  for (auto& ports : b.link_port) ports.assign(n, invalid_id);
  for (size_t i = 0; i < n; ++i) {
    const graph_file::link_spec& l = s.links[i];
    for (const uint64_t r : l.router) {
      if (r >= b.routers) {
        fail(s.file, l.line,
             "router " + std::to_string(r) +
                 " is out of range; allowed: " + range(0, b.routers - 1));
      }
    }
    if (l.router[0] == l.router[1]) {
      fail(s.file, l.line, "the link joins router " + std::to_string(l.router[0]) + " to itself");
    }
    const auto cls = by_name.find(l.cls);
    if (cls == by_name.end()) {
      fail(s.file, l.line,
           "class '" + l.cls + "' is not declared; allowed: " +
               (declared.empty() ? "none (the file declares no classes)" : declared));
    }
    b.link_cls[i] = cls->second;
    if (!l.explicit_ports) continue;
    for (int end = 0; end < 2; ++end) {
      const auto r = static_cast<router_id>(l.router[end]);
      wire_port(s.file, wired[r], r, l.port[end], b.terminals.value[r], b.ports.value[r], l.line);
      b.link_port[end][i] = static_cast<port_id>(l.port[end]);
    }
  }
  std::vector<uint64_t> next_free = b.terminals.value;  // [router]
  for (size_t i = 0; i < n; ++i) {
    if (s.links[i].explicit_ports) continue;
    for (int end = 0; end < 2; ++end) {
      const auto r = static_cast<router_id>(s.links[i].router[end]);
      uint64_t& p = next_free[r];
      while (p < wired[r].size() && wired[r][p] != 0) ++p;
      const uint64_t limit = b.ports.value[r] != 0 ? b.ports.value[r] : max_graph_radix;
      if (p >= limit) {
        fail(s.file, s.links[i].line,
             "router " + std::to_string(r) + " has no free port left for this link; allowed: " +
                 link_ports_allowed(b.terminals.value[r], b.ports.value[r]) + ", all wired");
      }
      wire_port(s.file, wired[r], r, p, b.terminals.value[r], b.ports.value[r], s.links[i].line);
      b.link_port[end][i] = static_cast<port_id>(p);
    }
  }
  uint64_t total_ports = 0;
  m_ports.resize(b.routers);
  for (router_id r = 0; r < b.routers; ++r) {
    const uint64_t radix = b.ports.value[r] != 0
                               ? b.ports.value[r]
                               : std::max<uint64_t>(b.terminals.value[r], wired[r].size());
    total_ports += radix;
    if (total_ports > max_graph_ports) {
      fail(s.file, s.whole_file_line,
           "the routers have more than " + std::to_string(max_graph_ports) + " ports in all");
    }
    m_ports[r].resize(radix);
  }
  for (terminal_id t = 0; t < m_terminals.size(); ++t) {
    m_ports[m_terminals[t].router][m_terminals[t].port] = {port_info::kind::terminal,
                                                           terminal_class, t, invalid_id};
  }
  for (size_t i = 0; i < n; ++i) {
    const auto r0 = static_cast<router_id>(s.links[i].router[0]);
    const auto r1 = static_cast<router_id>(s.links[i].router[1]);
    const port_id p0 = b.link_port[0][i];
    const port_id p1 = b.link_port[1][i];
    m_ports[r0][p0] = {port_info::kind::router, b.link_cls[i], r1, p1};
    m_ports[r1][p1] = {port_info::kind::router, b.link_cls[i], r0, p0};
  }
}

// Every router has a link and every router reaches every other (one router alone is fine).
void graph_topology::check_connected(const build_state& b) const {
  if (b.routers == 1) return;
  for (router_id r = 0; r < b.routers; ++r) {
    const auto& ports = m_ports[r];
    if (std::none_of(ports.begin(), ports.end(),
                     [](const port_info& pi) { return pi.peer_kind == port_info::kind::router; })) {
      fail(b.s.file, b.s.routers.line,
           "router " + std::to_string(r) + " has no link; every router needs at least one");
    }
  }
  std::vector<uint32_t> part(b.routers, invalid_id);
  std::vector<router_id> todo;
  uint32_t parts = 0;
  router_id first_apart = invalid_id;  // the first router router 0 cannot reach
  for (router_id root = 0; root < b.routers; ++root) {
    if (part[root] != invalid_id) continue;
    if (parts == 1) first_apart = root;
    part[root] = parts;
    todo.assign(1, root);
    while (!todo.empty()) {
      const router_id r = todo.back();
      todo.pop_back();
      for (const port_info& pi : m_ports[r]) {
        if (pi.peer_kind == port_info::kind::router && part[pi.peer] == invalid_id) {
          part[pi.peer] = parts;
          todo.push_back(pi.peer);
        }
      }
    }
    ++parts;
  }
  if (parts > 1) {
    fail(b.s.file, b.s.whole_file_line,
         "the graph is not connected: routers 0 and " + std::to_string(first_apart) +
             " cannot reach each other (the links make " + std::to_string(parts) +
             " separate parts)");
  }
}

std::string graph_topology::describe() const {
  std::string classes;
  for (const graph_link_class& c : m_link_classes)
    classes += (classes.empty() ? "" : ", ") + c.name;
  return "graph " + m_file + " (" + std::to_string(num_routers()) + " routers, " +
         std::to_string(num_terminals()) + " terminals, " + std::to_string(m_num_groups) +
         " groups; classes " + (classes.empty() ? "none" : classes) + ")";
}

const link_class_rates* graph_topology::class_rates(link_class c) const {
  if (c == terminal_class)
    return m_terminal_rates.bandwidth_gib_per_s > 0 ? &m_terminal_rates : nullptr;
  if (c > m_link_classes.size()) return nullptr;
  const link_class_rates& r = m_link_classes[c - 1].rates;
  return r.bandwidth_gib_per_s > 0 ? &r : nullptr;
}

}  // namespace bcastsim::network
