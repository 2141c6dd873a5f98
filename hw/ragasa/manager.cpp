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

void fill_membership(const algorithms::ragasa_relays& relays, uint32_t collective_id,
                     std::vector<membership_source>& sources) {
  for (const network::router_id r : relays.participating_routers()) {
    std::vector<membership_child> kids;
    kids.reserve(relays.children[r].size());
    for (const network::terminal_id t : relays.children[r])
      kids.push_back(membership_child{t, network::invalid_id});
    sources[r].set(collective_id, std::move(kids));
  }
}

manager::manager(const sc_core::sc_module_name& name, const network::topology& topo, nic& nic,
                 std::vector<managed_collective> collectives, const manager_params& params)
    : sc_core::sc_module(name),
      m_topo(topo),
      m_nic(nic),
      m_params(params),
      m_collectives(std::move(collectives)) {
  for (uint32_t i = 0; i < m_collectives.size(); ++i) {
    const managed_collective& c = m_collectives[i];
    if (c.collective_id >= m_index.size()) m_index.resize(c.collective_id + 1, ~0u);
    m_index[c.collective_id] = i;
    m_left.push_back(static_cast<uint32_t>(c.routers.size()));
    m_expected += m_left.back();
  }
  m_stats.declare("mini_packets_sent", "packets",
                  "Mini Packets sent (one per router and broadcast)", mini_packets_sent);
  m_stats.declare("mini_packet_bytes_sent", "bytes", "bytes of the Mini Packets",
                  mini_packet_bytes_sent);
  m_stats.declare("mini_packets_parsed", "packets", "Mini Packets parsed by their units",
                  mini_packets_parsed);
  m_stats.declare("setup_ps", "ps", "from the first Mini Packet to the last one parsed", setup_ps);
  SC_METHOD(start);  // runs once, at time 0
}

void manager::start() {
  for (const managed_collective& c : m_collectives) {
    for (size_t i = 0; i < c.routers.size(); ++i) {
      message m;
      m.kind = tlm_net::packet_kind::control;
      m.offload = to_unit(c.routers[i]);
      m.dst = m_topo.terminals_of(c.routers[i]).front();  // where routing aims
      m.collective_id = c.collective_id;
      m.bytes = c.mini_packet_bytes[i];
      m_nic.send_message(m);
      ++mini_packets_sent;
      mini_packet_bytes_sent += m.bytes;
    }
    if (c.routers.empty()) {  // nothing to configure
      for (host* h : c.gated) h->open_offload_gate(c.context);
    }
  }
}

void manager::on_membership(uint32_t collective_id) {
  if (collective_id >= m_index.size() || m_index[collective_id] == ~0u) return;
  const uint32_t i = m_index[collective_id];
  ++mini_packets_parsed;
  ++m_parsed;
  if (--m_left[i] > 0) return;
  if (m_parsed == m_expected) setup_ps.value = sc_core::sc_time_stamp().value();
  for (host* h : m_collectives[i].gated) h->open_offload_gate(m_collectives[i].context);
}

std::vector<uint32_t> manager::incomplete(size_t max) const {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < m_collectives.size() && ids.size() < max; ++i) {
    if (m_left[i] > 0) ids.push_back(m_collectives[i].collective_id);
  }
  return ids;
}

}  // namespace bcastsim::hw::ragasa
