// The host NIC of one terminal: splits messages into packets and injects them on the
// terminal link as credits allow (in message order, VC 0); reassembles arriving packets and
// tells its client when a whole message has arrived.
//
// Code flow: host -> send_message() -> injection FIFO -> (credits, link free) -> packet from
// the pool -> out (terminal link) ... in.nb_transport_fw (head) -> agenda at tail arrival ->
// credit back upstream -> reassembly -> client.on_message() -> packet back to the pool.
#pragma once

#include "hw/nic/nic.h"
#include "network/routing.h"
#include "tlm/credit_output.h"
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
  uint32_t flit_bytes = 64;
  double flit_gap_ns = 0;  // idle time after each flit injected (CODES's terminal pacing)
  // CODES's model-net scheduler, for packet.issued only (CODES's latency): one packet per
  // codes_issue_ns while the NIC holds less than codes_issue_window_bytes; 0: off.
  double codes_issue_ns = 0;
  uint32_t codes_issue_window_bytes = 8192;
  uint64_t seed = 1;  // run seed; with the terminal and packet count it gives routing entropy
};

class host_nic final : public nic {
 public:
  host_nic(const sc_core::sc_module_name& name, network::terminal_id terminal,
           const nic_params& params, tlm_net::packet_pool& pool,
           const network::routing_policy& routing);
  ~host_nic() override;
  SC_HAS_PROCESS(host_nic);

  void set_client(nic_client* client) override { m_client = client; }
  network::terminal_id terminal() const override { return m_terminal; }
  void send_message(const message& m) override;

  tlm::tlm_sync_enum nb_transport_fw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_bw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);

  // Work left: messages not yet fully injected, packets not yet fully reassembled.
  bool idle() const override { return m_queue.empty() && m_partial.empty(); }
  size_t queued_messages() const override { return m_queue.size(); }
  bool describe_stall(std::ostream& os) const override;
  void trace(const tlm_net::trace_window& window, const std::string& prefix) override;

 private:
  enum class action_kind : uint8_t { deliver, wake };
  struct action {
    action_kind kind = action_kind::wake;
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
  struct sent {  // a packet injected: when its head left, its bytes (for packet.issued)
    sc_core::sc_time at;
    uint32_t bytes;
  };
  sc_core::sc_time codes_issue_time(const tlm_net::packet& p, sc_core::sc_time now);

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
  tlm_net::credit_output m_inject;      // the terminal link into the router's buffer
  std::vector<uint32_t> m_eject_bytes;  // [vc] bytes held in this NIC's receive buffer
  uint64_t m_next_msg_id = 0;
  uint64_t m_next_packet = 0;     // packets injected so far: the routing entropy's counter
  tlm_net::ring<sent> m_sent;     // codes_issue_ns: the last packets injected, a window's worth
  uint64_t m_sent_bytes = 0;      // their bytes
  sc_core::sc_time m_last_issue;  // codes_issue_ns: the last packet's issue time
  tlm_net::packet m_credit_token;

  sc_core::sc_event m_wakeup;
  tlm_net::timed_queue<action> m_agenda;
  std::unique_ptr<trace_mirror> m_trace;
};

}  // namespace bcastsim::hw
