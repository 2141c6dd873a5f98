#include "network/routing.h"

#include "network/dragonfly.h"

#include <algorithm>
#include <stdexcept>

namespace bcastsim::network {

namespace {

// splitmix64 finaliser: a cheap, well-mixed, platform-independent hash.
uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

dragonfly_minimal_routing::dragonfly_minimal_routing(const dragonfly& df)
    : routing_policy(df), m_df(df) {}

// Of the L global links joining the two groups, only those giving the fewest hops are
// minimal (a link whose ends sit on the source or destination router saves a local hop);
// the (src, dst) hash picks among them, so one flow always takes one path.
void dragonfly_minimal_routing::init_state(terminal_id src, terminal_id dst,
                                           route_state& state) const {
  state = route_state{};
  const router_id src_router = m_df.router_of(src);
  const router_id dst_router = m_df.router_of(dst);
  const group_id sg = m_df.group_of(src_router);
  const group_id dg = m_df.group_of(dst_router);
  if (sg == dg) return;

  // choice is 16 bits wide; links past that many stay unused by minimal routing.
  const uint32_t links = std::min<uint32_t>(m_df.links_per_group_pair(), 1u << 16);
  auto hops = [&](uint32_t k) {
    const dragonfly::global_link_end e = m_df.global_link(sg, dg, k);
    const router_id landing = m_df.port(e.router, e.port).peer;
    return uint32_t{e.router != src_router} + uint32_t{landing != dst_router};
  };
  uint32_t best = 3;
  uint32_t num_best = 0;
  for (uint32_t k = 0; k < links; ++k) {
    const uint32_t n = hops(k);
    if (n < best) {
      best = n;
      num_best = 0;
    }
    num_best += n == best;
  }
  uint64_t pick = mix64(uint64_t{src} << 32 | dst) % num_best;
  for (uint32_t k = 0; k < links; ++k) {
    if (hops(k) == best && pick-- == 0) {
      state.choice = static_cast<uint16_t>(k);
      return;
    }
  }
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

std::vector<std::string> routing_names(const std::string& topology_kind) {
  if (topology_kind == "dragonfly") return {"minimal"};
  return {};
}

std::unique_ptr<routing_policy> make_routing(const std::string& name, const topology& topo) {
  if (const auto* df = dynamic_cast<const dragonfly*>(&topo)) {
    if (name == "minimal") return std::make_unique<dragonfly_minimal_routing>(*df);
  }
  std::string allowed;
  for (const std::string& n : routing_names(topo.kind())) {
    allowed += (allowed.empty() ? "" : ", ") + n;
  }
  throw std::invalid_argument("routing.kind = '" + name + "' is not known for " + topo.kind() +
                              "; allowed: " + (allowed.empty() ? "(none)" : allowed));
}

}  // namespace bcastsim::network
