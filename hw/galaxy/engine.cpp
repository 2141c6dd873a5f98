#include "hw/galaxy/engine.h"

#include "tlm/units.h"

#include <algorithm>
#include <ostream>

namespace bcastsim::hw::galaxy {

using sc_core::sc_time;
using tlm_net::packet;

engine::engine(const sc_core::sc_module_name& name, uint32_t router,
               const algorithms::galaxy_plan& plan, const engine_params& params,
               tlm_net::packet_pool& pool, const std::vector<uint32_t>& terminal_of_router,
               uint32_t collective_id, engine_listener& listener)
    : sc_module(name),
      in("in"),
      out("out"),
      m_router(router),
      m_plan(plan),
      m_params(params),
      m_pool(pool),
      m_terminal_of_router(terminal_of_router),
      m_collective_id(collective_id),
      m_listener(listener),
      m_holds(plan.routers, false),
      m_agenda(m_wakeup) {
  // This engine's transfers, and for every origin the ones waiting for it (counting sort).
  m_wait_first.assign(plan.routers + 1, 0);
  for (uint32_t i = 0; i < plan.transfers.size(); ++i) {
    const algorithms::galaxy_transfer& t = plan.transfers[i];
    if (t.from != router) continue;
    uint32_t slot = 0;
    while (slot < m_slot_router.size() && m_slot_router[slot] != t.to) ++slot;
    if (slot == m_slot_router.size()) m_slot_router.push_back(t.to);
    m_transfers.push_back({slot, t.first, t.count, t.count, t.after_all});
    for (uint32_t k = t.first; k < t.first + t.count; ++k) ++m_wait_first[plan.origins[k] + 1];
  }
  m_queues.resize(m_slot_router.size());
  // hold() parks after_all transfers here; sized now so the hot path never allocates.
  m_after_all.reserve(static_cast<size_t>(std::count_if(
      m_transfers.begin(), m_transfers.end(), [](const own_transfer& t) { return t.after_all; })));
  m_fired.assign(m_transfers.size(), sc_core::sc_max_time());
  for (uint32_t o = 0; o < plan.routers; ++o) m_wait_first[o + 1] += m_wait_first[o];
  m_waits.resize(m_wait_first.back());
  std::vector<uint32_t> fill(m_wait_first.begin(), m_wait_first.end() - 1);
  for (uint32_t i = 0; i < m_transfers.size(); ++i) {
    const own_transfer& t = m_transfers[i];
    for (uint32_t k = t.first; k < t.first + t.count; ++k) m_waits[fill[plan.origins[k]]++] = i;
  }
  m_out.init(this->name(), params.vcs, params.credit_bytes);
  m_fw.bind_owner(this, 0);
  m_bw.bind_owner(this, 0);
  in.bind(m_fw);
  out.bind(m_bw);
  m_stats.declare("packets_in", "packets", "packets taken from the router", packets_in);
  m_stats.declare("packets_out", "packets", "packets sent to neighbours' engines", packets_out);
  m_stats.declare("redundant", "packets", "packets of an origin already held", redundant);
  m_stats.declare("queue_peak_packets", "packets", "high-water mark of the output queue",
                  queue_peak_packets, tlm_net::combine::max);
  SC_METHOD(on_wakeup);
  sensitive << m_wakeup;
  dont_initialize();
}

void engine::start() {
  if (m_started) return;
  m_started = true;
  hold(m_router, m_terminal_of_router[m_router], sc_core::sc_time_stamp());
  m_agenda.push(sc_core::sc_time_stamp(), action{});
}

bool engine::idle() const {
  return m_queued == 0 && m_in_flight == 0 && m_agenda.empty();
}

tlm::tlm_sync_enum engine::nb_transport_fw(uint32_t, packet& p, tlm::tlm_phase& ph, sc_time&) {
  if (ph != tlm::BEGIN_REQ || p.offload.family != family_id ||
      p.offload.as<packet_fields>().to_router != m_router) {
    SC_REPORT_ERROR(name(), "unexpected phase, or a packet that is not for this engine");
    return tlm::TLM_COMPLETED;
  }
  m_in_bytes += p.size_bytes;
  if (m_in_bytes > m_params.input_buffer_bytes)
    SC_REPORT_ERROR(name(), "credit protocol violated: input buffer overflow");
  ++packets_in;
  ++m_in_flight;
  const sc_time now = sc_core::sc_time_stamp();
  const sc_time tail = p.tail_time > now ? p.tail_time : now;
  m_agenda.push(tail + sc_time::from_value(units::ps_from_ns(m_params.engine_ns)), action{&p});
  return tlm::TLM_ACCEPTED;
}

tlm::tlm_sync_enum engine::nb_transport_bw(uint32_t, packet& p, tlm::tlm_phase& ph, sc_time& t) {
  if (ph != tlm_net::CREDIT) {
    SC_REPORT_ERROR(name(), "unexpected phase on the output port");
    return tlm::TLM_COMPLETED;
  }
  const sc_time when = sc_core::sc_time_stamp() + t;
  if (m_out.on_credit(when, p.vc, p.size_bytes)) m_agenda.push(when, action{});
  return tlm::TLM_ACCEPTED;
}

void engine::hold(uint32_t origin, uint32_t from_terminal, const sc_time& now) {
  if (m_holds[origin]) {
    ++redundant;
    return;
  }
  m_holds[origin] = true;
  ++m_held;
  m_listener.on_hold(m_router, origin, from_terminal, now);
  for (uint32_t k = m_wait_first[origin]; k < m_wait_first[origin + 1]; ++k) {
    own_transfer& t = m_transfers[m_waits[k]];
    if (--t.missing != 0) continue;
    if (t.after_all && m_held < m_plan.routers) {
      m_after_all.push_back(m_waits[k]);
      continue;
    }
    queue(m_waits[k], now);
  }
  if (m_held == m_plan.routers) {
    for (uint32_t i : m_after_all) queue(i, now);
    m_after_all.clear();
  }
  if (m_queued > queue_peak_packets.value) queue_peak_packets.value = m_queued;
}

void engine::queue(uint32_t k, const sc_time& now) {
  const own_transfer& t = m_transfers[k];
  m_fired[k] = now;
  for (uint32_t i = t.first; i < t.first + t.count; ++i) m_queues[t.slot].push(m_plan.origins[i]);
  m_queued += t.count;
}

void engine::inject() {
  const sc_time now = sc_core::sc_time_stamp();
  while (m_queued != 0 && m_out.link_free(now)) {
    if (!m_out.has_credits(0, m_params.packet_bytes, now)) {
      const sc_time retry = m_out.credit_retry_time();
      if (retry != sc_core::sc_max_time()) m_agenda.push(retry, action{});
      return;
    }
    while (m_queues[m_rr].empty()) m_rr = (m_rr + 1) % m_queues.size();
    const uint32_t to = m_slot_router[m_rr];
    const uint32_t origin = m_queues[m_rr].pop();
    m_rr = (m_rr + 1) % m_queues.size();
    --m_queued;
    packet* p = m_pool.acquire();
    p->src = m_terminal_of_router[m_router];
    p->dst = m_terminal_of_router[to];
    p->size_bytes = m_params.packet_bytes;
    p->offload = tlm_net::family_header::of(family_id, packet_fields{to, origin});
    p->offload.attached = true;
    p->collective_id = m_collective_id;
    p->msg_bytes = m_params.packet_bytes;
    p->count = 1;
    p->created = now;
    p->injected = now;
    p->tail_time = now;
    ++packets_out;
    const sc_time t = m_out.send(out, *p, now);
    if (t > sc_core::SC_ZERO_TIME) m_agenda.push(m_out.busy_until(), action{});
  }
}

void engine::on_wakeup() {
  const sc_time now = sc_core::sc_time_stamp();
  while (m_agenda.due(now)) {
    const action a = m_agenda.pop();
    if (a.pkt == nullptr) continue;
    packet& p = *a.pkt;
    const uint32_t origin = p.offload.as<packet_fields>().origin;
    const uint32_t from_terminal = p.src;
    m_in_bytes -= p.size_bytes;
    tlm_net::return_credit(in, m_credit_token, p.vc, p.size_bytes);
    m_pool.release(&p);
    --m_in_flight;
    hold(origin, from_terminal, now);
  }
  inject();
  m_agenda.arm();
}

bool engine::describe_stall(std::ostream& os) const {
  if (idle() && m_held == m_plan.routers) return false;
  uint32_t waiting = 0;
  for (const own_transfer& t : m_transfers) waiting += t.missing != 0 ? 1 : 0;
  os << "  " << name() << ": holds " << m_held << " of " << m_plan.routers << " origins; "
     << waiting << " of " << m_transfers.size() << " transfers wait for origins; output queue "
     << m_queued << " packets";
  if (m_queued != 0) {
    const sc_time now = sc_core::sc_time_stamp();
    os << " (router's attached-input credits " << m_out.credits(0, now) << " B, link "
       << (m_out.link_free(now) ? "free" : "busy") << ")";
  }
  os << "\n";
  return true;
}

}  // namespace bcastsim::hw::galaxy
