#include "hw/ragasa/bcast_unit.h"

#include "hw/ragasa/unit_trace.h"

#include <algorithm>
#include <ostream>

namespace bcastsim::hw::ragasa {

using sc_core::sc_time;
using tlm_net::packet;

// What the VCD shows, stage by stage (sampled after every wake-up in the window).
struct bcast_unit::trace_mirror : unit_trace_mirror {};

bcast_unit::bcast_unit(const sc_core::sc_module_name& name, network::terminal_id terminal,
                       const bcast_unit_params& params, tlm_net::packet_pool& pool,
                       const membership_source& membership, const network::routing_policy* routing)
    : bcast_unit_base(name, terminal, params, pool, membership, routing),
      m_rx(2 * params.rx_queues),
      m_agenda(m_wakeup) {
  m_sps.reserve(params.send_queue_descriptors);
  m_ri.reserve(64);
  if (params.rx_queues == 0 || params.rx_queue_packets == 0 || params.work_queue_descriptors == 0 ||
      params.send_queue_descriptors == 0)
    SC_REPORT_ERROR(this->name(), "queue capacities must be positive");
  m_fw.bind_owner(this, 0);
  m_bw.bind_owner(this, 0);
  in.bind(m_fw);
  out.bind(m_bw);
  SC_METHOD(on_wakeup);
  sensitive << m_wakeup;
  dont_initialize();
}

bcast_unit::~bcast_unit() = default;

sc_time bcast_unit::edge(const sc_time& t) const {
  const sc_dt::uint64 period = m_period.value();
  return sc_time::from_value((t.value() + period - 1) / period * period);
}

sc_time bcast_unit::after(uint32_t cycles) const {
  return edge(sc_core::sc_time_stamp()) + m_period * cycles;
}

const std::vector<membership_child>* bcast_unit::children(uint32_t collective_id) const {
  const auto it = m_table.find(collective_id);
  return it == m_table.end() ? nullptr : &it->second.children;
}

void bcast_unit::erase_membership(uint32_t collective_id) {
  // Descriptors and stored packets of the collective still need its child list.
  if (working_memory_used_bytes(collective_id) > 0) {
    SC_REPORT_ERROR(name(), "erase_membership: the collective still has data in Working Memory");
    return;
  }
  m_table.erase(collective_id);
  m_agenda.push(sc_core::sc_time_stamp(), action{});  // the scheduler looks again
}

uint64_t bcast_unit::working_memory_used_bytes(uint32_t collective_id) const {
  const auto it = m_collectives.find(collective_id);
  return it == m_collectives.end() ? 0 : it->second.memory_bytes;
}

tlm::tlm_sync_enum bcast_unit::nb_transport_fw(uint32_t, packet& p, tlm::tlm_phase& ph, sc_time&) {
  if (ph != tlm::BEGIN_REQ || p.vc >= m_params.vcs) {
    SC_REPORT_ERROR(name(), "unexpected phase or VC on the input port");
    return tlm::TLM_COMPLETED;
  }
  m_in_bytes[p.vc] += p.size_bytes;
  if (m_in_bytes[p.vc] > m_params.input_buffer_bytes)
    SC_REPORT_ERROR(name(), "credit protocol violated: input buffer overflow");
  if (p.kind == tlm_net::packet_kind::data && p.size_bytes > m_params.working_memory_bytes)
    SC_REPORT_ERROR(name(), "data packet larger than the whole Working Memory");
  if (unit_class(p) == packet_class::mini && !m_source.find(p.collective_id))
    SC_REPORT_ERROR(name(), "Mini Packet for a collective the membership source does not know");
  ++packets_in;
  ++m_in_flight;
  // The RI assembles the packet once its tail is in, and hands on one packet per clock:
  // short packets (a Mini Packet, a few-byte message) can end within one cycle.
  const sc_time now = sc_core::sc_time_stamp();
  action a;
  a.kind = action_kind::assembled;
  a.pkt = &p;
  sc_time at = edge(p.tail_time > now ? p.tail_time : now) + m_period * m_params.ri_cycles;
  if (at < m_ri_next) at = m_ri_next;
  m_ri_next = at + m_period;
  m_agenda.push(at, a);
  return tlm::TLM_ACCEPTED;
}

tlm::tlm_sync_enum bcast_unit::nb_transport_bw(uint32_t, packet& p, tlm::tlm_phase& ph,
                                               sc_time& t) {
  if (ph != tlm_net::CREDIT) {
    SC_REPORT_ERROR(name(), "unexpected phase on the output port");
    return tlm::TLM_COMPLETED;
  }
  // The SI is clocked: a credit counts from the first clock edge at or after its arrival.
  const sc_time when = edge(sc_core::sc_time_stamp() + t);
  // A credit costs no wake-up unless the SI waits for one, or waveforms show it on time.
  if (m_out.on_credit(when, p.vc, p.size_bytes) || m_trace) m_agenda.push(when, action{});
  return tlm::TLM_ACCEPTED;
}

bcast_unit::rx_queue& bcast_unit::queue_of(const packet& p) {
  const uint32_t n = m_params.rx_queues;
  switch (unit_class(p)) {
    case packet_class::handoff:
      return m_rx[p.collective_id % n];
    case packet_class::relayed:
      return m_rx[n + p.collective_id % n];
    default:
      return m_control;
  }
}

// Step 1: RI -> its class's queue, in arrival order; a packet whose queue is full holds the
// later packets of its own VC only (README.md, mechanism 1).
void bcast_unit::move_ri() {
  const sc_time now = sc_core::sc_time_stamp();
  uint32_t blocked_vcs = 0;  // bit per VC
  size_t kept = 0;
  for (size_t i = 0; i < m_ri.size(); ++i) {
    packet* p = m_ri[i];
    const uint32_t bit = 1u << p->vc;
    rx_queue& q = queue_of(*p);
    if ((blocked_vcs & bit) || q.fifo.size() >= m_params.rx_queue_packets) {
      blocked_vcs |= bit;  // the scheduler's next pick frees a slot and wakes us
      m_ri[kept++] = p;
      continue;
    }
    q.fifo.push(p);
    --m_in_flight;
    if (q.fifo.size() > rx_queue_peak_packets.value) rx_queue_peak_packets.value = q.fifo.size();
    if (q.stalled && !q.hol) {
      q.hol = true;
      q.hol_since = now;
    }
    // The packet has left the RI: its buffer space goes back to the router.
    m_in_bytes[p->vc] -= p->size_bytes;
    tlm_net::return_credit(in, m_credit_token, p->vc, p->size_bytes);
  }
  m_ri.resize(kept);
  if (blocked_vcs && !m_ri_blocked) {
    m_ri_blocked = true;
    m_ri_blocked_since = now;
  } else if (!blocked_vcs && m_ri_blocked) {
    ri_blocked_ps += (now - m_ri_blocked_since).value();
    m_ri_blocked = false;
  }
}

bool bcast_unit::head_can_go(rx_queue& q, const sc_time& now) {
  const packet* h = q.fifo.front();
  if (unit_class(*h) == packet_class::credit) return true;
  if (h->kind == tlm_net::packet_kind::control) {  // a Mini Packet: an entry and its memory
    if (m_table.count(h->collective_id) ||
        (m_table.size() < m_params.membership_entries &&
         m_reserved + reservation_bytes(m_params, m_source.packets(h->collective_id)) <=
             m_params.working_memory_bytes))
      return true;
    if (!q.mp_waits) {  // a full table back-pressures Mini Packets
      q.mp_waits = true;
      q.mp_since = now;
    }
    return false;
  }
  // Data use their broadcast's reservation only; without an entry there is none yet.
  const auto e = m_table.find(h->collective_id);
  if (e != m_table.end()) {
    const auto c = m_collectives.find(h->collective_id);
    const uint64_t used = c == m_collectives.end() ? 0 : c->second.memory_bytes;
    if (used + h->size_bytes <= e->second.reserved_bytes) return true;
  }
  if (!q.stalled) {
    q.stalled = true;
    q.stall_since = now;
    if (q.fifo.size() > 1) {
      q.hol = true;
      q.hol_since = now;
    }
  }
  return false;
}

// Step 2: one packet per scheduler_cycles, round-robin over the Rx-queues whose head can go.
void bcast_unit::schedule() {
  const sc_time now = sc_core::sc_time_stamp();
  if (now < m_sched_free) return;  // its `stored` action wakes us
  const auto n = static_cast<uint32_t>(m_rx.size());
  const bool control = !m_control.fifo.empty() && head_can_go(m_control, now);
  for (uint32_t k = 0; k < (control ? 1 : n); ++k) {
    const uint32_t qi = control ? n : (m_rr + k) % n;  // the control queue is number n
    rx_queue& q = control ? m_control : m_rx[qi];
    if (q.fifo.empty()) continue;
    if (!control && !head_can_go(q, now)) continue;
    packet* p = q.fifo.pop();
    if (m_observer) m_observer->on_scheduled(*p, qi);
    if (q.mp_waits) {
      membership_stall_ps += (now - q.mp_since).value();
      q.mp_waits = false;
    }
    if (q.stalled) {
      memory_stall_ps += (now - q.stall_since).value();
      q.stalled = false;
    }
    if (q.hol) {
      rx_hol_blocked_ps += (now - q.hol_since).value();
      q.hol = false;
    }
    if (p->kind == tlm_net::packet_kind::data) {  // reserve its memory now
      m_memory_used += p->size_bytes;
      m_collectives[p->collective_id].memory_bytes += p->size_bytes;
      if (m_memory_used > working_memory_peak_bytes.value)
        working_memory_peak_bytes.value = m_memory_used;
    }
    ++m_in_flight;
    if (!control) m_rr = (qi + 1) % n;
    m_sched_free = after(m_params.scheduler_cycles);
    action a;
    a.kind = action_kind::stored;
    a.pkt = p;
    m_agenda.push(m_sched_free, a);
    return;
  }
}

// Steps 3-4: the packet leaves the scheduler.
void bcast_unit::store(packet* p) {
  --m_in_flight;
  const uint32_t id = p->collective_id;
  if (unit_class(*p) == packet_class::credit) return parse_credit(p);
  if (p->kind == tlm_net::packet_kind::control) return parse_mini_packet(p);
  collective_state& c = m_collectives[id];
  c.open.push_back(p);
  c.open_bytes += p->size_bytes;
  size_t k = 0;
  while (k < c.messages.size() &&
         !(c.messages[k].src == p->src && c.messages[k].msg_id == p->msg_id))
    ++k;
  if (k == c.messages.size()) c.messages.push_back(message_progress{p->src, p->msg_id, 0});
  const bool message_done = ++c.messages[k].stored >= p->count;
  if (message_done) {
    c.messages[k] = c.messages.back();
    c.messages.pop_back();
  }
  if (message_done || c.open_bytes >= m_params.descriptor_threshold_bytes) close_chunk(id);
}

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

uint32_t bcast_unit::new_batch() {
  if (!m_free_batches.empty()) {
    const uint32_t b = m_free_batches.back();
    m_free_batches.pop_back();
    return b;
  }
  m_batches.emplace_back();
  return static_cast<uint32_t>(m_batches.size() - 1);
}

void bcast_unit::close_chunk(uint32_t collective) {
  collective_state& c = m_collectives[collective];
  const uint32_t b = new_batch();
  batch& bt = m_batches[b];
  bt.collective = collective;
  bt.pkts.swap(c.open);
  c.open.clear();
  c.open_bytes = 0;
  if (m_observer) m_observer->on_batch(*bt.pkts.front(), static_cast<uint32_t>(bt.pkts.size()));
  // Present: data wait at their queue's head for their Mini Packet (README.md).
  table_entry& e = m_table.find(collective)->second;
  if (!e.unit_children || (c.credit_wait.empty() && take_credits(e, bt))) {
    m_gen_queue.push(b);
    return;
  }
  if (c.credit_wait.empty()) c.credit_since = sc_core::sc_time_stamp();
  c.credit_wait.push_back(b);  // mechanism 4: never in the shared queues after this
}

// Step 10: the batch's last copy has left the SI; the completion signal releases its memory
// and counts its packets in the Membership Table.
void bcast_unit::complete(uint32_t b) {
  batch& bt = m_batches[b];
  collective_state& c = m_collectives[bt.collective];
  for (packet* stored : bt.pkts) {
    m_memory_used -= stored->size_bytes;
    c.memory_bytes -= stored->size_bytes;
    m_pool.release(stored);
  }
  const auto it = m_table.find(bt.collective);  // present: the batch was described from it
  it->second.done += bt.pkts.size();
  if (it->second.parent.unit_router != network::invalid_id) {  // the parent may send as many
    m_credit_out.push(
        credit_return{bt.collective, static_cast<uint32_t>(bt.pkts.size()), it->second.parent});
    m_agenda.push(sc_core::sc_time_stamp(), action{});  // the SI looks at once
  }
  bt.pkts.clear();
  m_free_batches.push_back(b);
  if (it->second.done == it->second.expected) free_entry(it->first);
}

void bcast_unit::free_entry(uint32_t collective_id) {
  const auto e = m_table.find(collective_id);
  m_reserved -= e->second.reserved_bytes;
  m_table.erase(e);
  const auto c = m_collectives.find(collective_id);
  if (c != m_collectives.end() && c->second.open.empty() && c->second.credit_wait.empty() &&
      c->second.messages.empty() && c->second.memory_bytes == 0)
    m_collectives.erase(c);
  ++membership_freed;
  if (m_listener) m_listener->on_freed(m_terminal, collective_id);
  if (m_observer) m_observer->on_freed(collective_id);
}

// Step 5: one descriptor per child of the front batch, descriptor_cycles each, while the
// Work Queue Element has room.
void bcast_unit::generate() {
  while (!m_generating && !m_gen_queue.empty() && sc_core::sc_time_stamp() >= m_gen_free) {
    const uint32_t b = m_gen_queue.front();
    batch& bt = m_batches[b];
    const auto entry = m_table.find(bt.collective);  // present: batches wait for their MP
    const std::vector<membership_child>& kids = entry->second.children;
    const auto n = static_cast<uint32_t>(kids.size());
    if (n == 0) {  // nobody to send to: completion at once
      m_gen_queue.pop();
      complete(b);
      continue;
    }
    if (m_gen_child == 0) bt.copies_left = uint64_t{n} * bt.pkts.size();
    if (m_work_queue.size() >= m_params.work_queue_descriptors) return;  // dispatch wakes us
    m_generating = true;
    m_gen_free = after(m_params.descriptor_cycles);
    action a;
    a.kind = action_kind::generated;
    a.batch = b;
    a.child = kids[m_gen_child];
    m_agenda.push(m_gen_free, a);
    if (++m_gen_child == n) {
      m_gen_child = 0;
      m_gen_queue.pop();
    }
  }
}

void bcast_unit::on_generated(const descriptor& d) {
  m_generating = false;
  m_work_queue.push(d);
  ++descriptors;
  if (m_observer) m_observer->on_descriptor(*m_batches[d.batch].pkts.front(), d.child);
  if (m_work_queue.size() > work_queue_peak_descriptors.value)
    work_queue_peak_descriptors.value = m_work_queue.size();
}

bool bcast_unit::connected(const membership_child& c) const {
  for (const descriptor& d : m_sps) {
    if (d.child.dst == c.dst && d.child.unit_router == c.unit_router) return true;
  }
  return false;
}

// Steps 6-7: the Dispatcher sets up a connection for the Work Queue's head descriptor, one per
// dispatch_cycles: it succeeds when the Send Packet Scheduler has a free connection and the
// child has none open (a connection closes when its last packet starts building); else the
// descriptor waits (connection_wait_ps) and the ones behind it wait too.
void bcast_unit::dispatch() {
  const sc_time now = sc_core::sc_time_stamp();
  if (m_work_queue.empty() || now < m_disp_free) return;
  if (m_sps.size() + m_dispatching >= m_params.send_queue_descriptors ||
      connected(m_work_queue.front().child)) {
    if (!m_conn_waits) {
      m_conn_waits = true;
      m_conn_since = now;
    }
    return;  // a copy starting to build closes a connection and wakes us
  }
  if (m_conn_waits) {
    connection_wait_ps += (now - m_conn_since).value();
    m_conn_waits = false;
  }
  const descriptor d = m_work_queue.pop();
  ++m_dispatching;
  m_disp_free = after(m_params.dispatch_cycles);
  action a;
  a.kind = action_kind::dispatched;
  a.batch = d.batch;
  a.child = d.child;
  m_agenda.push(m_disp_free, a);
}

// Step 9: the Send Packet Scheduler builds one copy at a time (send_cycles); the SI injects it.
void bcast_unit::send() {
  inject();
  if (!m_building && !m_si_pkt && !m_sps.empty()) build();
}

void bcast_unit::build() {
  // Round-robin over the open connections, one per child: each child gets its batches in
  // the order they were dispatched.
  if (m_sps_rr >= m_sps.size()) m_sps_rr = 0;
  descriptor& d = m_sps[m_sps_rr];
  m_si_batch = d.batch;
  const packet* src = m_batches[d.batch].pkts[d.next];
  packet* p = m_pool.acquire();
  p->src = src->src;
  p->dst = d.child.dst;
  p->offload = to_unit(d.child.unit_router, packet_class::relayed);  // a tree edge: VC 1
  p->kind = src->kind;
  p->vc = 0;
  p->size_bytes = src->size_bytes;
  p->msg_id = src->msg_id;
  p->tag = src->tag;
  p->msg_seq = src->msg_seq;
  p->collective_id = src->collective_id;
  p->msg_bytes = src->msg_bytes;
  p->buf_offset = src->buf_offset;
  p->index = src->index;
  p->count = src->count;
  p->created = src->created;
  p->injected = src->injected;  // latency stays end to end, from the root's NIC
  p->routers = src->routers;
  if (m_routing)
    m_routing->init_state(m_terminal, d.child.dst,
                          network::packet_entropy(m_params.seed, m_terminal, m_next_packet++),
                          p->route);
  if (++d.next == m_batches[d.batch].pkts.size()) {
    m_sps.erase(m_sps.begin() + m_sps_rr);  // done: m_sps_rr now names the next one
  } else {
    ++m_sps_rr;
  }
  m_building = true;
  action a;
  a.kind = action_kind::built;
  a.pkt = p;
  m_agenda.push(after(m_params.send_cycles), a);
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
  packet* p = m_pool.acquire();
  p->src = m_terminal;
  p->dst = r.parent.dst;
  p->offload = to_unit(r.parent.unit_router, packet_class::credit);
  p->kind = tlm_net::packet_kind::control;
  p->vc = 0;
  p->size_bytes = bytes;
  p->msg_id = 0;
  p->tag = 0;
  p->msg_seq = 0;
  p->collective_id = r.collective;
  p->msg_bytes = bytes;
  p->buf_offset = 0;
  p->index = 0;
  p->count = r.packets;
  p->created = now;
  p->injected = now;
  p->tail_time = now;
  p->routers = 0;
  if (m_routing)
    m_routing->init_state(m_terminal, r.parent.dst,
                          network::packet_entropy(m_params.seed, m_terminal, m_next_packet++),
                          p->route);
  ++credit_returns;
  const sc_time t = m_out.send(out, *p, now);
  m_out.set_busy_until(edge(now + t));
  if (t > sc_core::SC_ZERO_TIME) m_agenda.push(m_out.busy_until(), action{});
  return true;
}

void bcast_unit::inject() {
  const sc_time now = sc_core::sc_time_stamp();
  if (!m_out.link_free(now)) return;
  if (!m_credit_out.empty()) {
    send_credit(now);
    return;  // the copy goes once the link is free again
  }
  if (!m_si_pkt) return;
  if (!m_out.has_credits(0, m_si_pkt->size_bytes, now)) {
    // Look again when the next credit is due; with none on its way, its return wakes us.
    const sc_time retry = m_out.credit_retry_time();
    if (retry != sc_core::sc_max_time()) m_agenda.push(retry, action{});
    return;
  }
  packet* p = m_si_pkt;
  m_si_pkt = nullptr;
  p->tail_time = now;  // the payload is in Working Memory
  ++packets_out;
  bytes_replicated += p->size_bytes;

  if (--m_batches[m_si_batch].copies_left == 0) complete(m_si_batch);

  const sc_time t = m_out.send(out, *p, now);
  m_out.set_busy_until(edge(now + t));  // the SI injects on clock edges
  if (t > sc_core::SC_ZERO_TIME) m_agenda.push(m_out.busy_until(), action{});
}

void bcast_unit::on_wakeup() {
  const sc_time now = sc_core::sc_time_stamp();
  while (m_agenda.due(now)) {
    const action a = m_agenda.pop();
    switch (a.kind) {
      case action_kind::assembled:
        m_ri.push_back(a.pkt);
        break;
      case action_kind::stored:
        store(a.pkt);
        break;
      case action_kind::generated:
        on_generated(descriptor{a.batch, a.child, 0});
        break;
      case action_kind::dispatched:
        --m_dispatching;
        m_sps.push_back(descriptor{a.batch, a.child, 0});
        if (m_observer) m_observer->on_dispatched(*m_batches[a.batch].pkts.front(), a.child);
        if (m_sps.size() > send_queue_peak_descriptors.value)
          send_queue_peak_descriptors.value = m_sps.size();
        break;
      case action_kind::built:
        m_building = false;
        m_si_pkt = a.pkt;
        break;
      case action_kind::wake:
        break;
    }
  }
  // Later stages first: memory released by a send is seen by the scheduler at once.
  send();
  dispatch();
  generate();
  move_ri();
  schedule();
  move_ri();  // into the slot the scheduler just freed
  m_agenda.arm();
  if (m_trace) sample_trace();
}

bool bcast_unit::idle() const {
  if (m_in_flight || !m_ri.empty() || m_building || m_si_pkt || !m_gen_queue.empty() ||
      m_generating || m_dispatching || !m_work_queue.empty() || !m_sps.empty() || m_memory_used ||
      !m_credit_out.empty() || !m_control.fifo.empty())
    return false;
  for (const rx_queue& q : m_rx)
    if (!q.fifo.empty()) return false;
  return true;
}

bool bcast_unit::describe_stall(std::ostream& os) const {
  if (idle()) return false;
  const sc_time now = sc_core::sc_time_stamp();
  os << "  " << name() << ": " << m_ri.size() << " packets held in the RI"
     << (m_ri_blocked ? " (blocked by a full queue)" : "") << ", Working Memory " << m_memory_used
     << "/" << m_params.working_memory_bytes << " bytes used, " << m_reserved << " reserved, "
     << m_gen_queue.size() << " batches for descriptors, " << m_work_queue.size()
     << " descriptors in the Work Queue, " << m_sps.size() << " dispatched, " << m_credit_out.size()
     << " credit returns to send; output credits " << m_out.credits(0, now) << "/"
     << m_params.output_buffer_bytes << " bytes" << (m_si_pkt ? ", a copy waits in the SI" : "")
     << "\n";
  const auto n = static_cast<uint32_t>(m_rx.size());
  for (uint32_t i = 0; i <= n; ++i) {
    const rx_queue& q = i < n ? m_rx[i] : m_control;
    if (q.fifo.empty()) continue;
    const packet& h = *q.fifo.front();
    if (i < n)
      os << "    Rx-queue " << i << (i < n / 2 ? " (hand-off)" : " (relayed)");
    else
      os << "    control queue";
    os << ": " << q.fifo.size() << " packets; head " << h << " collective " << h.collective_id
       << (q.stalled ? (m_table.count(h.collective_id)
                            ? " waits for its broadcast's reserved Working Memory"
                            : " waits for its Mini Packet")
                     : "")
       << (q.mp_waits ? " waits for a free Membership Table entry and its reservation" : "")
       << "\n";
  }
  for (const auto& [id, c] : m_collectives) {
    if (c.credit_wait.empty() && c.open.empty()) continue;
    os << "    collective " << id << ": " << c.open.size() << " packets in an open chunk, "
       << c.memory_bytes << " B stored";
    const auto e = m_table.find(id);
    if (e != m_table.end()) os << " of " << e->second.reserved_bytes << " B reserved";
    if (!c.credit_wait.empty()) {
      os << ", " << c.credit_wait.size() << " batches wait for credits at child units (";
      for (size_t k = 0; e != m_table.end() && k < e->second.children.size(); ++k) {
        if (e->second.children[k].unit_router == network::invalid_id) continue;
        os << " unit of router " << e->second.children[k].unit_router << ": "
           << e->second.credits[k];
      }
      os << " )";
    }
    os << "\n";
  }
  return true;
}

void bcast_unit::trace(const tlm_net::trace_window& window, const std::string& prefix) {
  m_trace = std::make_unique<trace_mirror>();
  m_trace->out_credit_bytes = m_out.capacity_bytes();
  m_trace->declare(window, prefix, "SystemC model");
}

void bcast_unit::sample_trace() {
  const sc_time now = sc_core::sc_time_stamp();
  if (!m_trace->window.active(now)) return;
  trace_mirror& m = *m_trace;
  uint32_t rx = 0;
  bool stall = false;
  for (const rx_queue& q : m_rx) {
    rx += q.fifo.size();
    stall |= q.stalled;
  }
  m.ri_packets = m_ri.size();
  m.ri_blocked = m_ri_blocked;
  m.rx_packets = rx;
  m.memory_stall = stall;
  m.membership_entries = static_cast<uint32_t>(m_table.size());
  m.memory_bytes = m_memory_used;
  m.gen_batches = m_gen_queue.size();
  m.work_queue = m_work_queue.size();
  m.send_queue = m_sps.size();
  m.si_ready = m_si_pkt != nullptr;
  m.out_credit_bytes = m_out.credits(0, now);
  m.link_busy = !m_out.link_free(now);
  m.packets_in = packets_in.value;
  m.packets_out = packets_out.value;
}

}  // namespace bcastsim::hw::ragasa
