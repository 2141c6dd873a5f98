// Ragasa's routing hook in every router with a Bcast Unit attached (hw/router's
// attached_port_hook): a packet bound for this router's unit is switched to the unit's port
// on its class's VC (hand-off data 0, relayed data 1, control 2: hw/ragasa/README.md); a copy fresh
// from its unit (or a Mini Packet fresh from its NIC) for a neighbour's unit takes the direct link,
// VC 0 -- the first channel of every policy's order, followed only by the ejection into the unit,
// so the VC disciplines still hold (a tree edge); anything else follows the routing policy toward
// the packet's dst.
#pragma once

#include "hw/router/router.h"

namespace bcastsim::hw::ragasa {

class router_hook final : public attached_port_hook {
 public:
  bool route(const router& r, tlm_net::packet& p, network::route_decision& d) const override;
};

}  // namespace bcastsim::hw::ragasa
