#include "hw/lanai/gm_connection.h"

#include <cstddef>

namespace bcastsim::hw::lanai {

uint16_t gm_sender::post(uint64_t packet) {
  const uint16_t seq = m_next++;
  m_records.push_back(send_record{seq, send_record::not_sent, packet, 1});
  return seq;
}

void gm_sender::sent(uint16_t seq, uint64_t now_ps, uint64_t timeout_ps) {
  for (send_record& r : m_records) {
    if (r.seq == seq) {
      r.resend_ps = now_ps + timeout_ps;
      return;
    }
  }
}

std::vector<uint64_t> gm_sender::ack(uint16_t seq) {
  std::vector<uint64_t> acked;
  std::size_t n = 0;
  while (n < m_records.size() && !seq_after(m_records[n].seq, seq)) {
    acked.push_back(m_records[n].packet);
    ++n;
  }
  m_records.erase(m_records.begin(), m_records.begin() + static_cast<std::ptrdiff_t>(n));
  return acked;
}

std::vector<send_record> gm_sender::nack(uint16_t seq) {
  ack(static_cast<uint16_t>(seq - 1));  // everything before the expected one arrived
  return resend_all();
}

std::vector<send_record> gm_sender::expire(uint64_t now_ps) {
  if (m_records.empty() || m_records.front().resend_ps > now_ps) return {};
  return resend_all();
}

std::vector<send_record> gm_sender::resend_all() {
  for (send_record& r : m_records) {
    r.resend_ps = send_record::not_sent;
    ++r.sends;
    ++m_retransmissions;
  }
  return m_records;
}

gm_receiver::verdict gm_receiver::receive(uint16_t seq) {
  if (seq == m_expected) {
    ++m_expected;
    m_nacked = false;
    return verdict::deliver;
  }
  if (!seq_after(seq, m_expected)) return verdict::duplicate;
  if (m_nacked) return verdict::gap_again;
  m_nacked = true;
  return verdict::gap;
}

}  // namespace bcastsim::hw::lanai
