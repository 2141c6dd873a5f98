// The management node of Ragasa's in-network broadcast ("Workflow of Bcast Unit": "The
// management node sends a Mini Packet (MP) to each router participating in broadcast
// offloading"). Before the broadcasts it sends, from its terminal's NIC, one Mini Packet per
// participating router and broadcast, carrying that router's child list; each unit tells it
// when an MP has been parsed into its Membership Table. When the last one of a broadcast is,
// its set-up is complete: its gated hosts (the root; with nodes relaying, the relays too)
// may offload. Set-up time (to the last broadcast's) is reported on its own.
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
  std::vector<host*> gated;
};

class manager final : public sc_core::sc_module, public membership_listener {
 public:
  // `nic` is the management node's. At time 0 it sends every collective's Mini Packets, in
  // collective order; a collective's hosts may offload once all of its are parsed.
  manager(const sc_core::sc_module_name& name, const network::topology& topo, nic& nic,
          std::vector<managed_collective> collectives, const manager_params& params);
  SC_HAS_PROCESS(manager);

  void on_membership(uint32_t collective_id) override;

  bool setup_done() const { return m_parsed == m_expected; }
  uint32_t expected_mini_packets() const { return m_expected; }
  size_t collectives() const { return m_collectives.size(); }
  // Collectives whose set-up is not complete, for the stall diagnosis (ids, at most `max`).
  std::vector<uint32_t> incomplete(size_t max) const;

  // Statistics.
  tlm_net::counter mini_packets_sent;
  tlm_net::counter mini_packet_bytes_sent;
  tlm_net::counter mini_packets_parsed;
  tlm_net::counter setup_ps;  // start -> last Mini Packet parsed
  const tlm_net::stat_group& stats() const { return m_stats; }

 private:
  void start();

  const network::topology& m_topo;
  nic& m_nic;
  manager_params m_params;
  std::vector<managed_collective> m_collectives;
  std::vector<uint32_t> m_index;   // [collective_id]: its index in m_collectives, or ~0
  std::vector<uint32_t> m_left;    // [index]: Mini Packets not parsed yet
  uint32_t m_expected = 0;
  uint32_t m_parsed = 0;
  tlm_net::stat_group m_stats;
};

}  // namespace bcastsim::hw::ragasa
