// What a Bcast Unit shows in a waveform, stage by stage after the steps of the paper's
// "Workflow of Bcast Unit" (bcast_unit.h): one declaration for both models of the unit, the
// SystemC one (bcast_unit.cpp) and the verilated RTL (bcast_unit_rtl.cpp, from the core's
// status outputs), so their waveforms carry the same names.
#pragma once

#include "tlm/trace_window.h"

#include <cstdint>
#include <string>

namespace bcastsim::hw::ragasa {

struct unit_trace_mirror {
  tlm_net::trace_window window;
  uint64_t packets_in = 0;
  uint32_t ri_packets = 0;
  bool ri_blocked = false;
  uint32_t rx_packets = 0;  // all Rx-queues
  bool memory_stall = false;
  uint32_t membership_entries = 0;
  uint64_t memory_bytes = 0;
  uint32_t gen_batches = 0;
  uint32_t work_queue = 0;
  uint32_t send_queue = 0;
  bool si_ready = false;  // a built copy waits for the link or credits
  bool link_busy = false;
  uint32_t out_credit_bytes = 0;
  uint64_t packets_out = 0;

  // Registers the signals under `block` in pipeline order; `model` says which model it is.
  void declare(const tlm_net::trace_window& w, const std::string& block, const std::string& model) {
    window = w;
    tlm_net::trace_signals sig(w, block, "Bcast Unit, " + model + ", stages in pipeline order");
    sig.add(packets_in, "packets_in", "s1_ri.packets_in");
    sig.add(ri_packets, "s1_ri.packets");
    sig.add(ri_blocked, "s1_ri.blocked");
    sig.add(rx_packets, "s2_rx_queues.packets");
    sig.add(memory_stall, "s2_scheduler.memory_stall");
    sig.add(membership_entries, "s3_membership.entries");
    sig.add(memory_bytes, "s4_working_memory.bytes");
    sig.add(gen_batches, "s5_descriptor_gen.batches");
    sig.add(work_queue, "s5_work_queue.descriptors");
    sig.add(send_queue, "s7_send_scheduler.descriptors");
    sig.add(si_ready, "s9_si.copy_waiting");
    sig.add(link_busy, "s9_si.busy");
    sig.add(out_credit_bytes, "s9_si.credit_bytes");
    sig.add(packets_out, "packets_out", "s9_si.packets_out");
  }
};

}  // namespace bcastsim::hw::ragasa
