// The management node of Ragasa's in-network broadcast ("Workflow of Bcast Unit": "The
// management node sends a Mini Packet (MP) to each router participating in broadcast
// offloading"). Before the broadcasts it sends, from its terminal's NIC, one Mini Packet per
// participating router and broadcast, carrying that router's child list; each unit tells it
// when an MP has been parsed into its Membership Table. When the last one of a broadcast is,
// its set-up is complete: its gated hosts (the root; with nodes relaying, the relays too)
// may offload. Set-up time (to the last broadcast's) is reported on its own.
//
// A Membership Table holds membership_entries broadcasts, and step 10 frees a broadcast's
// entry once its data have left that unit. The management node keeps one credit per entry
// of every unit, and its unreserved Working Memory (a Mini Packet reserves a broadcast's
// share: hw/ragasa/README.md, mechanism 3): it sends a unit's Mini Packets in collective order
// while the unit has an entry and the broadcast's reservation free, holds the rest, and gets
// both back when the unit frees an entry (the
// completion signal reaches it at once: the paper says nothing of how the management node
// learns of it, and a full round trip would only lengthen set-up). A held Mini Packet never
// enters the network, so a full table never blocks data queued behind it in an Rx-queue.
// Deadlock-free: each unit takes broadcasts in collective order, so the lowest broadcast
// not set up finds every unit's entries held by lower, set-up broadcasts, which finish.
//
// The child lists travel in the membership_source of each router's unit, filled at
// construction (see bcast_unit.h: packets carry no payload); the MP's wire size is header +
// bytes per child.
#pragma once

#include "algorithms/ragasa_tree.h"
#include "hw/nic/host.h"
#include "hw/nic/nic.h"
#include "hw/ragasa/bcast_unit.h"
#include "network/topology.h"
#include "tlm/statistics.h"

#include <deque>
#include <systemc>
#include <vector>

namespace bcastsim::hw::ragasa {

struct manager_params {
  uint32_t mini_packet_header_bytes = 16;
  uint32_t mini_packet_child_bytes = 4;

  // The scenario keys, declared once: see network/params.h.
  template <class V>
  void visit(V& v) {
    v.field("ragasa.mini_packet_header_bytes", mini_packet_header_bytes, 1, 1 << 20,
            "Mini Packet header");
    v.field("ragasa.mini_packet_child_bytes", mini_packet_child_bytes, 1, 1 << 20,
            "Mini Packet bytes per child");
  }
};

// The child list of every router of `tree` as its unit reads it (sources[router]): terminal
// children by terminal, router children by their unit (routed toward the child router's
// first terminal).
void fill_membership(const network::topology& topo, const algorithms::ragasa_tree& tree,
                     uint32_t collective_id, std::vector<membership_source>& sources);
// Nodes relaying: every unit's children are terminals.
void fill_membership(const algorithms::ragasa_relays& relays, uint32_t collective_id,
                     std::vector<membership_source>& sources);

// Wire size of the Mini Packet for a router with `children` children.
inline uint64_t mini_packet_bytes(const manager_params& p, size_t children) {
  return p.mini_packet_header_bytes + uint64_t{p.mini_packet_child_bytes} * children;
}

// One broadcast the units carry: its id, the routers taking part with their Mini Packets'
// sizes, and the hosts whose offload ops (of `context`) wait for its set-up.
struct managed_collective {
  uint32_t collective_id = 0;
  uint32_t context = 0;
  std::vector<network::router_id> routers;
  std::vector<uint64_t> mini_packet_bytes;  // [i] for routers[i]
  std::vector<uint64_t> reserve_bytes;      // [i] Working Memory routers[i]'s unit reserves
  std::vector<host*> gated;
};

class manager final : public sc_core::sc_module, public membership_listener {
 public:
  // `nic` is the management node's. At time 0 it sends every collective's Mini Packets, in
  // collective order; a collective's hosts may offload once all of its are parsed.
  // `membership_entries`, `working_memory_bytes`: what each unit's table and memory hold
  // (the credits per unit).
  manager(const sc_core::sc_module_name& name, const network::topology& topo, nic& nic,
          std::vector<managed_collective> collectives, const manager_params& params,
          uint32_t membership_entries, uint64_t working_memory_bytes);
  SC_HAS_PROCESS(manager);

  void on_membership(uint32_t collective_id) override;
  void on_freed(network::terminal_id unit_terminal, uint32_t collective_id) override;

  bool setup_done() const { return m_parsed == m_expected; }
  uint32_t expected_mini_packets() const { return m_expected; }
  size_t collectives() const { return m_collectives.size(); }
  // When the set-up of collective `index` (construction order) completed: its last Mini
  // Packet parsed (0 with nothing to configure); false while it has not.
  bool setup_done_at(size_t index, sc_core::sc_time& when) const {
    when = m_setup_done[index];
    return m_left[index] == 0;
  }
  // Collectives whose set-up is not complete, for the stall diagnosis (ids, at most `max`).
  std::vector<uint32_t> incomplete(size_t max) const;
  // Mini Packets held for a unit's free entry now, and the router with the most of them.
  size_t held_mini_packets(network::router_id* busiest = nullptr) const;

  // Statistics.
  tlm_net::counter mini_packets_sent;
  tlm_net::counter mini_packet_bytes_sent;
  tlm_net::counter mini_packets_parsed;
  tlm_net::counter setup_ps;             // start -> last Mini Packet parsed
  tlm_net::counter mini_packets_held;    // that waited for a free Membership Table entry
  tlm_net::counter mini_packet_wait_ps;  // their waits, summed
  tlm_net::counter entries_freed;        // Membership Table entries the units freed
  const tlm_net::stat_group& stats() const { return m_stats; }

 private:
  struct held {
    uint32_t index;   // into m_collectives
    uint32_t router;  // its position in that collective's routers
    sc_core::sc_time since;
  };
  void start();
  void settle();  // what the units reported this time step, in collective / router order
  void send(uint32_t index, uint32_t i);
  bool admits(network::router_id r, uint32_t index, uint32_t i) const;
  uint64_t reserved(network::router_id r, uint32_t collective_id) const;

  const network::topology& m_topo;
  nic& m_nic;
  manager_params m_params;
  std::vector<managed_collective> m_collectives;
  std::vector<uint32_t> m_index;  // [collective_id]: its index in m_collectives, or ~0
  std::vector<uint32_t> m_left;   // [index]: Mini Packets not parsed yet
  // [index]: when its last Mini Packet was parsed
  std::vector<sc_core::sc_time> m_setup_done;
  uint32_t m_expected = 0;
  std::vector<uint32_t> m_credits;       // [router]: free entries of its unit
  std::vector<uint64_t> m_memory;        // [router]: its unit's unreserved Working Memory
  std::vector<std::deque<held>> m_held;  // [router]: in collective order
  std::vector<uint32_t> m_parsed_now;    // collectives parsed, not yet settled
  struct freed {
    network::router_id router;
    uint32_t collective_id;
    bool operator<(const freed& o) const {
      return router != o.router ? router < o.router : collective_id < o.collective_id;
    }
  };
  std::vector<freed> m_freed_now;  // entries freed, not yet settled
  sc_core::sc_event m_settle;
  uint32_t m_parsed = 0;
  tlm_net::stat_group m_stats;
};

}  // namespace bcastsim::hw::ragasa
