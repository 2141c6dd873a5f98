#include "network/dragonfly.h"

#include <cassert>
#include <cstdint>
#include <string>

namespace bcastsim::network {

const char* to_string(global_arrangement a) {
  switch (a) {
    case global_arrangement::absolute:
      return "absolute";
    case global_arrangement::relative:
      return "relative";
    case global_arrangement::codes:
      return "codes";
  }
  return "unknown";
}

namespace {

void require_nonzero(uint32_t value, const char* name, const char* meaning) {
  if (value == 0) {
    const std::string key = std::string("topology.") + name;
    throw topology_error(key, key + " = 0 is out of range: a dragonfly needs at least 1 " +
                                  meaning + ", so it must be >= 1");
  }
}

// Which group global port `raw` = r*h + j (of the first (g-1)*L) of group `grp` reaches
// (FACTS §1.2, SST pymerlin getGlobalLink; CODES dragonfly.c router_setup). Each arrangement
// maps the ports of one link index onto the g-1 other groups one to one.
group_id arranged_group(global_arrangement arr, uint32_t raw, group_id grp, uint32_t g, uint32_t a,
                        uint32_t h) {
  if (arr == global_arrangement::codes) {  // g = a*h+1: one link per pair, raw < a*h
    const uint32_t idx = (raw % h) * a + raw / h;  // i + j*a
    return idx == grp ? g - 1 : idx;
  }
  const uint32_t idx = raw % (g - 1);
  if (arr == global_arrangement::absolute) return idx >= grp ? idx + 1 : idx;
  return (idx + grp + 1) % g;
}

// The number of groups g (params.g, or its maximum a*h+1 when 0), after checking every size
// against its range and the 32-bit ids. Throws topology_error naming the key at fault.
uint32_t checked_group_count(const dragonfly_params& params) {
  require_nonzero(params.a, "a", "router per group");
  require_nonzero(params.p, "p", "terminal per router");
  require_nonzero(params.h, "h", "global port per router");
  const uint32_t a = params.a;
  const uint32_t p = params.p;
  const uint32_t h = params.h;
  // 64-bit so a huge a*h reports a range error instead of wrapping.
  const uint64_t ports_per_group = uint64_t{a} * h;
  const uint64_t max_g = ports_per_group + 1;
  const uint64_t g = params.g == 0 ? max_g : params.g;
  if (g < 2 || g > max_g) {
    throw topology_error(
        "topology.g",
        "topology.g = " + std::to_string(g) +
            " is out of range: a dragonfly with a=" + std::to_string(a) +
            ", h=" + std::to_string(h) + " has a*h = " + std::to_string(ports_per_group) +
            " global ports per group, so g must be in [2, " + std::to_string(max_g) + "]");
  }
  // Checked step by step so no product can wrap 64 bits.
  if (g > invalid_id || g * a > invalid_id || g * a * p > invalid_id ||
      p + a - 1 + uint64_t{h} > invalid_id) {
    throw topology_error("topology.g", "topology.g = " + std::to_string(g) +
                                           " makes more routers or terminals than 32-bit ids hold");
  }
  return static_cast<uint32_t>(g);
}

}  // namespace

dragonfly::dragonfly(const dragonfly_params& params) : m_params(params) {
  m_g = checked_group_count(params);
  if (params.arrangement == global_arrangement::codes && m_g != params.a * params.h + 1) {
    throw topology_error("topology.arrangement",
                         "topology.arrangement = codes needs the maximal dragonfly, g = a*h+1 = " +
                             std::to_string(params.a * params.h + 1) + " (CODES builds no other), "
                             "but topology.g = " + std::to_string(m_g) +
                             "; allowed with this g: absolute, relative");
  }
  m_a = params.a;
  m_params.g = m_g;  // report the effective size, not the "0 = maximum" shorthand
  m_links_per_pair = static_cast<uint32_t>(uint64_t{params.a} * params.h / (m_g - 1));

  const uint32_t num_routers = m_g * params.a;
  m_classes = {"terminal", "local", "global"};
  m_ports.assign(num_routers, std::vector<port_info>(params.p + params.a - 1 + params.h));
  m_terminals.resize(uint64_t{num_routers} * params.p);
  attach_terminals();
  wire_local_links();
  wire_global_links();
}

// Terminal t on port t % p of router t / p.
void dragonfly::attach_terminals() {
  const uint32_t p = m_params.p;
  for (terminal_id t = 0; t < m_terminals.size(); ++t) {
    const router_id r = t / p;
    const port_id port = t % p;
    m_terminals[t] = {r, port};
    port_info& pi = m_ports[r][port];
    pi.peer_kind = port_info::kind::terminal;
    pi.cls = dragonfly_classes::terminal;
    pi.peer = t;
  }
}

// Every router of a group to every other one of its group.
void dragonfly::wire_local_links() {
  const uint32_t a = m_params.a;
  for (router_id r = 0; r < num_routers(); ++r) {
    const router_id first = group_of(r) * a;
    for (router_id other = first; other < first + a; ++other) {
      if (other == r) continue;
      port_info& pi = m_ports[r][local_port(r, other)];
      pi.peer_kind = port_info::kind::router;
      pi.cls = dragonfly_classes::local;
      pi.peer = other;
      pi.peer_port = local_port(other, r);
    }
  }
}

// Each pair of groups joined by links_per_group_pair() cables, as the arrangement places them.
void dragonfly::wire_global_links() {
  const uint32_t a = m_params.a;
  const uint32_t h = m_params.h;
  // Number every group's global ports raw = r*h + j; raw -> (link k, other-group index).
  // Ports past (g-1)*L would give some groups one more link than others: left unused.
  const uint32_t L = m_links_per_pair;
  const uint32_t used = (m_g - 1) * L;
  m_global_end.assign(uint64_t{m_g} * m_g * L, global_link_end{invalid_id, invalid_id});
  for (group_id grp = 0; grp < m_g; ++grp) {
    for (uint32_t raw = 0; raw < used; ++raw) {
      const uint32_t k = raw / (m_g - 1);
      const group_id dst = arranged_group(m_params.arrangement, raw, grp, m_g, a, h);
      m_global_end[(uint64_t{grp} * m_g + dst) * L + k] = {grp * a + raw / h,
                                                           first_global_port() + raw % h};
    }
  }
  // The k-th link G->D and the k-th link D->G are the two ends of one cable.
  for (group_id src = 0; src < m_g; ++src) {
    for (group_id dst = src + 1; dst < m_g; ++dst) {
      for (uint32_t k = 0; k < L; ++k) {
        const global_link_end x = global_link(src, dst, k);
        const global_link_end y = global_link(dst, src, k);
        m_ports[x.router][x.port] = {port_info::kind::router, dragonfly_classes::global, y.router,
                                     y.port};
        m_ports[y.router][y.port] = {port_info::kind::router, dragonfly_classes::global, x.router,
                                     x.port};
      }
    }
  }
}

std::string dragonfly::describe() const {
  return "dragonfly g=" + std::to_string(m_g) + " a=" + std::to_string(a()) +
         " p=" + std::to_string(p()) + " h=" + std::to_string(h()) + " " +
         to_string(m_params.arrangement) + " (" + std::to_string(num_routers()) + " routers, " +
         std::to_string(num_terminals()) + " terminals)";
}

port_id dragonfly::local_port(router_id from, router_id to) const {
  assert(from != to && group_of(from) == group_of(to));
  const uint32_t rf = from % m_params.a;
  const uint32_t rt = to % m_params.a;
  return m_params.p + (rt < rf ? rt : rt - 1);
}

dragonfly::global_link_end dragonfly::global_link(group_id src, group_id dst, uint32_t k) const {
  assert(src < m_g && dst < m_g && src != dst && k < m_links_per_pair);
  return m_global_end[(uint64_t{src} * m_g + dst) * m_links_per_pair + k];
}

std::vector<topology::router_pair> dragonfly::links_between_groups(group_id g1, group_id g2) const {
  std::vector<router_pair> links;
  if (g1 == g2 || g1 >= m_g || g2 >= m_g) return links;
  links.reserve(m_links_per_pair);
  for (uint32_t k = 0; k < m_links_per_pair; ++k) {
    const global_link_end e = global_link(g1, g2, k);
    links.push_back({e.router, port(e.router, e.port).peer});
  }
  return links;
}

}  // namespace bcastsim::network
