// The registry of topology kinds. A kind declares its parameters (keys topology.* of its own,
// with routing.kind among them), its link classes with their default link rates, latencies and
// VC buffers (from which the keys link.<class>.bandwidth_gib_per_s, link.<class>.latency_ns and
// router.vc_buffer_bytes.<class> are made), its routing policies, and how to build the
// topology and a policy. A new kind is its own files in network/ plus one line in
// topology_kind.cpp; nothing above network/ changes for it.
#pragma once

#include "network/params.h"
#include "network/routing.h"
#include "network/topology.h"

#include <memory>
#include <string>
#include <vector>

namespace bcastsim::network {

struct link_class_decl {
  std::string name;
  double bandwidth_gib_per_s = 0;
  double latency_ns = 0;
  uint32_t vc_buffer_bytes = 0;
  std::string description;  // e.g. "links along X"
};

struct topology_kind {
  std::string name;
  std::string description;
  // topology.* keys of this kind and routing.kind (its allowed values are the routings).
  std::vector<params::decl> params;
  // Declared classes; a kind whose topology brings its own (graph file) declares terminal
  // only and its topology answers class_rates() for the others.
  std::vector<link_class_decl> classes;
  // Routing names (routing.kind values), first = default; aliases as {alias, name}.
  std::vector<std::string> routings;
  std::vector<std::pair<std::string, std::string>> routing_aliases;
  // Throws topology_error naming the key.
  std::unique_ptr<topology> (*make)(const params::values& v) = nullptr;
  // The size make would build, from the keys alone (doubles: a hostile size must not wrap),
  // so memory can be estimated before allocating; nullptr: not known before building (a
  // graph file's size is bounded by its file).
  struct size_estimate {
    double routers = 0;
    double terminals = 0;
    double ports = 0;  // router ports, terminal ports included
  };
  size_estimate (*estimate_size)(const params::values& v) = nullptr;
  // `name` is one of routings (aliases resolved); `topo` is of this kind.
  std::unique_ptr<routing_policy> (*make_routing)(const std::string& name,
                                                  const topology& topo) = nullptr;
};

// Every registered kind, the default (dragonfly) first.
const std::vector<topology_kind>& topology_kinds();
// Throws std::invalid_argument naming the allowed kinds.
const topology_kind& find_topology_kind(const std::string& name);
// Resolves an alias ("valiant" -> "nonminimal"); throws std::invalid_argument
// "routing.kind = 'x' is not known for KIND; allowed: ..." for an unknown name.
std::string resolve_routing(const topology_kind& kind, const std::string& name);
// The policy `name` (or alias) for `topo`, of the kind topo.kind() names; throws as
// resolve_routing does.
std::unique_ptr<routing_policy> make_routing(const std::string& name, const topology& topo);
// The routing names of a kind (empty for an unknown kind).
std::vector<std::string> routing_names(const std::string& kind);

}  // namespace bcastsim::network
