// router.model: output_queued, CODES's dragonfly router at packet granularity (the behaviour
// read from CODES's source: experiments/codes/codes-dragonfly-notes.md §3).
//
// Where CODES and this model part:
//   - CODES moves 32-B chunks, each routed, queued and credited on its own; here a packet
//     moves whole (virtual cut-through), as in the rest of bcastsim. Its credit goes upstream
//     when its tail is in, the moment CODES returns the last chunk's credit.
//   - CODES adds its router delay after each output's serialisation; here each router adds
//     it on arrival (the pipeline, router.delay_cycles). A packet meets one delay per router
//     either way, and each link's credits are held across one delay and one serialisation.
//   - CODES draws a random 0-1 ns per chunk on each link; that is the links' business
//     (link.<class>.flit_overhead_ns), not the router's.
#include "hw/router/router.h"

#include <ostream>

namespace bcastsim::hw {

using sc_core::sc_time;
using tlm_net::packet;

// A routed packet joins its output VC's queue if that output holds credits for it and no
// earlier packet for the same output VC is parked; else it is parked, holding its credit.
void router::oq_arrive(const sc_time& now, uint32_t in_port, packet* p) {
  const held h{p, static_cast<uint16_t>(in_port), p->vc};
  output_vc& q = ovc(p->next_port, p->next_vc);
  if (q.parked.empty() && m_outputs[p->next_port].has_credits(p->next_vc, p->size_bytes, now)) {
    oq_accept(now, h);
    return;
  }
  q.parked.push(h);
  ++m_out_parked[p->next_port];
}

// The packet takes its output's credits and frees its input's: the credit goes upstream now,
// or when its tail has come in and through the pipeline, if that is later.
void router::oq_accept(const sc_time& now, const held& h) {
  packet* p = h.pkt;
  m_outputs[p->next_port].reserve(p->next_vc, p->size_bytes);
  ovc(p->next_port, p->next_vc).queue.push(p);
  ++m_out_queued[p->next_port];
  ivc(h.in_port, h.in_vc).occupancy_bytes -= p->size_bytes;
  const sc_time tail_in = p->tail_time + m_pipeline;
  return_credit(h.in_port, h.in_vc, p->size_bytes,
                tail_in > now ? tail_in - now : sc_core::SC_ZERO_TIME);
}

// Parked packets move into their queues, in order, as credits have come back; an output
// still short asks to be woken when its next credit is due.
void router::oq_unpark(const sc_time& now, sc_time& retry) {
  for (uint32_t o = 0; o < m_radix; ++o) {
    if (m_out_parked[o] == 0) continue;
    tlm_net::credit_output& op = m_outputs[o];
    for (uint32_t vc = 0; vc < m_vcs; ++vc) {
      output_vc& q = ovc(o, vc);
      while (!q.parked.empty() && op.has_credits(vc, q.parked.front().pkt->size_bytes, now)) {
        --m_out_parked[o];
        oq_accept(now, q.parked.pop());
      }
    }
    if (m_out_parked[o] > 0) {
      const sc_time t = op.credit_retry_time();
      if (t < retry) retry = t;
    }
  }
}

// Every free output sends the head of its highest non-empty VC (CODES's strict priority:
// a packet further along its route, on a higher VC, goes first), or with router.vc_order
// round_robin of the next non-empty VC in turn; its credits were spent on acceptance.
void router::oq_send(const sc_time& now, sc_time& retry) {
  for (uint32_t o = 0; o < m_radix; ++o) {
    if (m_out_queued[o] == 0) continue;
    tlm_net::credit_output& op = m_outputs[o];
    if (!op.link_free(now)) {
      if (op.busy_until() < retry) retry = op.busy_until();
      continue;
    }
    uint32_t vc = m_vcs;
    if (m_out_vc_arbiters.empty()) {
      while (ovc(o, --vc).queue.empty()) {
      }
    } else {  // round_robin: the non-empty VC nearest the pointer
      round_robin_arbiter& arb = m_out_vc_arbiters[o];
      for (uint32_t k = 0; k < m_vcs; ++k) {
        const uint32_t v = (arb.pointer() + k) % m_vcs;
        if (!ovc(o, v).queue.empty()) {
          vc = v;
          break;
        }
      }
      arb.update(vc);
    }
    packet* p = ovc(o, vc).queue.pop();
    --m_out_queued[o];
    --m_buffered;
    ++packets;
    wait_ps.sample(static_cast<double>((now - p->hop_ready).value()));
    p->vc = p->next_vc;
    const sc_time t = op.transmit(out[o], *p, now);  // p belongs downstream
    if (m_out_queued[o] > 0 && now + t < retry) retry = now + t;
    if (m_trace) m_agenda.push(now + t, action{});  // waveforms show the output freeing on time
  }
}

bool router::oq_describe_stall(std::ostream& os, uint32_t max_lines) const {
  uint32_t lines = 0;
  const sc_time now = sc_core::sc_time_stamp();
  for (uint32_t o = 0; o < m_radix; ++o) {
    for (uint32_t vc = 0; vc < m_vcs; ++vc) {
      const output_vc& q = ovc(o, vc);
      if (q.queue.empty() && q.parked.empty()) continue;
      if (lines++ >= max_lines) return true;
      os << "  " << name() << " output port " << o << " ("
         << (o == m_attached_port ? m_params.attached.label : m_topo.class_name(m_inputs[o].cls))
         << ") VC " << vc << ": " << q.queue.size() << " packets queued, " << q.parked.size()
         << " parked for want of credits (" << m_outputs[o].credits(vc, now) << "/"
         << m_outputs[o].capacity_bytes() << " credit bytes)";
      if (!q.parked.empty()) {
        const held& h = q.parked.front();
        os << "; first parked " << *h.pkt << " holds input port " << h.in_port << " VC "
           << unsigned(h.in_vc);
      }
      os << "\n";
    }
  }
  return lines > 0;
}

}  // namespace bcastsim::hw
