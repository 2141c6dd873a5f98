// The network interface of a terminal, as its host and the fabric see it: the host NIC
// (hw/nic/host_nic.h) today; a Tofu2 TNI or a LANai NIC can stand in its place (an offload
// family makes them, tb/offload_family.h). The host hands it whole messages and hears of
// whole messages back (nic_client); the fabric binds its two sockets to the terminal link
// and reads the counters every NIC keeps (packet conservation, latency, hops).
#pragma once

#include "network/topology.h"
#include "tlm/packet.h"
#include "tlm/statistics.h"
#include "tlm/trace_window.h"

#include <cstddef>
#include <iosfwd>
#include <string>
#include <systemc>

namespace bcastsim::hw {

struct message {
  network::terminal_id dst = network::invalid_id;
  uint64_t bytes = 0;
  uint64_t buf_offset = 0;
  uint32_t tag = 0;
  // A host's message: its program context + 1 (the matching space, algorithms::op::context);
  // an offload family's: its own collective id. 0: none (traffic).
  uint32_t collective_id = 0;
  // Per (source, destination, tag), in the order the sends were posted: the receiver matches
  // by it, so messages do not overtake each other whatever route their packets take (MPI).
  uint32_t seq = 0;
  tlm_net::packet_kind kind = tlm_net::packet_kind::data;  // control: a Mini Packet
  // Offload: the family's fields, copied into every packet (tlm_net::family_header).
  tlm_net::family_header offload;
};

// Receives whole messages from the NIC.
class nic_client {
 public:
  virtual ~nic_client() = default;
  // A whole message has arrived; `collective_id` and `seq` are the sender's message
  // fields. Messages complete in any order under non-minimal or adaptive routing.
  virtual void on_message(network::terminal_id src, uint32_t collective_id, uint32_t tag,
                          uint64_t buf_offset, uint64_t bytes, uint32_t seq) = 0;
  // Every packet delivered here, before its message is complete and before the packet
  // returns to the pool (traffic generators measure packet latency with it).
  virtual void on_packet(const tlm_net::packet& /*p*/) {}
};

class nic : public sc_core::sc_module {
 public:
  tlm_net::initiator_socket out;  // injection: to the router's terminal input
  tlm_net::target_socket in;      // ejection: from the router's terminal output

  // Host side.
  virtual void set_client(nic_client* client) = 0;
  virtual network::terminal_id terminal() const = 0;
  // Queues a message for injection; it leaves after the messages queued before it.
  virtual void send_message(const message& m) = 0;
  // Messages queued for injection, the one being injected included.
  virtual size_t queued_messages() const = 0;

  // Fabric side: no work left; what is stuck (false if nothing); waveforms.
  virtual bool idle() const = 0;
  virtual bool describe_stall(std::ostream& os) const = 0;
  virtual void trace(const tlm_net::trace_window& window, const std::string& prefix) = 0;

  // Counters every NIC keeps, declared in stats() by the NIC.
  tlm_net::counter packets_injected;
  tlm_net::counter packets_delivered;
  tlm_net::counter messages_sent;
  tlm_net::counter messages_received;
  tlm_net::accumulator latency_ps;  // head leaves the source NIC -> tail at this NIC
  tlm_net::accumulator routers;     // routers traversed per delivered packet
  const tlm_net::stat_group& stats() const { return m_stats; }

 protected:
  explicit nic(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), out("out"), in("in") {}
  tlm_net::stat_group m_stats;
};

}  // namespace bcastsim::hw
