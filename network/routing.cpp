#include "network/routing.h"

#include "network/dragonfly.h"

#include <algorithm>
#include <stdexcept>

namespace bcastsim::network {

namespace {

// choice is 16 bits wide; links past that many between two groups stay unused by routing.
uint32_t usable_links(const dragonfly& df) {
  return std::min<uint32_t>(df.links_per_group_pair(), 1u << 16);
}

// Router-to-router links from router `at` (in group `from`) through the k-th global link
// to group `to`, ending at router `target` or, for target == invalid_id, anywhere in `to`.
uint32_t hops_via(const dragonfly& df, group_id from, group_id to, uint32_t k, router_id at,
                  router_id target) {
  const dragonfly::global_link_end e = df.global_link(from, to, k);
  const router_id landing = df.port(e.router, e.port).peer;
  return uint32_t{e.router != at} + 1 + uint32_t{target != invalid_id && landing != target};
}

// Of the links from group `from` to group `to`, only those giving the fewest hops from `at`
// to `target` are minimal (a link whose ends sit on those routers saves a local hop);
// `draw` picks among them.
uint16_t pick_link(const dragonfly& df, group_id from, group_id to, router_id at, router_id target,
                   uint64_t draw) {
  const uint32_t links = usable_links(df);
  uint32_t best = 4;
  uint32_t num_best = 0;
  for (uint32_t k = 0; k < links; ++k) {
    const uint32_t n = hops_via(df, from, to, k, at, target);
    if (n < best) {
      best = n;
      num_best = 0;
    }
    num_best += n == best;
  }
  uint64_t pick = draw % num_best;
  for (uint32_t k = 0; k < links; ++k) {
    if (hops_via(df, from, to, k, at, target) == best && pick-- == 0) {
      return static_cast<uint16_t>(k);
    }
  }
  return 0;  // unreachable: num_best >= 1
}

// Independent draws from a packet's 16 bits of salt, one stream per decision.
enum draw_stream : uint32_t {
  stream_minimal = 0,
  stream_to_intermediate = 1,
  stream_from_intermediate = 2
};
uint64_t draw(uint16_t salt, draw_stream stream) {
  return splitmix64(uint64_t{stream} << 32 | salt);
}

// CODES legacy dragonfly.c router_packet_receive (FACTS §1.3): global port VC = global hops
// so far; local port VC = local hops so far, forced to the global hop count once there is
// one.
uint8_t codes_legacy_vc(const route_state& s, bool global_port) {
  if (global_port || s.global_hops > 0) return s.global_hops;
  return s.local_hops;
}

// The hop counts every dragonfly policy keeps: a global link or a local one.
void count_hop(route_state& state, link_class cls) {
  if (cls == dragonfly_classes::global) {
    ++state.global_hops;
  } else {
    ++state.local_hops;
  }
}

}  // namespace

void dragonfly_minimal_routing::note_hop(route_state& state, link_class cls) const {
  count_hop(state, cls);
}

void dragonfly_valiant_routing::note_hop(route_state& state, link_class cls) const {
  count_hop(state, cls);
}

dragonfly_minimal_routing::dragonfly_minimal_routing(const dragonfly& df)
    : routing_policy(df), m_df(df) {}

// The (src, dst) hash picks among the minimal global links, so one flow always takes one
// path.
void dragonfly_minimal_routing::init_state(terminal_id src, terminal_id dst, uint64_t,
                                           route_state& state) const {
  state = route_state{};
  const router_id src_router = m_df.router_of(src);
  const router_id dst_router = m_df.router_of(dst);
  const group_id sg = m_df.group_of(src_router);
  const group_id dg = m_df.group_of(dst_router);
  if (sg == dg) return;
  state.choice =
      pick_link(m_df, sg, dg, src_router, dst_router, splitmix64(uint64_t{src} << 32 | dst));
}

route_decision dragonfly_minimal_routing::route(router_id at, terminal_id dst, route_state& state,
                                                const port_occupancy_view*) const {
  const router_id dst_router = m_df.router_of(dst);
  if (at == dst_router) return {m_df.attach(dst).port, 0};

  // Dateline: VC 0 up to and including the global link, VC 1 after it.
  const uint8_t vc = state.global_hops == 0 ? 0 : 1;
  const group_id here = m_df.group_of(at);
  const group_id there = m_df.group_of(dst_router);
  router_id next = dst_router;
  if (here != there) {
    const dragonfly::global_link_end e = m_df.global_link(here, there, state.choice);
    if (e.router == at) {
      ++state.global_hops;
      return {e.port, vc};
    }
    next = e.router;
  }
  ++state.local_hops;
  return {m_df.local_port(at, next), vc};
}

dragonfly_valiant_routing::dragonfly_valiant_routing(const dragonfly& df)
    : routing_policy(df), m_df(df) {}

void dragonfly_valiant_routing::init_state(terminal_id src, terminal_id dst, uint64_t entropy,
                                           route_state& state) const {
  state = route_state{};
  const router_id src_router = m_df.router_of(src);
  const router_id dst_router = m_df.router_of(dst);
  const group_id sg = m_df.group_of(src_router);
  const group_id dg = m_df.group_of(dst_router);
  if (sg == dg) return;
  const uint64_t x = splitmix64(entropy);
  const uint16_t salt = static_cast<uint16_t>(splitmix64(x));
  // CODES: intm = (G + U[1, g-1]) mod g, uniform over the other groups.
  const group_id intermediate = static_cast<group_id>((sg + 1 + x % (m_df.g() - 1)) % m_df.g());
  if (intermediate == dg) {
    state.choice = pick_link(m_df, sg, dg, src_router, dst_router, draw(salt, stream_minimal));
    return;
  }
  state.aux = intermediate;
  state.choice = salt;
}

route_decision dragonfly_valiant_routing::route(router_id at, terminal_id dst, route_state& state,
                                                const port_occupancy_view*) const {
  const router_id dst_router = m_df.router_of(dst);
  if (at == dst_router) return {m_df.attach(dst).port, 0};

  const group_id here = m_df.group_of(at);
  const group_id dg = m_df.group_of(dst_router);
  const bool to_intermediate = state.aux != invalid_id;
  router_id next = dst_router;
  if (to_intermediate || here != dg) {
    // Heading for the intermediate group: any link of ours to it that is fewest hops away
    // (on this router if it has one). Otherwise the destination group's chosen link.
    const group_id there = to_intermediate ? state.aux : dg;
    const uint16_t k = to_intermediate ? pick_link(m_df, here, there, at, invalid_id,
                                                   draw(state.choice, stream_to_intermediate))
                                       : state.choice;
    const dragonfly::global_link_end e = m_df.global_link(here, there, k);
    if (e.router == at) {
      const uint8_t vc = codes_legacy_vc(state, true);
      ++state.global_hops;
      if (to_intermediate) {
        // Landing in the intermediate group: from here on, minimal to the destination.
        const router_id landing = m_df.port(at, e.port).peer;
        state.choice = pick_link(m_df, there, dg, landing, dst_router,
                                 draw(state.choice, stream_from_intermediate));
        state.aux = invalid_id;
      }
      return {e.port, vc};
    }
    next = e.router;
  }
  const uint8_t vc = codes_legacy_vc(state, false);
  ++state.local_hops;
  return {m_df.local_port(at, next), vc};
}

route_state dragonfly_valiant_routing::minimal_state(router_id at, terminal_id dst,
                                                     const route_state& state) const {
  route_state s = state;
  s.aux = invalid_id;
  s.choice = pick_link(m_df, m_df.group_of(at), m_df.group_of_terminal(dst), at,
                       m_df.router_of(dst), draw(state.choice, stream_minimal));
  return s;
}

uint32_t dragonfly_valiant_routing::hops_to_go(router_id at, terminal_id dst,
                                               route_state state) const {
  uint32_t links = 0;
  for (;;) {
    const route_decision d = dragonfly_valiant_routing::route(at, dst, state, nullptr);
    const port_info& pi = m_df.port(at, d.port);
    if (pi.peer_kind != port_info::kind::router) return links;
    at = pi.peer;
    ++links;
  }
}

dragonfly_adaptive_routing::dragonfly_adaptive_routing(const dragonfly& df, uint64_t threshold,
                                                       adaptive_rule rule)
    : dragonfly_valiant_routing(df), m_threshold(threshold), m_rule(rule) {}

route_decision dragonfly_adaptive_routing::route(router_id at, terminal_id dst, route_state& state,
                                                 const port_occupancy_view* occupancy) const {
  const bool undecided = state.aux != invalid_id && state.local_hops == 0 && state.global_hops == 0;
  if (undecided) {
    const route_state minimal = minimal_state(at, dst, state);
    bool go_minimal = occupancy == nullptr;
    if (!go_minimal) {
      route_state probe_min = minimal;
      route_state probe_nonmin = state;
      const port_id port_min = dragonfly_valiant_routing::route(at, dst, probe_min, nullptr).port;
      const port_id port_nonmin =
          dragonfly_valiant_routing::route(at, dst, probe_nonmin, nullptr).port;
      const uint64_t q_min = occupancy->output_occupancy_bytes(port_min);
      const uint64_t q_nonmin = occupancy->output_occupancy_bytes(port_nonmin);
      if (m_rule == adaptive_rule::codes) {
        go_minimal = q_min <= q_nonmin;
      } else {
        go_minimal = q_min * hops_to_go(at, dst, minimal) <=
                     q_nonmin * hops_to_go(at, dst, state) + m_threshold;
      }
    }
    if (go_minimal) state = minimal;
  }
  return dragonfly_valiant_routing::route(at, dst, state, occupancy);
}

}  // namespace bcastsim::network
