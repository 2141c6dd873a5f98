// Terminates ports that a topology leaves unconnected (e.g. global ports beyond
// floor(a*h/(g-1)) links per group pair). Any packet or credit that reaches it is a bug.
#pragma once

#include "tlm/packet.h"

#include <systemc>

namespace bcastsim::tlm_net {

class null_endpoint final : public sc_core::sc_module, public fw_if, public bw_if {
 public:
  // Unbounded multi-sockets: one endpoint serves every unused port of a fabric.
  multi_target_socket in;
  multi_initiator_socket out;

  explicit null_endpoint(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), in("in"), out("out") {
    in.bind(*this);
    out.bind(*this);
  }
  tlm::tlm_sync_enum nb_transport_fw(packet&, tlm::tlm_phase&, sc_core::sc_time&) override {
    SC_REPORT_ERROR(name(), "a packet was sent into an unconnected port");
    return tlm::TLM_COMPLETED;
  }
  tlm::tlm_sync_enum nb_transport_bw(packet&, tlm::tlm_phase&, sc_core::sc_time&) override {
    SC_REPORT_ERROR(name(), "a credit was returned through an unconnected port");
    return tlm::TLM_COMPLETED;
  }
  void b_transport(packet&, sc_core::sc_time&) override {}
  bool get_direct_mem_ptr(packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(packet&) override { return 0; }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

}  // namespace bcastsim::tlm_net
