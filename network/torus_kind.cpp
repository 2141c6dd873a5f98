// The Tofu 6D mesh/torus as a topology kind: its keys, link classes and routing policy.
#include "network/topology_kind.h"
#include "network/torus.h"

namespace bcastsim::network {

namespace {

std::unique_ptr<topology> make_torus(const params::values& v) {
  torus_params p;
  p.x = static_cast<uint32_t>(v.uint("topology.x"));
  p.y = static_cast<uint32_t>(v.uint("topology.y"));
  p.z = static_cast<uint32_t>(v.uint("topology.z"));
  p.terminals_per_node = static_cast<uint32_t>(v.uint("topology.terminals_per_node"));
  p.mesh = parse_torus_mesh(v.text("topology.mesh"));
  return std::make_unique<torus>(p);
}

topology_kind::size_estimate torus_size(const params::values& v) {
  topology_kind::size_estimate e;
  e.routers = static_cast<double>(v.uint("topology.x")) *
              static_cast<double>(v.uint("topology.y")) *
              static_cast<double>(v.uint("topology.z")) * 12;  // a 2 x 3 x 2 unit per position
  e.terminals = e.routers * static_cast<double>(v.uint("topology.terminals_per_node"));
  e.ports = e.terminals + e.routers * 2 * torus_num_dims;  // at most two neighbours per dimension
  return e;
}

// "dimension-order" is the only routing; resolve_routing has refused any other name.
std::unique_ptr<routing_policy> make_torus_routing(const std::string&, const topology& topo) {
  return std::make_unique<torus_dor_routing>(dynamic_cast<const torus&>(topo));
}

}  // namespace

topology_kind torus_kind() {
  topology_kind k;
  k.name = "torus";
  k.description =
      "Fujitsu Tofu 6D mesh/torus (Ajima et al., Tofu interconnect): X x Y x Z positions, each a "
      "12-node "
      "A x B x C = 2 x 3 x 2 unit; one router per node";
  k.params = {
      // Tofu coordinates are 5 bits wide (FACTS §4).
      params::uint_key("topology.x", 2, 1, 32, "torus X size (nodes along x)"),
      params::uint_key("topology.y", 2, 1, 32, "torus Y size (nodes along y)"),
      params::uint_key("topology.z", 2, 1, 32, "torus Z size (nodes along z)"),
      params::uint_key("topology.terminals_per_node", 1, 1, 64,
                       "terminals (NICs) attached to every torus node's router"),
      params::text_key("topology.mesh", "",
                       "torus dimensions that are lines, not rings: a list of x, y, z, a, b, c, "
                       "each at most once, e.g. \"x,z\" or \"[x, z]\"; empty: all rings"),
      params::choice_key("routing.kind", "dimension-order", {"dimension-order"},
                         "routing policy: dimension-order (x, y, z, a, b, c; minimal; "
                         "dateline VCs)"),
  };
  // Tofu2 links carry 12.5 GB/s per direction (FACTS §4), decimal GB/s; our keys are GiB/s,
  // hence 12.5e9 / 2^30. The hop latency is not published (FACTS §4: not found): 10 ns is
  // an assumption, the value the dragonfly uses for its short (terminal, local) links.
  constexpr double tofu2_gib_per_s = 12.5e9 / (1024.0 * 1024.0 * 1024.0);
  constexpr double latency_ns = 10;
  constexpr uint32_t vc_buffer_bytes = 16384;
  k.classes = {
      {"terminal", tofu2_gib_per_s, latency_ns, vc_buffer_bytes, "terminal links (NIC to router)"}};
  for (const char* dim : torus_dim_names) {
    k.classes.push_back(
        {dim, tofu2_gib_per_s, latency_ns, vc_buffer_bytes, std::string("links along ") + dim});
  }
  k.routings = {"dimension-order"};
  k.make = make_torus;
  k.estimate_size = torus_size;
  k.make_routing = make_torus_routing;
  return k;
}

}  // namespace bcastsim::network
