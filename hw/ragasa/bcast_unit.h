// Ragasa's in-router Bcast Unit: receives broadcast packets on one router port, keeps them in
// Working Memory and sends one copy per child of the collective back into the router.
//
// Code flow of one packet ("Workflow of Bcast Unit" in the Ragasa paper, steps 1-10):
//   in.nb_transport_fw     head arrives; the packet owns RI buffer space (the router spent
//                          credits for it). The Receive Interface (RI) assembles it: ri_cycles
//                          after the clock edge following its tail it leaves the RI, in arrival
//                          order, for Rx-queue collective_id % rx_queues (step 1), and its RI
//                          buffer space goes back to the router as a credit. A full Rx-queue
//                          blocks the RI (ri_blocked_ps), and so, through credits, the router.
//   schedule()             Receive Packet Scheduler, one packet per scheduler_cycles,
//                          round-robin over Rx-queues whose head can go (step 2): a Mini Packet
//                          (control) always can if the Membership Table has its entry or room;
//                          a data packet only if it fits in Working Memory, else it stays at
//                          its queue's head (memory_stall_ps; the packets queued behind it are
//                          head-of-line blocked, rx_hol_blocked_ps) and is retried when memory
//                          is released.
//   MP parsed              its children (from the membership_source) enter the Membership
//                          Table (step 3).
//   data stored            Working Memory (step 4). The collective's open chunk closes into a
//                          batch once descriptor_threshold_bytes are in, or its message is
//                          complete, or a head data packet finds memory full (so memory held
//                          by a partial chunk cannot deadlock the unit).
//   generate()             descriptor generation: one descriptor per child of the batch's
//                          collective, descriptor_cycles each, into the Work Queue Element
//                          while it has room (step 5); a batch whose collective has no
//                          Membership entry yet waits for its Mini Packet.
//   dispatch()             Dispatcher, dispatch_cycles per descriptor (connection set-up),
//                          into the Send Packet Scheduler's queue while it has room (6-7).
//   send()                 Send Packet Scheduler + Send Interface, send_cycles per packet: it
//                          serves its dispatched descriptors round-robin, one packet each, so
//                          one stored packet goes to all children before the next does (the
//                          router switches consecutive copies to different outputs). It builds
//                          a copy from
//                          the pool (header copied, addressed to the child: a terminal, or the
//                          unit of a neighbouring router; VC 0) and injects it through `out`
//                          when the link is free and credits cover it (step 9).
//   completion             a stored packet's memory is released when it has been sent to the
//                          last child (step 10); a waiting head data packet may go then.
//
// Mini Packet payload: tlm_net::packet has no payload field, so a Mini Packet carries only
// its collective_id (and its wire size); the child list itself lives in a membership_source
// that the management node fills before it sends the MP. Parsing the MP copies the list into
// the unit's own Membership Table, which is what the data path reads.
#pragma once

#include "network/routing.h"
#include "tlm/packet.h"
#include "tlm/packet_pool.h"
#include "tlm/ring.h"
#include "tlm/statistics.h"
#include "tlm/timed_queue.h"
#include "tlm/trace_window.h"

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

namespace bcastsim::hw::ragasa {

struct bcast_unit_params {
  double clock_mhz = 1000.0;
  uint32_t rx_queues = 4;
  uint32_t rx_queue_packets = 8;  // depth of each Rx-queue
  uint64_t working_memory_bytes = 65536;
  uint32_t membership_entries = 64;            // collectives the Membership Table holds
  uint64_t descriptor_threshold_bytes = 4096;  // bytes of a message before descriptors
  uint32_t work_queue_descriptors = 16;        // Work Queue Element capacity
  uint32_t send_queue_descriptors = 8;         // dispatched descriptors the SPS holds
  uint32_t ri_cycles = 4;                      // Receive Interface: flits -> packet
  uint32_t scheduler_cycles = 2;               // Receive Packet Scheduler, per packet
  uint32_t descriptor_cycles = 2;              // descriptor generation, per descriptor
  uint32_t dispatch_cycles = 2;                // Dispatcher, per descriptor
  uint32_t send_cycles = 4;                    // Send Packet Scheduler + SI, per packet
  uint32_t packet_bytes = 512;                 // largest packet
  uint32_t input_buffer_bytes = 16384;         // RI buffer per VC: the router's credits
  uint32_t output_buffer_bytes = 16384;        // the router's VC 0 buffer behind `out`
  uint32_t vcs = 3;
  uint64_t seed = 1;  // routing entropy of the copies, with the unit's terminal
};

// One child of a collective at this unit: a terminal attached to the router, or the Bcast
// Unit of a neighbouring router (unit_router), reached by routing toward `dst`, one of that
// router's terminals.
struct membership_child {
  network::terminal_id dst = network::invalid_id;
  network::router_id unit_router = network::invalid_id;
};

// Told when a Mini Packet has been parsed into the Membership Table (the management node
// counts them to know when set-up is complete).
class membership_listener {
 public:
  virtual ~membership_listener() = default;
  virtual void on_membership(uint32_t collective_id) = 0;
};

// What the management node's Mini Packets carry, keyed by collective_id (see file comment).
class membership_source {
 public:
  void set(uint32_t collective_id, std::vector<membership_child> children) {
    m_children[collective_id] = std::move(children);
  }
  const std::vector<membership_child>* find(uint32_t collective_id) const {
    const auto it = m_children.find(collective_id);
    return it == m_children.end() ? nullptr : &it->second;
  }

 private:
  std::map<uint32_t, std::vector<membership_child>> m_children;
};

class bcast_unit final : public sc_core::sc_module {
 public:
  tlm_net::target_socket in;      // from the router's port to the unit
  tlm_net::initiator_socket out;  // back into the router

  // `terminal` names the unit as the source of routing entropy; `routing` (may be null)
  // initialises the route state of the copies, as a NIC does.
  bcast_unit(const sc_core::sc_module_name& name, network::terminal_id terminal,
             const bcast_unit_params& params, tlm_net::packet_pool& pool,
             const membership_source& membership, const network::routing_policy* routing);
  ~bcast_unit() override;
  SC_HAS_PROCESS(bcast_unit);

  void set_listener(membership_listener* l) { m_listener = l; }
  const bcast_unit_params& params() const { return m_params; }

  tlm::tlm_sync_enum nb_transport_fw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_bw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);

  // Membership Table: the children of `collective_id`, null without an entry.
  const std::vector<membership_child>* children(uint32_t collective_id) const;
  // Frees a Membership Table entry (management); a Mini Packet waiting for room may go.
  void erase_membership(uint32_t collective_id);
  uint64_t working_memory_used_bytes() const { return m_memory_used; }
  uint64_t working_memory_used_bytes(uint32_t collective_id) const;
  uint32_t rx_queue_packets(uint32_t queue) const { return m_rx[queue].fifo.size(); }

  bool idle() const;
  bool describe_stall(std::ostream& os) const;
  void trace(const tlm_net::trace_window& window, const std::string& prefix);

  // Statistics.
  tlm_net::counter packets_in;
  tlm_net::counter packets_out;
  tlm_net::counter mini_packets;
  tlm_net::counter descriptors;
  tlm_net::counter bytes_replicated;
  tlm_net::counter rx_queue_peak_packets;      // high-water mark of one Rx-queue
  tlm_net::counter membership_peak_entries;    // high-water mark of the Membership Table
  tlm_net::counter working_memory_peak_bytes;  // high-water mark
  tlm_net::counter work_queue_peak_descriptors;
  tlm_net::counter send_queue_peak_descriptors;
  tlm_net::counter memory_stall_ps;    // head data packets waiting for memory
  tlm_net::counter rx_hol_blocked_ps;  // packets queued behind such a head
  tlm_net::counter ri_blocked_ps;      // RI blocked by a full Rx-queue
  const tlm_net::stat_group& stats() const { return m_stats; }

 private:
  enum class action_kind : uint8_t {
    wake,
    assembled,
    stored,
    generated,
    dispatched,
    built,
    credit
  };
  struct action {
    action_kind kind = action_kind::wake;
    uint8_t vc = 0;
    uint32_t bytes = 0;
    uint32_t batch = 0;
    membership_child child;
    tlm_net::packet* pkt = nullptr;
  };
  struct rx_queue {
    tlm_net::ring<tlm_net::packet*> fifo;
    bool stalled = false;  // head data packet waits for memory since stall_since
    sc_core::sc_time stall_since;
    bool hol = false;  // and packets wait behind it since hol_since
    sc_core::sc_time hol_since;
  };
  struct message_progress {
    network::terminal_id src;
    uint64_t msg_id;
    uint32_t stored;
  };
  struct collective_state {
    std::vector<tlm_net::packet*> open;  // stored, not yet in a batch
    uint64_t open_bytes = 0;
    uint64_t memory_bytes = 0;
    std::vector<message_progress> messages;
    std::vector<uint32_t> waiting;  // batches closed before the Mini Packet arrived
  };
  // Stored packets that share descriptors; each packet's memory goes when `remaining` is 0.
  struct batch {
    uint32_t collective = 0;
    std::vector<tlm_net::packet*> pkts;
    std::vector<uint32_t> remaining;  // [packet] children still to send it to
    uint64_t copies_left = 0;         // packets x children not yet injected
  };
  struct descriptor {
    uint32_t batch = 0;
    membership_child child;
    uint32_t next = 0;  // next packet of the batch to build for this child
  };
  struct trace_mirror;

  void on_wakeup();
  sc_core::sc_time after(uint32_t cycles) const;  // next clock edge + cycles
  bool head_can_go(rx_queue& q, const sc_core::sc_time& now);
  void move_ri();
  void schedule();
  void store(tlm_net::packet* p);
  void close_chunk(uint32_t collective);
  void generate();
  void on_generated(const descriptor& d);
  void release_packet(batch& bt, uint32_t k);
  void dispatch();
  void send();
  void build();
  bool child_busy_before(uint32_t k) const;  // an earlier m_sps entry has m_sps[k]'s child
  void inject();
  uint32_t new_batch();
  void sample_trace();

  network::terminal_id m_terminal;
  bcast_unit_params m_params;
  tlm_net::packet_pool& m_pool;
  const membership_source& m_source;
  membership_listener* m_listener = nullptr;
  const network::routing_policy* m_routing;
  sc_core::sc_time m_period;

  tlm_net::tagged_fw<bcast_unit> m_fw;
  tlm_net::tagged_bw<bcast_unit> m_bw;
  std::vector<uint32_t> m_in_bytes;  // [vc] input buffer bytes held
  tlm_net::ring<tlm_net::packet*> m_ri;
  sc_core::sc_time m_ri_blocked_since;
  bool m_ri_blocked = false;
  std::vector<rx_queue> m_rx;
  uint32_t m_rr = 0;
  sc_core::sc_time m_sched_free;
  std::map<uint32_t, std::vector<membership_child>> m_table;
  std::map<uint32_t, collective_state> m_collectives;
  uint64_t m_memory_used = 0;
  std::vector<batch> m_batches;
  std::vector<uint32_t> m_free_batches;
  tlm_net::ring<uint32_t> m_gen_queue;  // batches; the front one is being described
  uint32_t m_gen_child = 0;             // its next child
  bool m_generating = false;            // a descriptor is being generated
  sc_core::sc_time m_gen_free;
  tlm_net::ring<descriptor> m_work_queue;
  uint32_t m_dispatching = 0;  // descriptors in the Dispatcher (room kept for them)
  sc_core::sc_time m_disp_free;
  std::vector<descriptor> m_sps;  // dispatched descriptors (send_queue_descriptors reserved)
  uint32_t m_sps_rr = 0;          // the one to build a copy for next
  bool m_building = false;
  uint32_t m_si_batch = 0;  // the copy in the SI (or being built): batch and packet
  uint32_t m_si_index = 0;
  tlm_net::packet* m_si_pkt = nullptr;  // built, waiting for the link and credits
  sc_core::sc_time m_link_free;
  uint32_t m_out_credits;
  uint64_t m_next_packet = 0;
  uint64_t m_in_flight = 0;  // packets between `in` and the Rx-queues or the scheduler
  tlm_net::packet m_credit_token;

  sc_core::sc_event m_wakeup;
  tlm_net::timed_queue<action> m_agenda;
  tlm_net::stat_group m_stats;
  std::unique_ptr<trace_mirror> m_trace;
};

}  // namespace bcastsim::hw::ragasa
