#include "hw/tofu2/tni.h"

#include "tlm/trace_window.h"

#include <ostream>
#include <stdexcept>

namespace bcastsim::hw::tofu2 {

using sc_core::sc_time;
using tlm_net::packet;

namespace {
sc_time ns(uint64_t v) {
  return sc_time(static_cast<double>(v), sc_core::SC_NS);
}
}  // namespace

struct tni::trace_mirror {
  tlm_net::trace_window window;
  // [queue]: the ring slots of the three pointers, and the descriptors held.
  std::vector<uint32_t> producer, consumer, scheduling, occupancy;
  bool engine_busy = false;
  uint64_t puts_sent = 0;
  uint64_t puts_received = 0;
};

tni::tni(const sc_core::sc_module_name& name, network::terminal_id terminal,
         const tni_params& params, tlm_net::packet_pool& pool,
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
  m_stats.declare("packets_injected", "packets", "frames injected", packets_injected);
  m_stats.declare("packets_delivered", "packets", "frames delivered here", packets_delivered);
  m_stats.declare("messages_sent", "messages", "puts sent", messages_sent);
  m_stats.declare("messages_received", "messages", "puts received and noticed", messages_received);
  m_stats.declare("latency_ps", "ps", "frame latency: head leaves the source TNI -> tail here",
                  latency_ps);
  m_stats.declare("routers", "routers", "routers on the delivered frame's path, each once",
                  routers);
  m_stats.declare("wire_bytes_sent", "bytes", "bytes of the frames sent, headers included",
                  wire_bytes_sent);
  m_stats.declare("enqueue_refused", "enqueues",
                  "host enqueues refused because a TOQ was full (back-pressure)", enqueue_refused);
  SC_METHOD(on_wakeup);
  sensitive << m_wakeup;
  dont_initialize();
}

tni::~tni() = default;

uint32_t tni::open_queue(queue_mode mode) {
  if (m_queues.size() >= m_params.queues) {
    throw std::length_error(std::string(name()) + ": all " + std::to_string(m_params.queues) +
                            " command queues are open");
  }
  m_queues.push_back(std::make_unique<command_queue>(m_params.toq_entries, mode));
  m_recorded.emplace_back();
  m_record_closed.push_back(false);
  return static_cast<uint32_t>(m_queues.size() - 1);
}

bool tni::enqueue(uint32_t queue, const toq_descriptor& d) {
  // The header's fields are 4 bits (SPS) and a queue number below no_queue: a descriptor
  // beyond them is the caller's bug, not a value to cut silently.
  if (queue >= m_queues.size() || d.sps > algorithms::toq_max_sps ||
      d.remote_terminal == network::invalid_id ||
      (d.remote_queue >= no_queue && d.remote_queue != algorithms::toq_no_queue)) {
    throw std::invalid_argument(
        std::string(name()) + ": a descriptor for queue " + std::to_string(queue) + " with SPS " +
        std::to_string(d.sps) + ", remote queue " + std::to_string(d.remote_queue) +
        " and remote terminal " + std::to_string(d.remote_terminal) + " does not fit the TOQ");
  }
  cq_cycle c;
  c.enqueue = true;
  c.descriptor = d;
  record(queue, c);
  if (!m_queues[queue]->enqueue(d)) {
    ++enqueue_refused;
    return false;
  }
  m_agenda.push(sc_core::sc_time_stamp(), action{});
  return true;
}

void tni::reset_queue(uint32_t q) {
  m_queues[q]->reset_pointers();
  if (m_recording) m_record_closed[q] = true;
}

void tni::send_message(const message& m) {
  m_messages.push(m);
  m_agenda.push(sc_core::sc_time_stamp(), action{});
}

bool tni::idle() const {
  if (m_put.active || !m_messages.empty() || !m_partial.empty() || !m_notices.empty()) {
    return false;
  }
  for (const auto& q : m_queues) {
    if (!q->empty()) return false;
  }
  return true;
}

// Round robin over the open queues whose head may run and the host's FIFO (the slot after
// the last queue), starting after the one served last.
bool tni::pick_put(const sc_time& now) {
  const uint32_t slots = static_cast<uint32_t>(m_queues.size()) + 1;
  for (uint32_t k = 0; k < slots; ++k) {
    const uint32_t i = (m_next_queue + k) % slots;
    current_put& put = m_put;
    if (i + 1 == slots) {
      if (m_messages.empty()) continue;
      put.msg = m_messages.front();
      m_messages.pop();
      put.queue = no_queue;
      put.fields = put_fields{};
    } else {
      if (!m_queues[i]->can_execute()) continue;
      const toq_descriptor& d = m_queues[i]->head();
      put.d = d;
      put.queue = i;
      put.msg = message{};
      put.msg.dst = d.remote_terminal;
      put.msg.bytes = d.length;
      put.msg.buf_offset = d.remote_offset;
      put.msg.collective_id = d.edata;
      put.msg.tag = d.remote_queue;
      put.fields.queue = d.remote_queue == algorithms::toq_no_queue
                             ? no_queue
                             : static_cast<uint8_t>(d.remote_queue);
      put.fields.sps = static_cast<uint8_t>(d.sps);
      put.fields.from_queue = 1;
    }
    put.fields.tni = static_cast<uint8_t>(m_params.index);
    put.fields.put = static_cast<uint32_t>(m_next_put);
    // A host message keeps its MPI sequence number (the receiver matches by it); a queue's
    // put is numbered in the TNI's issue order.
    if (put.queue != no_queue) put.msg.seq = static_cast<uint32_t>(m_next_put);
    put.id = m_next_put++;
    put.frames = static_cast<uint32_t>(m_params.frames.frames(put.msg.bytes));
    put.next_frame = 0;
    put.queued = now;
    put.start = now + ns(m_params.descriptor_ns);
    put.active = true;
    m_next_queue = (i + 1) % slots;
    return true;
  }
  return false;
}

void tni::inject(const sc_time& now) {
  current_put& put = m_put;
  while (put.active) {
    if (now < put.start) {
      m_agenda.push(put.start, action{});
      return;
    }
    if (!m_inject.link_free(now)) {
      m_agenda.push(m_inject.busy_until(), action{});
      return;
    }
    const uint32_t payload = m_params.frames.payload(put.msg.bytes, put.next_frame);
    const uint32_t wire = m_params.frames.wire_bytes(payload);
    if (!m_inject.has_credits(0, wire, now)) {
      const sc_time retry = m_inject.credit_retry_time();
      if (retry != sc_core::sc_max_time()) m_agenda.push(retry, action{});
      return;
    }
    packet* p = m_pool.acquire();
    p->src = m_terminal;
    p->dst = put.msg.dst;
    p->kind = tlm_net::packet_kind::data;
    p->offload = tlm_net::family_header::of(family_id, put.fields);
    p->vc = 0;
    p->size_bytes = wire;
    p->msg_id = put.id;
    p->tag = put.msg.tag;
    p->msg_seq = put.msg.seq;
    p->collective_id = put.msg.collective_id;
    p->msg_bytes = put.msg.bytes;
    p->buf_offset = put.msg.buf_offset;
    p->index = put.next_frame;
    p->count = put.frames;
    p->created = put.queued;
    p->injected = now;
    p->tail_time = now;  // the payload is in memory already
    m_routing.init_state(m_terminal, put.msg.dst,
                         network::packet_entropy(m_params.seed, m_terminal, m_next_packet++),
                         p->route);
    ++packets_injected;
    wire_bytes_sent += wire;
    m_inject.send(out, *p, now);
    m_agenda.push(m_inject.busy_until(), action{});
    if (++put.next_frame == put.frames) finish_put();
  }
}

// The last frame is on the link: the consumer pointer moves on and the TCQ hears of it. The
// next put's descriptor fetch overlaps this frame's serialisation.
void tni::finish_put() {
  m_put.active = false;
  ++messages_sent;
  if (m_put.queue == no_queue) return;
  m_queues[m_put.queue]->retire();
  cq_cycle c;
  c.retire = true;
  record(m_put.queue, c);
  if (m_queue_client) m_queue_client->on_put_done(m_put.queue, m_put.d);
}

tlm::tlm_sync_enum tni::nb_transport_fw(uint32_t, packet& p, tlm::tlm_phase& ph, sc_time&) {
  if (ph != tlm::BEGIN_REQ || p.vc >= m_params.vcs) {
    SC_REPORT_ERROR(name(), "unexpected phase or VC on the ejection port");
    return tlm::TLM_COMPLETED;
  }
  if (p.dst != m_terminal) SC_REPORT_ERROR(name(), "frame delivered to the wrong terminal");
  m_eject_bytes[p.vc] += p.size_bytes;
  if (m_eject_bytes[p.vc] > m_params.eject_buffer_bytes) {
    SC_REPORT_ERROR(name(), "credit protocol violated: eject buffer overflow");
  }
  action a;
  a.kind = action_kind::deliver;
  a.pkt = &p;
  m_agenda.push(p.tail_time, a);
  return tlm::TLM_ACCEPTED;
}

tlm::tlm_sync_enum tni::nb_transport_bw(uint32_t, packet& p, tlm::tlm_phase& ph, sc_time& t) {
  if (ph != tlm_net::CREDIT) {
    SC_REPORT_ERROR(name(), "unexpected phase on the injection port");
    return tlm::TLM_COMPLETED;
  }
  const sc_time when = sc_core::sc_time_stamp() + t;
  if (m_inject.on_credit(when, p.vc, p.size_bytes) || m_trace) m_agenda.push(when, action{});
  return tlm::TLM_ACCEPTED;
}

void tni::deliver(packet* p) {
  const sc_time now = sc_core::sc_time_stamp();
  m_eject_bytes[p->vc] -= p->size_bytes;
  tlm_net::return_credit(in, m_credit_token, p->vc, p->size_bytes);
  ++packets_delivered;
  latency_ps.sample(static_cast<double>((now - p->injected).value()));
  routers.sample(p->routers);
  if (m_client) m_client->on_packet(*p);

  const uint64_t payload = m_params.frames.payload(p->msg_bytes, p->index);
  size_t k = 0;
  while (k < m_partial.size() && !(m_partial[k].src == p->src && m_partial[k].msg_id == p->msg_id))
    ++k;
  if (k == m_partial.size()) m_partial.push_back(partial{p->src, p->msg_id, 0});
  m_partial[k].received += p->msg_bytes == 0 ? 0 : payload;
  if (m_partial[k].received == p->msg_bytes) {
    m_partial[k] = m_partial.back();
    m_partial.pop_back();
    notice n;
    n.src = p->src;
    n.msg.collective_id = p->collective_id;
    n.msg.tag = p->tag;
    n.msg.seq = p->msg_seq;
    n.msg.buf_offset = p->buf_offset;
    n.msg.bytes = p->msg_bytes;
    n.fields = p->offload.as<put_fields>();
    m_notices.push(n);
    action a;
    a.kind = action_kind::notice;
    m_agenda.push(now + ns(m_params.receive_ns), a);
  }
  m_pool.release(p);
}

// The put is in memory: its SPS advances the designated queue, then the host hears of it.
void tni::apply_notice() {
  const notice n = m_notices.front();
  m_notices.pop();
  ++messages_received;
  if (n.fields.queue != no_queue) {
    if (n.fields.queue >= m_queues.size()) {
      SC_REPORT_ERROR(name(), "an arriving put designates a command queue that is not open");
    } else {
      m_queues[n.fields.queue]->advance_scheduling(n.fields.sps);
      cq_cycle c;
      c.sps_valid = true;
      c.sps = n.fields.sps;
      record(n.fields.queue, c);
    }
  }
  if (n.fields.from_queue) {
    if (m_queue_client) {
      m_queue_client->on_put_arrived(n.src, n.msg.collective_id, n.msg.buf_offset, n.msg.bytes);
    }
  } else if (m_client) {
    m_client->on_message(n.src, n.msg.collective_id, n.msg.tag, n.msg.buf_offset, n.msg.bytes,
                         n.msg.seq);
  }
}

void tni::on_wakeup() {
  const sc_time now = sc_core::sc_time_stamp();
  while (m_agenda.due(now)) {
    const action a = m_agenda.pop();
    if (a.kind == action_kind::deliver) deliver(a.pkt);
    if (a.kind == action_kind::notice) apply_notice();
  }
  while (m_put.active || pick_put(now)) {
    inject(now);
    if (m_put.active) break;  // waiting for its start, the link or credits
  }
  m_agenda.arm();
  if (m_trace) sample_trace();
}

bool tni::describe_stall(std::ostream& os) const {
  if (idle()) return false;
  os << "  " << name() << ": ";
  if (m_put.active) {
    os << "sending put " << m_put.id << " (frame " << m_put.next_frame << " of " << m_put.frames
       << ", VC 0 credits " << m_inject.credits(0, sc_core::sc_time_stamp()) << "/"
       << m_params.inject_buffer_bytes << " bytes); ";
  }
  os << m_messages.size() << " host puts waiting, " << m_partial.size()
     << " puts partly received\n";
  for (size_t q = 0; q < m_queues.size(); ++q) {
    if (m_queues[q]->empty()) continue;
    os << "    queue " << q << ": ";
    m_queues[q]->describe(os);
    os << "\n";
  }
  return true;
}

void tni::trace(const tlm_net::trace_window& window, const std::string& prefix) {
  m_trace = std::make_unique<trace_mirror>();
  trace_mirror& m = *m_trace;
  m.window = window;
  // The queues open now (the family opens them before tracing starts); the others stay idle.
  const size_t n = m_queues.size();
  m.producer.assign(n, 0);
  m.consumer.assign(n, 0);
  m.scheduling.assign(n, 0);
  m.occupancy.assign(n, 0);
  tlm_net::trace_signals sig(
      window, prefix,
      "Tofu2 TNI " + std::to_string(m_params.index) + " of terminal " + std::to_string(m_terminal));
  sig.add(m.engine_busy, "engine.busy");
  sig.add(m.puts_sent, "messages_sent", "engine.puts_sent");
  sig.add(m.puts_received, "messages_received", "rx.puts_received");
  for (size_t q = 0; q < n; ++q) {
    const std::string cq = "cq" + std::to_string(q) + ".";
    sig.add(m.producer[q], cq + "producer");
    sig.add(m.consumer[q], cq + "consumer");
    sig.add(m.scheduling[q], cq + "scheduling");
    sig.add(m.occupancy[q], cq + "occupancy");
  }
}

void tni::sample_trace() {
  trace_mirror& m = *m_trace;
  if (!m.window.active(sc_core::sc_time_stamp())) return;
  m.engine_busy = m_put.active;
  m.puts_sent = messages_sent.value;
  m.puts_received = messages_received.value;
  for (size_t q = 0; q < m.producer.size(); ++q) {
    const command_queue& c = *m_queues[q];
    m.producer[q] = static_cast<uint32_t>(c.slot(c.producer()));
    m.consumer[q] = static_cast<uint32_t>(c.slot(c.consumer()));
    m.scheduling[q] = static_cast<uint32_t>(c.slot(c.scheduling()));
    m.occupancy[q] = static_cast<uint32_t>(c.occupancy());
  }
}

}  // namespace bcastsim::hw::tofu2
