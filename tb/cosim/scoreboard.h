// The co-simulation scoreboard: compares what the reference (the SystemC model) and the
// device under test did with the same stimulus, stage by stage.
//
// Stages (hw::ragasa::unit_observer, the credits the drivers got back and the copies the
// sinks received):
//   credit      credits the unit returned at `in` (a packet left the RI for an Rx-queue):
//               bytes and VC, in order
//   scheduled   packets the Receive Packet Scheduler took, with their Rx-queue
//   parsed      Mini Packets parsed into the Membership Table (collective)
//   freed       Membership Table entries freed by step 10 (collective)
//   batch       chunks closed into batches (first packet, packets)
//   descriptor  descriptors entering the Work Queue Element (batch's first packet, child)
//   dispatched  descriptors leaving the Dispatcher (batch's first packet, child)
//   copy        copies received behind `out`, compared per child = (dst, unit_router): the
//               same packets in the same order, every header field and size equal
//   end         at the end: both units idle, and the same packets in / out, Mini Packets,
//               descriptors and bytes replicated
//
// Functional: each sequence (a stage's, or one child's copies) must be identical; the first
// event that differs is a functional mismatch and the rest of that sequence is not compared
// (it is out of step). Timing: for every matched pair, drift = (t_dut - t_ref) / clock
// period, in cycles; |drift| > tolerance_cycles is a timing violation. The first divergence
// is the earliest (by simulated time) mismatch or violation over all stages and units.
#pragma once

#include "hw/ragasa/bcast_unit_base.h"
#include "tlm/packet.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace bcastsim::tb::cosim {

enum class stage : uint8_t {
  credit,
  scheduled,
  parsed,
  freed,
  batch,
  descriptor,
  dispatched,
  copy,
  end
};
constexpr size_t num_stages = 9;
const char* to_string(stage s);
std::ostream& operator<<(std::ostream& os, stage s);

// One stage event. The packet fields describe: scheduled, the packet; batch, descriptor and
// dispatched, the batch's first packet; copy, the copy; parsed and freed, only collective_id is
// set; credit, only size_bytes and vc.
struct event {
  uint64_t t_ps = 0;
  tlm_net::packet_kind kind = tlm_net::packet_kind::data;
  uint32_t collective_id = 0;
  network::terminal_id src = network::invalid_id;
  uint64_t msg_id = 0;
  uint32_t index = 0;
  uint32_t count = 0;
  uint32_t size_bytes = 0;
  uint32_t tag = 0;
  uint64_t msg_bytes = 0;
  uint64_t buf_offset = 0;
  uint32_t n = 0;                      // scheduled: Rx-queue; batch: packets
  hw::ragasa::membership_child child;  // descriptor, dispatched, copy
  uint8_t vc = 0;                      // copy, credit
  uint8_t cls = 0;                     // copy: hw::ragasa::packet_class
};
event event_of(const tlm_net::packet& p, uint64_t t_ps);

// What one unit did (copies in the order its sink received them).
struct event_log {
  std::array<std::vector<event>, num_stages - 1> stages;  // not `end`
  std::vector<event>& operator[](stage s) { return stages[static_cast<size_t>(s)]; }
  const std::vector<event>& operator[](stage s) const { return stages[static_cast<size_t>(s)]; }
};

// A unit's state at the end of the run.
struct end_state {
  bool idle = true;
  std::string stall;           // describe_stall() when not idle
  uint64_t arrivals_left = 0;  // stimulus packets the driver could not send
  uint64_t packets_in = 0, packets_out = 0, mini_packets = 0, descriptors = 0;
  uint64_t bytes_replicated = 0;
};

bool same_event(stage s, const event& a, const event& b);
std::string describe(stage s, const event& e);

struct stage_summary {
  uint64_t compared = 0;    // matched pairs
  uint64_t mismatches = 0;  // sequences that diverge functionally
  uint64_t violations = 0;  // matched pairs beyond the tolerance
  double max_abs_drift_cycles = 0;
  double sum_drift_cycles = 0;
  double mean_drift_cycles() const {
    return compared ? sum_drift_cycles / static_cast<double>(compared) : 0.0;
  }
};

struct divergence {
  bool found = false;
  uint64_t t_ps = 0;
  stage where = stage::scheduled;
  std::string unit;
  std::string kind;  // "functional" or "timing"
  std::string expected, got;
  double drift_cycles = 0;
};

struct report {
  std::string dut;
  uint32_t tolerance_cycles = 0;
  uint32_t units = 0;
  uint64_t cycles = 0;      // clock cycles simulated (the slowest unit clock)
  uint64_t packets_in = 0;  // stimulus packets played into each side
  std::array<stage_summary, num_stages> stages{};
  divergence first;
  uint64_t divergences = 0;  // mismatches + violations
  std::vector<std::string> waveforms;
  std::string incomplete;  // why the run did not finish (the reference stalled), or empty
  // Why the waveforms could not be written whole (a full disk; none is left), or empty.
  std::string waveform_error;
  bool ok() const { return !first.found && incomplete.empty(); }
  stage_summary& operator[](stage s) { return stages[static_cast<size_t>(s)]; }
  const stage_summary& operator[](stage s) const { return stages[static_cast<size_t>(s)]; }
};

class scoreboard {
 public:
  explicit scoreboard(uint32_t tolerance_cycles) { m_report.tolerance_cycles = tolerance_cycles; }

  // Compares one unit's two logs; period_ps is its clock period.
  void compare(const std::string& unit, uint64_t period_ps, const event_log& ref,
               const event_log& dut);
  // Compares the end states; t_ps is when the run ended.
  void compare_end(const std::string& unit, uint64_t t_ps, const end_state& ref,
                   const end_state& dut);

  // An error a block reported at t_ps, which ended the run: in the reference or the
  // harness, the run is incomplete; in the DUT (or its driver or sink), a divergence.
  void error(const std::string& unit, uint64_t t_ps, const std::string& what, bool reference);

  report& result() { return m_report; }

 private:
  void compare_sequence(stage s, const std::string& unit, uint64_t period_ps,
                        const std::vector<event>& ref, const std::vector<event>& dut);
  void diverge(stage s, const std::string& unit, uint64_t t_ps, const char* kind,
               std::string expected, std::string got, double drift);

  report m_report;
};

// The report as a table, and as JSON (--json).
void print(std::ostream& os, const report& r);
nlohmann::json to_json(const report& r);

}  // namespace bcastsim::tb::cosim
