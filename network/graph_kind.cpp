// The graph file as a topology kind: its keys, its one declared link class (terminal; the
// file declares the others with their rates) and its routing.
#include "network/graph_routing.h"
#include "network/graph_topology.h"
#include "network/topology_kind.h"

namespace bcastsim::network {

namespace {

std::unique_ptr<topology> make_graph(const params::values& v) {
  const std::string& file = v.text("topology.file");
  if (file.empty()) {
    throw topology_error("topology.file",
                         "topology.file must name a graph file (YAML or edge list)");
  }
  return std::make_unique<graph_topology>(file);
}

std::unique_ptr<routing_policy> make_graph_routing(const std::string&, const topology& topo) {
  return std::make_unique<graph_minimal_routing>(dynamic_cast<const graph_topology&>(topo));
}

}  // namespace

topology_kind graph_kind() {
  topology_kind k;
  k.name = "graph";
  k.description =
      "any router graph read from a file (YAML, or an edge list), as SST merlin's "
      "anytopo: link classes, rates and routing costs come from the file";
  k.params = {
      params::text_key("topology.file", "",
                       "graph file: .yaml/.yml is YAML, any other name an edge list "
                       "(network/GRAPH_FILES.md); relative to the scenario file naming it, or "
                       "to the working directory when given with --set"),
      params::choice_key("routing.kind", "minimal", {"minimal"},
                         "routing policy: minimal (least-cost paths by class cost, flows hashed "
                         "over equal-cost paths; VC = class-rank descents so far)"),
  };
  // Link rates of the terminal class as the dragonfly's; the file's classes bring their own.
  k.classes = {{"terminal", 5.25, 10, 16384, "terminal links (NIC to router)"}};
  k.routings = {"minimal"};
  k.make = make_graph;
  k.make_routing = make_graph_routing;
  return k;
}

}  // namespace bcastsim::network
