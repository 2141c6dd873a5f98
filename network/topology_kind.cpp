#include "network/topology_kind.h"

#include "network/dragonfly.h"
#include "network/galaxyfly.h"
#include "network/graph_topology.h"
#include "network/myrinet.h"
#include "network/torus.h"

#include <stdexcept>

namespace bcastsim::network {

const std::vector<topology_kind>& topology_kinds() {
  // One line per kind.
  static const std::vector<topology_kind> kinds = {
      dragonfly_kind(),
      torus_kind(),
      galaxyfly_kind(),
      myrinet_kind(),
      graph_kind(),
  };
  return kinds;
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

const topology_kind& find_topology_kind(const std::string& name) {
  std::vector<std::string> names;
  for (const topology_kind& k : topology_kinds()) {
    if (k.name == name) return k;
    names.push_back(k.name);
  }
  throw std::invalid_argument("topology.kind = '" + name + "' is not known; allowed: " +
                              join(names));
}

std::string resolve_routing(const topology_kind& kind, const std::string& name) {
  for (const std::string& r : kind.routings) {
    if (r == name) return r;
  }
  for (const auto& [alias, r] : kind.routing_aliases) {
    if (alias == name) return r;
  }
  throw std::invalid_argument("routing.kind = '" + name + "' is not known for " + kind.name +
                              "; allowed: " + join(kind.routings));
}

std::unique_ptr<routing_policy> make_routing(const std::string& name, const topology& topo) {
  const topology_kind& kind = find_topology_kind(topo.kind());
  return kind.make_routing(resolve_routing(kind, name), topo);
}

std::vector<std::string> routing_names(const std::string& kind) {
  for (const topology_kind& k : topology_kinds()) {
    if (k.name == kind) return k.routings;
  }
  return {};
}

}  // namespace bcastsim::network
