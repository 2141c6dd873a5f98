// A programmable Myrinet NIC with a LANai processor running GM's control program (Yu, Panda,
// Buntinas, Cluster 2004; FACTS §5), standing in place of the host NIC of one terminal (the
// NIC interface, hw/nic/nic.h).
//
// Code flow:
//   host send   send_message(): a message needs one of GM's send tokens (send_tokens), held
//               until all its packets are acknowledged; without one it waits in the host
//               library. With one, the host writes a send event across the PCI bus (event_bytes,
//               to the NIC); the LANai takes it (event_cycles), and for every fragment of at
//               most mtu_bytes, once a send buffer is free, DMAs the fragment from host memory
//               (PCI, to the NIC), builds the packet (packet_cycles) and queues it for the
//               network. A fragment keeps its send buffer and its send record (GM's sequence
//               number per destination, hw/lanai/gm_connection.h) until it is acknowledged;
//               an expired record resends from the buffer, go-back-N.
//   network     one packet at a time onto the terminal link under credits, header_bytes of
//               GM header, route and CRC on top of the payload.
//   receive     an arriving packet waits for a receive buffer in SRAM (its credit goes back to
//               the switch only then: the slack buffer is full until the LANai takes it); the
//               LANai handles it (packet_cycles): GM data in sequence is DMAed to host memory
//               and acknowledged (ack_cycles), a duplicate acknowledged again, a gap NACKed
//               once; a message's first packet takes one of the receive tokens (recv_tokens)
//               that the host's receive buffers stand for, and is dropped unacknowledged (the
//               sender resends it) when none is left; the last fragment of a message is followed by
//               a receive event DMAed to the host, after which the host hears of the message and
//               provides the buffer again (the token returns).
//   collective  gossip_start() (the host's gm_gossip request, through the separate collective
//               queue): NIC-CB or NIC-RD among the group's NICs (hw/lanai/gossip.cpp).
//
// The LANai is one processor: its tasks run one after another in arrival order, each costing
// its cycles at clock_mhz. The PCI bus (hw/lanai/pci_bus.h) is shared by both directions.
// The cycle counts are not in our sources: each is an assumption written beside its key,
// chosen before any experiment (a LANai executes about one instruction per cycle; GM's
// per-packet paths are some hundred instructions).
#pragma once

#include "algorithms/lanai_gossip.h"
#include "hw/lanai/gm_connection.h"
#include "hw/lanai/pci_bus.h"
#include "hw/nic/nic.h"
#include "network/routing.h"
#include "tlm/credit_output.h"
#include "tlm/packet.h"
#include "tlm/packet_pool.h"
#include "tlm/ring.h"
#include "tlm/statistics.h"
#include "tlm/timed_queue.h"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <systemc>
#include <unordered_map>
#include <vector>

namespace bcastsim::hw::lanai {

inline constexpr uint8_t family_id = 4;  // tlm_net::family_header::family

struct nic_params {
  double clock_mhz = 133;
  uint32_t event_cycles = 200;   // a host's send event or gm_gossip request
  uint32_t packet_cycles = 150;  // build or take one packet (header, DMA set-up, record)
  uint32_t ack_cycles = 60;      // make or take an ACK or NACK
  uint32_t forward_cycles = 40;  // a hopping packet's next destination and its re-send
  uint32_t send_buffers = 8;
  uint32_t recv_buffers = 8;
  uint32_t send_tokens = 61;      // GM: 64 send-queue slots less 3 (FACTS §5)
  uint32_t recv_tokens = 254;     // GM: per port (FACTS §5)
  uint32_t mtu_bytes = 4096;      // GM_MTU (FACTS §5)
  uint32_t header_bytes = 32;     // GM header 24 B + route and CRC 8 B
  uint32_t event_bytes = 32;      // a send or receive event across the PCI bus
  uint32_t staging_bytes = 8192;  // the paper's staging buffer
  double resend_timeout_us = 100;
  double nack_timeout_us = 1000;
  pci_params pci;

  template <class V>
  void visit(V& v) {
    v.field("lanai.clock_mhz", clock_mhz, 1, 10000,
            "LANai processor clock (the paper's LANai 9.1: 133 MHz)");
    v.field("lanai.event_cycles", event_cycles, 0, 1e9,
            "LANai cycles to take a host's send event or gm_gossip request (an assumption)");
    v.field("lanai.packet_cycles", packet_cycles, 0, 1e9,
            "LANai cycles to build a packet to send or take one received: header, DMA set-up, "
            "send record or sequence check (an assumption)");
    v.field("lanai.ack_cycles", ack_cycles, 0, 1e9,
            "LANai cycles to make or take an ACK or NACK (an assumption)");
    v.field("lanai.forward_cycles", forward_cycles, 0, 1e9,
            "LANai cycles to find a hopping packet's next destination and send it again from "
            "the same buffer (the paper's fast forwarding; an assumption)");
    v.field("lanai.send_buffers", send_buffers, 1, 1e6,
            "send packet buffers in SRAM; a GM packet holds one until acknowledged");
    v.field("lanai.recv_buffers", recv_buffers, 1, 1e6,
            "receive packet buffers in SRAM; an arriving packet waits in the switch for one");
    v.field("lanai.send_tokens", send_tokens, 1, 1e6,
            "GM send tokens: host messages the NIC holds until all acknowledged; the host "
            "library keeps any more until a token returns (GM: 61 per port)");
    v.field("lanai.recv_tokens", recv_tokens, 1, 1e6,
            "GM receive tokens: messages the NIC can receive into host buffers before the host "
            "takes their receive events; a message finding none is dropped unacknowledged and "
            "resent (GM: 254 per port)");
    v.field("lanai.mtu_bytes", mtu_bytes, 1, 1 << 20, "largest payload of a packet (GM_MTU)");
    v.field("lanai.header_bytes", header_bytes, 0, 4096,
            "bytes on the wire besides the payload: GM header 24, route and CRC 8");
    v.field("lanai.event_bytes", event_bytes, 0, 4096,
            "a send event (host to NIC) or receive event (NIC to host) across the PCI bus");
    v.field("lanai.staging_bytes", staging_bytes, 0, 1 << 30,
            "the NIC's staging buffer for NIC-RD (the paper: 8 KB)");
    v.field("lanai.resend_timeout_us", resend_timeout_us, 0.001, 1e9,
            "GM: an unacknowledged packet is sent again after this (not in our sources)");
    v.field("lanai.nack_timeout_us", nack_timeout_us, 0.001, 1e9,
            "collective: a NIC missing a packet this long after the operation began NACKs "
            "(the paper: \"a rather large timeout value\")");
    pci.visit(v);
  }
};

// What the NIC's packets carry besides the message fields (the family header, 8 bytes).
enum class packet_type : uint8_t { gm_data, gm_ack, gm_nack, cb_data, rd_data, coll_nack };
struct packet_fields {
  packet_type type = packet_type::gm_data;
  uint8_t flag = 0;     // NIC-CB: log distance of the hop; NIC-RD: the step
  uint16_t seq = 0;     // GM sequence number (data, ACK, NACK); collective: operation
  uint32_t origin = 0;  // NIC-CB: the origin member; NIC-RD: the first block; NACK: origin
};

// A gm_gossip request: the group (one member per NIC, in member order) and the algorithm.
struct gossip_request {
  bool recursive_doubling = false;            // NIC-RD; else NIC-CB
  uint32_t context = 0;                       // the host's collective context (host::offload_data)
  uint32_t member = 0;                        // this NIC's member index
  std::vector<network::terminal_id> members;  // [member] terminal
  uint64_t block_bytes = 0;                   // every member's block
};

// Hears when the NIC has written a collective's data into host memory and the completion
// event after it.
class gossip_client {
 public:
  virtual ~gossip_client() = default;
  virtual void on_gossip_done(uint32_t context) = 0;
};

class nic final : public hw::nic, public pci_client {
 public:
  nic(const sc_core::sc_module_name& name, network::terminal_id terminal, const nic_params& params,
      tlm_net::packet_pool& pool, const network::routing_policy& routing, uint32_t vcs,
      uint32_t inject_buffer_bytes, uint64_t seed);
  ~nic() override;
  SC_HAS_PROCESS(nic);

  // hw::nic
  void set_client(nic_client* client) override { m_client = client; }
  network::terminal_id terminal() const override { return m_terminal; }
  void send_message(const message& m) override;
  size_t queued_messages() const override { return m_events.size() + m_token_wait.size(); }
  bool idle() const override;
  bool describe_stall(std::ostream& os) const override;
  void trace(const tlm_net::trace_window& window, const std::string& prefix) override;

  // Group initiation, before the run: the group's members and the operation's shape, so the
  // NIC takes the group's packets even before its own host's request. `client` hears of the
  // completion.
  void gossip_init(const gossip_request& r, gossip_client& client);
  // The host's gm_gossip request, into the separate collective queue.
  void gossip_start();

  void on_dma_done(pci_direction d, uint64_t id) override;
  tlm::tlm_sync_enum nb_transport_fw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_bw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);

  const pci_bus& pci() const { return *m_pci; }

  // Besides the counters every NIC keeps:
  tlm_net::counter retransmissions;   // GM packets sent again (timeout or NACK)
  tlm_net::counter timeouts;          // GM resend timers and collective NACK timers that fired
  tlm_net::counter acks;              // ACKs sent
  tlm_net::counter nacks;             // NACKs sent (GM gaps and collective)
  tlm_net::counter duplicates;        // packets dropped as already held
  tlm_net::counter forwards;          // NIC-CB packets sent on from a receive buffer
  tlm_net::counter cpu_busy_ps;       // LANai busy
  tlm_net::counter rx_wait_peak;      // most packets waiting for a receive buffer
  tlm_net::counter send_token_waits;  // host messages that waited for a GM send token
  tlm_net::counter recv_token_drops;  // packets dropped for want of a GM receive token

 private:
  // One piece of LANai work; `a` and `b` are the task's own operands.
  enum class task_kind : uint8_t { send_event, build_packet, receive, send_ack, resend, gossip };
  struct task {
    task_kind kind = task_kind::send_event;
    uint32_t a = 0;
    uint64_t b = 0;
    tlm_net::packet* pkt = nullptr;
  };
  enum class action_kind : uint8_t { wake, tail, cpu_done };
  struct action {
    action_kind kind = action_kind::wake;
    tlm_net::packet* pkt = nullptr;
  };
  // A packet ready for the network.
  struct wire {
    network::terminal_id dst = network::invalid_id;
    tlm_net::packet_kind kind = tlm_net::packet_kind::data;
    packet_fields fields;
    uint32_t payload = 0;
    uint64_t msg_id = 0;  // host message; or the send buffer's fragment id
    uint32_t tag = 0, msg_seq = 0, collective_id = 0, index = 0, count = 0;
    uint64_t msg_bytes = 0, buf_offset = 0;
    sc_core::sc_time created;
    uint32_t buffer = 0xffffffffu;  // the send buffer it comes from (GM data), else none
    bool resend = false;            // a collective packet sent again in answer to a NACK
  };
  // A host message being sent.
  struct outgoing {
    message msg;
    uint64_t id = 0;
    uint32_t count = 0;    // fragments
    uint32_t next = 0;     // the next fragment to fetch
    uint32_t unacked = 0;  // fragments not yet acknowledged
    bool posted = false;   // the LANai has taken the send event
    sc_core::sc_time queued;
  };
  // A send buffer: a fragment from its DMA until it is acknowledged.
  struct send_buffer {
    uint64_t message = 0;  // outgoing id
    wire w;
    // Copies of its packet queued for the LANai or the link: a resend is not queued behind
    // another one (a short timeout would otherwise queue resends without bound).
    uint32_t queued = 0;
    bool acked = false;  // acknowledged while a copy was queued: freed when it has left
  };
  struct connection {
    gm_sender tx;
    gm_receiver rx;
  };
  struct partial {
    network::terminal_id src;
    uint64_t msg_id;
    uint64_t received;
  };
  struct gossip_state;
  // The waveforms' copy of the NIC's state, sampled when it may have changed.
  struct trace_mirror {
    tlm_net::trace_window window;
    bool cpu_busy = false;
    uint32_t tasks = 0;
    uint32_t free_send_buffers = 0;
    uint32_t free_recv_buffers = 0;
    uint32_t rx_wait = 0;
    uint32_t out_queue = 0;
    bool pci_idle = true;
  };

  void on_wakeup();
  void sample_trace();
  void run_cpu();
  void finish_task(const task& t);
  void post(task_kind k, uint32_t a = 0, uint64_t b = 0, tlm_net::packet* p = nullptr);
  sc_core::sc_time cycles(uint32_t n) const;
  void inject();
  void queue_wire(const wire& w);
  void take_arrivals();
  void post_send_event(const message& m);
  void fetch_fragments();
  void receive(tlm_net::packet* p);
  void receive_gm(tlm_net::packet* p);
  void on_ack(const tlm_net::packet& p, bool nack);
  void resend(const std::vector<send_record>& records);
  // The one timer: the earliest GM resend time or collective NACK deadline.
  void arm_timer();
  void on_timer();
  connection& conn(network::terminal_id peer);
  void release_rx(tlm_net::packet* p);
  void deliver_message(uint64_t rx_id);
  // Collective (hw/lanai/gossip.cpp).
  static uint64_t dma_id_gossip(uint64_t index);
  void post_gossip(uint32_t code, uint32_t cycles);
  void cb_send_down(uint32_t origin, uint32_t op, bool forward);
  void rd_send_step();
  void queue_rd_step(uint32_t k, network::terminal_id to, bool resend, uint32_t cycles);
  void gossip_check();
  void gossip_task(const task& t);
  void gossip_receive(tlm_net::packet* p);
  void gossip_dma_done(pci_direction d, uint64_t id);
  void gossip_timer(const sc_core::sc_time& now);
  void gossip_nack(network::terminal_id from, const packet_fields& f);
  void send_nack(uint32_t member, uint32_t op, uint32_t step, uint32_t origin);
  sc_core::sc_time nack_timeout() const;
  void restart_nack_timer();
  sc_core::sc_time gossip_deadline() const;
  bool gossip_idle() const;
  void gossip_injected(const wire& w);
  void gossip_stall(std::ostream& os) const;

  network::terminal_id m_terminal;
  nic_params m_params;
  tlm_net::packet_pool& m_pool;
  const network::routing_policy& m_routing;
  uint32_t m_vcs;
  uint64_t m_seed;
  nic_client* m_client = nullptr;
  std::unique_ptr<pci_bus> m_pci;
  double m_cycle_ps = 0;
  uint64_t m_resend_ps = 0;

  // The LANai.
  tlm_net::ring<task> m_tasks;
  bool m_cpu_busy = false;
  task m_current;
  // Host sends.
  tlm_net::ring<outgoing> m_events;  // the host's messages, in order, until all acknowledged
  // Messages waiting in the host library for a send token (m_events holds one each).
  tlm_net::ring<message> m_token_wait;
  uint32_t m_recv_tokens = 0;  // receive tokens the NIC holds
  uint64_t m_next_msg = 0;
  std::vector<send_buffer> m_send_buffers;
  std::vector<uint32_t> m_free_send;                             // indices of free send buffers
  std::unordered_map<network::terminal_id, connection> m_conns;  // made at first contact
  // The network.
  tlm_net::ring<wire> m_out;
  tlm_net::credit_output m_inject;
  uint64_t m_next_packet = 0;
  uint64_t m_next_wire_msg = 0;
  tlm_net::tagged_fw<nic> m_fw;
  tlm_net::tagged_bw<nic> m_bw;
  tlm_net::packet m_credit_token;
  // Receives.
  tlm_net::ring<tlm_net::packet*> m_rx_wait;  // tails in, waiting for a receive buffer
  uint32_t m_free_recv_buffers = 0;
  std::vector<partial> m_partial;
  // DMAs to the host of received GM data: [id] the packet's message, to deliver when done.
  struct rx_dma {
    network::terminal_id src;
    uint64_t msg_id;
    uint32_t payload;
    uint32_t collective_id, tag, msg_seq;
    uint64_t msg_bytes, buf_offset;
    bool event;  // the receive event after the last fragment
  };
  std::vector<rx_dma> m_rx_dmas;
  std::vector<uint32_t> m_free_rx_dmas;

  std::unique_ptr<gossip_state> m_gossip;
  sc_core::sc_event m_wakeup;
  sc_core::sc_event m_timer;  // cancelled when nothing waits on it, so it ends no run late
  sc_core::sc_time m_timer_at = sc_core::sc_max_time();
  tlm_net::timed_queue<action> m_agenda;
  std::unique_ptr<trace_mirror> m_trace;
};

}  // namespace bcastsim::hw::lanai
