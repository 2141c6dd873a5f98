// Galaxyfly minimal routing (network/galaxyfly.h): the choice of intermediate supernode and
// parallel links at the source, then a table-free walk along it.
#include "network/galaxyfly.h"

#include <algorithm>
#include <vector>

namespace bcastsim::network {

galaxyfly_minimal_routing::galaxyfly_minimal_routing(const galaxyfly& gf)
    : routing_policy(gf), m_gf(gf) {
  // aux = X * m_links + k2 must stay below invalid_id for every supernode X.
  const uint32_t aux_room = (invalid_id - 1) / gf.num_groups();
  m_links = std::min({gf.links_per_pair(), uint32_t{1} << 16, std::max(aux_room, 1u)});
}

void galaxyfly_minimal_routing::note_hop(route_state& state, link_class cls) const {
  if (cls == galaxyfly_classes::global) {
    ++state.global_hops;
  } else {
    ++state.local_hops;
  }
}

namespace {

// Counts, then picks, the fewest-hop candidates: consider(hops) for each candidate in a
// fixed order; after the first pass, pick(draw) selects the draw % count-th best one, found
// again in the second pass.
class fewest_hops {
 public:
  // First pass.
  void count(uint32_t hops) {
    if (hops < m_best) {
      m_best = hops;
      m_count = 0;
    }
    m_count += hops == m_best;
  }
  void start_pick(uint64_t draw) { m_left = draw % m_count; }
  // Second pass: true for the chosen candidate.
  bool chosen(uint32_t hops) { return hops == m_best && m_left-- == 0; }

 private:
  uint32_t m_best = invalid_id;
  uint64_t m_count = 0;
  uint64_t m_left = 0;
};

}  // namespace

// Entropy is unused: the (src, dst) hash picks, so a flow keeps one path.
void galaxyfly_minimal_routing::init_state(terminal_id src, terminal_id dst, uint64_t,
                                           route_state& state) const {
  state = route_state{};
  const galaxyfly& gf = m_gf;
  const router_id src_router = gf.router_of(src);
  const router_id dst_router = gf.router_of(dst);
  const group_id from = gf.group_of(src_router);
  const group_id to = gf.group_of(dst_router);
  if (from == to) return;
  const uint64_t draw = splitmix64(uint64_t{src} << 32 | dst);
  const galaxy_graph& graph = gf.graph();
  // The router a global link lands on.
  auto landing = [&](const galaxyfly::global_link_end& e) {
    return gf.port(e.router, e.port).peer;
  };
  fewest_hops pick;

  const uint32_t direct = graph.neighbour_index(from, to);
  if (direct != invalid_id) {
    auto hops = [&](uint32_t k) {
      const galaxyfly::global_link_end e = gf.gateway_by_index(from, direct, k);
      return uint32_t{e.router != src_router} + 1 + uint32_t{landing(e) != dst_router};
    };
    for (uint32_t k = 0; k < m_links; ++k) pick.count(hops(k));
    pick.start_pick(draw);
    for (uint32_t k = 0; k < m_links; ++k) {
      if (pick.chosen(hops(k))) {
        state.choice = static_cast<uint16_t>(k);
        return;
      }
    }
    return;  // unreachable: one candidate is chosen
  }

  // Two global links: every intermediate X adjacent to both (merge of the sorted neighbour
  // lists), every link k1 from -> X and k2 X -> to.
  const std::vector<uint32_t>& nf = graph.neighbours(from);
  const std::vector<uint32_t>& nt = graph.neighbours(to);
  auto hops = [&](uint32_t i_from_x, group_id x, uint32_t i_x_to, uint32_t k1, uint32_t k2) {
    const galaxyfly::global_link_end e1 = gf.gateway_by_index(from, i_from_x, k1);
    const galaxyfly::global_link_end e2 = gf.gateway_by_index(x, i_x_to, k2);
    return uint32_t{e1.router != src_router} + 1 + uint32_t{landing(e1) != e2.router} + 1 +
           uint32_t{landing(e2) != dst_router};
  };
  // pass 0 counts, pass 1 picks.
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) pick.start_pick(draw);
    size_t i = 0;
    size_t j = 0;
    while (i < nf.size() && j < nt.size()) {
      if (nf[i] < nt[j]) {
        ++i;
      } else if (nt[j] < nf[i]) {
        ++j;
      } else {
        const group_id x = nf[i];
        const uint32_t i_x_to = graph.neighbour_index(x, to);
        for (uint32_t k1 = 0; k1 < m_links; ++k1) {
          for (uint32_t k2 = 0; k2 < m_links; ++k2) {
            const uint32_t n = hops(static_cast<uint32_t>(i), x, i_x_to, k1, k2);
            if (pass == 0) {
              pick.count(n);
            } else if (pick.chosen(n)) {
              state.choice = static_cast<uint16_t>(k1);
              state.aux = x * m_links + k2;
              return;
            }
          }
        }
        ++i;
        ++j;
      }
    }
  }
}

route_decision galaxyfly_minimal_routing::route(router_id at, terminal_id dst, route_state& state,
                                                const port_occupancy_view*) const {
  const router_id dst_router = m_gf.router_of(dst);
  if (at == dst_router) return {m_gf.attach(dst).port, 0};

  const uint8_t vc = state.global_hops;
  const group_id here = m_gf.group_of(at);
  const group_id there = m_gf.group_of(dst_router);
  router_id next = dst_router;
  if (here != there) {
    const bool via = state.aux != invalid_id;
    const group_id next_supernode = via ? state.aux / m_links : there;
    const galaxyfly::global_link_end e = m_gf.gateway(here, next_supernode, state.choice);
    if (e.router == at) {
      ++state.global_hops;
      if (via) {  // in X, the route goes on as a one-global route would
        state.choice = static_cast<uint16_t>(state.aux % m_links);
        state.aux = invalid_id;
      }
      return {e.port, vc};
    }
    next = e.router;
  }
  ++state.local_hops;
  return {m_gf.local_port(at, next), vc};
}

}  // namespace bcastsim::network
