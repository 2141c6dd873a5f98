// The Bcast Unit's control class: Mini Packets with their Working Memory reservation, and the
// end-to-end credits of a tree edge (credit returns parsed, batches waiting for credits, credit
// returns sent). The design and why it cannot deadlock: hw/ragasa/README.md, mechanisms 3-4.
#include "hw/ragasa/bcast_unit.h"

namespace bcastsim::hw::ragasa {

using sc_core::sc_time;
using tlm_net::packet;

// Step 3: the Mini Packet's child list enters the Membership Table with the broadcast's
// Working Memory reservation, its parent unit and the credits it holds at its child units.
void bcast_unit::parse_mini_packet(packet* p) {
  const uint32_t id = p->collective_id;
  ++mini_packets;
  const bool fresh = !m_table.count(id);
  table_entry& e = m_table[id];
  e.children = *m_source.find(id);
  e.expected = m_source.packets(id);
  e.parent = m_source.parent(id);
  if (fresh) {
    e.reserved_bytes = reservation_bytes(m_params, e.expected);
    m_reserved += e.reserved_bytes;
  }
  // A child unit reserved as much for the broadcast: all units have these parameters.
  e.credits.assign(e.children.size(), e.reserved_bytes / m_params.packet_bytes);
  e.unit_children = false;
  for (const membership_child& k : e.children)
    e.unit_children |= k.unit_router != network::invalid_id;
  if (m_table.size() > membership_peak_entries.value)
    membership_peak_entries.value = m_table.size();
  m_pool.release(p);
  if (m_listener) m_listener->on_membership(id);
  if (m_observer) m_observer->on_parsed(id);
}

// A child unit released `count` packets of the broadcast's memory: it may take that many more.
void bcast_unit::parse_credit(packet* p) {
  const uint32_t id = p->collective_id;
  const network::terminal_id child = p->src;
  const uint32_t count = p->count;
  m_pool.release(p);
  const auto it = m_table.find(id);
  if (it == m_table.end()) return;  // the last returns come after our last copy
  table_entry& e = it->second;
  for (size_t k = 0; k < e.children.size(); ++k) {
    if (e.children[k].unit_router != network::invalid_id && e.children[k].dst == child) {
      e.credits[k] += count;
      break;
    }
  }
  release_waiting(id);
}

bool bcast_unit::take_credits(table_entry& e, const batch& b) {
  const uint64_t n = b.pkts.size();
  for (size_t k = 0; k < e.children.size(); ++k) {
    if (e.children[k].unit_router != network::invalid_id && e.credits[k] < n) return false;
  }
  for (size_t k = 0; k < e.children.size(); ++k) {
    if (e.children[k].unit_router != network::invalid_id) e.credits[k] -= n;
  }
  return true;
}

// Mechanism 4: a collective's batches waiting for credits go on, in order, once they fit.
void bcast_unit::release_waiting(uint32_t collective) {
  const auto c = m_collectives.find(collective);
  if (c == m_collectives.end() || c->second.credit_wait.empty()) return;
  table_entry& e = m_table.find(collective)->second;
  std::vector<uint32_t>& w = c->second.credit_wait;
  size_t k = 0;
  while (k < w.size() && take_credits(e, m_batches[w[k]])) m_gen_queue.push(w[k++]);
  w.erase(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(k));
  if (k > 0 && w.empty())
    credit_wait_ps += (sc_core::sc_time_stamp() - c->second.credit_since).value();
}

// A credit return goes ahead of the next copy: it needs no build, and the parent's copies
// wait for it.
bool bcast_unit::send_credit(const sc_time& now) {
  const uint32_t bytes = m_params.credit_packet_bytes;
  if (!m_out.has_credits(0, bytes, now)) {
    const sc_time retry = m_out.credit_retry_time();
    if (retry != sc_core::sc_max_time()) m_agenda.push(retry, action{});
    return false;
  }
  const credit_return r = m_credit_out.pop();
  packet* p = make_credit_return(r.collective, r.packets, r.parent, now, m_next_packet++);
  const sc_time t = m_out.send(out, *p, now);
  m_out.set_busy_until(edge(now + t));
  if (t > sc_core::SC_ZERO_TIME) m_agenda.push(m_out.busy_until(), action{});
  return true;
}

}  // namespace bcastsim::hw::ragasa
