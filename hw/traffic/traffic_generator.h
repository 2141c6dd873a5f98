// A traffic generator: a block of its own on one terminal (SST: "traffic generators are
// components of their own"). It offers messages to its terminal's host NIC with
// exponentially distributed inter-arrival times (Poisson arrivals), each to a destination
// drawn uniformly from a list (never itself), and, as the NIC's client on a terminal without
// a rank, measures the packets delivered to that terminal.
//
// Code flow: agenda (next arrival) -> on_wakeup -> arrival(): stop? / source queue full?
// (drop) / draw destination -> nic.send_message() -> next arrival drawn and queued.
// Delivery: nic -> on_packet() (latency of packets created in the measurement window,
// bytes delivered during it) -> on_message() (count).
//
// Random numbers: one stream per terminal, seeded by splitmix64 of the run seed and the
// terminal id (network::rng), so a run is deterministic and independent of routing: the
// same seed offers the same messages at the same times to the same destinations.
#pragma once

#include "hw/nic/nic.h"
#include "network/placement.h"
#include "tlm/statistics.h"
#include "tlm/timed_queue.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <systemc>
#include <vector>

namespace bcastsim::hw {

struct traffic_params {
  // model-net's chunk_size in CODES's configuration: the unit of its latency and throughput.
  static constexpr uint64_t codes_chunk_bytes = 32;

  uint64_t message_bytes = 1024;
  double mean_interarrival_ns = 750.0;
  // Arrivals stop at stop_ns (exclusive) or when stop_when() is true at an arrival.
  double stop_ns = std::numeric_limits<double>::infinity();
  // Measurement window [measure_start_ns, measure_end_ns): packets created (handed to the
  // NIC) inside it are sampled for latency; bytes delivered inside it count as accepted.
  double measure_start_ns = 0.0;
  double measure_end_ns = std::numeric_limits<double>::infinity();
  uint64_t max_queue_messages = 10000;  // source queue (the NIC's) beyond which offers drop
  // CODES's latency (model-net's "average chunk latency"): each 32-B chunk of a delivered
  // packet, from the packet's creation to the chunk's arrival, for chunks arriving before
  // measure_end_ns, created at any time (CODES has no warm-up and does not drain). The last
  // chunk arrives with the tail, each earlier one chunk_ps before the next (the terminal link).
  double chunk_ps = 0.0;        // 0: not measured
  uint64_t seed = 1;            // run seed; the stream is derived with the terminal
  size_t expected_samples = 0;  // capacity reserved for latency samples
};

// The per-terminal stream seed: splitmix64 of the run seed and the terminal.
uint64_t traffic_stream_seed(uint64_t seed, network::terminal_id terminal);

class traffic_generator final : public sc_core::sc_module, public nic_client {
 public:
  // `destinations` (sorted ascending, outliving the generator) are drawn from uniformly,
  // skipping this terminal if listed. `stop_when`, if given, is asked at every arrival.
  traffic_generator(const sc_core::sc_module_name& name, network::terminal_id terminal,
                    const traffic_params& params, nic& nic,
                    const std::vector<network::terminal_id>& destinations,
                    std::function<bool()> stop_when = {});
  SC_HAS_PROCESS(traffic_generator);

  void on_message(network::terminal_id src, uint32_t collective_id, uint32_t tag,
                  uint64_t buf_offset, uint64_t bytes, uint32_t seq) override;
  void on_packet(const tlm_net::packet& p) override;

  network::terminal_id terminal() const { return m_terminal; }
  bool stopped() const { return m_stopped; }
  // Latency samples (ps, created -> tail delivered here) of packets created in the window.
  const std::vector<uint64_t>& latency_samples_ps() const { return m_samples; }
  // Once the simulation has ended: the report merges every generator's samples in order.
  void sort_latency_samples() { std::sort(m_samples.begin(), m_samples.end()); }

  // Statistics.
  tlm_net::counter messages_offered;   // arrivals before the stop
  tlm_net::counter messages_sent;      // handed to the NIC
  tlm_net::counter dropped_at_source;  // offered while the NIC queue was full
  tlm_net::counter messages_received;  // whole messages delivered here
  tlm_net::counter packets_measured;   // delivered here, created in the window
  tlm_net::counter messages_measured;  // first packets of those
  tlm_net::counter window_bytes;       // bytes delivered here during the window
  tlm_net::counter codes_chunks;       // 32-B chunks delivered here before the window's end
  tlm_net::counter codes_chunk_ps;     // their latencies, summed (CODES's definition)
  const tlm_net::stat_group& stats() const { return m_stats; }

 private:
  void on_wakeup();
  void arrival();
  void schedule_next();
  void count_codes_chunks(const tlm_net::packet& p, sc_core::sc_time now);

  network::terminal_id m_terminal;
  traffic_params m_params;
  nic& m_nic;
  const std::vector<network::terminal_id>& m_destinations;
  size_t m_self_index;  // position of m_terminal in m_destinations, or its size
  std::function<bool()> m_stop_when;
  network::rng m_rng;
  double m_next_ns = 0.0;
  bool m_stopped = false;
  sc_core::sc_time m_window_start, m_window_end;
  std::vector<uint64_t> m_samples;

  sc_core::sc_event m_wakeup;
  tlm_net::timed_queue<bool> m_agenda;  // the next arrival
  tlm_net::stat_group m_stats;
};

}  // namespace bcastsim::hw
