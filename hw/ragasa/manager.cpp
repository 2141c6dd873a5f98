#include "hw/ragasa/manager.h"

namespace bcastsim::hw::ragasa {

void fill_membership(const network::topology& topo, const algorithms::ragasa_tree& tree,
                     uint32_t collective_id, std::vector<membership_source>& sources) {
  for (const network::router_id r : tree.participating_routers()) {
    std::vector<membership_child> kids;
    kids.reserve(tree.children[r].size());
    for (const algorithms::bcast_child& c : tree.children[r]) {
      if (c.kind == algorithms::child_kind::terminal) {
        kids.push_back(membership_child{c.id, network::invalid_id});
      } else {
        kids.push_back(membership_child{topo.terminals_of(c.id).front(), c.id});
      }
    }
    sources[r].set(collective_id, std::move(kids));
  }
}

manager::manager(const sc_core::sc_module_name& name, const network::topology& topo,
                 const algorithms::ragasa_tree& tree, nic& nic,
                 std::vector<membership_source>& sources, const manager_params& params)
    : sc_core::sc_module(name),
      m_topo(topo),
      m_routers(tree.participating_routers()),
      m_nic(nic),
      m_params(params),
      m_expected(static_cast<uint32_t>(m_routers.size())) {
  fill_membership(topo, tree, params.collective_id, sources);
  for (const network::router_id r : m_routers)
    m_bytes.push_back(mini_packet_bytes(params, tree.children[r].size()));
  m_stats.declare("mini_packets_sent", "packets", "Mini Packets sent (one per router)",
                  mini_packets_sent);
  m_stats.declare("mini_packet_bytes_sent", "bytes", "bytes of the Mini Packets",
                  mini_packet_bytes_sent);
  m_stats.declare("mini_packets_parsed", "packets", "Mini Packets parsed by their units",
                  mini_packets_parsed);
  m_stats.declare("setup_ps", "ps", "from the first Mini Packet to the last one parsed", setup_ps);
  SC_METHOD(start);  // runs once, at time 0
}

void manager::start() {
  for (size_t i = 0; i < m_routers.size(); ++i) {
    message m;
    m.kind = tlm_net::packet_kind::control;
    m.offload = to_unit(m_routers[i]);
    m.dst = m_topo.terminals_of(m_routers[i]).front();  // where routing aims
    m.collective_id = m_params.collective_id;
    m.bytes = m_bytes[i];
    m_nic.send_message(m);
    ++mini_packets_sent;
    mini_packet_bytes_sent += m.bytes;
  }
  if (setup_done()) open_gates();  // nothing to configure (a one-rank job)
}

void manager::on_membership(uint32_t collective_id) {
  if (collective_id != m_params.collective_id) return;
  ++mini_packets_parsed;
  if (++m_parsed == m_expected) {
    setup_ps.value = sc_core::sc_time_stamp().value();
    open_gates();
  }
}

void manager::open_gates() {
  for (host* h : m_gated) h->open_offload_gate();
}

}  // namespace bcastsim::hw::ragasa
