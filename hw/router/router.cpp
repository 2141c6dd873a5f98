#include "hw/router/router.h"

#include "tlm/units.h"

#include <algorithm>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace bcastsim::hw {

using sc_core::sc_time;
using tlm_net::packet;

struct router::trace_mirror {
  tlm_net::trace_window window;
  std::vector<uint32_t> occupancy;  // [port * vcs + vc]
  std::vector<uint32_t> credits;    // [port * vcs + vc]
  std::unique_ptr<bool[]> busy;     // [port]
  uint64_t packets = 0;
};

router::router(const sc_core::sc_module_name& name, network::router_id id,
               const network::topology& topo, const network::routing_policy& routing,
               const router_params& params)
    : sc_core::sc_module(name),
      in("in", topo.radix(id) + (params.attached.present ? 1 : 0)),
      out("out", topo.radix(id) + (params.attached.present ? 1 : 0)),
      m_radix(topo.radix(id) + (params.attached.present ? 1 : 0)),
      m_vcs(params.vcs),
      m_routing(routing),
      m_id(id),
      m_agenda(m_wakeup),
      m_topo(topo),
      m_params(params),
      m_allocator(m_radix, m_vcs, m_radix, params.alloc_iterations) {
  if (params.vc_buffer_bytes.size() < topo.num_link_classes()) {
    throw std::invalid_argument(std::string(this->name()) + ": router_params.vc_buffer_bytes has " +
                                std::to_string(params.vc_buffer_bytes.size()) +
                                " entries; the topology has " +
                                std::to_string(topo.num_link_classes()) + " link classes");
  }
  if (params.model != "input_queued" && params.model != "output_queued") {
    throw std::invalid_argument(std::string(this->name()) + ": router.model '" + params.model +
                                "' (allowed: input_queued, output_queued)");
  }
  m_output_queued = params.model == "output_queued";
  if (m_output_queued) {
    m_out_vcs.resize(size_t{m_radix} * m_vcs);
    m_out_queued.assign(m_radix, 0);
    m_out_parked.assign(m_radix, 0);
    if (params.vc_order == "round_robin") {
      m_out_vc_arbiters.assign(m_radix, round_robin_arbiter(m_vcs));
    } else if (params.vc_order != "highest_first") {
      throw std::invalid_argument(std::string(this->name()) + ": router.vc_order '" +
                                  params.vc_order + "' (allowed: highest_first, round_robin)");
    }
  }
  m_period = sc_time::from_value(units::clock_period_ps(params.clock_mhz));
  m_pipeline = m_period * params.delay_cycles;
  if (params.attached.input_gib_per_s > 0)
    m_attached_ps_per_byte = units::ps_per_byte(params.attached.input_gib_per_s);
  if (params.internal_speedup < 1.0) {
    throw std::invalid_argument(std::string(this->name()) + ": router.internal_speedup " +
                                std::to_string(params.internal_speedup) + " (at least 1)");
  }
  m_speedup = params.internal_speedup > 1.0 && !m_output_queued;
  if (m_speedup && params.link_gib_per_s.size() < topo.num_link_classes()) {
    throw std::invalid_argument(std::string(this->name()) +
                                ": router.internal_speedup needs router_params.link_gib_per_s "
                                "for every link class");
  }
  m_fw.reset(new tlm_net::tagged_fw<router>[m_radix]);
  m_bw.reset(new tlm_net::tagged_bw<router>[m_radix]);
  m_inputs.resize(m_radix);
  m_in_vcs.resize(size_t{m_radix} * m_vcs);
  m_outputs.resize(m_radix);
  for (uint32_t port = 0; port < m_radix; ++port) {
    m_fw[port].bind_owner(this, port);
    m_bw[port].bind_owner(this, port);
    in[port].bind(m_fw[port]);
    out[port].bind(m_bw[port]);
    uint32_t cap = 0;  // credits toward the peer, per VC
    if (port == topo.radix(id)) {
      m_attached_port = port;
      m_inputs[port].cls = network::terminal_class;
      m_inputs[port].capacity_bytes = params.attached.in_vc_buffer_bytes;
      cap = params.attached.credit_bytes;
    } else {
      const network::port_info& info = topo.port(id, port);
      m_inputs[port].cls = info.cls;
      // Peers of a class share the buffer size of that class (terminal: the NIC's eject
      // buffer).
      m_inputs[port].capacity_bytes = params.vc_buffer_bytes[static_cast<int>(info.cls)];
      if (info.peer_kind == network::port_info::kind::unused) {
        m_outputs[port].init(this->name(), m_vcs, 0);
        continue;
      }
      cap = params.vc_buffer_bytes[static_cast<int>(info.cls)];
      if (info.peer_kind == network::port_info::kind::router)
        m_neighbours.emplace_back(info.peer, port);
    }
    m_outputs[port].init(this->name(), m_vcs, cap);
  }
  if (m_speedup) {
    // Per output port: a packet crosses at its output link's rate times the speedup; toward
    // the attached block at the block's input rate if it has one, else at the terminal
    // links'. (The attached input's own wide crossing, m_attached_ps_per_byte, is the
    // unsped model's; with speedup every input crosses at its output's rate.)
    m_crossbar_ps_per_byte.resize(m_radix);
    for (uint32_t port = 0; port < m_radix; ++port) {
      const double gib = port == m_attached_port && params.attached.input_gib_per_s > 0
                             ? params.attached.input_gib_per_s
                             : params.link_gib_per_s[static_cast<int>(m_inputs[port].cls)];
      m_crossbar_ps_per_byte[port] = units::ps_per_byte(gib) / params.internal_speedup;
    }
    m_crossbar_out_free.assign(m_radix, sc_time());
    m_output_buffers.resize(m_radix);
  }
  // Stable: the first port to a neighbour stays first.
  std::stable_sort(m_neighbours.begin(), m_neighbours.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  m_stats.declare("packets", "packets", "packets switched", packets);
  m_stats.declare("wait_ps", "ps", "time from a packet being routed to its grant (input VC wait)",
                  wait_ps);

  SC_METHOD(on_wakeup);
  sensitive << m_wakeup;
  dont_initialize();
}

router::~router() = default;

sc_time router::pipeline_done(const sc_time& arrival) const {
  // Align to the next clock edge, then run the pipeline.
  const sc_dt::uint64 period = m_period.value();
  const sc_dt::uint64 edge = (arrival.value() + period - 1) / period * period;
  return sc_time::from_value(edge) + m_pipeline;
}

tlm::tlm_sync_enum router::nb_transport_fw(uint32_t port, packet& p, tlm::tlm_phase& ph,
                                           sc_time& t) {
  if (ph != tlm::BEGIN_REQ || p.vc >= m_vcs) {
    SC_REPORT_ERROR(name(), "unexpected phase or VC on an input port");
    return tlm::TLM_COMPLETED;
  }
  input_vc& q = ivc(port, p.vc);
  if (q.occupancy_bytes + p.size_bytes > m_inputs[port].capacity_bytes) {
    SC_REPORT_ERROR(name(), "credit protocol violated: input VC buffer overflow");
  }
  q.occupancy_bytes += p.size_bytes;
  ++m_buffered;
  action a;
  a.kind = action_kind::arrive;
  a.port = static_cast<uint16_t>(port);
  a.pkt = &p;
  m_agenda.push(pipeline_done(sc_core::sc_time_stamp() + t), a);
  return tlm::TLM_ACCEPTED;
}

tlm::tlm_sync_enum router::nb_transport_bw(uint32_t port, packet& p, tlm::tlm_phase& ph,
                                           sc_time& t) {
  if (ph != tlm_net::CREDIT) {
    SC_REPORT_ERROR(name(), "unexpected phase on the backward path");
    return tlm::TLM_COMPLETED;
  }
  // Credits cost no wake-up of their own: they are applied when the allocator looks at
  // them, and only a head that waits for them asks to be woken when they arrive.
  const sc_time when = sc_core::sc_time_stamp() + t;
  if (m_outputs[port].on_credit(when, p.vc, p.size_bytes)) wake_at(when);
  if (m_trace) m_agenda.push(when, action{});  // waveforms show credits on time
  return tlm::TLM_ACCEPTED;
}

void router::return_credit(uint32_t in_port, uint8_t vc, uint32_t bytes, const sc_time& delay) {
  // The upstream link, kept beside the input's other state: reaching it through the socket
  // would touch two more objects per packet. Bindings are fixed once packets flow.
  tlm_net::bw_if*& upstream = m_inputs[in_port].upstream;
  if (!upstream) upstream = in[in_port].operator->();
  tlm_net::return_credit(*upstream, m_credit_token, vc, bytes, delay);
}

void router::wake_at(const sc_time& when) {
  if (when >= m_wake_at) return;
  m_wake_at = when;
  m_agenda.push(when, action{});
}

uint32_t router::output_occupancy_bytes(network::port_id port) const {
  return m_outputs[port].occupancy_bytes(sc_core::sc_time_stamp());
}

uint32_t router::unreturned_credit_bytes(network::port_id port) const {
  return m_outputs[port].unreturned_bytes();
}

void router::on_wakeup() {
  const sc_time now = sc_core::sc_time_stamp();
  if (m_wake_at <= now) m_wake_at = m_never;
  while (m_agenda.due(now)) {
    const action a = m_agenda.pop();
    switch (a.kind) {
      case action_kind::arrive: {
        packet* p = a.pkt;
        // A copy back from the attached unit was counted when its data first entered
        // this router: hops count each router on the path once.
        if (a.port != m_attached_port) ++p->routers;
        const network::route_decision d = route(*p);
        p->next_port = static_cast<uint16_t>(d.port);
        p->next_vc = d.vc;
        p->hop_ready = now;
        if (m_output_queued) {
          oq_arrive(now, a.port, p);
          break;
        }
        ivc(a.port, p->vc).fifo.push(p);
        ++m_inputs[a.port].ready;
        break;
      }
      case action_kind::wake:
        break;
    }
  }
  allocate(now);
  m_agenda.arm();
  if (m_trace) sample_trace();
}

network::route_decision router::route(packet& p) {
  if (p.offload.attached) {
    const attached_port_hook* hook = m_params.attached.hook;
    if (!hook) {
      SC_REPORT_ERROR(name(),
                      "a packet for an offload family's attached block arrived at a "
                      "router without one");
    } else {
      network::route_decision d;
      if (hook->route(*this, p, d)) return d;
    }
  }
  return m_routing.route(m_id, p.dst, p.route, this);
}

network::port_id router::port_to(network::router_id r) const {
  const auto it = std::lower_bound(m_neighbours.begin(), m_neighbours.end(), r,
                                   [](const std::pair<network::router_id, network::port_id>& n,
                                      network::router_id x) { return n.first < x; });
  return it != m_neighbours.end() && it->first == r ? it->second : network::invalid_id;
}

void router::allocate(const sc_time& now) {
  // The earliest time a blocked head could move: the router sleeps until then (or until a
  // packet or an awaited credit arrives), instead of waking whenever anything frees.
  sc_time retry = m_never;
  auto retry_at = [&retry](const sc_time& t) {
    if (t < retry) retry = t;
  };
  if (m_output_queued) {
    oq_unpark(now, retry);
    oq_send(now, retry);
    if (retry != m_never) wake_at(retry);
    return;
  }
  if (m_output_buffered > 0) send_buffered(now, retry);
  // Every head that could leave now requests its output; the separable allocator picks one
  // VC per input and one input per output, round-robin (hw/router/separable_allocator.h).
  for (uint32_t i = 0; i < m_radix; ++i) {
    const input_port& ip = m_inputs[i];
    if (ip.ready == 0) continue;
    if (ip.busy_until > now) {
      retry_at(ip.busy_until);
      continue;
    }
    // Every head is looked at, not only up to the one the input will pick: if this input
    // loses the output stage, another head may be the one that can go first.
    for (uint32_t vc = 0; vc < m_vcs; ++vc) {
      input_vc& q = ivc(i, vc);
      if (q.fifo.empty()) continue;
      const packet* head = q.fifo.front();
      const uint32_t o = head->next_port;
      tlm_net::credit_output& op = m_outputs[o];
      if (output_free_at(o) > now) {
        retry_at(output_free_at(o));
        continue;
      }
      if (!op.has_credits(head->next_vc, head->size_bytes, now)) {
        retry_at(op.credit_retry_time());
        continue;
      }
      m_allocator.request(i, vc, o);
    }
  }
  for (const separable_allocator::grant& g : m_allocator.allocate()) {
    // A loser retries on the next cycle (the allocator's next iteration) if another of its
    // heads could go now, else when this output frees.
    if (g.losers_with_other_requests) retry_at(now + m_period);
    grant(now, g.input, g.vc, g.output);
    if (g.losers_without_other_requests) retry_at(output_free_at(g.output));
    if (m_inputs[g.input].ready > 0) retry_at(m_inputs[g.input].busy_until);
  }
  if (retry != m_never) wake_at(retry);
}

void router::grant(const sc_time& now, uint32_t in_port, uint32_t vc, uint32_t out_port) {
  input_vc& q = ivc(in_port, vc);
  packet* p = q.fifo.pop();
  input_port& ip = m_inputs[in_port];
  --ip.ready;
  q.occupancy_bytes -= p->size_bytes;
  ++packets;
  wait_ps.sample(static_cast<double>((now - p->hop_ready).value()));
  if (m_speedup) {
    grant_buffered(now, in_port, p, out_port);
    return;
  }
  --m_buffered;

  const uint32_t bytes = p->size_bytes;
  p->vc = p->next_vc;
  sc_time input_free;  // a wide unit input is free once the packet has crossed it
  if (in_port == m_attached_port && m_attached_ps_per_byte > 0) {
    input_free =
        now + sc_time::from_value(static_cast<sc_dt::uint64>(bytes * m_attached_ps_per_byte));
    if (p->tail_time > input_free) input_free = p->tail_time;
  }
  const sc_time t = m_outputs[out_port].send(out[out_port], *p, now);  // p belongs downstream
  ip.busy_until = in_port == m_attached_port && m_attached_ps_per_byte > 0 ? input_free : now + t;

  // The input buffer frees when the tail has left, at now + t.
  return_credit(in_port, static_cast<uint8_t>(vc), bytes, t);
  if (m_trace) m_agenda.push(now + t, action{});  // waveforms show the output freeing on time
}

void router::grant_buffered(const sc_time& now, uint32_t in_port, packet* p, uint32_t out_port) {
  const uint32_t bytes = p->size_bytes;
  const uint8_t in_vc = p->vc;
  // The crossing takes bytes at the crossbar's rate, and cannot end before the tail is in.
  const sc_time crossed =
      now + sc_time::from_value(units::serialisation_ps(bytes, m_crossbar_ps_per_byte[out_port]));
  m_crossbar_out_free[out_port] = crossed;
  const sc_time input_free = p->tail_time > crossed ? p->tail_time : crossed;
  m_inputs[in_port].busy_until = input_free;
  return_credit(in_port, in_vc, bytes, input_free - now);
  tlm_net::credit_output& op = m_outputs[out_port];
  op.reserve(p->next_vc, bytes);  // BookSim spends the downstream credit at the crossbar
  p->vc = p->next_vc;
  tlm_net::ring<packet*>& buffer = m_output_buffers[out_port];
  if (buffer.empty() && op.link_free(now)) {
    --m_buffered;
    const sc_time t = op.transmit(out[out_port], *p, now);  // p belongs downstream
    if (m_trace) m_agenda.push(now + t, action{});
    return;
  }
  buffer.push(p);
  ++m_output_buffered;
  wake_at(op.busy_until() > now ? op.busy_until() : now);
}

void router::send_buffered(const sc_time& now, sc_time& retry) {
  for (uint32_t o = 0; o < m_radix; ++o) {
    tlm_net::ring<packet*>& buffer = m_output_buffers[o];
    if (buffer.empty()) continue;
    tlm_net::credit_output& op = m_outputs[o];
    if (op.link_free(now)) {
      packet* p = buffer.pop();
      --m_output_buffered;
      --m_buffered;
      const sc_time t = op.transmit(out[o], *p, now);  // p belongs downstream
      if (m_trace) m_agenda.push(now + t, action{});
    }
    if (!buffer.empty() && op.busy_until() < retry) retry = op.busy_until();
  }
}

bool router::describe_stall(std::ostream& os, uint32_t max_lines) const {
  if (m_output_queued) return oq_describe_stall(os, max_lines);
  uint32_t lines = 0;
  for (uint32_t i = 0; i < m_radix; ++i) {
    for (uint32_t vc = 0; vc < m_vcs; ++vc) {
      const input_vc& q = ivc(i, vc);
      if (q.occupancy_bytes == 0) continue;
      if (lines++ >= max_lines) return true;
      os << "  " << name() << " input port " << i << " ("
         << (i == m_attached_port ? m_params.attached.label : m_topo.class_name(m_inputs[i].cls))
         << ") VC " << vc << ": " << q.fifo.size() << " packets routed, " << q.occupancy_bytes
         << " bytes buffered";
      if (!q.fifo.empty()) {
        const packet* h = q.fifo.front();
        os << "; head " << *h << " waits for output port " << h->next_port << " VC "
           << unsigned(h->next_vc) << " with "
           << m_outputs[h->next_port].credits(h->next_vc, sc_core::sc_time_stamp()) << "/"
           << m_outputs[h->next_port].capacity_bytes() << " credit bytes";
      }
      os << "\n";
    }
  }
  for (uint32_t o = 0; o < m_output_buffers.size(); ++o) {
    if (m_output_buffers[o].empty()) continue;
    if (lines++ >= max_lines) return true;
    os << "  " << name() << " output port " << o << " ("
       << (o == m_attached_port ? m_params.attached.label : m_topo.class_name(m_inputs[o].cls))
       << "): " << m_output_buffers[o].size() << " packets in the output buffer, link busy until "
       << m_outputs[o].busy_until() << "\n";
  }
  return lines > 0;
}

void router::trace(const tlm_net::trace_window& window, const std::string& prefix) {
  m_trace = std::make_unique<trace_mirror>();
  m_trace->window = window;
  m_trace->occupancy.assign(m_in_vcs.size(), 0);
  m_trace->credits.resize(size_t{m_radix} * m_vcs);
  for (uint32_t port = 0; port < m_radix; ++port) {
    for (uint32_t vc = 0; vc < m_vcs; ++vc)
      m_trace->credits[port * m_vcs + vc] = m_outputs[port].credits(vc, sc_core::sc_time_stamp());
  }
  m_trace->busy.reset(new bool[m_radix]());
  std::vector<uint32_t> ports;  // connected ones
  for (uint32_t i = 0; i < m_radix; ++i) {
    if (i == m_attached_port || m_topo.port(m_id, i).peer_kind != network::port_info::kind::unused)
      ports.push_back(i);
  }
  // Shown with its class, or the attached block's label: "port3(global)", "port7(bcast unit)".
  tlm_net::trace_signals sig(window, prefix, "router, " + std::to_string(ports.size()) + " ports");
  sig.add(m_trace->packets, "packets", "crossbar.packets");
  for (uint32_t i : ports) {
    const std::string port = "port" + std::to_string(i);
    const std::string shown = port + "(" +
                              (i == m_attached_port ? m_params.attached.label
                                                    : m_topo.class_name(m_topo.port(m_id, i).cls)) +
                              ")";
    for (uint32_t vc = 0; vc < m_vcs; ++vc) {
      const std::string v = ".in.vc" + std::to_string(vc) + ".occupancy_bytes";
      sig.add(m_trace->occupancy[i * m_vcs + vc], port + v, shown + v);
    }
    sig.add(m_trace->busy[i], port + ".out.busy", shown + ".out.busy");
    for (uint32_t vc = 0; vc < m_vcs; ++vc) {
      const std::string v = ".out.vc" + std::to_string(vc) + ".credit_bytes";
      sig.add(m_trace->credits[i * m_vcs + vc], port + v, shown + v);
    }
  }
}

void router::sample_trace() {
  if (!m_trace->window.active(sc_core::sc_time_stamp())) return;
  for (size_t k = 0; k < m_in_vcs.size(); ++k) m_trace->occupancy[k] = m_in_vcs[k].occupancy_bytes;
  const sc_time now = sc_core::sc_time_stamp();
  for (uint32_t port = 0; port < m_radix; ++port) {
    for (uint32_t vc = 0; vc < m_vcs; ++vc) {
      m_trace->credits[port * m_vcs + vc] = m_outputs[port].credits(vc, now);
    }
  }
  for (uint32_t i = 0; i < m_radix; ++i) m_trace->busy[i] = !m_outputs[i].link_free(now);
  m_trace->packets = packets.value;
}

}  // namespace bcastsim::hw
