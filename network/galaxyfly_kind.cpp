// The Galaxyfly as a topology kind: its keys, link classes and routing policy.
#include "network/galaxyfly.h"
#include "network/topology_kind.h"

namespace bcastsim::network {

namespace {

std::unique_ptr<topology> make_galaxyfly(const params::values& v) {
  galaxyfly_params p;
  p.n = static_cast<uint32_t>(v.uint("topology.n"));
  p.q = static_cast<uint32_t>(v.uint("topology.q"));
  p.a = static_cast<uint32_t>(v.uint("topology.a"));
  p.p = static_cast<uint32_t>(v.uint("topology.p"));
  p.h = static_cast<uint32_t>(v.uint("topology.h"));
  return std::make_unique<galaxyfly>(p);
}

topology_kind::size_estimate galaxyfly_size(const params::values& v) {
  const double a = static_cast<double>(v.uint("topology.a"));
  const double h = static_cast<double>(v.uint("topology.h"));
  topology_kind::size_estimate e;
  e.routers =
      static_cast<double>(v.uint("topology.n")) * static_cast<double>(v.uint("topology.q")) * a;
  e.terminals = e.routers * static_cast<double>(v.uint("topology.p"));
  e.ports = e.terminals + e.routers * (a - 1 + h);
  return e;
}

// "minimal" is the only routing; resolve_routing has refused any other name.
std::unique_ptr<routing_policy> make_galaxyfly_routing(const std::string&, const topology& topo) {
  return std::make_unique<galaxyfly_minimal_routing>(dynamic_cast<const galaxyfly&>(topo));
}

}  // namespace

topology_kind galaxyfly_kind() {
  topology_kind k;
  k.name = "galaxyfly";
  k.description =
      "Lei et al. (ICS'16): a Galaxy graph of n clusters of q supernodes (diameter 2), each "
      "supernode a routers fully connected, p terminals and h global ports per router; q = 1 "
      "is the dragonfly";
  // The same key names as the dragonfly's a, p, h: each kind owns its own declaration.
  const galaxyfly_params d;
  k.params = {
      params::uint_key("topology.n", d.n, 1, 1e4, "galaxyfly clusters"),
      params::uint_key("topology.q", d.q, 1, 1024,
                       "galaxyfly supernodes per cluster: a prime power not 2 mod 4 (3, 4, 5, "
                       "7, 8, 9, 11, 13, ...), or 1 (a dragonfly)"),
      params::uint_key("topology.a", d.a, 1, 4096, "galaxyfly routers per supernode"),
      params::uint_key("topology.p", d.p, 1, 4096, "galaxyfly terminals per router"),
      params::uint_key("topology.h", d.h, 1, 4096,
                       "galaxyfly global ports per router; a*h must reach the Galaxy graph's "
                       "degree (n-1) + (q - delta)/2"),
      params::choice_key("routing.kind", "minimal", {"minimal"},
                         "routing policy: minimal (fewest supernodes, then fewest router hops; "
                         "3 VCs)"),
  };
  // The dragonfly kind's defaults (network/dragonfly_kind.cpp), so the two compare as they
  // are; the Galaxyfly papers' 16 Gb/s links are set by an experiment, not here.
  k.classes = {
      {"terminal", 5.25, 10, 16384, "terminal links (NIC to router)"},
      {"local", 5.25, 10, 16384, "links inside a supernode"},
      {"global", 4.7, 100, 32768, "links between supernodes"},
  };
  k.routings = {"minimal"};
  k.make = make_galaxyfly;
  k.estimate_size = galaxyfly_size;
  k.make_routing = make_galaxyfly_routing;
  return k;
}

}  // namespace bcastsim::network
