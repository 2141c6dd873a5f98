#include "network/galaxyfly.h"

#include <cassert>
#include <cstdint>
#include <string>

namespace bcastsim::network {

namespace {

void require_nonzero(uint32_t value, const char* name, const char* meaning) {
  if (value == 0) {
    const std::string key = std::string("topology.") + name;
    throw topology_error(key, key + " = 0 is out of range: a Galaxyfly needs at least 1 " +
                                  meaning + ", so it must be >= 1");
  }
}

// Checks every size against its range and the 32-bit ids, before anything is allocated, and
// returns the params. Throws topology_error naming the key at fault.
const galaxyfly_params& checked(const galaxyfly_params& params) {
  require_nonzero(params.n, "n", "cluster");
  require_nonzero(params.a, "a", "router per supernode");
  require_nonzero(params.p, "p", "terminal per router");
  require_nonzero(params.h, "h", "global port per router");
  const uint32_t n = params.n;
  const uint32_t q = params.q;
  const uint32_t a = params.a;
  const uint32_t h = params.h;
  const uint32_t degree = galaxy_graph::degree_of(n, q);  // refuses q
  const uint64_t supernodes = uint64_t{n} * q;
  if (supernodes < 2) {
    throw topology_error("topology.n",
                         "topology.n = 1 with topology.q = 1 is a single supernode: "
                         "a Galaxyfly needs n*q >= 2 supernodes");
  }
  if (supernodes * a > invalid_id || supernodes * a * params.p > invalid_id ||
      params.p + a - 1 + uint64_t{h} > invalid_id) {
    throw topology_error("topology.n", "topology.n = " + std::to_string(n) +
                                           " makes more routers or terminals than 32-bit ids hold");
  }
  if (uint64_t{a} * h < degree) {
    throw topology_error("topology.h",
                         "Galaxyfly(n=" + std::to_string(n) + ", q=" + std::to_string(q) +
                             ") supernodes need D = " + std::to_string(degree) +
                             " inter-supernode links; a*h = " + std::to_string(a) + "*" +
                             std::to_string(h) + " = " + std::to_string(uint64_t{a} * h) +
                             " is smaller, so topology.h must be >= ceil(D/a) = " +
                             std::to_string((degree + a - 1) / a));
  }
  return params;
}

}  // namespace

galaxyfly::galaxyfly(const galaxyfly_params& params)
    : m_params(checked(params)), m_a(params.a), m_graph(params.n, params.q) {
  const uint32_t degree = m_graph.degree();
  m_links_per_pair = static_cast<uint32_t>(uint64_t{params.a} * params.h / degree);
  m_diameter = degree + 1 == m_graph.size() ? 1 : 2;

  const uint32_t num_routers = m_graph.size() * params.a;
  m_classes = {"terminal", "local", "global"};
  m_ports.assign(num_routers, std::vector<port_info>(params.p + params.a - 1 + params.h));
  m_terminals.resize(uint64_t{num_routers} * params.p);
  attach_terminals();
  wire_local_links();
  wire_global_links();
}

// Terminal t on port t % p of router t / p.
void galaxyfly::attach_terminals() {
  const uint32_t p = m_params.p;
  for (terminal_id t = 0; t < m_terminals.size(); ++t) {
    const router_id r = t / p;
    const port_id port = t % p;
    m_terminals[t] = {r, port};
    port_info& pi = m_ports[r][port];
    pi.peer_kind = port_info::kind::terminal;
    pi.cls = galaxyfly_classes::terminal;
    pi.peer = t;
  }
}

// Every router of a supernode to every other one of its supernode.
void galaxyfly::wire_local_links() {
  const uint32_t a = m_params.a;
  for (router_id r = 0; r < num_routers(); ++r) {
    const router_id first = group_of(r) * a;
    for (router_id other = first; other < first + a; ++other) {
      if (other == r) continue;
      port_info& pi = m_ports[r][local_port(r, other)];
      pi.peer_kind = port_info::kind::router;
      pi.cls = galaxyfly_classes::local;
      pi.peer = other;
      pi.peer_port = local_port(other, r);
    }
  }
}

// Raw global index k = t*h + j < L*D of supernode s carries link k / D to the neighbour in
// slot k % D of s's wiring order (wiring_slot: intra-cluster neighbours first); its peer is
// the same link number at s's slot in the neighbour's order. Indices past L*D would give some
// neighbours one more link than others: left unused.
void galaxyfly::wire_global_links() {
  m_intra = m_graph.degree() - (m_graph.n() - 1);
  for (group_id s = 0; s < m_graph.size(); ++s) {
    const std::vector<uint32_t>& nb = m_graph.neighbours(s);
    for (uint32_t i = 0; i < nb.size(); ++i) {
      const group_id u = nb[i];
      for (uint32_t k = 0; k < m_links_per_pair; ++k) {
        const global_link_end here = gateway_by_index(s, i, k);
        const global_link_end there = gateway_by_index(u, m_graph.neighbour_index(u, s), k);
        m_ports[here.router][here.port] = {port_info::kind::router, galaxyfly_classes::global,
                                           there.router, there.port};
      }
    }
  }
}

std::string galaxyfly::describe() const {
  return "galaxyfly n=" + std::to_string(n()) + " q=" + std::to_string(q()) +
         " a=" + std::to_string(a()) + " p=" + std::to_string(p()) + " h=" + std::to_string(h()) +
         " (" + std::to_string(num_routers()) + " routers, " + std::to_string(num_terminals()) +
         " terminals)";
}

port_id galaxyfly::local_port(router_id from, router_id to) const {
  assert(from != to && group_of(from) == group_of(to));
  const uint32_t rf = from % m_params.a;
  const uint32_t rt = to % m_params.a;
  return m_params.p + (rt < rf ? rt : rt - 1);
}

std::vector<topology::router_pair> galaxyfly::links_between_groups(group_id g1, group_id g2) const {
  std::vector<router_pair> links;
  if (g1 >= num_groups() || g2 >= num_groups() || !supernode_adjacent(g1, g2)) return links;
  links.reserve(m_links_per_pair);
  for (uint32_t k = 0; k < m_links_per_pair; ++k) {
    const global_link_end e = gateway(g1, g2, k);
    links.push_back({e.router, port(e.router, e.port).peer});
  }
  return links;
}

}  // namespace bcastsim::network
