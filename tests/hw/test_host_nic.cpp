// hw/nic: the host NIC (packetising, injection under credits, reassembly) and the host that
// runs a rank_program on it (send overhead, MPI matching, one CPU). The NIC under test is
// terminal 1 of a 4-terminal dragonfly; its injection link ends in a recording sink, and a
// scripted source plays packets from terminals 0 and 2 into its ejection port.
#include "algorithms/registry.h"
#include "algorithms/schedule.h"
#include "hw/nic/host.h"
#include "hw/nic/host_nic.h"
#include "network/dragonfly.h"
#include "network/placement.h"
#include "network/routing.h"
#include "tlm/link.h"
#include "tlm/packet_pool.h"

#include <boost/test/unit_test.hpp>

#include <systemc>
#include "message_log.h"

#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace bcastsim;
using algorithms::make_compute;
using algorithms::make_recv;
using algorithms::make_send;
using sc_core::sc_time;
using tlm_net::packet;

namespace {

sc_time ps(uint64_t v) {
  return sc_time::from_value(v);
}
void wait_until(uint64_t t_ps) {
  sc_core::wait(ps(t_ps) - sc_core::sc_time_stamp());
}

// End of the NIC's injection link: records each packet, returns its credit `hold_ps` after
// its tail arrived, and gives it back to the pool.
class packet_sink final : public sc_core::sc_module, public tlm_net::fw_if {
 public:
  tlm_net::target_socket in;
  struct arrival {
    packet pkt;  // as it arrived
    uint64_t head_ps;
  };
  std::vector<arrival> got;
  uint64_t hold_ps = 0;

  packet_sink(const sc_core::sc_module_name& name, tlm_net::packet_pool& pool)
      : sc_core::sc_module(name), in("in"), m_pool(pool) {
    in.bind(*this);
  }
  tlm::tlm_sync_enum nb_transport_fw(packet& p, tlm::tlm_phase&, sc_time& t) override {
    got.push_back(arrival{p, (sc_core::sc_time_stamp() + t).value()});
    tlm::tlm_phase c = tlm_net::CREDIT;
    sc_time d = p.tail_time - sc_core::sc_time_stamp() + ps(hold_ps);
    in->nb_transport_bw(p, c, d);
    m_pool.release(&p);
    return tlm::TLM_ACCEPTED;
  }
  void b_transport(packet&, sc_time&) override {}
  bool get_direct_mem_ptr(packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(packet&) override { return 0; }

 private:
  tlm_net::packet_pool& m_pool;
};

// Plays planned packets into the NIC's ejection port: the head 5 ns before the planned
// time, the tail at it. Records the credits the NIC returns.
class packet_source final : public sc_core::sc_module, public tlm_net::bw_if {
 public:
  tlm_net::initiator_socket out;
  struct plan {
    uint64_t at_ps;  // tail in at the NIC
    network::terminal_id src;
    uint64_t msg_id;
    uint32_t tag;
    uint64_t offset;
    uint64_t msg_bytes;
    uint32_t index;
    uint32_t count;
    uint32_t size;
    uint8_t vc = 0;
    network::terminal_id dst = 1;  // the NIC under test
    uint32_t seq = 0;              // among the source's messages to dst with this tag
  };
  std::vector<plan> plans;  // in time order
  struct credit {
    uint64_t at_ps;
    uint8_t vc;
    uint32_t bytes;
  };
  std::vector<credit> credits;

  packet_source(const sc_core::sc_module_name& name, tlm_net::packet_pool& pool)
      : sc_core::sc_module(name), out("out"), m_pool(pool) {
    out.bind(*this);
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(packet_source);

  tlm::tlm_sync_enum nb_transport_bw(packet& p, tlm::tlm_phase&, sc_time& t) override {
    credits.push_back(credit{(sc_core::sc_time_stamp() + t).value(), p.vc, p.size_bytes});
    return tlm::TLM_ACCEPTED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  void run() {
    for (const plan& pl : plans) {
      wait_until(pl.at_ps - k_head_lead_ps);
      packet* p = m_pool.acquire();
      p->src = pl.src;
      p->dst = pl.dst;
      p->vc = pl.vc;
      p->size_bytes = pl.size;
      p->msg_id = pl.msg_id;
      p->tag = pl.tag;
      p->collective_id = 1;  // context 0 of the host's program
      p->msg_seq = pl.seq;
      p->msg_bytes = pl.msg_bytes;
      p->buf_offset = pl.offset;
      p->index = pl.index;
      p->count = pl.count;
      p->tail_time = ps(pl.at_ps);
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_time t = sc_core::SC_ZERO_TIME;  // the head is in now
      out->nb_transport_fw(*p, ph, t);
    }
  }
  static constexpr uint64_t k_head_lead_ps = 5000;
  tlm_net::packet_pool& m_pool;
};

using bcastsim::test::message_log;

struct bench_params {
  hw::nic_params nic;         // 512 B packets, 16 KiB buffers
  tlm_net::link_params link;  // 5.25 GiB/s, 10 ns, 64 B flits
  hw::host_params host{300.0, 200.0};
  const algorithms::rank_program* program = nullptr;  // a host for rank 1 when set
  uint32_t root = 0;   // the broadcast the host's program is part of: its root
  uint64_t bytes = 0;  // and its buffer
};

// dragonfly g=2 a=1 p=2 h=1: terminals 0, 1 on router 0 and 2, 3 on router 1; rank i sits
// on terminal i. The NIC (and host) under test are terminal (rank) 1.
class bench final : public sc_core::sc_module {
 public:
  network::dragonfly topo{
      network::dragonfly_params{2, 1, 2, 1, network::global_arrangement::absolute}};
  network::dragonfly_minimal_routing routing{topo};
  network::placement place{topo, network::placement_params{}};
  tlm_net::packet_pool pool;
  algorithms::program prog;
  hw::collective_progress progress;
  hw::host_nic nic;
  tlm_net::link up;
  packet_sink sink;
  packet_source source;
  message_log log;
  std::unique_ptr<hw::host> host;
  std::function<void(bench&)> script;

  bench(const sc_core::sc_module_name& name, const bench_params& bp)
      : sc_core::sc_module(name),
        nic("nic", 1, bp.nic, pool, routing),
        up("up", bp.link),
        sink("sink", pool),
        source("source", pool) {
    nic.out.bind(up.in);
    up.out.bind(sink.in);
    source.out.bind(nic.in);
    nic.set_client(&log);
    if (bp.program) {
      // Rank 1's program as context 0 of one broadcast over the four ranks.
      prog.sched = algorithms::schedule(place.num_ranks());
      prog.sched.ranks[1] = *bp.program;
      algorithms::instance_info inst;
      inst.algorithm = &algorithms::find_algorithm("binomial");
      inst.ranks = {0, 1, 2, 3};
      inst.root = bp.root;
      inst.buffer_bytes = bp.bytes;
      for (uint32_t r : inst.ranks)
        inst.own.push_back(r == bp.root ? algorithms::byte_span{0, bp.bytes}
                                        : algorithms::byte_span{});
      for (uint32_t r : inst.ranks) inst.receives.push_back(r != bp.root ? 1 : 0);
      inst.contexts = 1;
      prog.instances.push_back(inst);
      prog.context_instance = {0};
      prog.memberships = {{{0, 0}}, {{0, 1}}, {{0, 2}}, {{0, 3}}};
      progress.reset(prog);
      host = std::make_unique<hw::host>("host", 1, prog, bp.host, nic, place, progress);
    }
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(bench);

  void send(network::terminal_id dst, uint64_t bytes, uint32_t tag, uint64_t offset = 0) {
    hw::message m;
    m.dst = dst;
    m.bytes = bytes;
    m.tag = tag;
    m.buf_offset = offset;
    m.collective_id = 3;
    nic.send_message(m);
  }

 private:
  void run() {
    if (script) script(*this);
  }
};

}  // namespace

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

BOOST_AUTO_TEST_CASE(host_send_completes_after_send_overhead) {
  algorithms::rank_program prog;
  prog.then(make_send(0, 0, 1000, 4));    // to rank 0: 512 + 488 B
  prog.then(make_send(2, 1000, 100, 5));  // to rank 2, after the first send completed
  bench_params bp;
  bp.program = &prog;
  bp.root = 1;
  bench b("bench", bp);
  std::vector<uint64_t> done;
  b.script = [&](bench& self) {
    for (uint64_t t : {299999u, 300001u, 599999u, 600001u}) {
      wait_until(t);
      done.push_back(self.host->ops_completed.value);
    }
  };
  sc_core::sc_start();

  // The first send costs 300 ns of CPU and completes then (eager); the NIC injects at once.
  // The second starts at 300 ns and completes at 600 ns.
  BOOST_TEST(done == (std::vector<uint64_t>{0, 1, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(b.sink.got.size() == 3u);
  BOOST_TEST(b.sink.got[0].pkt.injected.value() == 300000u);
  BOOST_TEST(b.sink.got[1].pkt.injected.value() == 300000u + 90826u);
  BOOST_TEST(b.sink.got[2].pkt.injected.value() == 600000u);
  BOOST_TEST(b.sink.got[0].pkt.dst == 0u);  // rank 0 sits on terminal 0
  BOOST_TEST(b.sink.got[1].pkt.size_bytes == 488u);
  BOOST_TEST(b.sink.got[2].pkt.dst == 2u);
  BOOST_TEST(b.sink.got[2].pkt.tag == 5u);
  BOOST_TEST(b.sink.got[2].pkt.buf_offset == 1000u);
  BOOST_TEST(b.sink.got[2].pkt.msg_bytes == 100u);
  BOOST_TEST(b.host->finished());
  BOOST_TEST(b.host->cpu_busy_ps.value == 600000u);
  BOOST_TEST(b.progress.instances[0].started);  // the root's first send call, at its start
  BOOST_TEST((b.progress.instances[0].start == sc_core::SC_ZERO_TIME));
}

BOOST_AUTO_TEST_CASE(host_recv_matches_source_and_tag_in_order) {
  algorithms::rank_program prog;
  prog.then(make_compute(5000));         // every message arrives before a receive is posted
  prog.then(make_recv(0, 100, 200, 2));  // takes the tag-2 message though it came second
  prog.then(make_recv(0, 0, 100, 1));    // the first tag-1 message from rank 0, not rank 2's
  prog.then(make_recv(0, 300, 300, 1));
  prog.then(make_recv(2, 600, 50, 1));
  bench_params bp;
  bp.program = &prog;
  bp.bytes = 650;
  bench b("bench", bp);
  using plan = packet_source::plan;
  b.source.plans = {
      plan{100000, 2, 0, 1, 600, 50, 0, 1, 50},
      plan{200000, 0, 0, 1, 0, 100, 0, 1, 100},  // rank 0's first tag-1 message
      plan{300000, 0, 1, 2, 100, 200, 0, 1, 200},
      plan{400000, 0, 2, 1, 300, 300, 0, 1, 300, 0, 1, 1},  // rank 0's second tag-1 message
  };
  std::vector<uint64_t> done;
  b.script = [&](bench& self) {
    for (uint64_t t :
         {4999999u, 5000001u, 5199999u, 5200001u, 5400001u, 5600001u, 5799999u, 5800001u}) {
      wait_until(t);
      done.push_back(self.host->ops_completed.value);
    }
  };
  sc_core::sc_start();

  // A wrong match would record an offset/size mismatch here.
  BOOST_TEST(b.progress.errors.empty());
  for (const std::string& e : b.progress.errors) BOOST_TEST_MESSAGE(e);
  // Each receive completes 200 ns (recv overhead) after it is posted.
  BOOST_TEST(done == (std::vector<uint64_t>{0, 1, 1, 2, 3, 4, 4, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(b.host->finished());
  BOOST_TEST(b.host->received_bytes(0) == 650u);
  BOOST_TEST(b.host->cpu_busy_ps.value == 5000000u + 4u * 200000u);
  // The rank holds the data when its last byte arrived, not when the receive completed.
  BOOST_TEST(b.progress.instances[0].done[1]);
  BOOST_TEST(b.progress.instances[0].rank_done[1].value() == 400000u);
  BOOST_TEST(b.progress.instances[0].members_done == 2u);  // the root and rank 1
}

BOOST_AUTO_TEST_CASE(host_cpu_overheads_serialise) {
  algorithms::rank_program prog;
  prog.add(make_send(0, 0, 100, 0), {});  // op 0: CPU [0, 300]
  prog.add(make_compute(1000), {});       // op 1: CPU [300, 1300]
  prog.add(make_recv(0, 0, 64, 9), {});   // op 2: posted at 0, message in at 500 ns
  prog.add(make_send(2, 0, 100, 1), {});  // op 3: CPU [1300, 1600]
  prog.add(make_compute(10), {2});        // op 4: after the receive
  bench_params bp;
  bp.program = &prog;
  bench b("bench", bp);
  b.source.plans = {packet_source::plan{500000, 0, 0, 9, 0, 64, 0, 1, 64}};
  std::vector<uint64_t> done;
  b.script = [&](bench& self) {
    for (uint64_t t :
         {299999u, 300001u, 1300001u, 1599999u, 1600001u, 1799999u, 1800001u, 1810001u}) {
      wait_until(t);
      done.push_back(self.host->ops_completed.value);
    }
  };
  sc_core::sc_start();

  // One CPU: the receive matched at 500 ns waits for it until 1600 ns and completes at 1800;
  // the compute after it ends at 1810 ns.
  BOOST_TEST(done == (std::vector<uint64_t>{0, 1, 2, 2, 3, 3, 4, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(b.host->cpu_busy_ps.value == 300000u + 1000000u + 300000u + 200000u + 10000u);
  BOOST_TEST_REQUIRE(b.sink.got.size() == 2u);
  BOOST_TEST(b.sink.got[0].pkt.injected.value() == 300000u);
  BOOST_TEST(b.sink.got[1].pkt.injected.value() == 1600000u);
  BOOST_TEST(b.progress.errors.empty());
  BOOST_TEST(b.host->finished());
}

namespace {

struct coverage_sample {
  uint64_t covered;
  uint64_t received;
  bool done;
};

// Samples rank 1's coverage just after each of `times_ps`.
std::vector<coverage_sample> sample_coverage(bench& b, const std::vector<uint64_t>& times_ps) {
  std::vector<coverage_sample> got;
  b.script = [&got, times_ps](bench& self) {
    for (uint64_t t : times_ps) {
      wait_until(t + 1);
      got.push_back({self.host->covered_bytes(0), self.host->received_bytes(0),
                     static_cast<bool>(self.progress.instances[0].done[1])});
    }
  };
  sc_core::sc_start();
  return got;
}

}  // namespace

BOOST_AUTO_TEST_CASE(host_duplicate_bytes_do_not_finish_a_rank_early) {
  // 800 bytes: [0, 400) arrives twice (400 + 400 = 800 received, but only half held), then
  // [400, 800) completes the buffer.
  algorithms::rank_program prog;
  prog.then(make_recv(0, 0, 400, 1));
  prog.then(make_recv(0, 0, 400, 1));
  prog.then(make_recv(2, 400, 400, 1));
  bench_params bp;
  bp.program = &prog;
  bp.bytes = 800;
  bench b("bench", bp);
  using plan = packet_source::plan;
  b.source.plans = {
      plan{100000, 0, 0, 1, 0, 400, 0, 1, 400},
      plan{200000, 0, 1, 1, 0, 400, 0, 1, 400, 0, 1, 1},  // rank 0's second tag-1 message
      plan{300000, 2, 0, 1, 400, 400, 0, 1, 400},
  };
  const auto got = sample_coverage(b, {100000, 200000, 300000});

  BOOST_TEST(b.progress.errors.empty());
  BOOST_TEST_REQUIRE(got.size() == 3u);
  BOOST_TEST(got[0].covered == 400u);
  BOOST_TEST(got[1].covered == 400u);
  BOOST_TEST(got[1].received == 800u);  // the old byte-sum rule would have finished here
  BOOST_TEST(!got[1].done);
  BOOST_TEST(got[2].covered == 800u);
  BOOST_TEST(got[2].received == 1200u);
  BOOST_TEST(got[2].done);
  BOOST_TEST(b.progress.instances[0].rank_done[1].value() == 300000u);
  BOOST_TEST(b.progress.instances[0].members_done == 2u);  // the root and rank 1
  BOOST_TEST(b.host->finished());
}

BOOST_AUTO_TEST_CASE(host_out_of_order_pieces_finish_when_their_union_completes) {
  // 1000 bytes in overlapping pieces, out of order: [600, 1000), [0, 300), [200, 500), then
  // [500, 600) closes the last gap and joins both held ranges.
  algorithms::rank_program prog;
  prog.add(make_recv(2, 600, 400, 1), {});
  prog.add(make_recv(0, 0, 300, 1), {});
  prog.add(make_recv(0, 200, 300, 1), {});
  prog.add(make_recv(2, 500, 100, 1), {});
  bench_params bp;
  bp.program = &prog;
  bp.bytes = 1000;
  bench b("bench", bp);
  using plan = packet_source::plan;
  b.source.plans = {
      plan{100000, 2, 0, 1, 600, 400, 0, 1, 400},
      plan{200000, 0, 0, 1, 0, 300, 0, 1, 300},
      plan{300000, 0, 1, 1, 200, 300, 0, 1, 300},
      plan{400000, 2, 1, 1, 500, 100, 0, 1, 100},
  };
  const auto got = sample_coverage(b, {100000, 200000, 300000, 400000});

  BOOST_TEST(b.progress.errors.empty());
  BOOST_TEST_REQUIRE(got.size() == 4u);
  const uint64_t covered[] = {400, 700, 900, 1000};
  const uint64_t received[] = {400, 700, 1000, 1100};
  for (size_t i = 0; i < 4; ++i) {
    BOOST_TEST_CONTEXT("after piece " << i) {
      BOOST_TEST(got[i].covered == covered[i]);
      BOOST_TEST(got[i].received == received[i]);
      BOOST_TEST(got[i].done == (i == 3));
    }
  }
  BOOST_TEST(b.progress.instances[0].rank_done[1].value() == 400000u);
  BOOST_TEST(b.progress.instances[0].members_done == 2u);  // the root and rank 1
}

BOOST_AUTO_TEST_CASE(host_root_holds_the_buffer_from_the_start) {
  // MPICH's allgather sends blocks back to the root: it counts them as received, but it
  // held every byte all along: done from the start, not when a message arrives.
  algorithms::rank_program prog;
  prog.then(make_recv(0, 0, 100, 1));
  bench_params bp;
  bp.program = &prog;
  bp.root = 1;
  bp.bytes = 500;
  bench b("bench", bp);
  b.source.plans = {packet_source::plan{100000, 0, 0, 1, 0, 100, 0, 1, 100}};
  const auto got = sample_coverage(b, {0, 100000});

  BOOST_TEST_REQUIRE(got.size() == 2u);
  BOOST_TEST(got[0].covered == 500u);
  BOOST_TEST(got[0].received == 0u);
  BOOST_TEST(got[1].covered == 500u);
  BOOST_TEST(got[1].received == 100u);
  BOOST_TEST(got[0].done);
  BOOST_TEST((b.progress.instances[0].rank_done[1] == sc_core::SC_ZERO_TIME));
  BOOST_TEST(b.progress.instances[0].members_done == 1u);  // the root alone
  BOOST_TEST(b.host->finished());
}
