#include "network/topology.h"

namespace bcastsim::network {

// Generic fallback for topologies without a faster answer: every router port of g1 whose
// peer router sits in g2, in router then port order.
std::vector<topology::router_pair> topology::links_between_groups(group_id g1, group_id g2) const {
  std::vector<router_pair> links;
  if (g1 == g2) return links;
  for (router_id r = 0; r < num_routers(); ++r) {
    if (group_of(r) != g1) continue;
    for (const port_info& pi : m_ports[r]) {
      if (pi.peer_kind == port_info::kind::router && group_of(pi.peer) == g2) {
        links.push_back({r, pi.peer});
      }
    }
  }
  return links;
}

std::vector<terminal_id> topology::terminals_of(router_id r) const {
  std::vector<terminal_id> terms;
  for (const port_info& pi : m_ports[r]) {
    if (pi.peer_kind == port_info::kind::terminal) terms.push_back(pi.peer);
  }
  return terms;
}

}  // namespace bcastsim::network
