// A router with virtual channels and credit flow control, virtual cut-through at packet
// granularity. It knows no topology: it asks a routing policy for (port, VC). Two models
// (router.model):
//   input_queued    (default) FIFOs per input VC, a separable allocator, an input sends one
//                   packet at a time at the link's rate (head-of-line blocking per input VC);
//   output_queued   CODES's dragonfly router (experiments/codes/codes-dragonfly-notes.md §3,
//                   hw/router/router_output_queued.cpp): no input FIFOs; a routed packet joins
//                   its output VC's queue when that output holds credits for it, and only then
//                   returns its credit upstream; else it is parked, in order, holding the
//                   credit. Outputs serve their highest non-empty VC first, FIFO within it
//                   (router.vc_order: round_robin serves the VCs in turn instead).
// BookSim's input-queued router (booksim2 src/routers/iq_router.cpp) is input_queued with
//   router.internal_speedup  > 1: the crossbar moves a packet at that multiple of its output
//                   link's rate into an output buffer per port, which the link drains; the
//                   downstream credits are spent at the crossbar, the input's credit goes
//                   upstream once the tail has crossed it. BookSim's default output buffer
//                   is unbounded, and so is this one: the credits it holds bound it. Its
//                   dragonfly examples run 2.0 (src/examples/dragonflyconfig) and 1.7.
//   router.alloc_iterations  passes of the switch allocator a round (iSLIP's iterations,
//                   separable_allocator.h). BookSim reads alloc_iters only for its islip,
//                   pim and select allocators; its separable ones make one pass.
//
// Code flow of one packet, input_queued (see hw/README.md):
//   in[i].nb_transport_fw   head flit arrives; the packet already owns buffer space (the
//                           upstream sender spent credits), so it is only accounted here
//   agenda ARRIVE           after the pipeline (delay_cycles, aligned to the clock edge) the
//                           routing policy picks (out port, out VC); the packet joins the
//                           FIFO of its input VC
//   allocate()              every head whose output is free and has credits for the whole
//                           packet requests it; the separable_allocator picks one VC per
//                           input and grants one input per output, each stage with a
//                           round_robin_arbiter (separable_allocator.h, round_robin_arbiter.h)
//   offload packets         (packet.offload.family set) are steered by the offload family's
//                           attached_port_hook first (Ragasa: into the attached Bcast Unit
//                           at the unit's router, or a direct link to a neighbour's unit);
//                           otherwise the routing policy steers them toward p.dst
//   out[o].nb_transport_fw  the link serialises it; its answer says when the output and the
//                           input crossbar port free up; the input buffer's credit goes
//                           upstream (in[i].nb_transport_bw) for that moment
#pragma once

#include "hw/router/separable_allocator.h"
#include "network/routing.h"
#include "tlm/credit_output.h"
#include "tlm/packet.h"
#include "tlm/ring.h"
#include "tlm/statistics.h"
#include "tlm/timed_queue.h"
#include "tlm/trace_window.h"

#include <array>
#include <iosfwd>
#include <memory>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

namespace bcastsim::hw {

class router;

// An offload family's routing hook: where the family's packets (packet.offload.family != 0)
// go at router r. Returns true with `d` set, or false to leave the packet to the routing
// policy. Called on the hot path: no allocation.
class attached_port_hook {
 public:
  virtual ~attached_port_hook() = default;
  virtual bool route(const router& r, tlm_net::packet& p, network::route_decision& d) const = 0;
};

struct router_params {
  uint32_t vcs = 3;            // VCs on every port
  uint32_t delay_cycles = 50;  // routing + allocation + crossbar pipeline
  double clock_mhz = 1000.0;
  std::string model = "input_queued";
  std::string vc_order = "highest_first";  // output_queued: which VC an output serves next
  double internal_speedup = 1.0;           // crossbar rate / output link rate (input_queued)
  uint32_t alloc_iterations = 1;           // switch allocator passes a round (input_queued)
  // Input VC buffer per link class of the topology ([0] = terminal), in bytes: the keys
  // router.vc_buffer_bytes.<class>, declared by the topology kind with its classes.
  std::vector<uint32_t> vc_buffer_bytes;
  // Link rate per link class, in GiB/s: the crossbar's, times internal_speedup. Needed only
  // when internal_speedup > 1.
  std::vector<double> link_gib_per_s;
  // A block attached on the extra port `topology radix` by an offload family (Ragasa's Bcast
  // Unit): the family's hook steers the family's packets, and what the block sends comes in
  // through the same port.
  struct attached_port {
    bool present = false;
    std::string label = "attached";       // in stall reports, e.g. "bcast unit"
    uint32_t in_vc_buffer_bytes = 16384;  // input VC buffer for what the block sends
    uint32_t credit_bytes = 16384;        // the block's receive buffer per VC (credits)
    // The crossbar input of the block's packets runs at this rate, not at the rate of the
    // output it feeds: while one packet drains onto its output link, the next may go to
    // another output (in-router replication bandwidth). 0 = like every other input.
    double input_gib_per_s = 0;
    const attached_port_hook* hook = nullptr;  // owned by the family; outlives the router
  } attached;

  // The scenario keys, declared once: see network/params.h.
  template <class V>
  void visit(V& v) {
    v.field("router.vcs", vcs, 1, 64, "virtual channels per port");
    v.field("router.delay_cycles", delay_cycles, 0, 1e6,
            "router pipeline: routing, allocation, crossbar");
    v.field("router.clock_mhz", clock_mhz, 1e-3, 1e6, "router clock");
    v.choice("router.model", model, {"input_queued", "output_queued"},
             "input_queued: FIFOs per input VC and a separable allocator; output_queued: "
             "CODES's dragonfly router, queues per output VC filled as credits allow, the "
             "highest VC served first (hw/router/router.h)");
    v.choice("router.vc_order", vc_order, {"highest_first", "round_robin"},
             "output_queued: the VC an output serves next: highest_first (CODES: a packet "
             "further along its route first; a saturated higher VC holds lower ones back) or "
             "round_robin (every VC within one packet of each other)");
    v.field("router.internal_speedup", internal_speedup, 1.0, 64.0,
            "input_queued: crossbar rate over the output link's (BookSim's internal_speedup); "
            "above 1 an output buffer per port takes what the link cannot send yet");
    v.field("router.alloc_iterations", alloc_iterations, 1, 16,
            "input_queued: switch allocator passes a round (iSLIP iterations)");
  }
};

class router final : public sc_core::sc_module, public network::port_occupancy_view {
 public:
  sc_core::sc_vector<tlm_net::target_socket> in;      // [port], from upstream links
  sc_core::sc_vector<tlm_net::initiator_socket> out;  // [port], into downstream links

  router(const sc_core::sc_module_name& name, network::router_id id, const network::topology& topo,
         const network::routing_policy& routing, const router_params& params);
  ~router() override;
  SC_HAS_PROCESS(router);

  network::router_id id() const { return m_id; }
  // Ports: the topology's, then the attached block's, if any.
  uint32_t radix() const { return m_radix; }
  // The port of the attached block; invalid_id without one.
  network::port_id attached_port() const { return m_attached_port; }
  // The first port to neighbouring router r (a direct link); invalid_id if none.
  network::port_id port_to(network::router_id r) const;
  network::link_class port_class(network::port_id port) const { return m_inputs[port].cls; }
  const network::routing_policy& routing() const { return m_routing; }

  // Transport (called through the tagged adapters).
  tlm::tlm_sync_enum nb_transport_fw(uint32_t port, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_bw(uint32_t port, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);

  // port_occupancy_view: bytes spent from the output's credits (queued downstream or in
  // flight), for adaptive routing policies.
  uint32_t output_occupancy_bytes(network::port_id port) const override;

  // Credit bytes of `port` spent and not on their way back: 0 for every port once a
  // simulation has drained (credits still in flight count as returned).
  uint32_t unreturned_credit_bytes(network::port_id port) const;

  // Packets buffered in the router (arrived, not yet sent on).
  uint64_t buffered_packets() const { return m_buffered; }
  // Writes what is stuck (port, VC, head packet, wanted output, credits); false if empty.
  bool describe_stall(std::ostream& os, uint32_t max_lines) const;

  // Waveforms: registers this router's signals under `prefix`.
  void trace(const tlm_net::trace_window& window, const std::string& prefix);

  // Statistics.
  tlm_net::counter packets;
  tlm_net::accumulator wait_ps;  // routed -> granted
  const tlm_net::stat_group& stats() const { return m_stats; }

 private:
  enum class action_kind : uint8_t { arrive, wake };
  struct action {
    action_kind kind = action_kind::wake;
    uint8_t vc = 0;
    uint16_t port = 0;
    uint32_t bytes = 0;
    tlm_net::packet* pkt = nullptr;
  };
  struct input_vc {
    tlm_net::ring<tlm_net::packet*> fifo;
    uint32_t occupancy_bytes = 0;  // including packets still in the pipeline
  };
  struct input_port {
    network::link_class cls = network::terminal_class;
    uint32_t capacity_bytes = 0;  // per VC
    sc_core::sc_time busy_until;
    uint32_t ready = 0;                  // packets in the FIFOs
    tlm_net::bw_if* upstream = nullptr;  // the link into this port, found on first use
  };
  struct trace_mirror;
  // output_queued: a routed packet and the input VC whose credit it holds.
  struct held {
    tlm_net::packet* pkt = nullptr;
    uint16_t in_port = 0;
    uint8_t in_vc = 0;
  };
  struct output_vc {
    tlm_net::ring<tlm_net::packet*> queue;  // accepted: credits spent, upstream credit returned
    tlm_net::ring<held> parked;             // waiting for credits, in arrival order
  };

  void on_wakeup();
  network::route_decision route(tlm_net::packet& p);
  // `now`: the time of the wake-up, read once (sc_time_stamp() is a library call).
  void allocate(const sc_core::sc_time& now);
  void grant(const sc_core::sc_time& now, uint32_t in_port, uint32_t vc, uint32_t out_port);
  // internal_speedup > 1: the packet crosses into its output's buffer; buffered packets go
  // out as their links free.
  void grant_buffered(const sc_core::sc_time& now, uint32_t in_port, tlm_net::packet* p,
                      uint32_t out_port);
  void send_buffered(const sc_core::sc_time& now, sc_core::sc_time& retry);
  // When output `o` can take the next packet from the crossbar.
  const sc_core::sc_time& output_free_at(uint32_t o) const {
    return m_speedup ? m_crossbar_out_free[o] : m_outputs[o].busy_until();
  }
  sc_core::sc_time pipeline_done(const sc_core::sc_time& arrival) const;
  input_vc& ivc(uint32_t port, uint32_t vc) { return m_in_vcs[port * m_vcs + vc]; }
  const input_vc& ivc(uint32_t port, uint32_t vc) const { return m_in_vcs[port * m_vcs + vc]; }
  // output_queued (hw/router/router_output_queued.cpp).
  output_vc& ovc(uint32_t port, uint32_t vc) { return m_out_vcs[port * m_vcs + vc]; }
  const output_vc& ovc(uint32_t port, uint32_t vc) const { return m_out_vcs[port * m_vcs + vc]; }
  void oq_arrive(const sc_core::sc_time& now, uint32_t in_port, tlm_net::packet* p);
  void oq_accept(const sc_core::sc_time& now, const held& h);
  void oq_unpark(const sc_core::sc_time& now, sc_core::sc_time& retry);
  void oq_send(const sc_core::sc_time& now, sc_core::sc_time& retry);
  bool oq_describe_stall(std::ostream& os, uint32_t max_lines) const;
  // Returns `bytes` of input VC `vc`'s credit upstream, usable after `delay`.
  void return_credit(uint32_t in_port, uint8_t vc, uint32_t bytes, const sc_core::sc_time& delay);
  void sample_trace();
  // Wakes the router at `when` unless a wake-up at or before it is already set.
  void wake_at(const sc_core::sc_time& when);

  // Read on every packet, so declared together: a few cache lines, not a dozen (in a large
  // fabric a router's state is rarely in cache when a packet reaches it).
  uint32_t m_radix;
  uint32_t m_vcs;
  network::port_id m_attached_port = network::invalid_id;
  bool m_output_queued = false;
  bool m_speedup = false;          // internal_speedup > 1 (input_queued)
  uint32_t m_output_buffered = 0;  // packets in all output buffers
  uint64_t m_buffered = 0;
  sc_core::sc_time m_period;
  sc_core::sc_time m_pipeline;
  const sc_core::sc_time m_never = sc_core::sc_max_time();  // read once: a library call
  sc_core::sc_time m_wake_at = m_never;                     // earliest wake-up set, if any
  std::unique_ptr<trace_mirror> m_trace;
  const network::routing_policy& m_routing;
  network::router_id m_id;
  double m_attached_ps_per_byte = 0;  // attached input's crossbar rate; 0 = the output's
  std::vector<input_port> m_inputs;
  std::vector<input_vc> m_in_vcs;                 // [port * vcs + vc]
  std::vector<tlm_net::credit_output> m_outputs;  // [port]: credits toward the peer, busy time
  std::vector<output_vc> m_out_vcs;               // output_queued: [port * vcs + vc]
  std::vector<uint32_t> m_out_queued;  // output_queued: [port] packets accepted, not yet sent
  std::vector<uint32_t> m_out_parked;  // output_queued: [port] packets parked
  std::vector<round_robin_arbiter> m_out_vc_arbiters;  // output_queued, round_robin: [port]
  tlm_net::timed_queue<action> m_agenda;

  const network::topology& m_topo;
  router_params m_params;
  // First port to each neighbouring router, sorted by router: offload tree edges.
  std::vector<std::pair<network::router_id, network::port_id>> m_neighbours;
  std::vector<double> m_crossbar_ps_per_byte;         // [port], as output, with speedup
  std::vector<sc_core::sc_time> m_crossbar_out_free;  // [port]: crossbar output busy until
  std::vector<tlm_net::ring<tlm_net::packet*>> m_output_buffers;  // [port], with speedup
  std::unique_ptr<tlm_net::tagged_fw<router>[]> m_fw;             // interfaces are not copyable
  std::unique_ptr<tlm_net::tagged_bw<router>[]> m_bw;
  separable_allocator m_allocator;  // inputs x VCs onto outputs, round-robin
  tlm_net::packet m_credit_token;   // payload of credit returns: read at once
  sc_core::sc_event m_wakeup;
  tlm_net::stat_group m_stats;
};

}  // namespace bcastsim::hw
