// What the fabric, the reports and the co-simulation harness see of a Bcast Unit, whichever
// model implements it: the SystemC model (bcast_unit) or its verilated RTL (bcast_unit_rtl).
// Both take packets on `in` from the router's unit port and inject their copies on `out`,
// with the same parameters, statistics and stall diagnosis.
#pragma once

#include "hw/ragasa/packet_fields.h"
#include "network/routing.h"
#include "network/topology.h"
#include "tlm/credit_output.h"
#include "tlm/packet.h"
#include "tlm/packet_pool.h"
#include "tlm/statistics.h"
#include "tlm/trace_window.h"

#include <iosfwd>
#include <map>
#include <string>
#include <systemc>
#include <vector>

namespace bcastsim::hw::ragasa {

struct bcast_unit_params {
  double clock_mhz = 1000.0;
  uint32_t rx_queues = 4;
  uint32_t rx_queue_packets = 8;  // depth of each Rx-queue
  uint64_t working_memory_bytes = 65536;
  // The paper gives no size. 128: the all-nodes experiment of the paper (72 nodes, every
  // one a root) keeps 72 broadcasts in every unit at once, and tables are sized in powers
  // of two.
  uint32_t membership_entries = 128;           // broadcasts the Membership Table holds
  uint64_t descriptor_threshold_bytes = 4096;  // bytes of a message before descriptors
  uint32_t work_queue_descriptors = 16;        // Work Queue Element capacity
  uint32_t send_queue_descriptors = 8;         // dispatched descriptors the SPS holds
  uint32_t ri_cycles = 4;                      // Receive Interface: flits -> packet
  uint32_t scheduler_cycles = 2;               // Receive Packet Scheduler, per packet
  uint32_t descriptor_cycles = 2;              // descriptor generation, per descriptor
  uint32_t dispatch_cycles = 2;                // Dispatcher, per descriptor
  uint32_t send_cycles = 4;                    // Send Packet Scheduler + SI, per packet
  uint32_t input_buffer_bytes = 2048;          // RI buffer per VC: the router's credits
  // Working Memory reserved per broadcast, in chunks (README.md, mechanism 3): one chunk
  // filling, one waiting for its descriptors, two in the Send Packet Scheduler keep the
  // unit's pipeline busy, and 4 x 4 KiB holds a whole 16 KiB broadcast (the paper's headline
  // size), so one broadcast of that size never waits for memory.
  uint32_t reserved_chunks = 4;
  // A credit return's wire size: a header naming the broadcast and the packets freed.
  uint32_t credit_packet_bytes = 16;
  // Set by the fabric from the network, not keys of their own:
  uint32_t packet_bytes = 512;           // largest packet
  uint32_t output_buffer_bytes = 16384;  // the router's VC 0 buffer behind `out`
  uint32_t vcs = 3;
  uint64_t seed = 1;  // routing entropy of the copies, with the unit's terminal

  // The scenario keys (ragasa.*), declared once: see network/params.h.
  template <class V>
  void visit(V& v) {
    v.field("ragasa.clock_mhz", clock_mhz, 1e-3, 1e6, "Bcast Unit clock");
    v.field("ragasa.ri_buffer_bytes", input_buffer_bytes, 1, 1u << 30,
            "Receive Interface buffer per VC (the router's credits toward the unit)");
    v.field("ragasa.ri_cycles", ri_cycles, 0, 1e6, "RI: flits assembled into a packet");
    v.field("ragasa.rx_queues", rx_queues, 1, 1024,
            "Rx-queues (a collective uses queue id % rx_queues)");
    v.field("ragasa.rx_queue_packets", rx_queue_packets, 1, 1e6, "depth of each Rx-queue, packets");
    v.field("ragasa.scheduler_cycles", scheduler_cycles, 0, 1e6,
            "Receive Packet Scheduler, per packet");
    v.field("ragasa.membership_entries", membership_entries, 1, 1e6,
            "collectives the Membership Table holds");
    v.field("ragasa.working_memory_bytes", working_memory_bytes, 1, 68719476736.0,
            "Working Memory");
    v.field("ragasa.descriptor_threshold_bytes", descriptor_threshold_bytes, 1, 68719476736.0,
            "bytes of a message stored before descriptors are generated for them");
    v.field("ragasa.descriptor_cycles", descriptor_cycles, 0, 1e6,
            "descriptor generation, per descriptor");
    v.field("ragasa.work_queue_descriptors", work_queue_descriptors, 1, 1e6,
            "Work Queue Element capacity");
    v.field("ragasa.dispatch_cycles", dispatch_cycles, 0, 1e6,
            "Dispatcher: connection set-up, per descriptor");
    v.field("ragasa.send_queue_descriptors", send_queue_descriptors, 1, 1e6,
            "connections the Send Packet Scheduler holds and interleaves (one per child)");
    v.field("ragasa.send_cycles", send_cycles, 0, 1e6, "Send Packet Scheduler + SI, per packet");
    v.field("ragasa.reserved_chunks", reserved_chunks, 1, 1e6,
            "Working Memory reserved per broadcast at admission, in chunks (hw/ragasa/README.md)");
    v.field("ragasa.credit_packet_bytes", credit_packet_bytes, 1, 1 << 20,
            "wire size of a credit return from a child unit to its parent");
  }
};

// The Working Memory a unit reserves for a broadcast of `packets` data packets (keep_entry or
// 0: unknown) when its Mini Packet is parsed: min(packets, reserved_chunks x a chunk's
// packets, what the memory holds) whole packets (hw/ragasa/README.md, mechanism 3).
uint64_t reservation_bytes(const bcast_unit_params& p, uint64_t packets);

// One child of a collective at this unit: a terminal attached to the router, or the Bcast
// Unit of a neighbouring router (unit_router), reached by routing toward `dst`, one of that
// router's terminals.
struct membership_child {
  network::terminal_id dst = network::invalid_id;
  network::router_id unit_router = network::invalid_id;
};

// Told when a Mini Packet has been parsed into the Membership Table (the management node
// counts them to know when set-up is complete) and when Step 10 frees an entry (the
// management node may then send that unit another Mini Packet).
class membership_listener {
 public:
  virtual ~membership_listener() = default;
  virtual void on_membership(uint32_t collective_id) = 0;
  virtual void on_freed(network::terminal_id /*unit_terminal*/, uint32_t /*collective_id*/) {}
};

// What the management node's Mini Packets carry, keyed by collective_id (see bcast_unit.h):
// the child list and the data packets the unit will receive for the collective. Step 10
// frees the entry once that many have been sent to every child; 0 or `keep_entry`
// (unknown) keep it until erase_membership. The RTL counts in 32 bits: more is kept.
class membership_source {
 public:
  static constexpr uint64_t keep_entry = ~uint64_t{0};
  void set(uint32_t collective_id, std::vector<membership_child> children,
           uint64_t packets = keep_entry) {
    entry& e = m_entries[collective_id];
    e.children = std::move(children);
    e.packets = packets;
  }
  // The unit this unit's data of the collective come from (a tree edge: it returns credits
  // to it); none (the default) when they come from a host.
  void set_parent(uint32_t collective_id, const membership_child& parent) {
    m_entries[collective_id].parent = parent;
  }
  membership_child parent(uint32_t collective_id) const {
    const auto it = m_entries.find(collective_id);
    return it == m_entries.end() ? membership_child{} : it->second.parent;
  }
  const std::vector<membership_child>* find(uint32_t collective_id) const {
    const auto it = m_entries.find(collective_id);
    return it == m_entries.end() ? nullptr : &it->second.children;
  }
  // Data packets of the collective the unit receives (keep_entry when unknown).
  uint64_t packets(uint32_t collective_id) const {
    const auto it = m_entries.find(collective_id);
    return it == m_entries.end() ? keep_entry : it->second.packets;
  }

 private:
  struct entry {
    std::vector<membership_child> children;
    uint64_t packets = keep_entry;
    membership_child parent;
  };
  std::map<uint32_t, entry> m_entries;
};

// Stage events, for the co-simulation scoreboard (tb/cosim): both models report the same
// events at the same simulated times. None is set in the fabric (one branch per event).
class unit_observer {
 public:
  virtual ~unit_observer() = default;
  // The Receive Packet Scheduler took `p` from Rx-queue `queue` (step 2).
  virtual void on_scheduled(const tlm_net::packet& p, uint32_t queue) = 0;
  // A Mini Packet's child list entered the Membership Table (step 3).
  virtual void on_parsed(uint32_t collective_id) = 0;
  // `packets` stored packets, the first `first`, closed into a batch (step 4).
  virtual void on_batch(const tlm_net::packet& first, uint32_t packets) = 0;
  // A descriptor of the batch that starts with `first`, for `child`, entered the Work Queue
  // Element (step 5), and left the Dispatcher for the Send Packet Scheduler (steps 6-7).
  virtual void on_descriptor(const tlm_net::packet& first, const membership_child& child) = 0;
  virtual void on_dispatched(const tlm_net::packet& first, const membership_child& child) = 0;
  // Step 10 freed the collective's Membership Table entry.
  virtual void on_freed(uint32_t /*collective_id*/) {}
};

class bcast_unit_base : public sc_core::sc_module {
 public:
  tlm_net::target_socket in;      // from the router's port to the unit
  tlm_net::initiator_socket out;  // back into the router

  void set_listener(membership_listener* l) { m_listener = l; }
  void set_observer(unit_observer* o) { m_observer = o; }
  const bcast_unit_params& params() const { return m_params; }
  network::terminal_id terminal() const { return m_terminal; }

  virtual bool idle() const = 0;
  // Writes what holds the unit up; false (and nothing written) when it is idle.
  virtual bool describe_stall(std::ostream& os) const = 0;
  virtual void trace(const tlm_net::trace_window& window, const std::string& prefix) = 0;

  // Statistics.
  tlm_net::counter packets_in;
  tlm_net::counter packets_out;
  tlm_net::counter mini_packets;
  tlm_net::counter descriptors;
  tlm_net::counter bytes_replicated;
  tlm_net::counter rx_queue_peak_packets;      // high-water mark of one Rx-queue
  tlm_net::counter membership_peak_entries;    // high-water mark of the Membership Table
  tlm_net::counter membership_freed;           // entries freed by Step 10
  tlm_net::counter membership_stall_ps;        // head Mini Packets waiting for a free entry
  tlm_net::counter working_memory_peak_bytes;  // high-water mark
  tlm_net::counter work_queue_peak_descriptors;
  tlm_net::counter send_queue_peak_descriptors;
  tlm_net::counter connection_wait_ps;  // the Dispatcher's head descriptor waiting to connect
  tlm_net::counter memory_stall_ps;     // head data packets waiting for memory
  tlm_net::counter rx_hol_blocked_ps;   // packets queued behind such a head
  tlm_net::counter ri_blocked_ps;       // RI blocked by a full Rx-queue
  tlm_net::counter credit_wait_ps;      // closed batches waiting for a child unit's credits
  tlm_net::counter credit_returns;      // credit returns sent to parent units
  const tlm_net::stat_group& stats() const { return m_stats; }

 protected:
  // What every model of the unit is wired to: its router's terminal id, the packet pool, the
  // Membership Table's source, the routing policy (for the copies' routes).
  bcast_unit_base(const sc_core::sc_module_name& name, network::terminal_id terminal,
                  const bcast_unit_params& params, tlm_net::packet_pool& pool,
                  const membership_source& membership, const network::routing_policy* routing);

  // A credit return for `packets` of `collective` to its parent unit (README.md, mechanism
  // 4), counted: both models send this packet. `entropy_index` seeds its route.
  tlm_net::packet* make_credit_return(uint32_t collective, uint32_t packets,
                                      const membership_child& parent, const sc_core::sc_time& now,
                                      uint64_t entropy_index);

  bcast_unit_params m_params;
  network::terminal_id m_terminal;
  tlm_net::packet_pool& m_pool;
  const membership_source& m_source;
  const network::routing_policy* m_routing;
  sc_core::sc_time m_period;         // one clock cycle
  std::vector<uint32_t> m_in_bytes;  // [vc] RI buffer bytes held (the router's credits)
  // The SI's output into the router's unit-port buffer (copies go on VC 0); the SI is
  // clocked: its link frees, and a returned credit counts, from a clock edge.
  tlm_net::credit_output m_out;
  membership_listener* m_listener = nullptr;
  unit_observer* m_observer = nullptr;
  tlm_net::stat_group m_stats;
};

}  // namespace bcastsim::hw::ragasa
