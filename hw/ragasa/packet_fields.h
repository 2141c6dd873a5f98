// Ragasa's fields in a packet (tlm_net::family_header), read only by Ragasa's blocks and its
// routing hook: the router whose Bcast Unit takes the packet. Its `dst` is then only where
// routing aims (a terminal of that router).
#pragma once

#include "network/topology.h"
#include "tlm/packet.h"

namespace bcastsim::hw::ragasa {

// The family's id in family_header::family (unique among the offload families).
inline constexpr uint8_t family_id = 1;

struct packet_fields {
  network::router_id unit_router = network::invalid_id;
};

// invalid_id for a packet that is not Ragasa's.
inline network::router_id unit_router(const tlm_net::packet& p) {
  return p.offload.family == family_id ? p.offload.as<packet_fields>().unit_router
                                       : network::invalid_id;
}

// The header of a packet bound for the Bcast Unit of router `r`; none for r = invalid_id (a
// copy for a terminal is an ordinary packet).
inline tlm_net::family_header to_unit(network::router_id r) {
  if (r == network::invalid_id) return {};
  tlm_net::family_header h = tlm_net::family_header::of(family_id, packet_fields{r});
  h.attached = true;
  return h;
}

}  // namespace bcastsim::hw::ragasa
