// The dragonfly as a topology kind: its keys, link classes and routing policies.
#include "network/dragonfly.h"
#include "network/routing.h"
#include "network/topology_kind.h"

namespace bcastsim::network {

namespace {

std::unique_ptr<topology> make_dragonfly(const params::values& v) {
  dragonfly_params p;
  p.g = static_cast<uint32_t>(v.uint("topology.g"));
  p.a = static_cast<uint32_t>(v.uint("topology.a"));
  p.p = static_cast<uint32_t>(v.uint("topology.p"));
  p.h = static_cast<uint32_t>(v.uint("topology.h"));
  const std::string arrangement = v.text("topology.arrangement");
  p.arrangement = arrangement == "relative" ? global_arrangement::relative
                  : arrangement == "codes"  ? global_arrangement::codes
                                            : global_arrangement::absolute;
  return std::make_unique<dragonfly>(p);
}

topology_kind::size_estimate dragonfly_size(const params::values& v) {
  const double a = static_cast<double>(v.uint("topology.a"));
  const double h = static_cast<double>(v.uint("topology.h"));
  const double given_g = static_cast<double>(v.uint("topology.g"));
  const double g = given_g == 0 ? a * h + 1 : given_g;
  topology_kind::size_estimate e;
  e.routers = g * a;
  e.terminals = e.routers * static_cast<double>(v.uint("topology.p"));
  e.ports = e.terminals + e.routers * (a - 1 + h);
  return e;
}

std::unique_ptr<routing_policy> make_dragonfly_routing(const std::string& name,
                                                       const topology& topo) {
  const auto& df = dynamic_cast<const dragonfly&>(topo);
  if (name == "nonminimal") return std::make_unique<dragonfly_valiant_routing>(df);
  if (name == "adaptive") return std::make_unique<dragonfly_adaptive_routing>(df);
  if (name == "adaptive-codes") {
    return std::make_unique<dragonfly_adaptive_routing>(df, 0, adaptive_rule::codes);
  }
  return std::make_unique<dragonfly_minimal_routing>(df);
}

}  // namespace

topology_kind dragonfly_kind() {
  topology_kind k;
  k.name = "dragonfly";
  k.description =
      "Kim et al. (ISCA'08): g groups of a routers, p terminals and h global ports "
      "per router, each group fully connected";
  k.params = {
      params::uint_key("topology.g", 0, 0, 1e6, "dragonfly groups; 0 = the maximum a*h+1"),
      params::uint_key("topology.a", 4, 1, 4096, "dragonfly routers per group"),
      params::uint_key("topology.p", 2, 1, 4096, "dragonfly terminals per router"),
      params::uint_key("topology.h", 2, 1, 4096, "dragonfly global ports per router"),
      params::choice_key("topology.arrangement", "absolute", {"absolute", "relative", "codes"},
                         "global link arrangement: absolute = BookSim2 dragonflynew, relative = "
                         "SST, codes = CODES (g = a*h+1 only)"),
      params::choice_key("routing.kind", "minimal",
                         {"minimal", "nonminimal", "valiant", "adaptive", "adaptive-codes"},
                         "routing policy: minimal, nonminimal (Valiant; alias valiant), adaptive "
                         "(UGAL-L), adaptive-codes (CODES's rule: minimal iff its port holds no "
                         "more bytes)"),
  };
  // Rates and buffers of the topology-aware broadcast paper (Dorier et al., §IV-B), as CODES
  // reads its "GB/s" (GiB/s); latencies of BookSim's dragonfly.
  k.classes = {
      {"terminal", 5.25, 10, 16384, "terminal links (NIC to router)"},
      {"local", 5.25, 10, 16384, "links inside a group"},
      {"global", 4.7, 100, 32768, "links between groups"},
  };
  k.routings = {"minimal", "nonminimal", "adaptive", "adaptive-codes"};
  k.routing_aliases = {{"valiant", "nonminimal"}};
  k.make = make_dragonfly;
  k.estimate_size = dragonfly_size;
  k.make_routing = make_dragonfly_routing;
  return k;
}

}  // namespace bcastsim::network
