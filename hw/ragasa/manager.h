// The management node of Ragasa's in-network broadcast ("Workflow of Bcast Unit": "The
// management node sends a Mini Packet (MP) to each router participating in broadcast
// offloading"). Before the broadcast it sends, from its terminal's NIC, one Mini Packet per
// participating router carrying that router's child list; each unit tells it when the MP
// has been parsed into its Membership Table. When the last one is, set-up is complete: the
// gated hosts (the root) may start the broadcast. Set-up time is reported on its own.
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
  uint32_t collective_id = 1;
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

// Wire size of the Mini Packet for a router with `children` children.
inline uint64_t mini_packet_bytes(const manager_params& p, size_t children) {
  return p.mini_packet_header_bytes + uint64_t{p.mini_packet_child_bytes} * children;
}

class manager final : public sc_core::sc_module, public membership_listener {
 public:
  // `nic` is the management node's; router r's child list goes into sources[r], which
  // router r's unit reads when it parses its Mini Packet.
  manager(const sc_core::sc_module_name& name, const network::topology& topo,
          const algorithms::ragasa_tree& tree, nic& nic,
          std::vector<membership_source>& sources, const manager_params& params);
  SC_HAS_PROCESS(manager);

  // A host whose offload ops wait for set-up (host::enable_offload was called).
  void add_gated_host(host& h) { m_gated.push_back(&h); }
  void on_membership(uint32_t collective_id) override;

  bool setup_done() const { return m_parsed == m_expected; }
  uint32_t expected_mini_packets() const { return m_expected; }

  // Statistics.
  tlm_net::counter mini_packets_sent;
  tlm_net::counter mini_packet_bytes_sent;
  tlm_net::counter mini_packets_parsed;
  tlm_net::counter setup_ps;  // start -> last Mini Packet parsed
  const tlm_net::stat_group& stats() const { return m_stats; }

 private:
  void start();
  void open_gates();

  const network::topology& m_topo;
  std::vector<network::router_id> m_routers;  // participating, tree order
  std::vector<uint64_t> m_bytes;              // [i] MP size for m_routers[i]
  nic& m_nic;
  manager_params m_params;
  uint32_t m_expected = 0;
  uint32_t m_parsed = 0;
  std::vector<host*> m_gated;
  tlm_net::stat_group m_stats;
};

}  // namespace bcastsim::hw::ragasa
