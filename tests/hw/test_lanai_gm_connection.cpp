// GM's reliable delivery over one connection (hw/lanai/gm_connection.h), on a small
// event-driven wire with a 1 us latency each way: a lost ACK is recovered by the sender's
// timeout (the receiver sees a duplicate, drops it and ACKs again), a lost data packet by the
// receiver's NACK of the gap or by the timeout, 16-bit sequence numbers wrap, and with 10 %
// of all packets and ACKs lost every packet still arrives exactly once and in order.
#include "hw/lanai/gm_connection.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

using namespace bcastsim::hw::lanai;

namespace {

constexpr uint64_t k_latency_ps = 1'000'000;   // 1 us each way
constexpr uint64_t k_timeout_ps = 50'000'000;  // 50 us

enum class kind : uint8_t { data, ack, nack };

struct wire_event {
  kind k;
  uint16_t seq;
  uint64_t packet;
};

// Sends `packets` packets (one every 100 ns) through a sender and a receiver; `lose` decides
// per message (kind, seq, how many of that kind and seq went before) whether it is lost.
struct run {
  std::vector<uint64_t> delivered;  // packet handles, in delivery order
  uint64_t retransmissions = 0;
  uint64_t duplicates = 0;
  uint64_t gaps = 0;
  uint64_t end_ps = 0;
};

run simulate(uint32_t packets, const std::function<bool(kind, uint16_t, uint32_t)>& lose,
             uint16_t first_seq_offset = 0) {
  gm_sender tx;
  gm_receiver rx;
  // Start both at the same sequence number (a long-lived connection near the wrap).
  for (uint16_t i = 0; i < first_seq_offset; ++i) {
    tx.post(0);
    tx.ack(static_cast<uint16_t>(i));
    rx.receive(i);
  }
  std::multimap<uint64_t, wire_event> agenda;  // time -> event (ordered, deterministic)
  std::map<std::pair<int, uint16_t>, uint32_t> sent;
  run r;
  auto transmit = [&](kind k, uint16_t seq, uint64_t packet, uint64_t now) {
    if (k == kind::data) tx.sent(seq, now, k_timeout_ps);  // it leaves now
    const uint32_t n = sent[{static_cast<int>(k), seq}]++;
    if (!lose(k, seq, n)) agenda.insert({now + k_latency_ps, wire_event{k, seq, packet}});
  };
  for (uint32_t p = 0; p < packets; ++p) {
    const uint64_t now = p * 100'000ull;
    transmit(kind::data, tx.post(p), p, now);
  }
  uint64_t now = 0;
  for (int guard = 0; guard < 100000; ++guard) {
    const uint64_t resend = tx.next_resend_ps();
    const bool timer_first = resend != 0 && (agenda.empty() || resend < agenda.begin()->first);
    if (agenda.empty() && resend == 0) break;
    if (timer_first) {
      now = resend;
      for (const send_record& rec : tx.expire(now)) {
        transmit(kind::data, rec.seq, rec.packet, now);
      }
      continue;
    }
    const auto it = agenda.begin();
    now = it->first;
    const wire_event e = it->second;
    agenda.erase(it);
    switch (e.k) {
      case kind::data:
        switch (rx.receive(e.seq)) {
          case gm_receiver::verdict::deliver:
            r.delivered.push_back(e.packet);
            transmit(kind::ack, e.seq, 0, now);
            break;
          case gm_receiver::verdict::duplicate:
            ++r.duplicates;
            transmit(kind::ack, rx.last_delivered(), 0, now);
            break;
          case gm_receiver::verdict::gap:
            ++r.gaps;
            transmit(kind::nack, rx.expected(), 0, now);
            break;
          case gm_receiver::verdict::gap_again:
            break;
        }
        break;
      case kind::ack:
        tx.ack(e.seq);
        break;
      case kind::nack:
        for (const send_record& rec : tx.nack(e.seq)) {
          transmit(kind::data, rec.seq, rec.packet, now);
        }
        break;
    }
  }
  r.retransmissions = tx.retransmissions();
  r.end_ps = now;
  BOOST_TEST(tx.outstanding() == 0u);
  return r;
}

bool in_order(const run& r, uint32_t packets) {
  if (r.delivered.size() != packets) return false;
  for (uint32_t p = 0; p < packets; ++p) {
    if (r.delivered[p] != p) return false;
  }
  return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(gm_without_loss_delivers_in_order_and_resends_nothing) {
  const run r = simulate(20, [](kind, uint16_t, uint32_t) { return false; });
  BOOST_TEST(in_order(r, 20));
  BOOST_TEST(r.retransmissions == 0u);
  BOOST_TEST(r.duplicates == 0u);
}

BOOST_AUTO_TEST_CASE(gm_a_lost_ack_is_recovered_by_the_timeout) {
  // The ACK of the last packet (nothing after it to ACK it cumulatively) is lost: the sender
  // resends at its timeout, the receiver drops the duplicate and ACKs again.
  const run r = simulate(
      5, [](kind k, uint16_t seq, uint32_t n) { return k == kind::ack && seq == 4 && n == 0; });
  BOOST_TEST(in_order(r, 5));
  BOOST_TEST(r.retransmissions == 1u);
  BOOST_TEST(r.duplicates == 1u);
  // Sent at 0.4 us, timeout 50 us later, then one more round trip.
  BOOST_TEST(r.end_ps == 400'000u + k_timeout_ps + 2 * k_latency_ps);
}

BOOST_AUTO_TEST_CASE(gm_a_lost_ack_followed_by_another_costs_nothing) {
  // Cumulative ACKs: the next packet's ACK covers the lost one; no resend.
  const run r = simulate(
      5, [](kind k, uint16_t seq, uint32_t n) { return k == kind::ack && seq == 1 && n == 0; });
  BOOST_TEST(in_order(r, 5));
  BOOST_TEST(r.retransmissions == 0u);
}

BOOST_AUTO_TEST_CASE(gm_a_lost_packet_is_resent_after_the_gap_is_nacked) {
  const run r = simulate(
      6, [](kind k, uint16_t seq, uint32_t n) { return k == kind::data && seq == 2 && n == 0; });
  BOOST_TEST(in_order(r, 6));
  BOOST_TEST(r.gaps == 1u);             // 3, 4 and 5 arrive after 2 is missed: one NACK
  BOOST_TEST(r.retransmissions == 4u);  // go-back-N: 2, 3, 4, 5
  BOOST_TEST(r.end_ps < k_timeout_ps);  // the NACK came long before the timeout
}

BOOST_AUTO_TEST_CASE(gm_sequence_numbers_wrap) {
  const run r = simulate(
      10, [](kind k, uint16_t seq, uint32_t n) { return k == kind::data && seq == 0 && n == 0; },
      65530);
  BOOST_TEST(in_order(r, 10));
  BOOST_TEST(seq_after(0, 65535));
  BOOST_TEST(!seq_after(65535, 0));
}

BOOST_AUTO_TEST_CASE(gm_ten_percent_loss_still_delivers_exactly_once_in_order) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto lose = [seed](kind k, uint16_t seq, uint32_t n) {
      uint64_t h = seed * 0x9e3779b97f4a7c15ull ^ (uint64_t{static_cast<uint8_t>(k)} << 40) ^
                   (uint64_t{seq} << 8) ^ n;
      h ^= h >> 31;
      h *= 0xbf58476d1ce4e5b9ull;
      h ^= h >> 29;
      return h % 10 == 0;
    };
    const run r = simulate(200, lose);
    BOOST_TEST_CONTEXT("seed " << seed) {
      BOOST_TEST(in_order(r, 200));
      BOOST_TEST(r.retransmissions > 0u);
    }
  }
}

// The timer runs from the moment a copy leaves the NIC, not from the packet's building: a packet
// still queued behind others cannot time out, and a resend is timed again when it leaves.
BOOST_AUTO_TEST_CASE(gm_a_record_times_out_only_from_when_its_copy_left) {
  gm_sender tx;
  const uint16_t a = tx.post(10);
  const uint16_t b = tx.post(11);
  BOOST_TEST(tx.next_resend_ps() == send_record::not_sent);
  BOOST_TEST(tx.expire(10 * k_timeout_ps).empty());  // queued a long time: no resend
  tx.sent(a, 1'000'000, k_timeout_ps);
  tx.sent(b, 3'000'000, k_timeout_ps);
  BOOST_TEST(tx.next_resend_ps() == 1'000'000 + k_timeout_ps);
  BOOST_TEST(tx.expire(1'000'000 + k_timeout_ps - 1).empty());
  const std::vector<send_record> again = tx.expire(1'000'000 + k_timeout_ps);
  BOOST_TEST(again.size() == 2u);  // go-back-N: both, untimed until they leave again
  BOOST_TEST(tx.next_resend_ps() == send_record::not_sent);
  BOOST_TEST(tx.expire(100 * k_timeout_ps).empty());
  tx.sent(a, 60'000'000, k_timeout_ps);
  BOOST_TEST(tx.next_resend_ps() == 60'000'000 + k_timeout_ps);
  tx.ack(a);
  tx.sent(a, 70'000'000, k_timeout_ps);  // a late copy of an acknowledged packet: no record
  BOOST_TEST(tx.next_resend_ps() == send_record::not_sent);  // b's copy has not left again
  BOOST_TEST(tx.nack(b).size() == 1u);
  BOOST_TEST(tx.outstanding() == 1u);
}
