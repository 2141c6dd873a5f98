// Dimension-order routing on the Tofu 6D mesh/torus; the VC rule is in torus.h.
#include "network/torus.h"

namespace bcastsim::network {

torus_dor_routing::torus_dor_routing(const torus& t) : routing_policy(t), m_torus(t) {}

// Dimension order is deterministic: nothing to draw.
void torus_dor_routing::init_state(terminal_id, terminal_id, uint64_t, route_state& state) const {
  state = route_state{};
}

route_decision torus_dor_routing::route(router_id at, terminal_id dst, route_state& state,
                                        const port_occupancy_view*) const {
  const router_id target = m_torus.router_of(dst);
  if (at == target) return {m_torus.attach(dst).port, 0};

  for (uint32_t d = 0; d < torus_num_dims; ++d) {
    const uint32_t here = m_torus.coord(at, d);
    const uint32_t there = m_torus.coord(target, d);
    if (here == there) continue;
    // Saturating: only a torus far beyond Tofu's 32 per dimension could take 255 hops.
    if (state.local_hops < UINT8_MAX) ++state.local_hops;
    const uint32_t k = m_torus.size(d);
    if (k == 2) return {m_torus.plus_port(d), 0};
    bool plus = there > here;
    if (m_torus.wraps(d)) {
      const uint32_t ahead = (there + k - here) % k;        // links to go in the "+" direction
      plus = ahead <= k - ahead;                            // a tie goes "+"
      if (plus ? here == k - 1 : here == 0) state.aux = d;  // taking the wrap-around link
    }
    const uint8_t vc = state.aux == d ? 1 : 0;
    return {plus ? m_torus.plus_port(d) : m_torus.minus_port(d), vc};
  }
  return {invalid_id, 0};  // unreachable: at != target differ in some dimension
}

}  // namespace bcastsim::network
