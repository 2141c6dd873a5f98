// One output of a sender under credit flow control: the credits it holds for each VC of the
// receiver's input buffer, the credits on their way back, and when its link is free. The
// router's ports, the host NIC's injection port and the Bcast Unit's Send Interface each own
// one, so the three keep the same books the same way.
//
// Credits come back on the backward path (phase CREDIT) with a delay. on_credit() queues each
// with the time it becomes usable; they are applied lazily, when credits are looked at, so a
// returned credit costs the sender no wake-up unless it asked for one (credit_retry_time()).
// Mostly they come back in time order (a router input frees one packet at a time), but not
// always: the input of an attached block's packets frees at its own rate while each packet
// drains at its output's, so a later packet's credit can be due earlier. The queue is kept
// sorted by time, which costs one comparison when they do come in order.
#pragma once

#include "tlm/packet.h"
#include "tlm/ring.h"

#include <array>
#include <systemc>
#include <vector>

namespace bcastsim::tlm_net {

class credit_output {
 public:
  credit_output() = default;
  // `vcs` VCs downstream, each with `capacity_bytes` of buffer (the initial credits);
  // `owner` names the sender in protocol errors and must outlive this output.
  void init(const char* owner, uint32_t vcs, uint32_t capacity_bytes);

  uint32_t vcs() const { return m_vcs; }
  uint32_t capacity_bytes() const { return m_capacity_bytes; }

  // The link: busy while it serialises the last packet sent.
  const sc_core::sc_time& busy_until() const { return m_busy_until; }
  bool link_free(const sc_core::sc_time& now) const { return m_busy_until <= now; }
  // A clocked sender starts its next packet on a clock edge: it moves the time on.
  void set_busy_until(const sc_core::sc_time& t) { m_busy_until = t; }

  // Applies the credits that have arrived by `now`, then tells whether `bytes` of VC `vc`
  // may go (the link aside).
  bool has_credits(uint32_t vc, uint32_t bytes, const sc_core::sc_time& now) {
    drain(now);
    return credit(vc) >= bytes;
  }
  // Credits of VC `vc` as of `now`, counting arrived ones not yet applied; changes nothing
  // (for statistics, waveforms, adaptive routing and stall reports).
  uint32_t credits(uint32_t vc, const sc_core::sc_time& now) const;
  // Bytes spent from all VCs' credits as of `now` (queued downstream or in flight).
  uint32_t occupancy_bytes(const sc_core::sc_time& now) const;
  // Bytes spent and not on their way back: 0 once a simulation has drained.
  uint32_t unreturned_bytes() const;

  // When a sender short of credits should look again: when the next queued credit becomes
  // usable; if none is queued, never (sc_max_time), and the sender is marked as waiting so
  // the next on_credit() says so.
  sc_core::sc_time credit_retry_time() {
    if (!m_pending.empty()) return m_pending.front().when;
    m_waiter = true;
    return sc_core::sc_max_time();
  }

  // Sends `p` on `out`, spending its bytes from VC p.vc (the caller checked has_credits());
  // the link's answer says how long it is busy: until now + the returned delay.
  sc_core::sc_time send(initiator_socket& out, packet& p, const sc_core::sc_time& now) {
    reserve(p.vc, p.size_bytes);
    return transmit(out, p, now);
  }
  // The two halves of send(), for a sender that takes the credits when it accepts a packet
  // and sends it later (the output-queued router): spend `bytes` of VC `vc` (the caller
  // checked has_credits()), then put the packet on the link without spending again.
  void reserve(uint32_t vc, uint32_t bytes) { credit(vc) -= bytes; }
  sc_core::sc_time transmit(initiator_socket& out, packet& p, const sc_core::sc_time& now) {
    // An output always sends on the same socket: the first packet finds the link behind it,
    // kept here, since reading it through the socket would touch one more object per packet
    // (a cache miss in a large fabric). Bindings are fixed once packets flow.
    if (!m_link) m_link = out.operator->();
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    m_link->nb_transport_fw(p, ph, t);  // p now belongs downstream
    m_busy_until = now + t;
    return t;
  }

  // A credit from the receiver: `bytes` of VC `vc`, usable from `when`. True if the sender
  // was waiting for one (credit_retry_time() gave sc_max_time): it should wake at `when`.
  bool on_credit(const sc_core::sc_time& when, uint8_t vc, uint32_t bytes);

 private:
  struct pending_credit {
    sc_core::sc_time when;
    uint8_t vc = 0;
    uint32_t bytes = 0;
  };
  void drain(const sc_core::sc_time& now) {
    while (!m_pending.empty() && m_pending.front().when <= now) apply(m_pending.pop());
  }
  void apply(const pending_credit& c);
  // [vc] bytes free downstream, as applied: inline for the usual few VCs, so that a packet
  // sent touches one cache line of the output (the fields above m_more fill 64 bytes).
  uint32_t& credit(uint32_t vc) { return m_vcs <= inline_vcs ? m_inline[vc] : m_more[vc]; }
  uint32_t credit(uint32_t vc) const { return m_vcs <= inline_vcs ? m_inline[vc] : m_more[vc]; }

  static constexpr uint32_t inline_vcs = 4;
  sc_core::sc_time m_busy_until;
  fw_if* m_link = nullptr;  // found on the first transmit()
  ring<pending_credit> m_pending;
  uint32_t m_capacity_bytes = 0;
  uint16_t m_vcs = 0;
  bool m_waiter = false;
  std::array<uint32_t, inline_vcs> m_inline{};
  std::vector<uint32_t> m_more;  // more than inline_vcs VCs
  const char* m_owner = "credit_output";
};

}  // namespace bcastsim::tlm_net
