// Routing policies: a pure function of (topology, current router, destination, per-packet
// routing state, local occupancy) -> (output port, VC), plus the state update it makes.
// Deadlock freedom comes from each policy's VC discipline; tests check the channel
// dependency graph is acyclic.
#pragma once

#include "network/topology.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bcastsim::network {

// Carried in every packet header; updated by the router that forwards it.
struct route_state {
  uint8_t local_hops = 0;     // router-to-router local links taken so far
  uint8_t global_hops = 0;    // global links taken so far
  uint16_t choice = 0;        // policy-private (e.g. which of several global links)
  uint32_t aux = invalid_id;  // policy-private (e.g. intermediate group)
};

// Local output occupancy a router can offer an adaptive policy (bytes queued or in
// flight on an output port). Minimal routing ignores it.
class port_occupancy_view {
 public:
  virtual ~port_occupancy_view() = default;
  virtual uint32_t output_occupancy_bytes(port_id port) const = 0;
};

struct route_decision {
  port_id port = invalid_id;
  uint8_t vc = 0;
};

class routing_policy {
 public:
  virtual ~routing_policy() = default;
  virtual std::string name() const = 0;
  // VCs the policy's deadlock-freedom argument needs on every router port.
  virtual uint32_t min_vcs() const = 0;

  // Called once at the source NIC, before the first hop (e.g. to pick a global link).
  virtual void init_state(terminal_id src, terminal_id dst, route_state& state) const = 0;

  // Called at router `at` for a packet bound for terminal `dst`; updates `state` for the
  // link it chose (hop counts, phase).
  virtual route_decision route(router_id at, terminal_id dst, route_state& state,
                               const port_occupancy_view* occupancy) const = 0;

  const topology& topo() const { return *m_topo; }

 protected:
  explicit routing_policy(const topology& topo) : m_topo(&topo) {}
  const topology* m_topo;
};

// Dragonfly minimal routing: local hop to the gateway router, one global hop, local hop to
// the destination router. VC rule (BookSim min_dragonflynew, FACTS §1.3): VC 0 until the
// packet takes a global link, VC 1 from the global hop on; ejection uses VC 0.
// When several global links join two groups, the source NIC picks one by a hash of
// (source, destination), so a flow keeps one path and stays in order.
class dragonfly;
class dragonfly_minimal_routing final : public routing_policy {
 public:
  explicit dragonfly_minimal_routing(const dragonfly& df);
  std::string name() const override { return "minimal"; }
  uint32_t min_vcs() const override { return 2; }
  void init_state(terminal_id src, terminal_id dst, route_state& state) const override;
  route_decision route(router_id at, terminal_id dst, route_state& state,
                       const port_occupancy_view* occupancy) const override;

 private:
  const dragonfly& m_df;
};

// Registry of routing names for a topology kind ("minimal", ...). Throws
// std::invalid_argument naming the allowed values for an unknown name.
std::unique_ptr<routing_policy> make_routing(const std::string& name, const topology& topo);
std::vector<std::string> routing_names(const std::string& topology_kind);

}  // namespace bcastsim::network
