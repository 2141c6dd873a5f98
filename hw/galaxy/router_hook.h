// The galaxy engines' routing hook in every router (hw/router's attached_port_hook): a packet
// for this router's engine is switched to the engine's port on the ejection VC; one for a
// neighbour's engine takes the direct link on VC 0 -- a single hop, after which the
// neighbour's engine takes it, so no channel waits on another and the policy's VC discipline
// is untouched. A packet for a router that is not a neighbour is left to the routing policy
// (toward a terminal of that router, whose hook then ejects it).
#pragma once

#include "hw/router/router.h"

namespace bcastsim::hw::galaxy {

class router_hook final : public attached_port_hook {
 public:
  bool route(const router& r, tlm_net::packet& p, network::route_decision& d) const override;
};

}  // namespace bcastsim::hw::galaxy
