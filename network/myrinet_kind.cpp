// Myrinet as a topology kind: its keys, link classes and routing policy.
#include "network/myrinet.h"
#include "network/topology_kind.h"

#include <cmath>

namespace bcastsim::network {

namespace {

std::unique_ptr<topology> make_myrinet(const params::values& v) {
  myrinet_params p;
  p.nodes = static_cast<uint32_t>(v.uint("topology.nodes"));
  p.switch_ports = static_cast<uint32_t>(v.uint("topology.switch_ports"));
  return std::make_unique<myrinet>(p);
}

topology_kind::size_estimate myrinet_size(const params::values& v) {
  const double nodes = static_cast<double>(v.uint("topology.nodes"));
  const double k = static_cast<double>(v.uint("topology.switch_ports"));
  topology_kind::size_estimate e;
  e.terminals = nodes;
  const double hosts_per_leaf = std::floor(k / 2);
  e.routers = nodes <= k ? 1 : std::ceil(nodes / hosts_per_leaf) + hosts_per_leaf;  // + spines
  e.ports = e.routers * k;
  return e;
}

// "source" is the only routing; resolve_routing has refused any other name.
std::unique_ptr<routing_policy> make_myrinet_routing(const std::string&, const topology& topo) {
  return std::make_unique<myrinet_source_routing>(dynamic_cast<const myrinet&>(topo));
}

}  // namespace

topology_kind myrinet_kind() {
  topology_kind k;
  k.name = "myrinet";
  k.description =
      "Myrinet-2000 (Yu, Buntinas, Panda): one NIC per node on 16-port crossbars, one crossbar "
      "up to 16 nodes, a two-level folded Clos beyond (up to 128); source routes";
  const myrinet_params d;
  k.params = {
      params::uint_key("topology.nodes", d.nodes, 1, 32768,
                       "myrinet nodes (hosts, one NIC each); more than topology.switch_ports "
                       "make a Clos of at most switch_ports * switch_ports/2 nodes"),
      params::uint_key("topology.switch_ports", d.switch_ports, 4, 256,
                       "myrinet ports per crossbar switch (Myrinet-2000: 16); even for a Clos"),
      params::choice_key("routing.kind", "source", {"source"},
                         "routing policy: source (the sending NIC writes the whole up*/down* "
                         "route into the header; one VC)"),
  };
  // Myrinet-2000 links carry 250 MB/s per direction (FACTS §5), decimal MB/s; our keys are
  // GiB/s. Cable latency is not in our sources: 10 ns, the value the other kinds use for
  // short links (about 2 m of cable). Myrinet's link-level flow control is STOP/GO on small
  // slack buffers under cut-through; the fabric's substitute is credit flow control with
  // virtual cut-through, which needs a buffer of one whole packet: 8 KiB holds GM's largest
  // (4,096 B of payload, 24 B of header, 8 B of route and CRC; FACTS §5) with room for a
  // second one behind it.
  constexpr double myrinet_gib_per_s = 250e6 / (1024.0 * 1024.0 * 1024.0);
  constexpr double latency_ns = 10;
  constexpr uint32_t vc_buffer_bytes = 8192;
  k.classes = {
      {"terminal", myrinet_gib_per_s, latency_ns, vc_buffer_bytes, "host NIC to crossbar links"},
      {"clos", myrinet_gib_per_s, latency_ns, vc_buffer_bytes,
       "links between leaf and spine crossbars"},
  };
  k.routings = {"source"};
  k.make = make_myrinet;
  k.estimate_size = myrinet_size;
  k.make_routing = make_myrinet_routing;
  return k;
}

}  // namespace bcastsim::network
