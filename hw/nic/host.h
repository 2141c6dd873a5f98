// The host of one rank: executes the rank's Schedule with MPI-like semantics and costs.
//   send     the CPU spends send_overhead_ns, then hands the message to the NIC; the send
//            completes then (eager protocol).
//   recv     matched by (source rank, tag) in order against arrived messages; completes
//            recv_overhead_ns of CPU after both the receive is posted and the message is in.
//            Non-overtaking (MPI): the n-th receive posted for (source, tag) takes the n-th
//            message the source posted to this rank with that tag (message::seq), whatever
//            order the network delivers them in. An offload broadcast counts as one such
//            message to every other rank, numbered among the rank's offload broadcasts of
//            that tag (a schedule does not mix them with sends on one tag).
//   compute  the CPU is busy for the given time.
//   offload_bcast  (Ragasa) once the in-network tree of its context is configured (the
//            management node opens that context's gate), the CPU spends send_overhead_ns,
//            then the NIC sends the message once, to the Bcast Unit of the rank's own router,
//            as collective context + 1; it completes then.
//   offload_init/start/wait/free  (Tofu2's MPI-4 persistent calls) the rank's offload agent
//            does the call's work, spends the CPU through spend_cpu() and says when the call
//            completes (finish_call); the hardware's data reaches the host through
//            offload_data().
// One CPU per host: overheads and computation are serialised. The rank holds the data when
// the messages arrived at its NIC cover every byte of the buffer (the root from the start);
// bytes that arrive again (MPICH's allgather re-sends blocks) neither count twice nor
// finish the rank early.
#pragma once

#include "algorithms/program.h"
#include "hw/nic/nic.h"
#include "network/placement.h"
#include "tlm/statistics.h"
#include "tlm/timed_queue.h"

#include <iosfwd>
#include <string>
#include <systemc>
#include <vector>

namespace bcastsim::hw {

struct host_params {
  double send_overhead_ns = 300.0;
  double recv_overhead_ns = 300.0;

  // The scenario keys, declared once: see network/params.h.
  template <class V>
  void visit(V& v) {
    v.field("host.send_overhead_ns", send_overhead_ns, 0, 1e12, "CPU time of an MPI send call");
    v.field("host.recv_overhead_ns", recv_overhead_ns, 0, 1e12,
            "CPU time of an MPI receive completion");
  }
};

// One instance (collective x repetition) of the program, shared by its members' hosts:
// when it started and when each member came to hold the whole buffer.
struct instance_progress {
  bool started = false;
  sc_core::sc_time start;                   // the first send call of any member
  std::vector<sc_core::sc_time> rank_done;  // [member]: holds every byte
  std::vector<bool> done;                   // [member]; true from the start if it held all
  uint32_t members_done = 0;
};

// One broadcast of the program: a context of a broadcast instance, which is root k's block
// with collective.roots = all (context first_context + k) and the whole buffer with one root.
// It starts with the first send call of its context (its root's, since the others relay what
// they received) and ends when its last receiver holds its block, whatever the instance's
// other broadcasts do. A zero-byte broadcast sends each receiver one message: a receiver
// holds it at its first.
struct broadcast_progress {
  bool broadcast = false;  // false: a context of an allgather
  bool started = false;
  sc_core::sc_time start;
  uint64_t begin = 0;  // its block in the instance's buffer: [begin, end)
  uint64_t end = 0;
  uint32_t root = 0;       // member index of its root
  uint32_t receivers = 0;  // members not holding the block from the start
  uint32_t receivers_done = 0;
  sc_core::sc_time last_done;
  uint64_t done_ps_sum = 0;  // the receivers' done times, summed (exact, in ps)
};

// Shared by the hosts of one run.
struct collective_progress {
  const algorithms::program* prog = nullptr;
  std::vector<instance_progress> instances;    // [instance]
  std::vector<broadcast_progress> broadcasts;  // [context]
  uint32_t instances_done = 0;                 // every member holds every byte
  std::vector<std::string> errors;             // broken invariants (exit 1)

  // Sized for `p`: members holding the whole buffer from the start are done then.
  void reset(const algorithms::program& p);
  // Member `member` of instance `i` now holds every byte.
  void member_done(uint32_t i, uint32_t member);
  // A receiver of the broadcast of `context` now holds its block.
  void broadcast_done(uint32_t context);
};

class host;

// The agent of an offload family that runs a rank's persistent offload calls (e.g. Tofu2's
// MPI library over the node's TNIs).
class offload_agent {
 public:
  virtual ~offload_agent() = default;
  // The host starts call `index` of its program (op `o`, algorithms::is_offload_call) now;
  // the agent calls host::finish_call(index, when) once it knows when the call returns.
  virtual void call(uint32_t index, const algorithms::op& o) = 0;
  // The call returns now (the time finish_call gave): e.g. descriptors the CPU wrote during
  // it become visible to the TNI.
  virtual void returned(uint32_t /*index*/, const algorithms::op& /*o*/) {}
  // What the rank's calls wait for, for a stall report; false if nothing.
  virtual bool describe_stall(std::ostream& /*os*/) const { return false; }
};

class host final : public sc_core::sc_module, public nic_client {
 public:
  host(const sc_core::sc_module_name& name, uint32_t rank, const algorithms::program& prog,
       const host_params& params, nic& nic, const network::placement& place,
       collective_progress& progress);
  SC_HAS_PROCESS(host);

  void on_message(network::terminal_id src, uint32_t collective_id, uint32_t tag,
                  uint64_t buf_offset, uint64_t bytes, uint32_t seq) override;

  // Offload ops send their data once, with the offload family's header `target` (e.g.
  // Ragasa: to the Bcast Unit of the rank's own router; routing aims at the rank's own
  // terminal), and wait until open_offload_gate(context) of their context: the family's
  // set-up of that collective is done.
  void enable_offload(const tlm_net::family_header& target);
  void open_offload_gate(uint32_t context);

  // Persistent offload calls (the agent outlives the simulation).
  void set_offload_agent(offload_agent* agent) { m_agent = agent; }
  // More NICs for this rank (op::lane k >= 1 sends on lanes[k - 1], to the peer's lane k,
  // (*lane_terminals)[peer][k - 1]); messages come from their terminals, which
  // `rank_of_terminal` maps to ranks. Both tables outlive the host.
  void add_lanes(std::vector<nic*> lanes, const std::vector<uint32_t>* rank_of_terminal,
                 const std::vector<std::vector<network::terminal_id>>* lane_terminals);
  // Spends `ns` of this host's CPU after what is booked; returns when it is done.
  sc_core::sc_time spend_cpu(double ns) { return use_cpu(ns); }
  // When the CPU is free of what is booked (e.g. computation overlapping an MPI_Start).
  const sc_core::sc_time& cpu_free() const { return m_cpu_free; }
  // Call `op` returns at `when` (not before now).
  void finish_call(uint32_t op, const sc_core::sc_time& when);
  // Offload hardware wrote [offset, offset + bytes) of context `context`'s buffer here.
  void offload_data(uint32_t context, uint64_t offset, uint64_t bytes);

  bool finished() const { return m_completed == m_program.ops.size(); }
  // The instances the rank is a member of, in program order.
  size_t memberships() const { return m_slots.size(); }
  uint32_t instance_of(size_t slot) const { return m_slots[slot].instance; }
  uint32_t member_of(size_t slot) const { return m_slots[slot].member; }
  // Bytes of every message received for it, duplicates included.
  uint64_t received_bytes(size_t slot) const { return m_slots[slot].received_bytes; }
  // Bytes of its buffer the rank holds: what it held before and the union of what it
  // received.
  uint64_t covered_bytes(size_t slot) const { return m_slots[slot].held_bytes; }
  bool describe_stall(std::ostream& os) const;

  // Statistics.
  tlm_net::counter cpu_busy_ps;
  tlm_net::counter ops_completed;
  const tlm_net::stat_group& stats() const { return m_stats; }

 private:
  enum class action_kind : uint8_t { start, complete };
  struct action {
    action_kind kind;
    uint32_t op;
  };
  struct byte_range {
    uint64_t begin;
    uint64_t end;  // exclusive
  };
  struct arrived {
    uint32_t src_rank;
    uint32_t context;
    uint32_t tag;
    uint32_t seq;
    uint64_t offset;
    uint64_t bytes;
  };
  // Messages posted so far on one (peer, context, tag): the next one's message::seq.
  struct channel {
    uint32_t peer;
    uint32_t context;
    uint32_t tag;
    uint32_t next_seq;
  };
  // The rank's part of one instance: its member index and the buffer bytes it holds.
  struct slot {
    uint32_t instance = 0;
    uint32_t member = 0;
    uint64_t buffer_bytes = 0;
    uint64_t received_bytes = 0;
    uint32_t received_messages = 0;  // a zero-byte buffer is held once all its receives came
    std::vector<byte_range> held;    // merged: sorted, disjoint, not adjacent
    uint64_t held_bytes = 0;         // their total size
  };

  void on_wakeup();
  void start(uint32_t op);
  void complete(uint32_t op);
  sc_core::sc_time use_cpu(double ns);
  void try_match();
  void note_received(uint32_t context, uint64_t offset, uint64_t bytes);
  static void hold(slot& sl, byte_range got);
  static bool covers(const slot& sl, uint64_t begin, uint64_t end);
  slot* slot_of_context(uint32_t context);
  void note_start(uint32_t context);
  static bool channel_before(const channel& a, const channel& b);
  static std::vector<channel> channels_of(const algorithms::rank_program& program,
                                          algorithms::op_kind kind);
  static uint32_t next_seq(std::vector<channel>& channels, const algorithms::op& o);

  uint32_t m_rank;
  const algorithms::program& m_prog;
  const algorithms::rank_program& m_program;
  host_params m_params;
  nic& m_nic;
  const network::placement& m_place;
  collective_progress& m_progress;

  std::vector<uint32_t> m_deps_left;                // [op]
  std::vector<std::vector<uint32_t>> m_dependents;  // [op]
  std::vector<uint32_t> m_posted;                   // recv ops posted, not matched, in order
  std::vector<uint32_t> m_seq;                      // [op] of a send or posted recv: its seq
  std::vector<channel> m_send_channels;             // sorted by (peer, tag), made at construction
  std::vector<channel> m_recv_channels;             // likewise; the hot path allocates nothing
  tlm_net::family_header m_offload_target;          // family 0: no offload hardware
  offload_agent* m_agent = nullptr;                 // runs the persistent offload calls
  std::vector<nic*> m_lanes;                        // op::lane k >= 1: m_lanes[k - 1]
  const std::vector<uint32_t>* m_rank_of_terminal = nullptr;  // with lanes: senders' ranks
  const std::vector<std::vector<network::terminal_id>>* m_lane_terminals = nullptr;
  std::vector<bool> m_gate_open;      // [context]; empty: no offload hardware, no gate
  std::vector<uint32_t> m_gated;      // offload ops waiting for their gate
  std::vector<arrived> m_unexpected;  // messages in, not matched, in order
  uint64_t m_completed = 0;
  std::vector<slot> m_slots;  // by instance
  sc_core::sc_time m_cpu_free;

  sc_core::sc_event m_wakeup;
  tlm_net::timed_queue<action> m_agenda;
  tlm_net::stat_group m_stats;
};

}  // namespace bcastsim::hw
