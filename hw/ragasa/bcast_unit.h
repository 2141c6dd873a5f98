// Ragasa's in-router Bcast Unit: receives broadcast packets on one router port, keeps them in
// Working Memory and sends one copy per child of the collective back into the router.
//
// Code flow of one packet ("Workflow of Bcast Unit" in the Ragasa paper, steps 1-10; what
// the paper leaves open and why the unit cannot deadlock: hw/ragasa/README.md):
//   in.nb_transport_fw     head arrives on its class's VC (hand-off data 0, relayed data 1,
//                          control 2); the packet owns RI buffer space of that VC (the router
//                          spent credits for it). The Receive Interface (RI) assembles it:
//                          ri_cycles after the clock edge following its tail it leaves the
//                          RI, in arrival order and at most one per clock, for its queue
//                          (step 1): hand-off data Rx-queue collective_id % rx_queues,
//                          relayed data rx_queues + collective_id % rx_queues, control the
//                          control queue; its RI buffer space goes back to the router as a
//                          credit. A full queue blocks the later packets of its VC only
//                          (ri_blocked_ps), and so, through credits, that VC of the router.
//   schedule()             Receive Packet Scheduler, one packet per scheduler_cycles (step 2):
//                          the control queue's head first, else round-robin over the Rx-queues
//                          whose head can go. A Mini Packet can if the Membership Table has
//                          its entry, or room and the broadcast's Working Memory reservation
//                          (else membership_stall_ps; the management node never sends one
//                          that cannot); a credit return always can; a data packet only if
//                          its broadcast has an entry and its stored bytes plus the packet fit
//                          the broadcast's reservation, else it stays at its queue's head
//                          (memory_stall_ps; the packets behind it are head-of-line blocked,
//                          rx_hol_blocked_ps) and is retried when memory is released.
//   MP parsed              its children (from the membership_source), its parent unit and its
//                          reservation enter the Membership Table (step 3); each child unit
//                          starts with credits for the reservation's packets.
//   credit parsed          a child unit freed packets of the broadcast: its credits grow, and
//                          the broadcast's batches waiting for them go on, in order.
//   data stored            Working Memory (step 4). The collective's open chunk closes into a
//                          batch once descriptor_threshold_bytes are in, or its message is
//                          complete ("once a sufficient amount of broadcast data is
//                          received"); never early (that made a smaller memory finish sooner).
//                          A batch for child units goes on only with credits for all of its
//                          packets at each of them, else it waits in its broadcast's own list
//                          (credit_wait_ps), never in the shared stages after this one.
//   generate()             descriptor generation: one descriptor per child of the batch's
//                          collective, descriptor_cycles each, into the Work Queue Element
//                          while it has room (step 5).
//   dispatch()             Dispatcher, dispatch_cycles per descriptor: "successfully
//                          established connection descriptors are sent to the Send Packet
//                          Scheduler" (6-7). A connection is an open send channel to one
//                          child: the SPS holds send_queue_descriptors of them, and a child
//                          has at most one (a NIC keeps a send queue per destination so its
//                          packets arrive in order). The head descriptor's set-up waits while
//                          all connections are open or its child's is (its earlier batch is
//                          still being sent), and the descriptors behind it wait with it
//                          (connection_wait_ps).
//   send()                 Send Packet Scheduler + Send Interface, send_cycles per packet: it
//                          serves its connections round-robin, one packet each, so
//                          one stored packet goes to all children before the next does (the
//                          router switches consecutive copies to different outputs). It builds
//                          a copy from
//                          the pool (header copied, addressed to the child: a terminal, or the
//                          unit of a neighbouring router; VC 0) and injects it through `out`
//                          when the link is free and credits cover it (step 9).
//   completion             step 10, "after data transmission is complete, a completion signal
//                          is sent to the Membership Table, and the corresponding memory is
//                          released": when the last copy of a batch has left the SI, the
//                          batch's memory is released at once (a waiting head data packet may
//                          go then) and the Membership Table counts its packets; a credit
//                          return for them is queued for the parent unit, if any; when the
//                          collective's expected packets have all been sent, its entry and
//                          reservation are freed (membership_freed) and a Mini Packet waiting
//                          for room may go.
//                          Memory is released per batch, not per packet: the descriptors
//                          describe the batch, and the paper releases memory on completion.
//
// Mini Packet payload: tlm_net::packet has no payload field, so a Mini Packet carries only
// its collective_id (and its wire size); the child list and the number of data packets the
// unit will receive for the collective live in a membership_source that the management node
// fills before it sends the MP. Parsing the MP copies them into the unit's own Membership
// Table, which is what the data path reads.
#pragma once

#include "hw/ragasa/bcast_unit_base.h"
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

class bcast_unit final : public bcast_unit_base {
 public:
  // `terminal` names the unit as the source of routing entropy; `routing` (may be null)
  // initialises the route state of the copies, as a NIC does.
  bcast_unit(const sc_core::sc_module_name& name, network::terminal_id terminal,
             const bcast_unit_params& params, tlm_net::packet_pool& pool,
             const membership_source& membership, const network::routing_policy* routing);
  ~bcast_unit() override;
  SC_HAS_PROCESS(bcast_unit);

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
  // Rx-queues 0 .. rx_queues - 1 take hand-off data, rx_queues .. 2 rx_queues - 1 relayed data.
  uint32_t rx_queue_packets(uint32_t queue) const { return m_rx[queue].fifo.size(); }
  uint32_t control_queue_packets() const { return m_control.fifo.size(); }

  bool idle() const override;
  bool describe_stall(std::ostream& os) const override;
  void trace(const tlm_net::trace_window& window, const std::string& prefix) override;

 private:
  enum class action_kind : uint8_t { wake, assembled, stored, generated, dispatched, built };
  struct action {
    action_kind kind = action_kind::wake;
    uint32_t batch = 0;
    membership_child child;
    tlm_net::packet* pkt = nullptr;
  };
  struct rx_queue {
    tlm_net::ring<tlm_net::packet*> fifo;
    bool mp_waits = false;  // head Mini Packet waits for a table entry since mp_since
    sc_core::sc_time mp_since;
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
    std::vector<uint32_t> credit_wait;  // closed batches waiting for credits, in order
    sc_core::sc_time credit_since;      // since credit_wait became non-empty
  };
  // A Membership Table entry: the children, and the collective's data packets expected and
  // sent to every child (step 10 frees the entry when they are equal); the Working Memory
  // reserved for it, the unit its data come from (credits go back to it) and the credits
  // held at each child unit, in packets (README.md, mechanisms 3-4).
  struct table_entry {
    std::vector<membership_child> children;
    uint64_t expected = membership_source::keep_entry;
    uint64_t done = 0;
    uint64_t reserved_bytes = 0;
    membership_child parent;
    std::vector<uint64_t> credits;  // [child]; used for unit children only
    bool unit_children = false;
  };
  struct credit_return {
    uint32_t collective = 0;
    uint32_t packets = 0;
    membership_child parent;
  };
  // Stored packets that share descriptors; their memory goes when copies_left is 0.
  struct batch {
    uint32_t collective = 0;
    std::vector<tlm_net::packet*> pkts;
    uint64_t copies_left = 0;  // packets x children not yet injected
  };
  struct descriptor {
    uint32_t batch = 0;
    membership_child child;
    uint32_t next = 0;  // next packet of the batch to build for this child
  };
  struct trace_mirror;

  void on_wakeup();
  sc_core::sc_time edge(const sc_core::sc_time& t) const;  // the first clock edge at or after t
  sc_core::sc_time after(uint32_t cycles) const;           // next clock edge + cycles
  bool head_can_go(rx_queue& q, const sc_core::sc_time& now);
  rx_queue& queue_of(const tlm_net::packet& p);
  void move_ri();
  bool take_credits(table_entry& e, const batch& b);  // all of the batch's, or none
  void release_waiting(uint32_t collective);          // batches whose credits have come back
  void parse_mini_packet(tlm_net::packet* p);
  void parse_credit(tlm_net::packet* p);
  bool send_credit(const sc_core::sc_time& now);
  void schedule();
  void store(tlm_net::packet* p);
  void close_chunk(uint32_t collective);
  void generate();
  void on_generated(const descriptor& d);
  void complete(uint32_t b);  // step 10 for batch b
  void free_entry(uint32_t collective_id);
  void dispatch();
  void send();
  void build();
  bool connected(const membership_child& c) const;  // an m_sps entry is c's connection
  void inject();
  uint32_t new_batch();
  void sample_trace();

  tlm_net::tagged_fw<bcast_unit> m_fw;
  tlm_net::tagged_bw<bcast_unit> m_bw;
  std::vector<tlm_net::packet*> m_ri;  // assembled, in arrival order (README.md: per VC)
  sc_core::sc_time m_ri_blocked_since;
  sc_core::sc_time m_ri_next;  // the first edge the RI may hand on its next packet
  bool m_ri_blocked = false;
  std::vector<rx_queue> m_rx;  // hand-off bank, then relayed bank
  rx_queue m_control;          // Mini Packets and credit returns, served first
  uint32_t m_rr = 0;
  sc_core::sc_time m_sched_free;
  std::map<uint32_t, table_entry> m_table;
  std::map<uint32_t, collective_state> m_collectives;
  uint64_t m_memory_used = 0;
  uint64_t m_reserved = 0;  // Working Memory reserved by the Membership Table's entries
  std::vector<batch> m_batches;
  std::vector<uint32_t> m_free_batches;
  tlm_net::ring<uint32_t> m_gen_queue;  // batches; the front one is being described
  uint32_t m_gen_child = 0;             // its next child
  bool m_generating = false;            // a descriptor is being generated
  sc_core::sc_time m_gen_free;
  tlm_net::ring<descriptor> m_work_queue;
  uint32_t m_dispatching = 0;  // descriptors in the Dispatcher (room kept for them)
  sc_core::sc_time m_disp_free;
  bool m_conn_waits = false;  // the head descriptor waits for a connection since m_conn_since
  sc_core::sc_time m_conn_since;
  std::vector<descriptor> m_sps;  // dispatched descriptors (send_queue_descriptors reserved)
  uint32_t m_sps_rr = 0;          // the one to build a copy for next
  bool m_building = false;
  uint32_t m_si_batch = 0;                    // the batch of the copy in the SI (or being built)
  tlm_net::packet* m_si_pkt = nullptr;        // built, waiting for the link and credits
  tlm_net::ring<credit_return> m_credit_out;  // sent by the SI ahead of its next copy
  uint64_t m_next_packet = 0;
  uint64_t m_in_flight = 0;  // packets between `in` and the Rx-queues or the scheduler
  tlm_net::packet m_credit_token;

  sc_core::sc_event m_wakeup;
  tlm_net::timed_queue<action> m_agenda;
  std::unique_ptr<trace_mirror> m_trace;
};

}  // namespace bcastsim::hw::ragasa
