// hw/nic: the host NIC (packetising, injection under credits and pacing, CODES's issue
// times, reassembly). The bench: host_nic_harness.h.
#include "hw/nic/host_nic.h"

#include <boost/test/unit_test.hpp>

#include "host_nic_harness.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::test::host_nic_bench;

BOOST_AUTO_TEST_CASE(host_nic_splits_messages_into_packets) {
  bench b("bench", bench_params{});
  b.script = [](bench& self) {
    self.send(0, 1300, 7, 4096);  // 512 + 512 + 276
    self.send(0, 100, 8);         // smaller than a packet: one packet of exactly 100 B
    self.send(2, 1024, 9);        // a multiple of the packet size: no empty third packet
    self.send(2, 0, 10);          // an empty message still sends one 1-byte packet
  };
  sc_core::sc_start();

  struct want {
    uint32_t size, index, count, tag;
    uint64_t msg_id, msg_bytes, offset;
    network::terminal_id dst;
  };
  const want w[] = {{512, 0, 3, 7, 0, 1300, 4096, 0}, {512, 1, 3, 7, 0, 1300, 4096, 0},
                    {276, 2, 3, 7, 0, 1300, 4096, 0}, {100, 0, 1, 8, 1, 100, 0, 0},
                    {512, 0, 2, 9, 2, 1024, 0, 2},    {512, 1, 2, 9, 2, 1024, 0, 2},
                    {1, 0, 1, 10, 3, 0, 0, 2}};
  // Credits are plentiful, so packets leave back to back at 5.25 GiB/s:
  // 512 B = 90826 ps, 276 B = 48961 ps, 100 B = 17739 ps.
  const uint64_t injected[] = {0, 90826, 181652, 230613, 248352, 339178, 430004};
  const uint64_t head_ser[] = {11353, 11353, 11353, 11353, 11353, 11353, 177};
  const uint64_t ser[] = {90826, 90826, 48961, 17739, 90826, 90826, 177};
  BOOST_TEST_REQUIRE(b.sink.got.size() == 7u);
  for (size_t i = 0; i < 7; ++i) {
    const packet& p = b.sink.got[i].pkt;
    BOOST_TEST_CONTEXT("packet " << i) {
      BOOST_TEST(p.size_bytes == w[i].size);
      BOOST_TEST(p.index == w[i].index);
      BOOST_TEST(p.count == w[i].count);
      BOOST_TEST(p.tag == w[i].tag);
      BOOST_TEST(p.msg_id == w[i].msg_id);
      BOOST_TEST(p.msg_bytes == w[i].msg_bytes);
      BOOST_TEST(p.buf_offset == w[i].offset);
      BOOST_TEST(p.dst == w[i].dst);
      BOOST_TEST(p.src == 1u);
      BOOST_TEST(p.vc == 0u);
      BOOST_TEST(p.collective_id == 3u);
      BOOST_TEST(p.injected.value() == injected[i]);
      BOOST_TEST((p.created == sc_core::SC_ZERO_TIME));
      BOOST_TEST(b.sink.got[i].head_ps == injected[i] + 10000 + head_ser[i]);
      BOOST_TEST(p.tail_time.value() == injected[i] + ser[i] + 10000);
    }
  }
  BOOST_TEST(b.nic.packets_injected.value == 7u);
  BOOST_TEST(b.nic.messages_sent.value == 4u);
  BOOST_TEST(b.nic.idle());
  BOOST_TEST(b.pool.in_use() == 0u);
}

BOOST_AUTO_TEST_CASE(host_nic_flit_gap_paces_injection) {
  // nic.flit_gap_ns (CODES's terminal pacing): after each packet the NIC idles 0.5 ns per
  // 64-B flit, so the second of two 512-B packets starts at 90826 + 8 * 500 ps.
  bench_params bp;
  bp.nic.flit_gap_ns = 0.5;
  bp.nic.flit_bytes = 64;
  bench b("bench", bp);
  b.script = [](bench& self) { self.send(0, 1024, 7); };
  sc_core::sc_start();
  BOOST_TEST_REQUIRE(b.sink.got.size() == 2u);
  BOOST_TEST(b.sink.got[0].pkt.injected.value() == 0u);
  BOOST_TEST(b.sink.got[1].pkt.injected.value() == 90826u + 4000u);
}

BOOST_AUTO_TEST_CASE(host_nic_keeps_codes_issue_times) {
  // nic.codes_issue_ns (CODES's model-net scheduler, for CODES's latency only): one packet per
  // 10 ns while the NIC holds less than 1,024 B. Four 512-B packets of one message created at
  // 0: issued at 0, 10 and 20 ns; the fourth waits until the NIC holds less than 1,024 B,
  // i.e. until the second packet's first chunk has left (injected at 90826 ps, + 1 ps).
  // Injection itself is unchanged: back to back at the link's rate.
  bench_params bp;
  bp.nic.codes_issue_ns = 10;
  bp.nic.codes_issue_window_bytes = 1024;
  bench b("bench", bp);
  b.script = [](bench& self) { self.send(0, 2048, 7); };
  sc_core::sc_start();
  BOOST_TEST_REQUIRE(b.sink.got.size() == 4u);
  const uint64_t issued[] = {0, 10000, 20000, 90827};
  const uint64_t injected[] = {0, 90826, 181652, 272478};
  for (size_t i = 0; i < 4; ++i) {
    BOOST_TEST(b.sink.got[i].pkt.issued.value() == issued[i]);
    BOOST_TEST(b.sink.got[i].pkt.injected.value() == injected[i]);
    BOOST_TEST(b.sink.got[i].pkt.created.value() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(host_nic_issue_time_is_creation_by_default) {
  bench b("bench", bench_params{});
  b.script = [](bench& self) {
    wait_until(5000);
    self.send(0, 1024, 7);
  };
  sc_core::sc_start();
  BOOST_TEST_REQUIRE(b.sink.got.size() == 2u);
  for (const auto& g : b.sink.got) BOOST_TEST(g.pkt.issued.value() == 5000u);
}

BOOST_AUTO_TEST_CASE(host_nic_injection_waits_for_credits) {
  bench_params bp;
  bp.nic.inject_buffer_bytes = 512;  // room for exactly one packet
  bench b("bench", bp);
  std::string waiting;
  b.script = [&](bench& self) {
    self.send(0, 4 * 512, 1);
    wait_until(50000);  // packet 0 is on the wire; its credit is not back
    std::ostringstream os;
    self.nic.describe_stall(os);
    waiting = os.str();
  };
  sc_core::sc_start();

  // Each packet waits for the previous one's credit: its tail reaches the sink after
  // 90826 + 10000 ps, the credit crosses back in 10000 ps: one every 110826 ps, not 90826.
  BOOST_TEST_REQUIRE(b.sink.got.size() == 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    BOOST_TEST(b.sink.got[i].pkt.index == i);
    BOOST_TEST(b.sink.got[i].pkt.injected.value() == 110826u * i);
  }
  BOOST_TEST(waiting.find("1 messages waiting to inject (VC 0 credits 0/512 bytes)") !=
             std::string::npos);
  BOOST_TEST(b.nic.idle());
  std::ostringstream after;
  BOOST_TEST(!b.nic.describe_stall(after));
}

BOOST_AUTO_TEST_CASE(host_nic_reassembles_each_message_once) {
  bench b("bench", bench_params{});
  using plan = packet_source::plan;
  // Terminal 0's message 0 (1100 B at offset 1000) arrives out of order and interleaved with
  // terminal 2's message 0 (600 B): the same msg_id from another source is another message.
  b.source.plans = {
      plan{10000, 0, 0, 5, 1000, 1100, 2, 3, 76, 1},  plan{20000, 2, 0, 5, 0, 600, 0, 2, 512, 0},
      plan{30000, 0, 0, 5, 1000, 1100, 0, 3, 512, 1}, plan{40000, 2, 0, 5, 0, 600, 1, 2, 88, 0},
      plan{50000, 0, 0, 5, 1000, 1100, 1, 3, 512, 1}, plan{60000, 0, 1, 6, 2100, 0, 0, 1, 1, 0},
  };
  sc_core::sc_start();

  // One call per message, when its last byte is in, with the message's own fields.
  BOOST_TEST_REQUIRE(b.log.got.size() == 3u);
  const message_log::entry want[] = {
      {40000, 2, 5, 0, 600, 0}, {50000, 0, 5, 1000, 1100, 0}, {60000, 0, 6, 2100, 0, 0}};
  for (size_t i = 0; i < 3; ++i) {
    BOOST_TEST_CONTEXT("message " << i) {
      BOOST_TEST(b.log.got[i].at_ps == want[i].at_ps);
      BOOST_TEST(b.log.got[i].src == want[i].src);
      BOOST_TEST(b.log.got[i].tag == want[i].tag);
      BOOST_TEST(b.log.got[i].offset == want[i].offset);
      BOOST_TEST(b.log.got[i].bytes == want[i].bytes);
    }
  }
  // Every packet's buffer space goes back upstream when it is consumed (tail in, not head),
  // on its VC.
  BOOST_TEST_REQUIRE(b.source.credits.size() == 6u);
  for (size_t i = 0; i < 6; ++i) {
    BOOST_TEST(b.source.credits[i].at_ps == b.source.plans[i].at_ps);
    BOOST_TEST(b.source.credits[i].vc == b.source.plans[i].vc);
    BOOST_TEST(b.source.credits[i].bytes == b.source.plans[i].size);
  }
  BOOST_TEST(b.nic.packets_delivered.value == 6u);
  BOOST_TEST(b.nic.messages_received.value == 3u);
  BOOST_TEST(b.nic.idle());
  BOOST_TEST(b.pool.in_use() == 0u);  // delivered packets go back to the pool
  BOOST_TEST(b.pool.acquired_total() == 6u);
}

BOOST_AUTO_TEST_CASE(host_nic_packet_for_another_terminal_is_an_error) {
  bench b("bench", bench_params{});
  packet_source::plan pl{10000, 0, 0, 0, 0, 64, 0, 1, 64};
  pl.dst = 3;  // the NIC under test is terminal 1
  b.source.plans = {pl};
  BOOST_CHECK_THROW(sc_core::sc_start(), sc_core::sc_report);
  BOOST_TEST(b.log.got.empty());
}
