#include "hw/ragasa/manager.h"

#include <algorithm>

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
        // The child unit returns credits to this one (hw/ragasa/README.md, mechanism 4).
        sources[c.id].set_parent(collective_id, membership_child{topo.terminals_of(r).front(), r});
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
                 std::vector<managed_collective> collectives, const manager_params& params,
                 uint32_t membership_entries, uint64_t working_memory_bytes)
    : sc_core::sc_module(name),
      m_topo(topo),
      m_nic(nic),
      m_params(params),
      m_collectives(std::move(collectives)),
      m_credits(topo.num_routers(), membership_entries),
      m_memory(topo.num_routers(), working_memory_bytes),
      m_held(topo.num_routers()) {
  for (uint32_t i = 0; i < m_collectives.size(); ++i) {
    const managed_collective& c = m_collectives[i];
    if (c.collective_id >= m_index.size()) m_index.resize(c.collective_id + 1, ~0u);
    m_index[c.collective_id] = i;
    m_left.push_back(static_cast<uint32_t>(c.routers.size()));
    m_setup_done.push_back(sc_core::SC_ZERO_TIME);
    m_expected += m_left.back();
  }
  m_stats.declare("mini_packets_sent", "packets",
                  "Mini Packets sent (one per router and broadcast)", mini_packets_sent);
  m_stats.declare("mini_packet_bytes_sent", "bytes", "bytes of the Mini Packets",
                  mini_packet_bytes_sent);
  m_stats.declare("mini_packets_parsed", "packets", "Mini Packets parsed by their units",
                  mini_packets_parsed);
  m_stats.declare("setup_ps", "ps", "from the first Mini Packet to the last one parsed", setup_ps);
  m_stats.declare("mini_packets_held", "packets",
                  "Mini Packets held until their unit freed a Membership Table entry",
                  mini_packets_held);
  m_stats.declare("mini_packet_wait_ps", "ps", "time Mini Packets were held, summed",
                  mini_packet_wait_ps);
  m_stats.declare("entries_freed", "entries",
                  "Membership Table entries freed by the units (step 10)", entries_freed);
  SC_METHOD(start);  // runs once, at time 0
  SC_METHOD(settle);
  sensitive << m_settle;
  dont_initialize();
}

void manager::send(uint32_t index, uint32_t i) {
  const managed_collective& c = m_collectives[index];
  --m_credits[c.routers[i]];
  if (i < c.reserve_bytes.size()) m_memory[c.routers[i]] -= c.reserve_bytes[i];
  message m;
  m.kind = tlm_net::packet_kind::control;
  m.offload = to_unit(c.routers[i], packet_class::mini);
  m.dst = m_topo.terminals_of(c.routers[i]).front();  // where routing aims
  m.collective_id = c.collective_id;
  m.bytes = c.mini_packet_bytes[i];
  m_nic.send_message(m);
  ++mini_packets_sent;
  mini_packet_bytes_sent += m.bytes;
}

bool manager::admits(network::router_id r, uint32_t index, uint32_t i) const {
  const managed_collective& c = m_collectives[index];
  return m_credits[r] > 0 && (i >= c.reserve_bytes.size() || c.reserve_bytes[i] <= m_memory[r]);
}

void manager::start() {
  for (uint32_t index = 0; index < m_collectives.size(); ++index) {
    const managed_collective& c = m_collectives[index];
    for (uint32_t i = 0; i < c.routers.size(); ++i) {
      const network::router_id r = c.routers[i];
      if (m_held[r].empty() && admits(r, index, i)) {
        send(index, i);
      } else {
        m_held[r].push_back(held{index, i, sc_core::sc_time_stamp()});
        ++mini_packets_held;
      }
    }
    if (c.routers.empty()) {  // nothing to configure
      for (host* h : c.gated) h->open_offload_gate(c.context);
    }
  }
}

size_t manager::held_mini_packets(network::router_id* busiest) const {
  size_t n = 0;
  size_t most = 0;
  for (network::router_id r = 0; r < m_held.size(); ++r) {
    n += m_held[r].size();
    if (m_held[r].size() > most) {
      most = m_held[r].size();
      if (busiest) *busiest = r;
    }
  }
  return n;
}

// The units call in whatever order the kernel runs them (the SystemC model and the RTL
// differ); what they report at one time takes effect one delta later, in collective and
// router order, so both models open gates and release Mini Packets in the same order.
void manager::on_membership(uint32_t collective_id) {
  if (collective_id >= m_index.size() || m_index[collective_id] == ~0u) return;
  m_parsed_now.push_back(collective_id);
  m_settle.notify(sc_core::SC_ZERO_TIME);
}

void manager::on_freed(network::terminal_id unit_terminal, uint32_t collective_id) {
  m_freed_now.push_back(freed{m_topo.router_of(unit_terminal), collective_id});
  m_settle.notify(sc_core::SC_ZERO_TIME);
}

void manager::settle() {
  std::sort(m_parsed_now.begin(), m_parsed_now.end());
  for (const uint32_t id : m_parsed_now) {
    const uint32_t i = m_index[id];
    ++mini_packets_parsed;
    ++m_parsed;
    if (--m_left[i] > 0) continue;
    m_setup_done[i] = sc_core::sc_time_stamp();
    if (m_parsed == m_expected) setup_ps.value = sc_core::sc_time_stamp().value();
    for (host* h : m_collectives[i].gated) h->open_offload_gate(m_collectives[i].context);
  }
  m_parsed_now.clear();
  std::sort(m_freed_now.begin(), m_freed_now.end());
  for (const freed& f : m_freed_now) {
    const network::router_id r = f.router;
    ++entries_freed;
    ++m_credits[r];
    m_memory[r] += reserved(r, f.collective_id);
    // In collective order: the head goes first, and only once it fits.
    while (!m_held[r].empty() && admits(r, m_held[r].front().index, m_held[r].front().router)) {
      const held h = m_held[r].front();
      m_held[r].pop_front();
      mini_packet_wait_ps += (sc_core::sc_time_stamp() - h.since).value();
      send(h.index, h.router);
    }
  }
  m_freed_now.clear();
}

uint64_t manager::reserved(network::router_id r, uint32_t collective_id) const {
  if (collective_id >= m_index.size() || m_index[collective_id] == ~0u) return 0;
  const managed_collective& c = m_collectives[m_index[collective_id]];
  for (size_t i = 0; i < c.routers.size() && i < c.reserve_bytes.size(); ++i)
    if (c.routers[i] == r) return c.reserve_bytes[i];
  return 0;
}

std::vector<uint32_t> manager::incomplete(size_t max) const {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < m_collectives.size() && ids.size() < max; ++i) {
    if (m_left[i] > 0) ids.push_back(m_collectives[i].collective_id);
  }
  return ids;
}

}  // namespace bcastsim::hw::ragasa
