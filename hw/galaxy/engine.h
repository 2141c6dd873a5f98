// The per-router collective engine of the router-level all-to-all broadcasts (SFATA, RFATA,
// A2A; algorithms/galaxy_a2a.h), attached to its router's extra port. It holds its router's
// packet (the router's origin) from the collective's start, stores every packet that reaches
// it, and runs its part of the plan: each of its transfers (to a neighbouring router's engine)
// fires once the engine holds all of the transfer's origins, and its packets join the output
// queue. One packet per origin, each one hop to a neighbour's engine (the routing hook,
// hw/galaxy/router_hook.h, switches it onto the direct link and into that engine).
//
//   in.nb_transport_fw  a packet's head arrives; after its tail and `engine_ns` the engine
//                       holds its origin (or counts it redundant), frees its buffer (credit
//                       back to the router) and releases the packet to the pool
//   on hold             every transfer waiting for that origin counts down; those complete
//                       queue their packets, origin by origin, in the queue of their
//                       neighbour (one queue per neighbour the engine sends to)
//   inject              the neighbours' queues are served round-robin, a packet at a time,
//                       as Ragasa's Send Packet Scheduler serves its descriptors: transfers to
//                       different neighbours go out interleaved, so the router drives their
//                       links in parallel. A packet goes when the port's link is free and the
//                       router's attached input has credits for it (VC 0)
//
// Nothing here allocates per packet: the plan's transfers, the waiting lists and the output
// queue are sized at construction.
#pragma once

#include "algorithms/galaxy_a2a.h"
#include "tlm/credit_output.h"
#include "tlm/packet.h"
#include "tlm/packet_pool.h"
#include "tlm/ring.h"
#include "tlm/statistics.h"
#include "tlm/timed_queue.h"

#include <cstdint>
#include <iosfwd>
#include <systemc>
#include <vector>

namespace bcastsim::hw::galaxy {

// tlm_net::family_header::family (Ragasa's is 1, Tofu2's 2).
inline constexpr uint8_t family_id = 3;

struct packet_fields {
  uint32_t to_router = 0;  // the engine that takes the packet
  uint32_t origin = 0;     // the router whose packet it is
};

struct engine_params {
  uint32_t packet_bytes = 160;      // one origin's packet on the wire (the paper's PS)
  double engine_ns = 0;             // from a packet's tail to its origin being held
  uint32_t vcs = 3;                 // the router's VCs (the engine sends on VC 0)
  uint32_t credit_bytes = 0;        // the router's attached input buffer, per VC
  uint32_t input_buffer_bytes = 0;  // the engine's input buffer (what the router may send)
};

// Told when an engine first holds an origin (the family reports and delivers to the hosts).
class engine_listener {
 public:
  virtual ~engine_listener() = default;
  // `from_terminal`: the first terminal of the router whose packet brought it (its own
  // router's for its own packet), to tell which transfer delivered it.
  virtual void on_hold(uint32_t router, uint32_t origin, uint32_t from_terminal,
                       const sc_core::sc_time& when) = 0;
};

class engine final : public sc_core::sc_module {
 public:
  tlm_net::target_socket in;      // from the router's attached port
  tlm_net::initiator_socket out;  // into the router's attached port

  // `plan` must outlive the engine; `terminal_of_router` gives every router's first terminal
  // (where a packet's dst aims, for reports).
  engine(const sc_core::sc_module_name& name, uint32_t router, const algorithms::galaxy_plan& plan,
         const engine_params& params, tlm_net::packet_pool& pool,
         const std::vector<uint32_t>& terminal_of_router, uint32_t collective_id,
         engine_listener& listener);
  SC_HAS_PROCESS(engine);

  // The collective starts now: the engine holds its own packet.
  void start();
  bool started() const { return m_started; }
  bool idle() const;
  // What holds the engine up; false (nothing written) when idle.
  bool describe_stall(std::ostream& os) const;
  uint32_t held() const { return m_held; }
  // When this engine's k-th transfer of the plan (in plan order) fired, i.e. queued its
  // packets; sc_max_time() if it never did.
  const sc_core::sc_time& fired(uint32_t k) const { return m_fired[k]; }

  tlm_net::counter packets_in;
  tlm_net::counter packets_out;
  tlm_net::counter redundant;
  tlm_net::counter queue_peak_packets;
  const tlm_net::stat_group& stats() const { return m_stats; }

  tlm::tlm_sync_enum nb_transport_fw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_bw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);

 private:
  struct pending {
    uint32_t transfer;  // index into m_transfers
  };
  struct own_transfer {
    uint32_t slot;   // the neighbour's queue
    uint32_t first;  // plan.origins index
    uint32_t count;
    uint32_t missing;  // origins not held yet
    bool after_all;    // it also waits until the engine holds every origin
  };
  struct action {
    tlm_net::packet* pkt = nullptr;  // an arrival to take; nullptr: look at the output
  };

  void on_wakeup();
  void hold(uint32_t origin, uint32_t from_terminal, const sc_core::sc_time& now);
  void inject();
  void queue(uint32_t k, const sc_core::sc_time& now);

  uint32_t m_router;
  const algorithms::galaxy_plan& m_plan;
  engine_params m_params;
  tlm_net::packet_pool& m_pool;
  const std::vector<uint32_t>& m_terminal_of_router;
  uint32_t m_collective_id;
  engine_listener& m_listener;

  std::vector<own_transfer> m_transfers;
  std::vector<sc_core::sc_time> m_fired;  // [transfer] when it queued its packets
  // Transfers waiting for origin o: m_waits[m_wait_first[o] .. m_wait_first[o + 1]).
  std::vector<uint32_t> m_wait_first;
  std::vector<uint32_t> m_waits;
  std::vector<bool> m_holds;          // [origin]
  std::vector<uint32_t> m_after_all;  // transfers whose origins are held, waiting for all
  uint32_t m_held = 0;
  bool m_started = false;
  uint32_t m_in_bytes = 0;  // input buffer held (the router's credits)
  uint32_t m_in_flight = 0;
  std::vector<uint32_t> m_slot_router;            // [slot] the neighbour
  std::vector<tlm_net::ring<uint32_t>> m_queues;  // [slot] origins to send it
  uint32_t m_queued = 0;                          // over all queues
  uint32_t m_rr = 0;                              // the slot served next
  tlm_net::credit_output m_out;
  tlm_net::tagged_fw<engine> m_fw;
  tlm_net::tagged_bw<engine> m_bw;
  tlm_net::packet m_credit_token;
  sc_core::sc_event m_wakeup;
  tlm_net::timed_queue<action> m_agenda;
  tlm_net::stat_group m_stats;
};

}  // namespace bcastsim::hw::galaxy
