#include "network/graph_routing.h"

#include <algorithm>
#include <limits>

namespace bcastsim::network {

namespace {

// route_decision::vc is 8 bits wide.
constexpr uint32_t k_max_vcs = 256;

}  // namespace

graph_minimal_routing::graph_minimal_routing(const graph_topology& graph)
    : routing_policy(graph),
      m_graph(graph),
      m_routers(graph.num_routers()),
      m_states(graph.num_link_classes()) {
  m_first_link.reserve(m_routers + 1);
  for (router_id r = 0; r < m_routers; ++r) {
    m_first_link.push_back(static_cast<uint32_t>(m_links.size()));
    for (port_id p = 0; p < graph.radix(r); ++p) {
      const port_info& pi = graph.port(r, p);
      if (pi.peer_kind == port_info::kind::router) {
        m_links.push_back({pi.peer, p, pi.cls, graph.class_cost(pi.cls)});
      }
    }
  }
  m_first_link.push_back(static_cast<uint32_t>(m_links.size()));
  const uint32_t descents = compute_distances();
  if (descents + 1 > k_max_vcs) {
    throw topology_error("topology.file",
                         graph.file() + ": least-cost paths make up to " +
                             std::to_string(descents) + " class descents, so they need " +
                             std::to_string(descents + 1) + " VCs; a route can use at most " +
                             std::to_string(k_max_vcs) +
                             " (give the classes a rank order along long paths)");
  }
  m_min_vcs = descents + 1;
}

// Dial's algorithm from every router: costs are whole numbers in [1, max_cost], so a ring of
// max_cost + 1 buckets holds every distance still to settle. Routers settle in order of
// distance, which is the order the descent count needs.
uint32_t graph_minimal_routing::compute_distances() {
  uint32_t max_cost = 1;
  for (const link& l : m_links) max_cost = std::max(max_cost, l.cost);
  std::vector<std::vector<router_id>> buckets(max_cost + 1);
  std::vector<router_id> order;
  order.reserve(m_routers);
  std::vector<uint32_t> most(uint64_t{m_routers} * m_states);
  std::vector<bool> has_terminal(m_routers, false);
  for (terminal_id t = 0; t < m_graph.num_terminals(); ++t)
    has_terminal[m_graph.router_of(t)] = true;

  m_dist.assign(uint64_t{m_routers} * m_routers, std::numeric_limits<uint32_t>::max());
  uint32_t descents = 0;
  for (router_id to = 0; to < m_routers; ++to) {
    uint32_t* dist = &m_dist[uint64_t{to} * m_routers];
    dist[to] = 0;
    buckets[0].push_back(to);
    uint64_t pending = 1;
    order.clear();
    for (uint32_t d = 0; pending > 0; ++d) {
      std::vector<router_id>& bucket = buckets[d % buckets.size()];
      // Costs are >= 1, so nothing relaxed here lands in this bucket.
      for (const router_id u : bucket) {
        --pending;
        if (dist[u] != d) continue;  // settled earlier at a lower distance
        order.push_back(u);
        for (uint32_t i = m_first_link[u]; i < m_first_link[u + 1]; ++i) {
          const link& l = m_links[i];
          if (d + l.cost < dist[l.peer]) {
            dist[l.peer] = d + l.cost;
            buckets[dist[l.peer] % buckets.size()].push_back(l.peer);
            ++pending;
          }
        }
      }
      bucket.clear();
    }
    if (!has_terminal[to]) continue;
    count_descents(to, order, most);
    for (router_id from = 0; from < m_routers; ++from) {
      if (has_terminal[from] && from != to)
        descents = std::max(descents, most[uint64_t{from} * m_states]);
    }
  }
  return descents;
}

// most[r * states + c]: the most descents a packet at router r, having arrived on class c
// (0: not yet moved), makes on any least-cost path to `to`. Its next hop on class k moves
// it to most[peer][k], one more when k ranks at or below c.
void graph_minimal_routing::count_descents(router_id to, const std::vector<router_id>& order,
                                           std::vector<uint32_t>& most) const {
  const uint32_t* dist = &m_dist[uint64_t{to} * m_routers];
  for (const router_id u : order) {
    uint32_t* here = &most[uint64_t{u} * m_states];
    std::fill(here, here + m_states, 0);
    for (uint32_t i = m_first_link[u]; i < m_first_link[u + 1]; ++i) {
      const link& l = m_links[i];
      if (l.cost + dist[l.peer] != dist[u]) continue;
      const uint32_t after = most[uint64_t{l.peer} * m_states + l.cls];
      for (uint32_t c = 0; c < m_states; ++c) {
        here[c] = std::max(here[c], after + (c != 0 && l.cls <= c ? 1 : 0));
      }
    }
  }
}

void graph_minimal_routing::init_state(terminal_id src, terminal_id dst, uint64_t,
                                       route_state& state) const {
  state = route_state{};
  state.aux = static_cast<uint32_t>(splitmix64(uint64_t{src} << 32 | dst));
}

route_decision graph_minimal_routing::route(router_id at, terminal_id dst, route_state& state,
                                            const port_occupancy_view*) const {
  const router_id to = m_graph.router_of(dst);
  if (at == to) return {m_graph.attach(dst).port, 0};

  const uint32_t* dist = &m_dist[uint64_t{to} * m_routers];
  const link* first = m_links.data() + m_first_link[at];
  const link* last = m_links.data() + m_first_link[at + 1];
  uint32_t candidates = 0;
  for (const link* l = first; l != last; ++l) candidates += l->cost + dist[l->peer] == dist[at];
  // The graph is connected, so some hop always gets closer; the hash of flow and router
  // picks one, the same one for every packet of the flow.
  uint64_t pick = splitmix64(uint64_t{state.aux} << 32 | at) % candidates;
  const link* taken = first;
  for (const link* l = first; l != last; ++l) {
    if (l->cost + dist[l->peer] == dist[at] && pick-- == 0) {
      taken = l;
      break;
    }
  }
  if (state.global_hops != 0 && taken->cls <= state.global_hops) ++state.local_hops;
  state.global_hops = taken->cls;
  return {taken->port, state.local_hops};
}

}  // namespace bcastsim::network
