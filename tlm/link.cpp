#include "tlm/link.h"

#include "tlm/packet_pool.h"
#include "tlm/units.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace bcastsim::tlm_net {

using sc_core::sc_time;

link::link(std::string name, const link_params& params)
    : m_name(std::move(name)), m_params(params) {
  m_ps_per_byte = units::ps_per_byte(params.bandwidth_gib_per_s);
  m_overhead_ps_per_flit = params.flit_overhead_ns * 1000.0;
  m_latency = sc_time::from_value(units::ps_from_ns(params.latency_ns));
  m_flit_time = serialisation(params.flit_bytes);
  m_last_time = serialisation(0);
}

const sc_time& link::crossing(uint32_t n) {
  if (n == m_params.flit_bytes) return m_flit_time;
  if (n != m_last_bytes) {
    m_last_bytes = n;
    m_last_time = serialisation(n);
  }
  return m_last_time;
}

void link::connect(sender_socket& from, receiver_socket& to) {
  m_sender = dynamic_cast<bw_if*>(from.get_base_export().get_interface());
  m_receiver = dynamic_cast<fw_if*>(to.get_base_export().get_interface());
  if (!m_sender || !m_receiver) {
    throw std::logic_error(m_name +
                           ": connect() before the sender and receiver bound their "
                           "sockets to their interfaces");
  }
  from.get_base_port().bind(*this);
  to.get_base_port().bind(*this);
}

const char* link::basename() const {
  const size_t dot = m_name.rfind('.');
  return m_name.c_str() + (dot == std::string::npos ? 0 : dot + 1);
}

stat_group link::stats() const {
  stat_group g;
  g.declare("packets", "packets", "data packets that crossed the link", packets);
  g.declare("messages", "messages", "data messages that crossed the link (first packets)",
            messages);
  g.declare("control_packets", "packets",
            "control packets (offload set-up: Mini Packets) that crossed the link",
            control_packets);
  g.declare("bytes", "bytes", "bytes that crossed the link", bytes);
  g.declare("busy_ps", "ps", "time the link was serialising packets", busy_ps);
  g.declare("dropped", "packets", "packets lost by fault injection", dropped);
  return g;
}

sc_time link::serialisation(uint32_t n) const {
  const uint64_t ps = units::serialisation_ps(n, m_ps_per_byte);
  if (m_overhead_ps_per_flit == 0) return sc_time::from_value(ps);
  const uint64_t flits = n == 0 ? 1 : (uint64_t{n} + m_params.flit_bytes - 1) / m_params.flit_bytes;
  return sc_time::from_value(ps + static_cast<uint64_t>(std::llround(static_cast<double>(flits) *
                                                                     m_overhead_ps_per_flit)));
}

tlm::tlm_sync_enum link::nb_transport_fw(packet& p, tlm::tlm_phase& ph, sc_time& t) {
  if (ph != tlm::BEGIN_REQ) {
    SC_REPORT_ERROR(m_name.c_str(), "link accepts only BEGIN_REQ on the forward path");
    return tlm::TLM_COMPLETED;
  }
  const sc_time now = sc_core::sc_time_stamp();
  const sc_time start = now + t;
  if (start < m_free_at) {
    SC_REPORT_ERROR(m_name.c_str(), "a sender started a packet while the link was still busy");
  }
  const sc_time ser = crossing(p.size_bytes);
  sc_time end = start + ser;
  if (p.tail_time > end) end = p.tail_time;  // cut-through: cannot outrun the incoming tail
  m_free_at = end;

  bytes += p.size_bytes;
  busy_ps += (end - start).value();
  if (p.kind == packet_kind::control) {
    ++control_packets;
  } else {
    ++packets;
    if (p.first_of_message()) ++messages;
  }

  if (m_faults && lose()) {
    // Lost on the wire: the sender's credit comes back as though the receiver took the tail
    // and freed its buffer at once.
    ++dropped;
    sc_time credit_at = end + m_latency + m_latency - now;
    packet& token = m_faults->credit_token;
    token.vc = p.vc;
    token.size_bytes = p.size_bytes;
    tlm::tlm_phase back = CREDIT;
    m_sender->nb_transport_bw(token, back, credit_at);
    m_faults->faults.pool->release(&p);
    ph = tlm::END_REQ;
    t = end - now;
    return tlm::TLM_UPDATED;
  }

  const uint32_t head = p.size_bytes < m_params.flit_bytes ? p.size_bytes : m_params.flit_bytes;
  sc_time head_arrival = start + m_latency + crossing(head) - now;
  p.tail_time = end + m_latency;
  tlm::tlm_phase fwd = tlm::BEGIN_REQ;
  m_receiver->nb_transport_fw(p, fwd, head_arrival);

  ph = tlm::END_REQ;
  t = end - now;  // the sender's output is busy until then
  return tlm::TLM_UPDATED;
}

void link::set_faults(const link_faults& f) {
  m_faults = std::make_unique<fault_state>();
  m_faults->faults = f;
}

bool link::lose() {
  const link_faults& f = m_faults->faults;
  const uint64_t seen = ++m_faults->seen;
  if (std::find(f.drop_nth.begin(), f.drop_nth.end(), seen) != f.drop_nth.end()) return true;
  if (f.drop_rate <= 0) return false;
  const uint64_t h = network::splitmix64(f.seed ^ network::splitmix64(seen));
  return static_cast<double>(h >> 11) * 0x1.0p-53 < f.drop_rate;
}

void link::b_transport(packet&, sc_time&) {
  SC_REPORT_ERROR(m_name.c_str(), "links carry packets with nb_transport only");
}

tlm::tlm_sync_enum link::nb_transport_bw(packet& p, tlm::tlm_phase& ph, sc_time& t) {
  if (ph != CREDIT) {
    SC_REPORT_ERROR(m_name.c_str(), "link accepts only CREDIT on the backward path");
    return tlm::TLM_COMPLETED;
  }
  sc_time delay = t + m_latency;
  tlm::tlm_phase back = CREDIT;
  m_sender->nb_transport_bw(p, back, delay);
  return tlm::TLM_ACCEPTED;
}

}  // namespace bcastsim::tlm_net
