#include "hw/ragasa/bcast_unit.h"

#include <algorithm>
#include <ostream>

namespace bcastsim::hw::ragasa {

using sc_core::sc_time;
using tlm_net::packet;

struct bcast_unit::trace_mirror {
  tlm_net::trace_window window;
  uint32_t rx_packets = 0;  // all Rx-queues
  uint64_t memory_bytes = 0;
  uint32_t work_queue = 0;
  uint32_t out_credit_bytes = 0;
  uint64_t packets_in = 0;
  uint64_t packets_out = 0;
  bool link_busy = false;
};

bcast_unit::bcast_unit(const sc_core::sc_module_name& name, network::terminal_id terminal,
                       const bcast_unit_params& params, tlm_net::packet_pool& pool,
                       const membership_source& membership, const network::routing_policy* routing)
    : sc_core::sc_module(name),
      in("in"),
      out("out"),
      m_terminal(terminal),
      m_params(params),
      m_pool(pool),
      m_source(membership),
      m_routing(routing),
      m_period(sc_time::from_value(static_cast<sc_dt::uint64>(1e6 / params.clock_mhz + 0.5))),
      m_in_bytes(params.vcs, 0),
      m_rx(params.rx_queues),
      m_out_credits(params.output_buffer_bytes),
      m_agenda(m_wakeup) {
  if (params.rx_queues == 0 || params.rx_queue_packets == 0)
    SC_REPORT_ERROR(this->name(), "rx_queues and rx_queue_packets must be positive");
  m_fw.bind_owner(this, 0);
  m_bw.bind_owner(this, 0);
  in.bind(m_fw);
  out.bind(m_bw);
  m_stats.declare("packets_in", "packets", "packets received from the router", packets_in);
  m_stats.declare("packets_out", "packets", "copies sent back into the router", packets_out);
  m_stats.declare("mini_packets", "packets", "Mini Packets parsed into the Membership Table",
                  mini_packets);
  m_stats.declare("descriptors", "descriptors", "descriptors generated (one per child)",
                  descriptors);
  m_stats.declare("bytes_replicated", "bytes", "bytes of the copies sent", bytes_replicated);
  m_stats.declare("rx_queue_peak_packets", "packets", "high-water mark of one Rx-queue",
                  rx_queue_peak_packets);
  m_stats.declare("working_memory_peak_bytes", "bytes", "high-water mark of Working Memory",
                  working_memory_peak_bytes);
  m_stats.declare("memory_stall_ps", "ps", "time head data packets waited for Working Memory",
                  memory_stall_ps);
  m_stats.declare("hol_blocked_ps", "ps", "time the RI was blocked by a full Rx-queue",
                  hol_blocked_ps);
  SC_METHOD(on_wakeup);
  sensitive << m_wakeup;
  dont_initialize();
}

bcast_unit::~bcast_unit() = default;

sc_time bcast_unit::after(uint32_t cycles) const {
  const sc_dt::uint64 period = m_period.value();
  const sc_dt::uint64 edge = (sc_core::sc_time_stamp().value() + period - 1) / period * period;
  return sc_time::from_value(edge) + m_period * cycles;
}

const std::vector<membership_child>* bcast_unit::children(uint32_t collective_id) const {
  const auto it = m_table.find(collective_id);
  return it == m_table.end() ? nullptr : &it->second;
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
  if (p.kind == tlm_net::packet_kind::control && !m_source.find(p.collective_id))
    SC_REPORT_ERROR(name(), "Mini Packet for a collective the membership source does not know");
  ++packets_in;
  ++m_in_flight;
  // The RI assembles the packet once its tail is in.
  const sc_time now = sc_core::sc_time_stamp();
  const sc_dt::uint64 period = m_period.value();
  const sc_time tail = p.tail_time > now ? p.tail_time : now;
  const sc_time edge = sc_time::from_value((tail.value() + period - 1) / period * period);
  action a;
  a.kind = action_kind::assembled;
  a.pkt = &p;
  m_agenda.push(edge + m_period * m_params.ri_cycles, a);
  return tlm::TLM_ACCEPTED;
}

tlm::tlm_sync_enum bcast_unit::nb_transport_bw(uint32_t, packet& p, tlm::tlm_phase& ph,
                                               sc_time& t) {
  if (ph != tlm_net::CREDIT) {
    SC_REPORT_ERROR(name(), "unexpected phase on the output port");
    return tlm::TLM_COMPLETED;
  }
  action a;
  a.kind = action_kind::credit;
  a.vc = p.vc;
  a.bytes = p.size_bytes;
  m_agenda.push(sc_core::sc_time_stamp() + t, a);
  return tlm::TLM_ACCEPTED;
}

// Step 1: RI -> Rx-queue, in arrival order; a full Rx-queue blocks the RI.
void bcast_unit::move_ri() {
  const sc_time now = sc_core::sc_time_stamp();
  while (!m_ri.empty()) {
    rx_queue& q = m_rx[m_ri.front()->collective_id % m_params.rx_queues];
    if (q.fifo.size() >= m_params.rx_queue_packets) {
      if (!m_ri_blocked) {
        m_ri_blocked = true;
        m_ri_blocked_since = now;
      }
      return;  // the scheduler's next pick frees a slot and wakes us
    }
    if (m_ri_blocked) {
      hol_blocked_ps += (now - m_ri_blocked_since).value();
      m_ri_blocked = false;
    }
    q.fifo.push(m_ri.pop());
    --m_in_flight;
    if (q.fifo.size() > rx_queue_peak_packets.value) rx_queue_peak_packets.value = q.fifo.size();
  }
}

bool bcast_unit::head_can_go(rx_queue& q, const sc_time& now) {
  const packet* h = q.fifo.front();
  if (h->kind == tlm_net::packet_kind::control)
    return m_table.count(h->collective_id) || m_table.size() < m_params.membership_entries;
  if (m_memory_used + h->size_bytes <= m_params.working_memory_bytes) return true;
  if (!q.stalled) {
    q.stalled = true;
    q.stall_since = now;
  }
  return false;
}

// Step 2: one packet per scheduler_cycles, round-robin over the Rx-queues whose head can go.
void bcast_unit::schedule() {
  const sc_time now = sc_core::sc_time_stamp();
  if (now < m_sched_free) return;  // its `stored` action wakes us
  const uint32_t n = m_params.rx_queues;
  bool memory_short = false;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t qi = (m_rr + k) % n;
    rx_queue& q = m_rx[qi];
    if (q.fifo.empty()) continue;
    if (!head_can_go(q, now)) {
      memory_short |= q.fifo.front()->kind == tlm_net::packet_kind::data;
      continue;
    }
    packet* p = q.fifo.pop();
    if (q.stalled) {
      memory_stall_ps += (now - q.stall_since).value();
      q.stalled = false;
    }
    if (p->kind == tlm_net::packet_kind::data) {  // reserve its memory now
      m_memory_used += p->size_bytes;
      m_collectives[p->collective_id].memory_bytes += p->size_bytes;
      if (m_memory_used > working_memory_peak_bytes.value)
        working_memory_peak_bytes.value = m_memory_used;
    }
    ++m_in_flight;
    m_rr = (qi + 1) % n;
    m_sched_free = after(m_params.scheduler_cycles);
    action a;
    a.kind = action_kind::stored;
    a.pkt = p;
    m_agenda.push(m_sched_free, a);
    return;
  }
  if (!memory_short) return;
  // Memory is short: partial chunks must go out, or the memory they hold never frees.
  bool closed = false;
  for (auto& [id, c] : m_collectives) {
    if (c.open.empty()) continue;
    close_chunk(id);
    closed = true;
  }
  if (closed) m_agenda.push(now, action{});  // descriptor generation runs before us
}

// Steps 3-4: the packet leaves the scheduler; its input buffer space goes back upstream.
void bcast_unit::store(packet* p) {
  --m_in_flight;
  m_in_bytes[p->vc] -= p->size_bytes;
  m_credit_token.vc = p->vc;
  m_credit_token.size_bytes = p->size_bytes;
  tlm::tlm_phase cph = tlm_net::CREDIT;
  sc_time ct = sc_core::SC_ZERO_TIME;
  in->nb_transport_bw(m_credit_token, cph, ct);

  const uint32_t id = p->collective_id;
  if (p->kind == tlm_net::packet_kind::control) {  // Mini Packet: parse the child list
    ++mini_packets;
    m_table[id] = *m_source.find(id);
    m_pool.release(p);
    auto it = m_collectives.find(id);
    if (it != m_collectives.end()) {
      for (uint32_t b : it->second.waiting) m_gen_queue.push(b);
      it->second.waiting.clear();
    }
    return;
  }
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
  if (m_table.count(collective))
    m_gen_queue.push(b);
  else
    c.waiting.push_back(b);  // its Mini Packet has not been parsed yet
}

// Step 5: one batch per descriptor_cycles.
void bcast_unit::generate() {
  if (m_gen_queue.empty() || sc_core::sc_time_stamp() < m_gen_free) return;
  m_gen_free = after(m_params.descriptor_cycles);
  action a;
  a.kind = action_kind::generated;
  a.batch = m_gen_queue.pop();
  m_agenda.push(m_gen_free, a);
}

void bcast_unit::on_generated(uint32_t b) {
  batch& bt = m_batches[b];
  const std::vector<membership_child>& kids = m_table[bt.collective];
  if (kids.empty()) {  // nobody to send to: completion at once
    collective_state& c = m_collectives[bt.collective];
    for (packet* p : bt.pkts) {
      m_memory_used -= p->size_bytes;
      c.memory_bytes -= p->size_bytes;
      m_pool.release(p);
    }
    bt.pkts.clear();
    m_free_batches.push_back(b);
    return;
  }
  const auto n = static_cast<uint32_t>(kids.size());
  bt.remaining.assign(bt.pkts.size(), n);
  bt.descriptors_left = n;
  for (const membership_child& child : kids) {
    m_work_queue.push(descriptor{b, child.terminal});
    ++descriptors;
  }
}

// Steps 6-7: one descriptor per dispatch_cycles.
void bcast_unit::dispatch() {
  if (m_work_queue.empty() || sc_core::sc_time_stamp() < m_disp_free) return;
  const descriptor d = m_work_queue.pop();
  m_disp_free = after(m_params.dispatch_cycles);
  action a;
  a.kind = action_kind::dispatched;
  a.batch = d.batch;
  a.dst = d.dst;
  m_agenda.push(m_disp_free, a);
}

// Step 9: the Send Packet Scheduler builds one copy at a time (send_cycles); the SI injects it.
void bcast_unit::send() {
  inject();
  if (!m_building && !m_si_pkt && !m_sps.empty()) build();
}

void bcast_unit::build() {
  const descriptor& d = m_sps.front();
  const packet* src = m_batches[d.batch].pkts[m_sps_index];
  packet* p = m_pool.acquire();
  p->src = src->src;
  p->dst = d.dst;
  p->kind = src->kind;
  p->vc = 0;
  p->size_bytes = src->size_bytes;
  p->msg_id = src->msg_id;
  p->tag = src->tag;
  p->collective_id = src->collective_id;
  p->msg_bytes = src->msg_bytes;
  p->buf_offset = src->buf_offset;
  p->index = src->index;
  p->count = src->count;
  p->created = src->created;
  p->injected = src->injected;  // latency stays end to end, from the root's NIC
  p->routers = src->routers;
  if (m_routing)
    m_routing->init_state(m_terminal, d.dst,
                          network::packet_entropy(m_params.seed, m_terminal, m_next_packet++),
                          p->route);
  m_building = true;
  action a;
  a.kind = action_kind::built;
  a.pkt = p;
  m_agenda.push(after(m_params.send_cycles), a);
}

void bcast_unit::inject() {
  const sc_time now = sc_core::sc_time_stamp();
  if (!m_si_pkt || m_link_free > now || m_out_credits < m_si_pkt->size_bytes) return;
  packet* p = m_si_pkt;
  m_si_pkt = nullptr;
  m_out_credits -= p->size_bytes;
  p->tail_time = now;  // the payload is in Working Memory
  ++packets_out;
  bytes_replicated += p->size_bytes;

  // Step 10: the stored packet's memory goes when its last child has it.
  batch& bt = m_batches[m_sps.front().batch];
  if (--bt.remaining[m_sps_index] == 0) {
    packet* stored = bt.pkts[m_sps_index];
    m_memory_used -= stored->size_bytes;
    m_collectives[bt.collective].memory_bytes -= stored->size_bytes;
    m_pool.release(stored);
  }
  if (++m_sps_index == bt.pkts.size()) {
    m_sps_index = 0;
    const uint32_t b = m_sps.pop().batch;
    if (--m_batches[b].descriptors_left == 0) {
      m_batches[b].pkts.clear();
      m_free_batches.push_back(b);
    }
  }

  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time t = sc_core::SC_ZERO_TIME;
  out->nb_transport_fw(*p, ph, t);
  m_link_free = now + t;
  if (t > sc_core::SC_ZERO_TIME) m_agenda.push(m_link_free, action{});
}

void bcast_unit::on_wakeup() {
  const sc_time now = sc_core::sc_time_stamp();
  while (m_agenda.due(now)) {
    const action a = m_agenda.pop();
    switch (a.kind) {
      case action_kind::assembled:
        m_ri.push(a.pkt);
        break;
      case action_kind::stored:
        store(a.pkt);
        break;
      case action_kind::generated:
        on_generated(a.batch);
        break;
      case action_kind::dispatched:
        m_sps.push(descriptor{a.batch, a.dst});
        break;
      case action_kind::built:
        m_building = false;
        m_si_pkt = a.pkt;
        break;
      case action_kind::credit:
        m_out_credits += a.bytes;
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
      !m_work_queue.empty() || !m_sps.empty() || m_memory_used)
    return false;
  for (const rx_queue& q : m_rx)
    if (!q.fifo.empty()) return false;
  return true;
}

bool bcast_unit::describe_stall(std::ostream& os) const {
  if (idle()) return false;
  os << "  " << name() << ": " << m_ri.size() << " packets held in the RI"
     << (m_ri_blocked ? " (blocked by a full Rx-queue)" : "") << ", Working Memory "
     << m_memory_used << "/" << m_params.working_memory_bytes << " bytes, " << m_gen_queue.size()
     << " batches for descriptors, " << m_work_queue.size() << " descriptors in the Work Queue, "
     << m_sps.size() << " dispatched; output credits " << m_out_credits << "/"
     << m_params.output_buffer_bytes << " bytes" << (m_si_pkt ? ", a copy waits in the SI" : "")
     << "\n";
  for (uint32_t i = 0; i < m_rx.size(); ++i) {
    const rx_queue& q = m_rx[i];
    if (q.fifo.empty()) continue;
    os << "    Rx-queue " << i << ": " << q.fifo.size() << " packets; head " << *q.fifo.front()
       << " collective " << q.fifo.front()->collective_id
       << (q.stalled ? " waits for Working Memory" : "") << "\n";
  }
  for (const auto& [id, c] : m_collectives) {
    if (c.waiting.empty() && c.open.empty()) continue;
    os << "    collective " << id << ": " << c.open.size() << " packets in an open chunk, "
       << c.waiting.size() << " batches wait for its Mini Packet\n";
  }
  return true;
}

void bcast_unit::trace(const tlm_net::trace_window& window, const std::string& prefix) {
  m_trace = std::make_unique<trace_mirror>();
  m_trace->window = window;
  m_trace->out_credit_bytes = m_out_credits;
  sc_core::sc_trace(window.file, m_trace->rx_packets, prefix + ".rx_queues.packets");
  sc_core::sc_trace(window.file, m_trace->memory_bytes, prefix + ".working_memory.bytes");
  sc_core::sc_trace(window.file, m_trace->work_queue, prefix + ".work_queue.descriptors");
  sc_core::sc_trace(window.file, m_trace->out_credit_bytes, prefix + ".out.vc0.credit_bytes");
  sc_core::sc_trace(window.file, m_trace->link_busy, prefix + ".out.busy");
  sc_core::sc_trace(window.file, m_trace->packets_in, prefix + ".packets_in");
  sc_core::sc_trace(window.file, m_trace->packets_out, prefix + ".packets_out");
}

void bcast_unit::sample_trace() {
  const sc_time now = sc_core::sc_time_stamp();
  if (!m_trace->window.active(now)) return;
  uint32_t rx = 0;
  for (const rx_queue& q : m_rx) rx += q.fifo.size();
  m_trace->rx_packets = rx;
  m_trace->memory_bytes = m_memory_used;
  m_trace->work_queue = m_work_queue.size();
  m_trace->out_credit_bytes = m_out_credits;
  m_trace->link_busy = m_link_free > now;
  m_trace->packets_in = packets_in.value;
  m_trace->packets_out = packets_out.value;
}

}  // namespace bcastsim::hw::ragasa
