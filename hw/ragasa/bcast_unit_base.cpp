#include "hw/ragasa/bcast_unit_base.h"

#include "tlm/units.h"

#include <algorithm>

namespace bcastsim::hw::ragasa {

bcast_unit_base::bcast_unit_base(const sc_core::sc_module_name& name, network::terminal_id terminal,
                                 const bcast_unit_params& params, tlm_net::packet_pool& pool,
                                 const membership_source& membership,
                                 const network::routing_policy* routing)
    : sc_core::sc_module(name),
      in("in"),
      out("out"),
      m_params(params),
      m_terminal(terminal),
      m_pool(pool),
      m_source(membership),
      m_routing(routing),
      m_period(sc_core::sc_time::from_value(units::clock_period_ps(params.clock_mhz))),
      m_in_bytes(params.vcs, 0) {
  m_out.init(this->name(), params.vcs, params.output_buffer_bytes);
  m_stats.declare("packets_in", "packets", "packets received from the router", packets_in);
  m_stats.declare("packets_out", "packets", "copies sent back into the router", packets_out);
  m_stats.declare("mini_packets", "packets", "Mini Packets parsed into the Membership Table",
                  mini_packets);
  m_stats.declare("descriptors", "descriptors", "descriptors generated (one per child)",
                  descriptors);
  m_stats.declare("bytes_replicated", "bytes", "bytes of the copies sent", bytes_replicated);
  m_stats.declare("rx_queue_peak_packets", "packets", "high-water mark of one Rx-queue",
                  rx_queue_peak_packets, tlm_net::combine::max);
  m_stats.declare("membership_peak_entries", "entries", "high-water mark of the Membership Table",
                  membership_peak_entries, tlm_net::combine::max);
  m_stats.declare("membership_freed", "entries",
                  "Membership Table entries freed when their collective was complete here",
                  membership_freed);
  m_stats.declare("membership_stall_ps", "ps",
                  "time head Mini Packets waited for a free Membership Table entry",
                  membership_stall_ps);
  m_stats.declare("working_memory_peak_bytes", "bytes", "high-water mark of Working Memory",
                  working_memory_peak_bytes, tlm_net::combine::max);
  m_stats.declare("work_queue_peak_descriptors", "descriptors",
                  "high-water mark of the Work Queue Element", work_queue_peak_descriptors,
                  tlm_net::combine::max);
  m_stats.declare("send_queue_peak_descriptors", "descriptors",
                  "high-water mark of dispatched descriptors at the Send Packet Scheduler",
                  send_queue_peak_descriptors, tlm_net::combine::max);
  m_stats.declare("connection_wait_ps", "ps",
                  "time the Dispatcher's head descriptor waited for a connection (all open, or "
                  "its child's still sending an earlier batch)",
                  connection_wait_ps);
  m_stats.declare("memory_stall_ps", "ps", "time head data packets waited for Working Memory",
                  memory_stall_ps);
  m_stats.declare("rx_hol_blocked_ps", "ps",
                  "time packets sat behind an Rx-queue head waiting for Working Memory",
                  rx_hol_blocked_ps);
  m_stats.declare("ri_blocked_ps", "ps", "time the RI was blocked by a full Rx-queue",
                  ri_blocked_ps);
  m_stats.declare("credit_wait_ps", "ps",
                  "time closed batches waited for a child unit's credits, summed over broadcasts",
                  credit_wait_ps);
  m_stats.declare("credit_returns", "packets", "credit returns sent to parent units",
                  credit_returns);
}

tlm_net::packet* bcast_unit_base::make_credit_return(uint32_t collective, uint32_t packets,
                                                     const membership_child& parent,
                                                     const sc_core::sc_time& now,
                                                     uint64_t entropy_index) {
  const uint32_t bytes = m_params.credit_packet_bytes;
  tlm_net::packet* p = m_pool.acquire();
  p->src = m_terminal;
  p->dst = parent.dst;
  p->offload = to_unit(parent.unit_router, packet_class::credit);
  p->kind = tlm_net::packet_kind::control;
  p->vc = 0;
  p->size_bytes = bytes;
  p->msg_id = 0;
  p->tag = 0;
  p->msg_seq = 0;
  p->collective_id = collective;
  p->msg_bytes = bytes;
  p->buf_offset = 0;
  p->index = 0;
  p->count = packets;
  p->created = now;
  p->injected = now;
  p->tail_time = now;
  p->routers = 0;
  if (m_routing)
    m_routing->init_state(m_terminal, parent.dst,
                          network::packet_entropy(m_params.seed, m_terminal, entropy_index),
                          p->route);
  ++credit_returns;
  return p;
}

uint64_t reservation_bytes(const bcast_unit_params& p, uint64_t packets) {
  const uint64_t s = p.packet_bytes;
  const uint64_t chunk = std::max<uint64_t>(1, (p.descriptor_threshold_bytes + s - 1) / s);
  uint64_t n = std::min<uint64_t>(uint64_t{p.reserved_chunks} * chunk, p.working_memory_bytes / s);
  if (packets != membership_source::keep_entry && packets > 0) n = std::min(n, packets);
  return n * s;
}

}  // namespace bcastsim::hw::ragasa
