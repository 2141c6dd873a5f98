// What a co-simulation exercised, measured on the reference (the SystemC model), so that a
// pass can be told apart from a stimulus that never reached the situation a fault needs:
//   contended_picks     Receive Packet Scheduler picks while another Rx-queue also held a
//                       packet (the unfair-arbiter fault, rtl-fault-unfair, needs them)
//   memory_stall_cycles a head data packet waited for Working Memory
//   rx_queue_full_cycles the RI waited for a full Rx-queue
//   work_queue_full, send_queue_full  units whose Work Queue / Send Packet Scheduler was full
//   table_hits          data packets scheduled with their collective in the Membership Table
//   table_misses        data packets scheduled before their collective's Mini Packet
//   shared_batches      batches copied to two or more children (a stored packet is freed after
//                       its last copy: the early-free fault, rtl-fault-early-free, needs them)
//   membership_stall_cycles  a head Mini Packet waited for an entry or its reservation
//   credit_wait_cycles  closed batches waited for child units' credits (summed per broadcast)
//   credit_returns      credit returns the unit sent to parent units
// (hw/ragasa/README.md: the deadlock-free design's admission and end-to-end credits)
#pragma once

#include "hw/ragasa/bcast_unit_base.h"
#include "hw/ragasa/unit_factory.h"
#include "tb/cosim/scoreboard.h"
#include "tb/cosim/stimulus.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>

namespace bcastsim::tb::cosim {

struct coverage {
  uint64_t contended_picks = 0;
  uint64_t memory_stall_cycles = 0;
  uint64_t rx_queue_full_cycles = 0;
  uint64_t work_queue_full = 0;
  uint64_t send_queue_full = 0;
  uint64_t table_hits = 0;
  uint64_t table_misses = 0;
  uint64_t shared_batches = 0;
  uint64_t membership_stall_cycles = 0;
  uint64_t credit_wait_cycles = 0;
  uint64_t credit_returns = 0;

  void add(const coverage& c);
};

// One unit's coverage from the reference's log and statistics.
coverage measure(const stimulus& s, const event_log& ref, const hw::ragasa::bcast_unit_base& unit);

// Empty when the condition `model`'s fault needs occurred; else what did not occur.
std::string fault_condition_missing(hw::ragasa::unit_model model, const coverage& c);

// One line ("contended picks 12, memory stall 340 cycles, ...") and JSON.
void print(std::ostream& os, const coverage& c);
nlohmann::json to_json(const coverage& c);

}  // namespace bcastsim::tb::cosim
