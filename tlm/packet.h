// bcastsim's network protocol: its own transaction class (`packet`) and protocol traits,
// used by every socket of the fabric (protocol-per-traffic, as VCML does).
//
// Phases on a link:
//   forward  BEGIN_REQ  a packet enters the receiver's reserved VC buffer space; the delay
//                       annotation is when its head flit has arrived.
//            END_REQ    (returned by the link) the link is busy until now + delay.
//   backward CREDIT     the receiver freed packet.size_bytes on VC packet.vc; the delay
//                       annotation is when the sender may reuse them.
#pragma once

#include "network/routing.h"
#include "network/topology.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <systemc>
#include <tlm>
#include <type_traits>

namespace bcastsim::tlm_net {

DECLARE_EXTENDED_PHASE(CREDIT);

enum class packet_kind : uint8_t {
  data,     // a piece of an MPI message
  control,  // control / mini packet (offload set-up)
};
const char* to_string(packet_kind k);

// Fields of an offload family's own, carried by its packets and read only by that family's
// blocks and routing hook (Ragasa: the router whose Bcast Unit takes the packet). Stored in
// place as a small typed sub-header, so packets stay pooled and trivially copied.
struct family_header {
  static constexpr size_t capacity_bytes = 8;
  uint8_t family = 0;  // 0: none (an ordinary packet); else the offload family's id
  // A router's attached block takes the packet: routers ask their attached port's hook
  // (Ragasa's units). False: the fields are for the destination NIC (Tofu2's puts) and the
  // packet is routed as any other.
  bool attached = false;
  alignas(8) std::array<uint8_t, capacity_bytes> bytes{};

  template <class H>
  static family_header of(uint8_t family, const H& h) {
    static_assert(sizeof(H) <= capacity_bytes && std::is_trivially_copyable_v<H>);
    family_header f;
    f.family = family;
    std::memcpy(f.bytes.data(), &h, sizeof h);
    return f;
  }
  template <class H>
  H as() const {
    static_assert(sizeof(H) <= capacity_bytes && std::is_trivially_copyable_v<H>);
    H h;
    std::memcpy(&h, bytes.data(), sizeof h);
    return h;
  }
};

// Laid out for the cache: what every hop reads or writes fills the first 64 bytes (the
// packet is cache-line aligned), what only the NICs read comes after.
class alignas(64) packet {
 public:
  // --- Per hop: routers and links.
  // Addressing.
  network::terminal_id src = network::invalid_id;
  network::terminal_id dst = network::invalid_id;
  packet_kind kind = packet_kind::data;
  uint8_t vc = 0;  // VC on the link the packet is crossing now
  // Scratch of the router holding the packet: its routing decision and when it was ready.
  uint8_t next_vc = 0;
  uint16_t next_port = 0;
  uint16_t routers = 0;     // routers on the path, each once (the paper's "hops")
  uint32_t size_bytes = 0;  // bytes on the wire
  uint32_t index = 0;       // packet index within the message
  // Offload traffic: the family's own fields (for Ragasa, dst is then only where routing
  // aims: a terminal of the router whose unit takes the packet).
  family_header offload;
  network::route_state route;
  sc_core::sc_time tail_time;  // when the tail is available where the packet is now
  sc_core::sc_time hop_ready;

  // --- At the ends: NICs and statistics.
  // Message this packet belongs to.
  uint64_t msg_id = 0;  // per source NIC, in send order
  uint32_t tag = 0;
  uint32_t msg_seq = 0;  // per (source, destination, tag), in send order (hw::message::seq)
  uint32_t collective_id = 0;
  uint32_t count = 0;       // packets in the message
  uint64_t msg_bytes = 0;   // the whole message
  uint64_t buf_offset = 0;  // collective-buffer offset of the message's first byte

  // Timing and statistics.
  sc_core::sc_time created;   // handed to the source NIC's packetizer
  sc_core::sc_time injected;  // head left the source NIC
  // When CODES's model-net scheduler would have handed the packet to the NIC, where CODES's
  // latency starts (nic.codes_issue_ns); `created` unless that is set.
  sc_core::sc_time issued;

  bool first_of_message() const { return index == 0; }
  void reset() { *this = packet(); }

  // The pool's free list; never touched by the network.
  packet* m_next_free = nullptr;
};
static_assert(offsetof(packet, hop_ready) + sizeof(sc_core::sc_time) <= 64,
              "a packet's per-hop fields fit one cache line");

std::ostream& operator<<(std::ostream& os, const packet& p);

struct protocol_types {
  using tlm_payload_type = packet;
  using tlm_phase_type = tlm::tlm_phase;
};

using fw_if = tlm::tlm_fw_transport_if<protocol_types>;
using bw_if = tlm::tlm_bw_transport_if<protocol_types>;
using initiator_socket = tlm::tlm_initiator_socket<32, protocol_types>;
using target_socket = tlm::tlm_target_socket<32, protocol_types>;
// Sockets any number of peers may bind (the null endpoint of unconnected ports).
using multi_target_socket =
    tlm::tlm_target_socket<32, protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>;
using multi_initiator_socket =
    tlm::tlm_initiator_socket<32, protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>;

// Gives `bytes` of VC `vc` back to the sender behind `upstream` (phase CREDIT), usable `delay`
// from now. `token` is the caller's reusable carrier: the sender reads it during the call.
inline void return_credit(bw_if& upstream, packet& token, uint8_t vc, uint32_t bytes,
                          sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
  token.vc = vc;
  token.size_bytes = bytes;
  tlm::tlm_phase ph = CREDIT;
  upstream.nb_transport_bw(token, ph, delay);
}
// The same through the receiving socket.
inline void return_credit(target_socket& socket, packet& token, uint8_t vc, uint32_t bytes,
                          sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
  return_credit(*socket.operator->(), token, vc, bytes, delay);
}

// Blocks with many ports bind each socket to one of these, so a call says which port it
// came through without a process per socket (unlike the simple_*_socket_tagged sockets).
template <class Owner>
class tagged_fw final : public fw_if {
 public:
  tagged_fw() = default;
  void bind_owner(Owner* owner, uint32_t port) {
    m_owner = owner;
    m_port = port;
  }
  tlm::tlm_sync_enum nb_transport_fw(packet& p, tlm::tlm_phase& ph, sc_core::sc_time& t) override {
    return m_owner->nb_transport_fw(m_port, p, ph, t);
  }
  void b_transport(packet&, sc_core::sc_time&) override { unsupported("b_transport"); }
  bool get_direct_mem_ptr(packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(packet&) override { return 0; }

 private:
  static void unsupported(const char* what) { SC_REPORT_ERROR("bcastsim/tlm_net", what); }
  Owner* m_owner = nullptr;
  uint32_t m_port = 0;
};

template <class Owner>
class tagged_bw final : public bw_if {
 public:
  tagged_bw() = default;
  void bind_owner(Owner* owner, uint32_t port) {
    m_owner = owner;
    m_port = port;
  }
  tlm::tlm_sync_enum nb_transport_bw(packet& p, tlm::tlm_phase& ph, sc_core::sc_time& t) override {
    return m_owner->nb_transport_bw(m_port, p, ph, t);
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  Owner* m_owner = nullptr;
  uint32_t m_port = 0;
};

}  // namespace bcastsim::tlm_net
