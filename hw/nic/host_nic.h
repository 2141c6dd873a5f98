// The host NIC of one terminal: splits messages into packets and injects them on the
// terminal link as credits allow (in message order, VC 0); reassembles arriving packets and
// tells its client when a whole message has arrived.
//
// Code flow: host -> send_message() -> injection FIFO -> (credits, link free) -> packet from
// the pool -> out (terminal link) ... in.nb_transport_fw (head) -> agenda at tail arrival ->
// credit back upstream -> reassembly -> client.on_message() -> packet back to the pool.
#pragma once

#include "network/routing.h"
#include "tlm/packet.h"
#include "tlm/packet_pool.h"
#include "tlm/ring.h"
#include "tlm/statistics.h"
#include "tlm/timed_queue.h"
#include "tlm/trace_window.h"

#include <iosfwd>
#include <memory>
#include <systemc>
#include <vector>

namespace bcastsim::hw {

struct nic_params {
  uint32_t packet_bytes = 512;           // largest packet; shorter messages travel as one packet
  uint32_t inject_buffer_bytes = 16384;  // the router's terminal VC buffer (initial credits)
  uint32_t eject_buffer_bytes = 16384;   // this NIC's receive buffer per VC
  uint32_t vcs = 3;
  uint64_t seed = 1;  // run seed; with the terminal and packet count it gives routing entropy
};

struct message {
  network::terminal_id dst = network::invalid_id;
  uint64_t bytes = 0;
  uint64_t buf_offset = 0;
  uint32_t tag = 0;
  uint32_t collective_id = 0;
  tlm_net::packet_kind kind = tlm_net::packet_kind::data;  // control: a Mini Packet
  // Offload: the family's fields, copied into every packet (tlm_net::family_header).
  tlm_net::family_header offload;
};

// Receives whole messages from the NIC.
class nic_client {
 public:
  virtual ~nic_client() = default;
  virtual void on_message(network::terminal_id src, uint32_t tag, uint64_t buf_offset,
                          uint64_t bytes) = 0;
  // Every packet delivered here, before its message is complete and before the packet
  // returns to the pool (traffic generators measure packet latency with it).
  virtual void on_packet(const tlm_net::packet& /*p*/) {}
};

class host_nic final : public sc_core::sc_module {
 public:
  tlm_net::initiator_socket out;  // injection: to the router's terminal input
  tlm_net::target_socket in;      // ejection: from the router's terminal output

  host_nic(const sc_core::sc_module_name& name, network::terminal_id terminal,
           const nic_params& params, tlm_net::packet_pool& pool,
           const network::routing_policy& routing);
  ~host_nic() override;
  SC_HAS_PROCESS(host_nic);

  void set_client(nic_client* client) { m_client = client; }
  network::terminal_id terminal() const { return m_terminal; }

  // Queues a message for injection; it leaves after the messages queued before it.
  void send_message(const message& m);

  tlm::tlm_sync_enum nb_transport_fw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_bw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);

  // Work left: messages not yet fully injected, packets not yet fully reassembled.
  bool idle() const { return m_queue.empty() && m_partial.empty(); }
  // Messages queued for injection, the one being injected included.
  size_t queued_messages() const { return m_queue.size(); }
  bool describe_stall(std::ostream& os) const;
  void trace(const tlm_net::trace_window& window, const std::string& prefix);

  // Statistics.
  tlm_net::counter packets_injected;
  tlm_net::counter packets_delivered;
  tlm_net::counter messages_sent;
  tlm_net::counter messages_received;
  tlm_net::accumulator latency_ps;  // head leaves the source NIC -> tail at this NIC
  tlm_net::accumulator routers;     // routers traversed per delivered packet
  const tlm_net::stat_group& stats() const { return m_stats; }

 private:
  enum class action_kind : uint8_t { deliver, credit, wake };
  struct action {
    action_kind kind = action_kind::wake;
    uint8_t vc = 0;
    uint32_t bytes = 0;
    tlm_net::packet* pkt = nullptr;
  };
  struct outgoing {
    message msg;
    uint64_t id = 0;
    uint32_t next_index = 0;
    uint32_t count = 0;
    sc_core::sc_time queued;
  };
  struct partial {
    network::terminal_id src;
    uint64_t msg_id;
    uint64_t received;
  };
  struct trace_mirror;

  void on_wakeup();
  void inject();
  void deliver(tlm_net::packet* p);
  void sample_trace();

  network::terminal_id m_terminal;
  nic_params m_params;
  tlm_net::packet_pool& m_pool;
  const network::routing_policy& m_routing;
  nic_client* m_client = nullptr;

  tlm_net::tagged_fw<host_nic> m_fw;
  tlm_net::tagged_bw<host_nic> m_bw;
  tlm_net::ring<outgoing> m_queue;
  std::vector<partial> m_partial;
  std::vector<uint32_t> m_credits;      // [vc] bytes free in the router's terminal buffer
  std::vector<uint32_t> m_eject_bytes;  // [vc] bytes held in this NIC's receive buffer
  sc_core::sc_time m_link_free;
  uint64_t m_next_msg_id = 0;
  uint64_t m_next_packet = 0;  // packets injected so far: the routing entropy's counter
  tlm_net::packet m_credit_token;

  sc_core::sc_event m_wakeup;
  tlm_net::timed_queue<action> m_agenda;
  tlm_net::stat_group m_stats;
  std::unique_ptr<trace_mirror> m_trace;
};

}  // namespace bcastsim::hw
