#include "hw/lanai/nic.h"

#include "hw/lanai/gossip_state.h"

#include <cmath>
#include <ostream>

namespace bcastsim::hw::lanai {

using sc_core::sc_time;
using tlm_net::packet;

namespace {

// What a DMA is for: its id is (kind << 56) | index.
enum class dma_kind : uint8_t { send_event = 1, fragment, rx_data, rx_event, gossip };
constexpr uint64_t dma_id(dma_kind k, uint64_t index) {
  return uint64_t{static_cast<uint8_t>(k)} << 56 | index;
}
constexpr dma_kind kind_of(uint64_t id) {
  return static_cast<dma_kind>(id >> 56);
}
constexpr uint64_t index_of(uint64_t id) {
  return id & ((uint64_t{1} << 56) - 1);
}

}  // namespace

nic::nic(const sc_core::sc_module_name& name, network::terminal_id terminal,
         const nic_params& params, tlm_net::packet_pool& pool,
         const network::routing_policy& routing, uint32_t vcs, uint32_t inject_buffer_bytes,
         uint64_t seed)
    : hw::nic(name),
      m_terminal(terminal),
      m_params(params),
      m_pool(pool),
      m_routing(routing),
      m_vcs(vcs),
      m_seed(seed),
      m_agenda(m_wakeup) {
  pci_bus::check(params.pci);
  m_pci = std::make_unique<pci_bus>("pci", params.pci, *this);
  m_cycle_ps = 1e6 / params.clock_mhz;
  m_resend_ps = static_cast<uint64_t>(std::llround(params.resend_timeout_us * 1e6));
  m_send_buffers.resize(params.send_buffers);
  for (uint32_t i = params.send_buffers; i-- > 0;) m_free_send.push_back(i);
  m_free_recv_buffers = params.recv_buffers;
  m_recv_tokens = params.recv_tokens;
  m_inject.init(this->name(), vcs, inject_buffer_bytes);
  m_fw.bind_owner(this, 0);
  m_bw.bind_owner(this, 0);
  in.bind(m_fw);
  out.bind(m_bw);
  m_stats.declare("packets_injected", "packets", "packets injected", packets_injected);
  m_stats.declare("packets_delivered", "packets", "packets delivered here", packets_delivered);
  m_stats.declare("messages_sent", "messages", "host messages injected", messages_sent);
  m_stats.declare("messages_received", "messages", "host messages received", messages_received);
  m_stats.declare("latency_ps", "ps", "packet latency: head leaves the source NIC -> tail here",
                  latency_ps);
  m_stats.declare("routers", "routers", "routers on the delivered packet's path, each once",
                  routers);
  m_stats.declare("retransmissions", "packets", "packets sent again (GM resend, collective NACK)",
                  retransmissions);
  m_stats.declare("timeouts", "", "GM resend timers and collective NACK timers that fired",
                  timeouts);
  m_stats.declare("acks", "packets", "GM ACKs sent", acks);
  m_stats.declare("nacks", "packets", "NACKs sent (GM gaps, collective)", nacks);
  m_stats.declare("duplicates", "packets", "packets dropped as already held", duplicates);
  m_stats.declare("forwards", "packets", "NIC-CB packets sent on from a receive buffer", forwards);
  m_stats.declare("cpu_busy_ps", "ps", "time the LANai was busy", cpu_busy_ps);
  m_stats.declare("send_token_waits", "messages",
                  "host messages that waited in the host library for a GM send token",
                  send_token_waits);
  m_stats.declare("recv_token_drops", "packets",
                  "packets dropped unacknowledged for want of a GM receive token",
                  recv_token_drops);
  m_stats.declare("rx_wait_peak", "packets", "most packets waiting for a receive buffer",
                  rx_wait_peak, tlm_net::combine::max);
  SC_METHOD(on_wakeup);
  sensitive << m_wakeup << m_timer;
  dont_initialize();
}

nic::~nic() = default;

uint64_t nic::dma_id_gossip(uint64_t index) {
  return dma_id(dma_kind::gossip, index);
}

sc_time nic::cycles(uint32_t n) const {
  return sc_time::from_value(static_cast<uint64_t>(std::llround(n * m_cycle_ps)));
}

// --- the LANai ---

void nic::post(task_kind k, uint32_t a, uint64_t b, packet* p) {
  m_tasks.push(task{k, a, b, p});
  if (!m_cpu_busy) run_cpu();
}

void nic::run_cpu() {
  if (m_cpu_busy || m_tasks.empty()) return;
  m_current = m_tasks.pop();
  uint32_t n = m_params.packet_cycles;
  switch (m_current.kind) {
    case task_kind::send_event:
      n = m_params.event_cycles;
      break;
    case task_kind::send_ack:
      n = m_params.ack_cycles;
      break;
    case task_kind::receive: {
      const packet_type t = m_current.pkt->offload.as<packet_fields>().type;
      if (t == packet_type::gm_ack || t == packet_type::gm_nack || t == packet_type::coll_nack)
        n = m_params.ack_cycles;
      break;
    }
    case task_kind::gossip:
      n = static_cast<uint32_t>(m_current.b >> 32);  // the collective gives its own cost
      break;
    default:
      break;
  }
  m_cpu_busy = true;
  const sc_time d = cycles(n);
  cpu_busy_ps += d.value();
  action a;
  a.kind = action_kind::cpu_done;
  m_agenda.push(sc_core::sc_time_stamp() + d, a);
}

void nic::finish_task(const task& t) {
  switch (t.kind) {
    case task_kind::send_event:
      for (uint32_t i = 0; i < m_events.size(); ++i) {
        if (m_events.at(i).id == t.b) m_events.at(i).posted = true;
      }
      fetch_fragments();
      break;
    case task_kind::build_packet: {
      send_buffer& sb = m_send_buffers[t.a];
      sb.w.fields.seq = conn(sb.w.dst).tx.post(t.a);
      sb.w.buffer = t.a;
      if (sb.w.index == 0) ++messages_sent;  // once: not again when resent
      ++sb.queued;
      queue_wire(sb.w);
      arm_timer();
      break;
    }
    case task_kind::resend:
      ++retransmissions;
      m_send_buffers[t.a].w.fields.seq = static_cast<uint16_t>(t.b);
      queue_wire(m_send_buffers[t.a].w);  // still counted in `queued` until injected
      break;
    case task_kind::send_ack: {
      wire w;
      w.dst = t.a;
      w.kind = tlm_net::packet_kind::control;
      w.fields.type = (t.b >> 16) ? packet_type::gm_nack : packet_type::gm_ack;
      w.fields.seq = static_cast<uint16_t>(t.b);
      w.created = sc_core::sc_time_stamp();
      w.msg_id = m_next_wire_msg++;
      w.count = 1;
      (w.fields.type == packet_type::gm_ack ? acks : nacks) += 1;
      queue_wire(w);
      break;
    }
    case task_kind::receive:
      receive(t.pkt);
      break;
    case task_kind::gossip:
      gossip_task(t);
      break;
  }
}

// --- host sends ---

void nic::send_message(const message& m) {
  if (m_events.size() >= m_params.send_tokens) {
    ++send_token_waits;
    m_token_wait.push(m);
    return;
  }
  post_send_event(m);
}

// The message has a send token: its send event goes to the NIC.
void nic::post_send_event(const message& m) {
  outgoing o;
  o.msg = m;
  o.id = m_next_msg++;
  const uint64_t n = m.bytes == 0 ? 1 : (m.bytes + m_params.mtu_bytes - 1) / m_params.mtu_bytes;
  if (n > 0xfffff) SC_REPORT_ERROR(name(), "a message of more than 2^20 GM packets");
  o.count = static_cast<uint32_t>(n);
  o.unacked = o.count;
  o.queued = sc_core::sc_time_stamp();
  m_events.push(o);
  m_pci->dma(pci_direction::to_nic, m_params.event_bytes, dma_id(dma_kind::send_event, o.id));
}

// Fragments of the posted messages, in order, into free send buffers (a DMA each).
void nic::fetch_fragments() {
  for (uint32_t i = 0; i < m_events.size() && !m_free_send.empty(); ++i) {
    outgoing& o = m_events.at(i);
    if (!o.posted) break;  // the LANai takes events in order
    while (o.next < o.count && !m_free_send.empty()) {
      const uint32_t b = m_free_send.back();
      m_free_send.pop_back();
      const uint64_t offset = uint64_t{o.next} * m_params.mtu_bytes;
      const uint64_t left = o.msg.bytes - offset;
      wire& w = m_send_buffers[b].w;
      m_send_buffers[b].message = o.id;
      w = wire{};
      w.dst = o.msg.dst;
      w.kind = o.msg.kind;
      w.fields.type = packet_type::gm_data;
      w.payload = static_cast<uint32_t>(left < m_params.mtu_bytes ? left : m_params.mtu_bytes);
      w.msg_id = o.id;
      w.tag = o.msg.tag;
      w.msg_seq = o.msg.seq;
      w.collective_id = o.msg.collective_id;
      w.index = o.next++;
      w.count = o.count;
      w.msg_bytes = o.msg.bytes;
      w.buf_offset = o.msg.buf_offset;
      w.created = o.queued;
      m_pci->dma(pci_direction::to_nic, w.payload, dma_id(dma_kind::fragment, b));
    }
  }
}

nic::connection& nic::conn(network::terminal_id peer) {
  return m_conns[peer];
}

void nic::on_ack(const packet& p, bool nack) {
  connection& c = conn(p.src);
  const uint16_t seq = p.offload.as<packet_fields>().seq;
  const std::vector<uint64_t> acked = c.tx.ack(nack ? static_cast<uint16_t>(seq - 1) : seq);
  for (const uint64_t b : acked) {
    const uint64_t msg = m_send_buffers[b].message;
    for (uint32_t i = 0; i < m_events.size(); ++i) {
      if (m_events.at(i).id == msg) --m_events.at(i).unacked;
    }
    // A buffer is reused only once no copy of its packet waits to leave it.
    if (m_send_buffers[b].queued == 0)
      m_free_send.push_back(static_cast<uint32_t>(b));
    else
      m_send_buffers[b].acked = true;
  }
  // Messages all acknowledged leave the queue in order (GM returns the send token).
  while (!m_events.empty() && m_events.front().unacked == 0) {
    m_events.pop();
    if (!m_token_wait.empty()) post_send_event(m_token_wait.pop());
  }
  if (nack) resend(c.tx.nack(seq));
  fetch_fragments();
  arm_timer();
}

void nic::resend(const std::vector<send_record>& records) {
  for (const send_record& r : records) {
    send_buffer& b = m_send_buffers[r.packet];
    if (b.queued > 0) continue;  // its last copy has not left yet
    ++b.queued;
    post(task_kind::resend, static_cast<uint32_t>(r.packet), r.seq);
  }
}

// --- the network ---

void nic::queue_wire(const wire& w) {
  m_out.push(w);
  inject();
}

void nic::inject() {
  const sc_time now = sc_core::sc_time_stamp();
  while (!m_out.empty() && m_inject.link_free(now)) {
    const wire& w = m_out.front();
    const uint32_t bytes = w.payload + m_params.header_bytes;
    const uint32_t size = bytes == 0 ? 1 : bytes;
    if (!m_inject.has_credits(0, size, now)) {
      const sc_time retry = m_inject.credit_retry_time();
      if (retry != sc_core::sc_max_time()) m_agenda.push(retry, action{});
      return;
    }
    packet* p = m_pool.acquire();
    p->src = m_terminal;
    p->dst = w.dst;
    p->kind = w.kind;
    p->offload = tlm_net::family_header::of(family_id, w.fields);
    p->vc = 0;
    p->size_bytes = size;
    p->msg_id = w.msg_id;
    p->tag = w.tag;
    p->msg_seq = w.msg_seq;
    p->collective_id = w.collective_id;
    p->msg_bytes = w.msg_bytes;
    p->buf_offset = w.buf_offset;
    p->index = w.index;
    p->count = w.count;
    p->created = w.created;
    p->injected = now;
    p->tail_time = now;
    m_routing.init_state(m_terminal, w.dst,
                         network::packet_entropy(m_seed, m_terminal, m_next_packet++), p->route);
    ++packets_injected;
    if (w.fields.type == packet_type::gm_data) {  // its resend timer starts as it leaves
      gm_sender& tx = conn(w.dst).tx;
      tx.sent(w.fields.seq, now.value(), m_resend_ps);
      if (sc_time::from_value(tx.next_resend_ps()) < m_timer_at) arm_timer();
    }
    if (w.fields.type == packet_type::coll_nack || w.resend) gossip_injected(w);
    if (w.buffer < m_send_buffers.size()) {
      send_buffer& b = m_send_buffers[w.buffer];
      if (--b.queued == 0 && b.acked) {
        b.acked = false;
        m_free_send.push_back(w.buffer);
        fetch_fragments();  // touches neither m_out nor `w`
      }
    }
    m_out.pop();
    m_inject.send(out, *p, now);
    m_agenda.push(m_inject.busy_until(), action{});
  }
}

tlm::tlm_sync_enum nic::nb_transport_fw(uint32_t, packet& p, tlm::tlm_phase& ph, sc_time&) {
  if (ph != tlm::BEGIN_REQ || p.vc >= m_vcs) {
    SC_REPORT_ERROR(name(), "unexpected phase or VC on the ejection port");
    return tlm::TLM_COMPLETED;
  }
  if (p.dst != m_terminal) SC_REPORT_ERROR(name(), "packet delivered to the wrong terminal");
  action a;
  a.kind = action_kind::tail;
  a.pkt = &p;
  m_agenda.push(p.tail_time, a);
  return tlm::TLM_ACCEPTED;
}

tlm::tlm_sync_enum nic::nb_transport_bw(uint32_t, packet& p, tlm::tlm_phase& ph, sc_time& t) {
  if (ph != tlm_net::CREDIT) {
    SC_REPORT_ERROR(name(), "unexpected phase on the injection port");
    return tlm::TLM_COMPLETED;
  }
  const sc_time when = sc_core::sc_time_stamp() + t;
  if (m_inject.on_credit(when, p.vc, p.size_bytes) || m_trace) m_agenda.push(when, action{});
  return tlm::TLM_ACCEPTED;
}

// Arrived packets into free receive buffers; each one's credit goes back to the switch then.
void nic::take_arrivals() {
  const sc_time now = sc_core::sc_time_stamp();
  while (!m_rx_wait.empty() && m_free_recv_buffers > 0) {
    packet* p = m_rx_wait.pop();
    --m_free_recv_buffers;
    tlm_net::return_credit(in, m_credit_token, p->vc, p->size_bytes);
    ++packets_delivered;
    latency_ps.sample(static_cast<double>((now - p->injected).value()));
    routers.sample(p->routers);
    post(task_kind::receive, 0, 0, p);
  }
}

void nic::release_rx(packet* p) {
  m_pool.release(p);
  ++m_free_recv_buffers;
  take_arrivals();
}

void nic::receive(packet* p) {
  const packet_fields f = p->offload.as<packet_fields>();
  switch (f.type) {
    case packet_type::gm_data:
      receive_gm(p);
      return;
    case packet_type::gm_ack:
    case packet_type::gm_nack:
      on_ack(*p, f.type == packet_type::gm_nack);
      release_rx(p);
      return;
    default:
      gossip_receive(p);
      return;
  }
}

void nic::receive_gm(packet* p) {
  const packet_fields f = p->offload.as<packet_fields>();
  connection& c = conn(p->src);
  if (p->index == 0 && f.seq == c.rx.expected() && m_recv_tokens == 0) {
    // No host buffer to receive the message into: GM takes no packet of it, and the
    // sender's timeout sends it again.
    ++recv_token_drops;
    release_rx(p);
    return;
  }
  switch (c.rx.receive(f.seq)) {
    case gm_receiver::verdict::deliver: {
      uint32_t slot;
      if (!m_free_rx_dmas.empty()) {
        slot = m_free_rx_dmas.back();
        m_free_rx_dmas.pop_back();
      } else {
        slot = static_cast<uint32_t>(m_rx_dmas.size());
        m_rx_dmas.emplace_back();
      }
      if (p->index == 0) --m_recv_tokens;
      // Only host data taken in sequence is the client's packet: not ACKs, duplicates, packets
      // dropped for want of a token, nor the collective's packets.
      if (m_client) m_client->on_packet(*p);
      const uint32_t payload = p->size_bytes - m_params.header_bytes;
      m_rx_dmas[slot] =
          rx_dma{p->src,       p->msg_id,     payload, p->collective_id, p->tag, p->msg_seq,
                 p->msg_bytes, p->buf_offset, false};
      // The packet stays in its receive buffer until its DMA to the host is done.
      m_rx_dmas[slot].event = false;
      m_pool.release(p);
      m_pci->dma(pci_direction::to_host, payload, dma_id(dma_kind::rx_data, slot));
      post(task_kind::send_ack, m_rx_dmas[slot].src, f.seq);
      return;
    }
    case gm_receiver::verdict::duplicate:
      ++duplicates;
      post(task_kind::send_ack, p->src, c.rx.last_delivered());
      break;
    case gm_receiver::verdict::gap:
      post(task_kind::send_ack, p->src, uint64_t{1} << 16 | c.rx.expected());
      break;
    case gm_receiver::verdict::gap_again:
      break;
  }
  release_rx(p);
}

void nic::on_dma_done(pci_direction d, uint64_t id) {
  const uint64_t i = index_of(id);
  switch (kind_of(id)) {
    case dma_kind::send_event:
      post(task_kind::send_event, 0, i);
      break;
    case dma_kind::fragment:
      post(task_kind::build_packet, static_cast<uint32_t>(i));
      break;
    case dma_kind::rx_data:
      ++m_free_recv_buffers;  // its data is in host memory now
      take_arrivals();
      deliver_message(i);
      break;
    case dma_kind::rx_event: {
      const rx_dma r = m_rx_dmas[i];
      m_free_rx_dmas.push_back(static_cast<uint32_t>(i));
      ++m_recv_tokens;  // the host takes the event and provides the buffer again
      ++messages_received;
      if (m_client)
        m_client->on_message(r.src, r.collective_id, r.tag, r.buf_offset, r.msg_bytes, r.msg_seq);
      break;
    }
    case dma_kind::gossip:
      gossip_dma_done(d, i);
      break;
  }
  if (m_trace) sample_trace();
}

// Received GM data is in host memory: the message's last fragment brings a receive event.
void nic::deliver_message(uint64_t slot) {
  rx_dma& r = m_rx_dmas[slot];
  size_t k = 0;
  while (k < m_partial.size() && !(m_partial[k].src == r.src && m_partial[k].msg_id == r.msg_id))
    ++k;
  if (k == m_partial.size()) m_partial.push_back(partial{r.src, r.msg_id, 0});
  m_partial[k].received += r.msg_bytes == 0 ? 0 : r.payload;
  if (m_partial[k].received < r.msg_bytes) {
    m_free_rx_dmas.push_back(static_cast<uint32_t>(slot));
    return;
  }
  m_partial[k] = m_partial.back();
  m_partial.pop_back();
  r.event = true;
  m_pci->dma(pci_direction::to_host, m_params.event_bytes, dma_id(dma_kind::rx_event, slot));
}

// --- time ---

void nic::arm_timer() {
  sc_time at = sc_core::sc_max_time();
  for (const auto& [peer, c] : m_conns) {
    const uint64_t r = c.tx.next_resend_ps();
    if (c.tx.outstanding() > 0 && sc_time::from_value(r) < at) at = sc_time::from_value(r);
  }
  const sc_time g = gossip_deadline();
  if (g < at) at = g;
  if (at == m_timer_at) return;
  m_timer_at = at;
  m_timer.cancel();
  if (at == sc_core::sc_max_time()) return;
  const sc_time now = sc_core::sc_time_stamp();
  m_timer.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
}

void nic::on_timer() {
  const sc_time now = sc_core::sc_time_stamp();
  m_timer_at = sc_core::sc_max_time();
  for (auto& [peer, c] : m_conns) {
    const std::vector<send_record> due = c.tx.expire(now.value());
    if (due.empty()) continue;
    ++timeouts;
    resend(due);
  }
  gossip_timer(now);
  arm_timer();
}

void nic::on_wakeup() {
  const sc_time now = sc_core::sc_time_stamp();
  if (m_timer_at <= now) on_timer();
  while (m_agenda.due(now)) {
    const action a = m_agenda.pop();
    if (a.kind == action_kind::tail) {
      m_rx_wait.push(a.pkt);
      if (m_rx_wait.size() > rx_wait_peak.value) rx_wait_peak.value = m_rx_wait.size();
      take_arrivals();
    } else if (a.kind == action_kind::cpu_done) {
      m_cpu_busy = false;
      const task t = m_current;
      finish_task(t);
      run_cpu();
    }
  }
  inject();
  m_agenda.arm();
  if (m_trace) sample_trace();
}

}  // namespace bcastsim::hw::lanai
