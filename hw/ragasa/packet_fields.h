// Ragasa's fields in a packet (tlm_net::family_header), read only by Ragasa's blocks and its
// routing hook: the router whose Bcast Unit takes the packet. Its `dst` is then only where
// routing aims (a terminal of that router).
#pragma once

#include "network/topology.h"
#include "tlm/packet.h"

namespace bcastsim::hw::ragasa {

// The family's id in family_header::family (unique among the offload families).
inline constexpr uint8_t family_id = 1;

// What a packet for a unit is, which decides the unit port's VC it takes (router_hook) and
// the unit's queue (hw/ragasa/README.md: the three message classes).
enum class packet_class : uint8_t {
  handoff = 0,  // data a host hands to its own router's unit (VC 0)
  relayed = 1,  // a unit's copy for a child unit, a tree edge (VC 1)
  mini = 2,     // a Mini Packet from the management node (control, VC 2)
  credit = 3,   // a credit return from a child unit (control, VC 2)
};

struct packet_fields {
  network::router_id unit_router = network::invalid_id;
  packet_class cls = packet_class::handoff;
};

// The unit port's VC of each class.
inline uint8_t unit_port_vc(packet_class c) {
  return c == packet_class::handoff ? 0 : c == packet_class::relayed ? 1 : 2;
}

// A packet without Ragasa's header (a test bench's) is a Mini Packet if it is control.
inline packet_class unit_class(const tlm_net::packet& p) {
  if (p.offload.family == family_id) return p.offload.as<packet_fields>().cls;
  return p.kind == tlm_net::packet_kind::control ? packet_class::mini : packet_class::handoff;
}

// invalid_id for a packet that is not Ragasa's.
inline network::router_id unit_router(const tlm_net::packet& p) {
  return p.offload.family == family_id ? p.offload.as<packet_fields>().unit_router
                                       : network::invalid_id;
}

// The header of a packet bound for the Bcast Unit of router `r`; none for r = invalid_id (a
// copy for a terminal is an ordinary packet).
inline tlm_net::family_header to_unit(network::router_id r,
                                      packet_class cls = packet_class::handoff) {
  if (r == network::invalid_id) return {};
  tlm_net::family_header h = tlm_net::family_header::of(family_id, packet_fields{r, cls});
  h.attached = true;
  return h;
}

}  // namespace bcastsim::hw::ragasa
