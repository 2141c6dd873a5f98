#include "hw/traffic/traffic_generator.h"

#include "network/routing.h"

#include <algorithm>
#include <cmath>

namespace bcastsim::hw {

namespace {

sc_core::sc_time at_ns(double ns) {
  return std::isfinite(ns) ? sc_core::sc_time(ns, sc_core::SC_NS) : sc_core::sc_max_time();
}

}  // namespace

uint64_t traffic_stream_seed(uint64_t seed, network::terminal_id terminal) {
  // A constant keeps the traffic streams apart from the routing entropy of the same terminal.
  return network::splitmix64(network::splitmix64(seed ^ 0x7472616666696373ull) +
                             network::splitmix64(terminal));
}

traffic_generator::traffic_generator(const sc_core::sc_module_name& name,
                                     network::terminal_id terminal, const traffic_params& params,
                                     nic& nic,
                                     const std::vector<network::terminal_id>& destinations,
                                     std::function<bool()> stop_when)
    : sc_core::sc_module(name),
      m_terminal(terminal),
      m_params(params),
      m_nic(nic),
      m_destinations(destinations),
      m_self_index(
          static_cast<size_t>(std::lower_bound(destinations.begin(), destinations.end(), terminal) -
                              destinations.begin())),
      m_stop_when(std::move(stop_when)),
      m_rng(traffic_stream_seed(params.seed, terminal)),
      m_window_start(at_ns(params.measure_start_ns)),
      m_window_end(at_ns(params.measure_end_ns)),
      m_agenda(m_wakeup) {
  if (m_self_index < destinations.size() && destinations[m_self_index] != terminal) {
    m_self_index = destinations.size();
  }
  m_samples.reserve(params.expected_samples);
  m_stats.declare("messages_offered", "messages", "messages the traffic source offered",
                  messages_offered);
  m_stats.declare("messages_sent", "messages", "offered messages handed to the NIC", messages_sent);
  m_stats.declare("dropped_at_source", "messages",
                  "offered messages dropped because the NIC queue was full", dropped_at_source);
  m_stats.declare("messages_received", "messages", "traffic messages delivered here",
                  messages_received);
  m_stats.declare("packets_measured", "packets",
                  "packets delivered here that were created in the measurement window",
                  packets_measured);
  m_stats.declare("messages_measured", "messages",
                  "messages delivered here that were created in the measurement window",
                  messages_measured);
  m_stats.declare("window_bytes", "bytes", "bytes delivered here during the measurement window",
                  window_bytes);
  m_stats.declare("codes_chunks", "chunks",
                  "32-B chunks delivered here before the measurement window's end (CODES)",
                  codes_chunks);
  m_stats.declare("codes_chunk_ps", "ps",
                  "summed latency of those chunks, packet creation to chunk arrival (CODES)",
                  codes_chunk_ps);
  SC_METHOD(on_wakeup);
  sensitive << m_wakeup;
  dont_initialize();
  const size_t others = destinations.size() - (m_self_index < destinations.size() ? 1 : 0);
  if (others == 0) {
    m_stopped = true;  // nowhere to send
  } else {
    schedule_next();
  }
}

void traffic_generator::schedule_next() {
  // Exponential inter-arrival time by inversion; 1 - unit() is in (0, 1].
  m_next_ns += -m_params.mean_interarrival_ns * std::log(1.0 - m_rng.unit());
  if (m_next_ns >= m_params.stop_ns) {
    m_stopped = true;
    return;
  }
  m_agenda.push(sc_core::sc_time(m_next_ns, sc_core::SC_NS), true);
}

void traffic_generator::arrival() {
  if (m_stop_when && m_stop_when()) {
    m_stopped = true;
    return;
  }
  ++messages_offered;
  // The destination is drawn even for a dropped offer, so the stream does not depend on
  // the network's state.
  const size_t others = m_destinations.size() - (m_self_index < m_destinations.size() ? 1 : 0);
  size_t k = static_cast<size_t>(m_rng.below(others));
  if (k >= m_self_index) ++k;
  if (m_nic.queued_messages() >= m_params.max_queue_messages) {
    ++dropped_at_source;
  } else {
    message m;
    m.dst = m_destinations[k];
    m.bytes = m_params.message_bytes;
    m_nic.send_message(m);
    ++messages_sent;
  }
  schedule_next();
}

void traffic_generator::on_wakeup() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (m_agenda.due(now)) {
    m_agenda.pop();
    arrival();
  }
  m_agenda.arm();
}

void traffic_generator::on_message(network::terminal_id, uint32_t, uint32_t, uint64_t, uint64_t,
                                   uint32_t) {
  ++messages_received;
}

// Chunk n-1-b of the packet arrives at tail - b*c; those before the window's end, b >= b0,
// are counted, their latencies summed in closed form (a 1-MiB packet is 32,768 chunks).
void traffic_generator::count_codes_chunks(const tlm_net::packet& p, sc_core::sc_time now) {
  constexpr uint64_t chunk = traffic_params::codes_chunk_bytes;
  const uint64_t n = std::max<uint64_t>(1, (p.size_bytes + chunk - 1) / chunk);
  const double c = m_params.chunk_ps;
  const double late_ps =
      static_cast<double>(now.value()) - static_cast<double>(m_window_end.value());
  const uint64_t b0 = late_ps < 0 ? 0 : static_cast<uint64_t>(std::floor(late_ps / c)) + 1;
  if (b0 >= n) return;
  const uint64_t k = n - b0;
  // From CODES's issue time where the NIC keeps it (nic.codes_issue_ns), else the creation.
  const sc_core::sc_time start = p.issued > p.created ? p.issued : p.created;
  const double tail_latency_ps = static_cast<double>((now - start).value());
  const double sum_ps = static_cast<double>(k) * tail_latency_ps -
                        c * static_cast<double>(b0 + n - 1) * static_cast<double>(k) / 2.0;
  codes_chunks += k;
  codes_chunk_ps += static_cast<uint64_t>(std::llround(sum_ps));
}

void traffic_generator::on_packet(const tlm_net::packet& p) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (now >= m_window_start && now < m_window_end) window_bytes += p.size_bytes;
  if (m_params.chunk_ps > 0.0) count_codes_chunks(p, now);
  if (p.created >= m_window_start && p.created < m_window_end) {
    m_samples.push_back((now - p.created).value());
    ++packets_measured;
    if (p.first_of_message()) ++messages_measured;
  }
}

}  // namespace bcastsim::hw
