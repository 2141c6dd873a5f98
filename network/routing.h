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

// splitmix64 finaliser: a cheap, well-mixed, platform-independent hash.
constexpr uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The entropy a NIC hands init_state for the packet_index-th packet it injects: a pure
// function of the run seed, the terminal and the count, so a run repeats exactly, NICs draw
// independently of each other, and no global random state exists.
constexpr uint64_t packet_entropy(uint64_t seed, terminal_id terminal, uint64_t packet_index) {
  return splitmix64(splitmix64(seed ^ splitmix64(terminal)) + packet_index);
}

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
  // `entropy` is the packet's random draw (see packet_entropy): a policy's random choices
  // are functions of it, so equal entropy gives an equal route.
  virtual void init_state(terminal_id src, terminal_id dst, uint64_t entropy,
                          route_state& state) const = 0;

  // Called at router `at` for a packet bound for terminal `dst`; updates `state` for the
  // link it chose (hop counts, phase).
  virtual route_decision route(router_id at, terminal_id dst, route_state& state,
                               const port_occupancy_view* occupancy) const = 0;

  // Whether the packet has taken no router-to-router hop yet (fresh from its source). Every
  // policy here counts hops in local_hops or global_hops; one that does not overrides this.
  virtual bool at_source(const route_state& s) const {
    return s.local_hops == 0 && s.global_hops == 0;
  }
  // A hop the policy did not choose (an offload family's direct link to a neighbour, on VC 0)
  // was taken on a link of class `cls`: the policy keeps its state consistent with it.
  virtual void note_hop(route_state& /*state*/, link_class /*cls*/) const {}

  const topology& topo() const { return *m_topo; }

 protected:
  explicit routing_policy(const topology& topo) : m_topo(&topo) {}
  const topology* m_topo;
};

// Dragonfly minimal routing: local hop to the gateway router, one global hop, local hop to
// the destination router. VC rule (BookSim min_dragonflynew, FACTS §1.3): VC 0 until the
// packet takes a global link, VC 1 from the global hop on; ejection uses VC 0.
// When several global links join two groups, the source NIC picks one by a hash of
// (source, destination), so a flow keeps one path and stays in order; entropy is unused.
class dragonfly;
class dragonfly_minimal_routing final : public routing_policy {
 public:
  explicit dragonfly_minimal_routing(const dragonfly& df);
  std::string name() const override { return "minimal"; }
  uint32_t min_vcs() const override { return 2; }
  void note_hop(route_state& state, link_class cls) const override;
  void init_state(terminal_id src, terminal_id dst, uint64_t entropy,
                  route_state& state) const override;
  route_decision route(router_id at, terminal_id dst, route_state& state,
                       const port_occupancy_view* occupancy) const override;

 private:
  const dragonfly& m_df;
};

// Dragonfly Valiant routing, called "nonminimal" as in CODES and the paper (alias
// "valiant"). At injection the packet draws an intermediate group uniformly among the
// groups other than its own (CODES: intm = (G + U[1, g-1]) mod g); it routes minimally to
// any router of that group (the landing router of the global link it takes), then
// minimally to the destination. Traffic inside one group, and packets whose draw is the
// destination group, route minimally. The global links are drawn from the packet's
// entropy among the ones giving the fewest hops, so packets of one flow spread out.
// Paths: <= 2 global and <= 3 local hops (one local hop at most in each of the source,
// intermediate and destination groups).
//
// VC rule, CODES legacy dragonfly.c router_packet_receive (FACTS §1.3), 3 VCs: a local
// port uses VC = local hops taken so far, forced to 1 after one global hop and 2 after
// two; a global port uses VC = global hops taken so far; ejection uses VC 0. No route
// takes a second local hop before its first global one, so channels are used in the
// strictly increasing order local/0 < global/0 < local/1 < global/1 < local/2 < ejection,
// and the channel dependency graph is acyclic. Minimal packets follow the same rule
// (local/0, global/0, local/1), so they mix with non-minimal ones safely.
//
// route_state: aux = intermediate group while heading there (global_hops == 0), with
// choice = 16 bits of the packet's entropy; once the packet takes the global link into
// the intermediate group (or routes minimally), aux = invalid_id and choice = the index
// of the global link to the destination group, exactly as in minimal routing.
class dragonfly_valiant_routing : public routing_policy {
 public:
  explicit dragonfly_valiant_routing(const dragonfly& df);
  std::string name() const override { return "nonminimal"; }
  uint32_t min_vcs() const override { return 3; }
  void note_hop(route_state& state, link_class cls) const override;
  void init_state(terminal_id src, terminal_id dst, uint64_t entropy,
                  route_state& state) const override;
  route_decision route(router_id at, terminal_id dst, route_state& state,
                       const port_occupancy_view* occupancy) const override;

 protected:
  // The state that sends a packet still at its source router (undecided, aux valid)
  // minimally instead.
  route_state minimal_state(router_id at, terminal_id dst, const route_state& state) const;
  // Router-to-router links the packet will take from router `at` with this state.
  uint32_t hops_to_go(router_id at, terminal_id dst, route_state state) const;

  const dragonfly& m_df;
};

// UGAL-L adaptive routing (Kim et al. ISCA'08; "adaptive" in CODES and the paper). At the
// source router only (no hop taken yet) the packet compares its minimal path with its
// Valiant candidate (drawn exactly as dragonfly_valiant_routing would) using local
// information: it routes minimally iff
//     q_min * H_min <= q_nonmin * H_nonmin + threshold,
// where q is output_occupancy_bytes() of the path's first-hop output port at this router
// and H the path's length in router-to-router links (local + global; ejection not
// counted). Ties go minimal. Without an occupancy view (or without a Valiant candidate:
// same group, or the draw is the destination group) it routes minimally. Then it follows
// the chosen path with the Valiant VC rule above.
//
// With adaptive_rule::codes ("adaptive-codes") the comparison is CODES's (dragonfly.c,
// experiments/codes/codes-dragonfly-notes.md §2): minimal iff q_min <= q_nonmin, without hop
// weighting or threshold. CODES decides per 32-B chunk; here, as for UGAL-L, per packet.
enum class adaptive_rule : uint8_t { ugal_local, codes };

class dragonfly_adaptive_routing final : public dragonfly_valiant_routing {
 public:
  // threshold: in byte-links, added to the non-minimal side (0 = plain UGAL-L).
  explicit dragonfly_adaptive_routing(const dragonfly& df, uint64_t threshold = 0,
                                      adaptive_rule rule = adaptive_rule::ugal_local);
  std::string name() const override {
    return m_rule == adaptive_rule::codes ? "adaptive-codes" : "adaptive";
  }
  route_decision route(router_id at, terminal_id dst, route_state& state,
                       const port_occupancy_view* occupancy) const override;
  uint64_t threshold() const { return m_threshold; }

 private:
  uint64_t m_threshold;
  adaptive_rule m_rule;
};

}  // namespace bcastsim::network
