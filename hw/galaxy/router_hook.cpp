#include "hw/galaxy/router_hook.h"

#include "hw/galaxy/engine.h"

namespace bcastsim::hw::galaxy {

bool router_hook::route(const router& r, tlm_net::packet& p, network::route_decision& d) const {
  if (p.offload.family != family_id) return false;
  const network::router_id target = p.offload.as<packet_fields>().to_router;
  if (target == r.id()) {
    d = {r.attached_port(), 0};
    return true;
  }
  if (!r.routing().at_source(p.route)) return false;  // mid-route: the policy's
  const network::port_id port = r.port_to(target);
  if (port == network::invalid_id) return false;
  r.routing().note_hop(p.route, r.port_class(port));
  d = {port, 0};
  return true;
}

}  // namespace bcastsim::hw::galaxy
