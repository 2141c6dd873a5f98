// A point-to-point, one-direction link with bandwidth (serialisation) and latency, between
// a sender's output and a receiver's input. Flow control is credit-based per VC: the sender
// holds the credits (bytes free in each receiver VC buffer); the receiver returns them on the
// backward path (phase CREDIT) and the link delays them by its latency.
//
// A link is a passive part, not a SystemC module: it has no process and no sockets of its own.
// `connect` binds the sender's initiator socket and the receiver's target socket to it, so a
// call crosses it as it crossed a module's sockets, without the five SystemC objects (module,
// two sockets and their inner port and export) that made a link cost about 2 KiB and most of
// elaboration's name checks on a large fabric.
//
// Timing (annotated, no process of its own): a packet granted at time s starts when the
// link is free, its head flit arrives at s + latency + flit serialisation, and its tail
// leaves at e = max(s + size/bandwidth, time the tail reached the sender) — virtual
// cut-through with flit-time accounting — and arrives at e + latency.
#pragma once

#include "network/topology.h"
#include "tlm/packet.h"
#include "tlm/statistics.h"

#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

namespace bcastsim::tlm_net {

struct link_params {
  network::link_class cls = network::terminal_class;
  double bandwidth_gib_per_s = 5.25;  // GiB/s, as CODES reads the paper's "GB/s"
  double latency_ns = 10.0;
  uint32_t flit_bytes = 64;
  // Time each flit adds to the serialisation (CODES: 0.005 ns plus a U[0,1) draw per 32-B
  // chunk on every link, 0.505 ns on average; taken here as its mean).
  double flit_overhead_ns = 0;
};

class packet_pool;

// Packets a link loses on purpose (fault.drop_rate, fault.drop_packet): a lost packet holds the
// link as any other, then vanishes; its credit comes back to the sender as if the receiver had
// freed it at once, so flow control goes on and only the data is missing.
struct link_faults {
  double drop_rate = 0;            // fraction of packets, drawn per packet from `seed`
  uint64_t seed = 0;               // the link's own: the run's seed and the link's index
  std::vector<uint64_t> drop_nth;  // the n-th packets crossing the link (1 = the first)
  packet_pool* pool = nullptr;     // where a lost packet goes back
};

class link final : public fw_if, public bw_if {
 public:
  using sender_socket = tlm::tlm_base_initiator_socket_b<32, fw_if, bw_if>;
  using receiver_socket = tlm::tlm_base_target_socket_b<32, fw_if, bw_if>;

  // `name`: the link's full name, as reports and block statistics show it ("fabric.link_r0_3").
  link(std::string name, const link_params& params);
  link(const link&) = delete;
  link& operator=(const link&) = delete;

  // Joins `from` (the sender's output) to `to` (the receiver's input) through this link. Both
  // blocks must have bound their own sides of the sockets (their interfaces) already.
  void connect(sender_socket& from, receiver_socket& to);

  const char* name() const { return m_name.c_str(); }
  // The name without its parents ("link_r0_3"): what fault.drop_packet names.
  const char* basename() const;
  const link_params& params() const { return m_params; }
  // Turns fault injection on; `f.pool` must outlive the link.
  void set_faults(const link_faults& f);
  sc_core::sc_time serialisation(uint32_t bytes) const;
  // When the link is free to start another packet.
  const sc_core::sc_time& free_at() const { return m_free_at; }

  // Statistics.
  counter packets;          // data packets
  counter messages;         // data messages crossing: counted by their first packet
  counter control_packets;  // offload set-up (Mini Packets), counted apart
  counter bytes;
  counter busy_ps;
  counter dropped;  // packets lost by fault injection
  // Made on demand: a million links need not each hold the same six declarations.
  stat_group stats() const;

  // fw_if (from the sender).
  tlm::tlm_sync_enum nb_transport_fw(packet& p, tlm::tlm_phase& ph, sc_core::sc_time& t) override;
  void b_transport(packet&, sc_core::sc_time&) override;
  bool get_direct_mem_ptr(packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(packet&) override { return 0; }
  // bw_if (from the receiver).
  tlm::tlm_sync_enum nb_transport_bw(packet& p, tlm::tlm_phase& ph, sc_core::sc_time& t) override;
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  bool lose();
  // serialisation() of what crosses: most packets have one size, and a head is one flit.
  const sc_core::sc_time& crossing(uint32_t bytes);

  std::string m_name;
  bw_if* m_sender = nullptr;    // the sender's backward interface (its credits)
  fw_if* m_receiver = nullptr;  // the receiver's forward interface
  link_params m_params;
  double m_ps_per_byte;
  double m_overhead_ps_per_flit;
  sc_core::sc_time m_latency;
  sc_core::sc_time m_free_at;
  sc_core::sc_time m_flit_time;  // serialisation(flit_bytes)
  uint32_t m_last_bytes = 0;     // the last size crossing() computed, and its time
  sc_core::sc_time m_last_time;
  // Only a link with faults carries their state: a pointer on every other (of a million).
  struct fault_state {
    link_faults faults;
    uint64_t seen = 0;  // packets offered to the link (for drop_nth and the draws)
    packet credit_token;
  };
  std::unique_ptr<fault_state> m_faults;
};

}  // namespace bcastsim::tlm_net
