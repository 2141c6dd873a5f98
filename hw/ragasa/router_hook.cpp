#include "hw/ragasa/router_hook.h"

#include "hw/ragasa/packet_fields.h"

namespace bcastsim::hw::ragasa {

bool router_hook::route(const router& r, tlm_net::packet& p, network::route_decision& d) const {
  const network::router_id target = unit_router(p);
  if (target == network::invalid_id) return false;
  if (target == r.id()) {
    d = {r.attached_port(), unit_port_vc(unit_class(p))};  // the class's VC (README.md)
    return true;
  }
  if (!r.routing().at_source(p.route)) return false;  // mid-route: the policy's
  const network::port_id port = r.port_to(target);
  if (port == network::invalid_id) return false;
  r.routing().note_hop(p.route, r.port_class(port));
  d = {port, 0};
  return true;
}

}  // namespace bcastsim::hw::ragasa
