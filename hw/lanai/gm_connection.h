// GM's reliable point-to-point delivery between two LANai NICs (FACTS §5, gm_types.h; the
// paper §2: "The NIC keeps a send record of the sequence number and a timestamp for each
// packet it has sent. If the acknowledgment is not received within the timeout period, the
// sender retransmits the packet. When all the send records are acknowledged, the NIC passes
// the send token back to the host"), as the logic of one connection, without time: the NIC
// model (hw/lanai/) calls it and keeps the clock.
//
// Per connection (sender NIC to receiver NIC) the packets carry 16-bit sequence numbers
// (gm_packet_header_t's seqno). The receiver takes only the packet it expects next: that one
// is delivered and ACKed; an older one is a duplicate (its ACK was lost), ACKed again and
// dropped; a newer one means one was lost, and it is dropped with a NACK naming the expected
// number (once per expected number: the sender's timeout covers a lost NACK). ACKs are cumulative.
// The sender keeps a send record per unacknowledged packet (sequence number, resend time); an ACK
// frees the records up to its number; a NACK, or a record whose resend time passes, makes it go
// back to the oldest unacknowledged packet and resend all from there (go-back-N). A record's
// timer runs from the moment its packet (or its latest copy) leaves the NIC for the link, not
// from when the packet was built: under load a packet waits in the NIC's send queue, and a
// timer started there fired before the packet had left (the resends were spurious). GM's
// timeout value is not in our sources (FACTS §5: not found): it is a parameter of the NIC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bcastsim::hw::lanai {

// a is after b in 16-bit sequence space (within half the space).
inline bool seq_after(uint16_t a, uint16_t b) {
  return static_cast<int16_t>(static_cast<uint16_t>(a - b)) > 0;
}

struct send_record {
  static constexpr uint64_t not_sent = UINT64_MAX;  // its latest copy has not left yet
  uint16_t seq = 0;
  uint64_t resend_ps = not_sent;  // when it is resent unless acknowledged
  uint64_t packet = 0;            // the NIC's handle of the packet (buffer, message, fragment)
  uint32_t sends = 0;             // times sent, the first included
};

class gm_sender {
 public:
  // A new packet, queued to go out: its record (not yet timed). Returns its seqno.
  uint16_t post(uint64_t packet);
  // A copy of `seq` left for the link now: its resend time is now + timeout (nothing if it
  // was acknowledged meanwhile).
  void sent(uint16_t seq, uint64_t now_ps, uint64_t timeout_ps);
  // An ACK of `seq`: frees the records up to it; returns the packets acknowledged, oldest
  // first (an ACK of nothing outstanding frees none).
  std::vector<uint64_t> ack(uint16_t seq);
  // A NACK expecting `seq`: frees the records before it (they arrived) and returns the
  // records to send again, from `seq` on (each timed again when its copy leaves).
  std::vector<send_record> nack(uint16_t seq);
  // The oldest record's resend time has passed: every unacknowledged record goes again
  // (go-back-N); none when nothing is due.
  std::vector<send_record> expire(uint64_t now_ps);
  // The oldest unacknowledged record's resend time (send_record::not_sent while its copy
  // waits in the NIC); 0 when none. After a NACK an older copy of a later record may leave
  // before the oldest's new one: its timeout then waits for the oldest's, delayed, not lost.
  uint64_t next_resend_ps() const { return m_records.empty() ? 0 : m_records.front().resend_ps; }
  std::size_t outstanding() const { return m_records.size(); }
  uint64_t retransmissions() const { return m_retransmissions; }

 private:
  std::vector<send_record> resend_all();

  uint16_t m_next = 0;
  std::vector<send_record> m_records;  // in sequence order
  uint64_t m_retransmissions = 0;
};

class gm_receiver {
 public:
  enum class verdict : uint8_t {
    deliver,    // the expected packet: deliver it, ACK `seq`
    duplicate,  // already delivered: drop it, ACK the last delivered again
    gap,        // a packet before it was lost: drop it, NACK the expected one
    gap_again,  // another one after the same loss: drop it; the NACK is out already (one
                // NACK per expected number, or a go-back-N burst would draw a NACK per
                // packet and each would resend the whole window again)
  };
  verdict receive(uint16_t seq);
  uint16_t expected() const { return m_expected; }
  // The sequence number to ACK: the last delivered.
  uint16_t last_delivered() const { return static_cast<uint16_t>(m_expected - 1); }

 private:
  uint16_t m_expected = 0;
  bool m_nacked = false;  // a NACK for m_expected went out
};

}  // namespace bcastsim::hw::lanai
