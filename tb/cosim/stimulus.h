// What the co-simulation harness (tb/cosim/harness.h) plays into one Bcast Unit and its
// copy: the unit's parameters, its Membership lists, the packets that enter its `in` (when,
// and every header field), and how the router behind its `out` takes the copies (link rate
// and credit return). Two sources:
//   random_stimulus(seed, cycles)  a deterministic random workload within the limits of the
//                                  verilated core (rtl/bcast_pkg.sv), see stimulus.cpp;
//   load_replay(file)              what entered every unit of a fabric run, recorded with
//                                  `bcastsim run --record-unit-inputs FILE` (recorder.h).
#pragma once

#include "hw/ragasa/bcast_unit_base.h"
#include "hw/ragasa/packet_fields.h"
#include "tlm/link.h"
#include "tlm/packet.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace bcastsim::tb::cosim {

// One packet entering the unit's `in`, as the router's unit link delivers it: BEGIN_REQ is
// called at send_ps with the delay annotation head_ps - send_ps (the head flit is in at
// head_ps); the tail is in at tail_ps (packet.tail_time). Its class (hand-off or relayed
// data, Mini Packet, credit return) decides its VC (hw/ragasa/packet_fields.h).
struct arrival {
  uint64_t send_ps = 0;
  uint64_t head_ps = 0;
  uint64_t tail_ps = 0;
  tlm_net::packet_kind kind = tlm_net::packet_kind::data;
  hw::ragasa::packet_class cls = hw::ragasa::packet_class::handoff;
  network::terminal_id src = network::invalid_id;
  network::terminal_id dst = network::invalid_id;
  network::router_id unit_router = network::invalid_id;
  uint32_t collective_id = 0;
  uint64_t msg_id = 0;
  uint32_t tag = 0;
  uint32_t index = 0;
  uint32_t count = 0;
  uint32_t size_bytes = 0;
  uint64_t msg_bytes = 0;
  uint64_t buf_offset = 0;
};

// The router behind the unit's `out`: it takes a copy in `serialisation(size)` (the unit's
// output link rate) and gives its credit back credit_delay_ps + a jitter in
// [0, credit_jitter_ps] after the tail has left, never before an earlier copy's credit.
// The jitter of the k-th copy at this sink is drawn from (jitter_seed, k) only, so the
// reference and the device under test see the same back-pressure for the same copies.
struct sink_params {
  double ps_per_byte = 44.0;
  uint64_t credit_delay_ps = 0;
  uint64_t credit_jitter_ps = 0;
  uint64_t jitter_seed = 0;
  uint64_t serialisation_ps(uint32_t bytes) const;
  uint64_t credit_delay_of_copy(uint64_t copy) const;
};

struct stimulus {
  std::string name;  // "seed_3" or the fabric's unit name ("unit_5")
  hw::ragasa::bcast_unit_params params;
  network::terminal_id terminal = 0;  // the unit's terminal (routing entropy; no routing here)
  std::map<uint32_t, std::vector<hw::ragasa::membership_child>> membership;
  // The data packets each collective brings to the unit, as its Mini Packet says (step 10
  // frees the entry when they have all been sent); a collective not listed keeps its entry.
  std::map<uint32_t, uint64_t> membership_packets;
  // The unit each collective's data come from (credit returns go to it); none when not listed.
  std::map<uint32_t, hw::ragasa::membership_child> membership_parent;
  std::vector<arrival> arrivals;  // in send order
  // The driver of `in` acts as the router: it spends the unit's input_buffer_bytes credits of
  // each VC, which come back credit_latency_ps after the unit returns them (the unit link's
  // latency), and it never has more than max_ri_packets packets of a VC in the unit's RI.
  uint64_t credit_latency_ps = 0;
  uint32_t max_ri_packets = 64;  // RI_MAX of rtl/bcast_pkg.sv (a VC)
  sink_params sink;

  uint64_t period_ps() const;
  uint64_t packets(tlm_net::packet_kind kind) const;
};

// The latest time a replay may reach, in clock cycles of its unit (the harness would poll
// for ever toward a time like 2^64 - 1 ps); the same bound as --random-cycles.
inline constexpr uint64_t max_replay_cycles = 100000000;

// Bad replay input: `what()` names the file, the line, the field and its allowed values.
struct replay_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One line: the stimulus's size, unit parameters and sink (for the report).
std::string summary(const stimulus& s);

// A deterministic random stimulus: the same (seed, cycles) gives the same stimulus on every
// platform (std::mt19937_64 with our own range reduction, no std distributions). Arrivals
// are generated until the last one is at about `cycles` clock cycles; then every message in
// progress is completed.
stimulus random_stimulus(uint64_t seed, uint64_t cycles);

// The stimuli of a recording, one per unit that received packets, in recording order of
// the units. Every field is checked against its range (replay.cpp); throws replay_error
// naming the file, the line and the field.
std::vector<stimulus> load_replay(const std::string& path);

// JSON forms shared by the recorder and the loader (keys are the struct members' names).
nlohmann::json to_json(const hw::ragasa::bcast_unit_params& p);
hw::ragasa::bcast_unit_params params_from_json(const nlohmann::json& j);
nlohmann::json to_json(const arrival& a);
arrival arrival_from_json(const nlohmann::json& j);

// The recording's fixed credit return of a replayed unit's router (documented in
// recorder.h): its pipeline, then the unit link's latency back to the unit.
uint64_t replay_credit_delay_ps(double router_clock_mhz, uint32_t router_delay_cycles,
                                double port_latency_ns);

}  // namespace bcastsim::tb::cosim
