// Recording of what enters every Bcast Unit of a fabric run (`bcastsim run
// --record-unit-inputs FILE`), for the co-simulation harness to replay (load_replay in
// stimulus.h). A unit_input_tap sits between the router's unit link and the unit's `in` only
// when recording (the fabric binds the link straight to the unit otherwise): it forwards
// nb_transport_fw and nb_transport_bw unchanged and writes one JSON line per packet.
//
// The file, JSON lines, in simulation order:
//   {"type":"unit","unit":"unit_3","router":3,"terminal":6,"params":{bcast_unit_params},
//    "port":{"bandwidth_gib_per_s":21,"latency_ns":1,"flit_bytes":64},"credit_delay_ps":52000}
//       one per unit, at elaboration. credit_delay_ps is the fixed credit return of the
//       replay's sink: the router's pipeline (router.delay_cycles at router.clock_mhz) plus
//       the unit link's latency both ways (replay_credit_delay_ps).
//   {"type":"membership","unit":"unit_3","collective_id":1,"children":[[dst,unit_router],..],
//    "packets":40,"parent":[dst,unit_router]}
//       the unit's child list of a collective, before the first packet of that collective;
//       the data packets its Mini Packet announces and the unit its data come from, if any.
//   {"type":"packet","unit":"unit_3","t_ps":..,"head_ps":..,"tail_ps":..,"kind":"data",..}
//       a packet entering the unit: BEGIN_REQ at t_ps with its head in at head_ps (the
//       delay annotation), tail_time tail_ps, and every header field (arrival, stimulus.h).
#pragma once

#include "hw/ragasa/bcast_unit_base.h"
#include "hw/router/router.h"
#include "tb/atomic_file.h"
#include "tlm/link.h"
#include "tlm/packet.h"

#include <set>
#include <string>
#include <systemc>

namespace bcastsim::tb::cosim {

class unit_input_recorder {
 public:
  // Writes a temporary file beside `path`, renamed to it by finish(): a run that ends
  // otherwise leaves no half-written recording. Throws config_error("--record-unit-inputs")
  // when it cannot be created.
  explicit unit_input_recorder(const std::string& path);

  void add_unit(const std::string& unit, network::router_id router, network::terminal_id terminal,
                const hw::ragasa::bcast_unit_params& params, const tlm_net::link_params& port,
                const hw::router_params& router_params);
  // `packets`: the data packets its Mini Packet announces (keep_entry: none announced);
  // `parent`: the unit its data come from (none: left out).
  void add_membership(const std::string& unit, uint32_t collective_id,
                      const std::vector<hw::ragasa::membership_child>& children, uint64_t packets,
                      const hw::ragasa::membership_child& parent);
  void add_packet(const std::string& unit, const tlm_net::packet& p, const sc_core::sc_time& head);
  // Renames the recording to its path; throws config_error if anything could not be written.
  void finish();
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
  atomic_file m_file;
  std::ostream& m_out;
};

class unit_input_tap final : public sc_core::sc_module,
                             public tlm_net::fw_if,
                             public tlm_net::bw_if {
 public:
  tlm_net::target_socket in;      // from the unit link
  tlm_net::initiator_socket out;  // to the unit's `in`

  // `unit` names the unit in the recording; `membership` is what its Mini Packets carry.
  unit_input_tap(const sc_core::sc_module_name& name, unit_input_recorder& recorder,
                 std::string unit, const hw::ragasa::membership_source& membership);

  tlm::tlm_sync_enum nb_transport_fw(tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t) override;
  tlm::tlm_sync_enum nb_transport_bw(tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t) override;
  void b_transport(tlm_net::packet&, sc_core::sc_time&) override;
  bool get_direct_mem_ptr(tlm_net::packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm_net::packet&) override { return 0; }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  unit_input_recorder& m_recorder;
  std::string m_unit;
  const hw::ragasa::membership_source& m_membership;
  std::set<uint32_t> m_collectives_written;
};

}  // namespace bcastsim::tb::cosim
