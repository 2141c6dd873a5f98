#include "hw/nic/host_nic.h"

#include "tlm/units.h"

#include <cmath>
#include <cstdint>
#include <ostream>

namespace bcastsim::hw {

using sc_core::sc_time;
using tlm_net::packet;

struct host_nic::trace_mirror {
  tlm_net::trace_window window;
  uint32_t queued_messages = 0;
  uint32_t inject_credit_bytes = 0;  // VC 0
  uint32_t eject_bytes = 0;          // all VCs
  uint64_t injected = 0;
  uint64_t delivered = 0;
  bool link_busy = false;
};

host_nic::host_nic(const sc_core::sc_module_name& name, network::terminal_id terminal,
                   const nic_params& params, tlm_net::packet_pool& pool,
                   const network::routing_policy& routing)
    : nic(name),
      m_terminal(terminal),
      m_params(params),
      m_pool(pool),
      m_routing(routing),
      m_eject_bytes(params.vcs, 0),
      m_agenda(m_wakeup) {
  m_inject.init(this->name(), params.vcs, params.inject_buffer_bytes);
  m_fw.bind_owner(this, 0);
  m_bw.bind_owner(this, 0);
  in.bind(m_fw);
  out.bind(m_bw);
  m_stats.declare("packets_injected", "packets", "packets injected", packets_injected);
  m_stats.declare("packets_delivered", "packets", "packets delivered here", packets_delivered);
  m_stats.declare("messages_sent", "messages", "messages injected", messages_sent);
  m_stats.declare("messages_received", "messages", "messages reassembled", messages_received);
  m_stats.declare("latency_ps", "ps", "packet latency: head leaves the source NIC -> tail here",
                  latency_ps);
  m_stats.declare("routers", "routers", "routers on the delivered packet's path, each once",
                  routers);
  SC_METHOD(on_wakeup);
  sensitive << m_wakeup;
  dont_initialize();
}

host_nic::~host_nic() = default;

void host_nic::send_message(const message& m) {
  outgoing o;
  o.msg = m;
  o.id = m_next_msg_id++;
  const uint64_t n =
      m.bytes == 0 ? 1 : (m.bytes + m_params.packet_bytes - 1) / m_params.packet_bytes;
  // Packet counts are 32-bit; tb/plan.cpp refuses larger messages as bad input.
  if (n > UINT32_MAX) SC_REPORT_ERROR(name(), "a message of more than 2^32-1 packets");
  o.count = static_cast<uint32_t>(n);
  o.queued = sc_core::sc_time_stamp();
  m_queue.push(o);
  m_agenda.push(sc_core::sc_time_stamp(), action{});
}

// CODES's scheduler hands the NIC a packet once per codes_issue_ns after the last, not before
// the packet exists, and only while the NIC holds less than the window: once the packets
// issued before it and still there fill it, the next waits for the oldest one's first chunk
// to leave (codes-dragonfly-notes.md §4). A packet leaving now was issued by now.
sc_time host_nic::codes_issue_time(const packet& p, sc_time now) {
  sc_time t = p.created;
  const sc_time paced =
      m_last_issue + sc_time::from_value(units::ps_from_ns(m_params.codes_issue_ns));
  if (m_next_packet > 0 && paced > t) t = paced;  // not before this NIC's first packet
  uint64_t held = 0;
  for (uint32_t i = m_sent.size(); i-- > 0;) {
    held += m_sent.at(i).bytes;
    if (held >= m_params.codes_issue_window_bytes) {
      const sc_time freed = m_sent.at(i).at + sc_time::from_value(1);
      if (freed > t) t = freed;
      break;
    }
  }
  if (t > now) t = now;
  m_last_issue = t;
  m_sent.push(sent{now, p.size_bytes});
  m_sent_bytes += p.size_bytes;
  // Drop what no later packet can need: more than a window back.
  while (m_sent.size() > 1 &&
         m_sent_bytes - m_sent.front().bytes >= m_params.codes_issue_window_bytes)
    m_sent_bytes -= m_sent.pop().bytes;
  return t;
}

void host_nic::inject() {
  const sc_time now = sc_core::sc_time_stamp();
  while (!m_queue.empty() && m_inject.link_free(now)) {
    outgoing& o = m_queue.front();
    const uint64_t offset = uint64_t{o.next_index} * m_params.packet_bytes;
    const uint64_t left = o.msg.bytes - offset;
    const uint32_t size =
        static_cast<uint32_t>(left < m_params.packet_bytes ? left : m_params.packet_bytes);
    const uint32_t wire = size == 0 ? 1 : size;  // a zero-byte message still sends a packet
    const uint8_t vc = 0;
    if (!m_inject.has_credits(vc, wire, now)) {
      // Look again when the next credit is due; with none on its way, its return wakes us.
      const sc_time retry = m_inject.credit_retry_time();
      if (retry != sc_core::sc_max_time()) m_agenda.push(retry, action{});
      return;
    }
    packet* p = m_pool.acquire();
    p->src = m_terminal;
    p->dst = o.msg.dst;
    p->kind = o.msg.kind;
    p->offload = o.msg.offload;
    p->vc = vc;
    p->size_bytes = wire;
    p->msg_id = o.id;
    p->tag = o.msg.tag;
    p->msg_seq = o.msg.seq;
    p->collective_id = o.msg.collective_id;
    p->msg_bytes = o.msg.bytes;
    p->buf_offset = o.msg.buf_offset;
    p->index = o.next_index;
    p->count = o.count;
    p->created = o.queued;
    p->injected = now;
    p->issued = m_params.codes_issue_ns > 0 ? codes_issue_time(*p, now) : p->created;
    p->tail_time = now;  // the payload is in host memory already
    m_routing.init_state(m_terminal, o.msg.dst,
                         network::packet_entropy(m_params.seed, m_terminal, m_next_packet++),
                         p->route);
    ++packets_injected;
    if (p->index == 0) ++messages_sent;
    if (++o.next_index == o.count) m_queue.pop();

    m_inject.send(out, *p, now);
    if (m_params.flit_gap_ns > 0) {
      const uint64_t flits = (uint64_t{wire} + m_params.flit_bytes - 1) / m_params.flit_bytes;
      m_inject.set_busy_until(m_inject.busy_until() +
                              sc_time::from_value(static_cast<uint64_t>(std::llround(
                                  static_cast<double>(flits) * m_params.flit_gap_ns * 1000.0))));
    }
    m_agenda.push(m_inject.busy_until(), action{});
  }
}

tlm::tlm_sync_enum host_nic::nb_transport_fw(uint32_t, packet& p, tlm::tlm_phase& ph, sc_time& t) {
  if (ph != tlm::BEGIN_REQ || p.vc >= m_params.vcs) {
    SC_REPORT_ERROR(name(), "unexpected phase or VC on the ejection port");
    return tlm::TLM_COMPLETED;
  }
  if (p.dst != m_terminal) SC_REPORT_ERROR(name(), "packet delivered to the wrong terminal");
  m_eject_bytes[p.vc] += p.size_bytes;
  if (m_eject_bytes[p.vc] > m_params.eject_buffer_bytes) {
    SC_REPORT_ERROR(name(), "credit protocol violated: eject buffer overflow");
  }
  (void)t;
  action a;
  a.kind = action_kind::deliver;
  a.pkt = &p;
  m_agenda.push(p.tail_time, a);  // consumed when the tail is in
  return tlm::TLM_ACCEPTED;
}

tlm::tlm_sync_enum host_nic::nb_transport_bw(uint32_t, packet& p, tlm::tlm_phase& ph, sc_time& t) {
  if (ph != tlm_net::CREDIT) {
    SC_REPORT_ERROR(name(), "unexpected phase on the injection port");
    return tlm::TLM_COMPLETED;
  }
  const sc_time when = sc_core::sc_time_stamp() + t;
  // A credit costs no wake-up unless injection waits for one, or waveforms show it on time.
  if (m_inject.on_credit(when, p.vc, p.size_bytes) || m_trace) m_agenda.push(when, action{});
  return tlm::TLM_ACCEPTED;
}

void host_nic::deliver(packet* p) {
  const sc_time now = sc_core::sc_time_stamp();
  m_eject_bytes[p->vc] -= p->size_bytes;
  tlm_net::return_credit(in, m_credit_token, p->vc, p->size_bytes);

  ++packets_delivered;
  latency_ps.sample(static_cast<double>((now - p->injected).value()));
  routers.sample(p->routers);
  if (m_client) m_client->on_packet(*p);

  // Reassembly: packets of one message may arrive in any order.
  const uint64_t payload = p->msg_bytes == 0 ? 0 : p->size_bytes;
  size_t k = 0;
  while (k < m_partial.size() && !(m_partial[k].src == p->src && m_partial[k].msg_id == p->msg_id))
    ++k;
  if (k == m_partial.size()) m_partial.push_back(partial{p->src, p->msg_id, 0});
  m_partial[k].received += payload;
  const bool complete = m_partial[k].received == p->msg_bytes;
  const network::terminal_id src = p->src;
  const uint32_t tag = p->tag;
  const uint32_t collective_id = p->collective_id;
  const uint32_t seq = p->msg_seq;
  const uint64_t offset = p->buf_offset;
  const uint64_t bytes = p->msg_bytes;
  m_pool.release(p);
  if (complete) {
    m_partial[k] = m_partial.back();
    m_partial.pop_back();
    ++messages_received;
    if (m_client) m_client->on_message(src, collective_id, tag, offset, bytes, seq);
  }
}

void host_nic::on_wakeup() {
  const sc_time now = sc_core::sc_time_stamp();
  while (m_agenda.due(now)) {
    const action a = m_agenda.pop();
    if (a.kind == action_kind::deliver) deliver(a.pkt);
  }
  inject();
  m_agenda.arm();
  if (m_trace) sample_trace();
}

bool host_nic::describe_stall(std::ostream& os) const {
  if (idle()) return false;
  os << "  " << name() << ": " << m_queue.size() << " messages waiting to inject (VC 0 credits "
     << m_inject.credits(0, sc_core::sc_time_stamp()) << "/" << m_params.inject_buffer_bytes
     << " bytes), " << m_partial.size() << " messages partly received\n";
  return true;
}

void host_nic::trace(const tlm_net::trace_window& window, const std::string& prefix) {
  m_trace = std::make_unique<trace_mirror>();
  m_trace->window = window;
  m_trace->inject_credit_bytes = m_inject.capacity_bytes();
  trace_mirror& m = *m_trace;
  tlm_net::trace_signals sig(window, prefix, "host NIC of terminal " + std::to_string(m_terminal));
  sig.add(m.queued_messages, "inject.queued_messages");
  sig.add(m.inject_credit_bytes, "inject.vc0.credit_bytes");
  sig.add(m.link_busy, "inject.busy");
  sig.add(m.injected, "packets_injected", "inject.packets");
  sig.add(m.eject_bytes, "eject.occupancy_bytes");
  sig.add(m.delivered, "packets_delivered", "eject.packets");
}

void host_nic::sample_trace() {
  const sc_time now = sc_core::sc_time_stamp();
  if (!m_trace->window.active(now)) return;
  m_trace->queued_messages = m_queue.size();
  m_trace->inject_credit_bytes = m_inject.credits(0, now);
  m_trace->link_busy = !m_inject.link_free(now);
  m_trace->injected = packets_injected.value;
  uint32_t held = 0;
  for (uint32_t b : m_eject_bytes) held += b;
  m_trace->eject_bytes = held;
  m_trace->delivered = packets_delivered.value;
}

}  // namespace bcastsim::hw
