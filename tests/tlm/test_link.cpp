// tlm/link: serialisation at B GiB/s, head and tail timing (virtual cut-through), the
// END_REQ busy time, CREDIT delayed by the latency, statistics, and protocol errors.
// Each test elaborates sender -> link -> receiver and runs one simulation.
#include "tlm/link.h"
#include "tlm/packet_pool.h"

#include <boost/test/unit_test.hpp>
#include <systemc>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace bcastsim;
using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;
using tlm_net::packet;

namespace {

// The documented formula, written out independently of the link.
uint64_t ser_ps(uint32_t bytes, double gib_per_s) {
  return static_cast<uint64_t>(std::llround(bytes * 1e12 / (gib_per_s * 1073741824.0)));
}

// Drives the link's forward path from a script; records credits from the backward path.
class test_sender final : public sc_core::sc_module, public tlm_net::bw_if {
 public:
  tlm_net::initiator_socket out;
  std::function<void(test_sender&)> script;

  struct call {
    tlm::tlm_sync_enum status;
    tlm::tlm_phase phase;
    sc_time delay;
  };
  struct credit {
    sc_time at;
    tlm::tlm_phase phase;
    uint8_t vc;
    uint32_t bytes;
  };
  std::vector<call> calls;
  std::vector<credit> credits;

  explicit test_sender(const sc_core::sc_module_name& name) : sc_core::sc_module(name), out("out") {
    out.bind(*this);
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(test_sender);

  // Starts p at now + delay; returns the link's answer.
  call send(packet& p, const sc_time& delay = sc_core::SC_ZERO_TIME,
            tlm::tlm_phase phase = tlm::BEGIN_REQ) {
    call c{};
    c.phase = phase;
    c.delay = delay;
    c.status = out->nb_transport_fw(p, c.phase, c.delay);
    calls.push_back(c);
    return c;
  }

  tlm::tlm_sync_enum nb_transport_bw(packet& p, tlm::tlm_phase& ph, sc_time& t) override {
    credits.push_back(credit{sc_core::sc_time_stamp() + t, ph, p.vc, p.size_bytes});
    return tlm::TLM_ACCEPTED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  void run() {
    if (script) script(*this);
  }
};

// Records arrivals; optionally returns each packet's credit `credit_hold` after its tail.
class test_receiver final : public sc_core::sc_module, public tlm_net::fw_if {
 public:
  tlm_net::target_socket in;
  bool return_credits = false;
  sc_time credit_hold;

  struct arrival {
    sc_time called;  // simulation time of the call
    sc_time head;    // called + annotation
    sc_time tail;    // packet.tail_time as delivered
    uint32_t bytes;
    tlm::tlm_phase phase;
  };
  std::vector<arrival> arrivals;
  std::vector<tlm::tlm_sync_enum> credit_status;

  explicit test_receiver(const sc_core::sc_module_name& name) : sc_core::sc_module(name), in("in") {
    in.bind(*this);
  }

  tlm::tlm_sync_enum nb_transport_fw(packet& p, tlm::tlm_phase& ph, sc_time& t) override {
    const sc_time now = sc_core::sc_time_stamp();
    arrivals.push_back(arrival{now, now + t, p.tail_time, p.size_bytes, ph});
    if (return_credits) {
      tlm::tlm_phase c = tlm_net::CREDIT;
      sc_time d = p.tail_time - now + credit_hold;
      credit_status.push_back(in->nb_transport_bw(p, c, d));
    }
    return tlm::TLM_ACCEPTED;
  }
  void b_transport(packet&, sc_time&) override {}
  bool get_direct_mem_ptr(packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(packet&) override { return 0; }
};

tlm_net::link_params default_params() {
  tlm_net::link_params lp;
  lp.bandwidth_gib_per_s = 5.25;
  lp.latency_ns = 10.0;
  lp.flit_bytes = 64;
  return lp;
}

packet make_packet(uint32_t bytes, uint32_t index = 0) {
  packet p;
  p.size_bytes = bytes;
  p.index = index;
  p.tail_time = sc_core::sc_time_stamp();  // the payload is all at the sender
  return p;
}

struct bench {
  test_sender sender;
  tlm_net::link wire;
  test_receiver receiver;
  // `prefix` names a second bench of the same test apart.
  explicit bench(const tlm_net::link_params& lp = default_params(), const std::string& prefix = "")
      : sender((prefix + "sender").c_str()),
        wire((prefix + "link").c_str(), lp),
        receiver((prefix + "receiver").c_str()) {
    wire.connect(sender.out, receiver.in);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(link_serialisation_is_bytes_over_gib_per_s) {
  tlm_net::link_params lp = default_params();
  tlm_net::link a("a", lp);
  lp.bandwidth_gib_per_s = 4.7;
  tlm_net::link b("b", lp);
  // 512 B at 5.25 GiB/s = 512e12 / (5.25 * 2^30) ps = 90826.125 -> 90826.
  BOOST_TEST(a.serialisation(512).value() == 90826u);
  BOOST_TEST(a.serialisation(64).value() == 11353u);    // 11353.27
  BOOST_TEST(a.serialisation(40).value() == 7096u);     // 7095.79: rounded, not truncated
  BOOST_TEST(b.serialisation(512).value() == 101455u);  // 101454.71
  BOOST_TEST(a.serialisation(0).value() == 0u);
  for (uint32_t n : {1u, 7u, 100u, 276u, 488u, 4096u, 65536u}) {
    BOOST_TEST(a.serialisation(n).value() == ser_ps(n, 5.25));
    BOOST_TEST(b.serialisation(n).value() == ser_ps(n, 4.7));
  }
}

BOOST_AUTO_TEST_CASE(link_flit_overhead_adds_per_flit) {
  // CODES's per-chunk draw, as its mean: 0.505 ns per 32-B flit on top of the bytes' time.
  tlm_net::link_params lp = default_params();
  lp.flit_bytes = 32;
  lp.flit_overhead_ns = 0.505;
  bench b(lp);
  b.sender.script = [&](test_sender& s) {
    packet p = make_packet(512);
    s.send(p);
  };
  sc_core::sc_start();
  // 512 B: 16 flits, 90826 + 16 * 505 ps; 33 B: 2 flits; an empty packet still one flit.
  BOOST_TEST(b.wire.serialisation(512).value() == 90826u + 8080u);
  BOOST_TEST(b.wire.serialisation(33).value() == ser_ps(33, 5.25) + 1010u);
  BOOST_TEST(b.wire.serialisation(0).value() == 505u);
  BOOST_TEST_REQUIRE(b.sender.calls.size() == 1u);
  BOOST_TEST(b.sender.calls[0].delay.value() == 90826u + 8080u);
  BOOST_TEST_REQUIRE(b.receiver.arrivals.size() == 1u);
  // The head flit pays its overhead too: latency + 32 B + 505 ps.
  BOOST_TEST(b.receiver.arrivals[0].head.value() == 10000u + ser_ps(32, 5.25) + 505u);
}

BOOST_AUTO_TEST_CASE(link_full_packet_head_tail_and_busy_time) {
  bench b;
  sc_time free_after;
  b.sender.script = [&](test_sender& s) {
    sc_core::wait(100, SC_NS);
    packet p = make_packet(512);
    s.send(p);
    free_after = b.wire.free_at();
  };
  sc_core::sc_start();

  BOOST_TEST_REQUIRE(b.sender.calls.size() == 1u);
  const test_sender::call& c = b.sender.calls[0];
  BOOST_TEST((c.status == tlm::TLM_UPDATED));
  BOOST_TEST((c.phase == tlm::END_REQ));
  BOOST_TEST(c.delay.value() == 90826u);  // busy for the whole serialisation
  BOOST_TEST(free_after.value() == 100000u + 90826u);

  BOOST_TEST_REQUIRE(b.receiver.arrivals.size() == 1u);
  const test_receiver::arrival& a = b.receiver.arrivals[0];
  BOOST_TEST((a.phase == tlm::BEGIN_REQ));
  BOOST_TEST(a.called.value() == 100000u);  // annotated, not waited for
  // head = start + latency + serialisation(one 64 B flit)
  BOOST_TEST(a.head.value() == 100000u + 10000u + 11353u);
  // tail = start + serialisation(512 B) + latency
  BOOST_TEST(a.tail.value() == 100000u + 90826u + 10000u);
  BOOST_TEST(a.bytes == 512u);
}

BOOST_AUTO_TEST_CASE(link_short_packet_head_is_the_whole_packet) {
  bench b;
  b.sender.script = [&](test_sender& s) {
    sc_core::wait(100, SC_NS);
    packet p = make_packet(40);
    s.send(p);
  };
  sc_core::sc_start();

  BOOST_TEST_REQUIRE(b.receiver.arrivals.size() == 1u);
  // 40 B < one flit: head = start + latency + serialisation(40 B) = tail.
  BOOST_TEST(b.receiver.arrivals[0].head.value() == 100000u + 10000u + 7096u);
  BOOST_TEST(b.receiver.arrivals[0].tail.value() == 100000u + 7096u + 10000u);
  BOOST_TEST(b.sender.calls[0].delay.value() == 7096u);
}

BOOST_AUTO_TEST_CASE(link_tail_cannot_outrun_the_incoming_tail) {
  bench b;
  b.sender.script = [&](test_sender& s) {
    sc_core::wait(100, SC_NS);
    packet p = make_packet(512);
    p.tail_time = sc_time(300, SC_NS);  // the tail reaches the sender only at 300 ns
    s.send(p);
  };
  sc_core::sc_start();

  BOOST_TEST_REQUIRE(b.receiver.arrivals.size() == 1u);
  // The head is not held back (cut-through) ...
  BOOST_TEST(b.receiver.arrivals[0].head.value() == 100000u + 10000u + 11353u);
  // ... but the tail leaves at max(100 ns + 90.826 ns, 300 ns) = 300 ns, arrives 10 ns later,
  BOOST_TEST(b.receiver.arrivals[0].tail.value() == 310000u);
  // and the link stays busy until the tail has left.
  BOOST_TEST(b.sender.calls[0].delay.value() == 200000u);
  BOOST_TEST(b.wire.free_at().value() == 300000u);
  BOOST_TEST(b.wire.busy_ps.value == 200000u);
}

BOOST_AUTO_TEST_CASE(link_annotated_start_and_back_to_back_packets) {
  bench b;
  b.sender.script = [&](test_sender& s) {
    sc_core::wait(100, SC_NS);
    packet p1 = make_packet(512);
    const test_sender::call c1 = s.send(p1, sc_time(5, SC_NS));  // starts at 105 ns
    packet p2 = make_packet(64);
    s.send(p2, c1.delay);  // starts exactly when the link frees: allowed
  };
  sc_core::sc_start();

  BOOST_TEST_REQUIRE(b.sender.calls.size() == 2u);
  BOOST_TEST_REQUIRE(b.receiver.arrivals.size() == 2u);
  // p1: start 105000; end 105000 + 90826 = 195826, annotated relative to now = 100000.
  BOOST_TEST(b.sender.calls[0].delay.value() == 95826u);
  BOOST_TEST(b.receiver.arrivals[0].head.value() == 105000u + 10000u + 11353u);
  BOOST_TEST(b.receiver.arrivals[0].tail.value() == 195826u + 10000u);
  // p2: start 195826; 64 B is one flit: head = tail = 195826 + 11353 + 10000.
  BOOST_TEST(b.sender.calls[1].delay.value() == 195826u + 11353u - 100000u);
  BOOST_TEST(b.receiver.arrivals[1].head.value() == 195826u + 10000u + 11353u);
  BOOST_TEST(b.receiver.arrivals[1].tail.value() == 195826u + 11353u + 10000u);
  BOOST_TEST(b.receiver.arrivals[1].called.value() == 100000u);
  BOOST_TEST(b.wire.busy_ps.value == 90826u + 11353u);
}

BOOST_AUTO_TEST_CASE(link_credit_is_delayed_by_the_latency) {
  bench b;
  b.receiver.return_credits = true;
  b.receiver.credit_hold = sc_time(3, SC_NS);
  b.sender.script = [&](test_sender& s) {
    sc_core::wait(100, SC_NS);
    packet p = make_packet(512);
    p.vc = 2;
    s.send(p);
  };
  sc_core::sc_start();

  BOOST_TEST_REQUIRE(b.sender.credits.size() == 1u);
  const test_sender::credit& c = b.sender.credits[0];
  BOOST_TEST((c.phase == tlm_net::CREDIT));
  BOOST_TEST(c.vc == 2u);
  BOOST_TEST(c.bytes == 512u);
  // Receiver frees at tail (200826) + 3 ns; the credit crosses the link back in 10 ns.
  BOOST_TEST(c.at.value() == 200826u + 3000u + 10000u);
  BOOST_TEST_REQUIRE(b.receiver.credit_status.size() == 1u);
  BOOST_TEST((b.receiver.credit_status[0] == tlm::TLM_ACCEPTED));
}

BOOST_AUTO_TEST_CASE(link_counts_packets_messages_bytes_and_busy_time) {
  bench b;
  b.sender.script = [&](test_sender& s) {
    sc_core::wait(100, SC_NS);
    // Message A: three packets (only index 0 counts as a message) ...
    packet a0 = make_packet(512, 0), a1 = make_packet(512, 1), a2 = make_packet(100, 2);
    s.send(a0);
    sc_core::wait(s.calls.back().delay);
    s.send(a1);
    sc_core::wait(s.calls.back().delay);
    s.send(a2);
    sc_core::wait(s.calls.back().delay);
    // ... message B: one packet whose tail reaches the sender 20 ns after it starts.
    packet b0 = make_packet(40, 0);
    b0.tail_time = sc_core::sc_time_stamp() + sc_time(20, SC_NS);
    s.send(b0);
    sc_core::wait(s.calls.back().delay);
    // ... and a Mini Packet (offload set-up): bytes and busy time, but counted apart.
    packet mp = make_packet(32, 0);
    mp.kind = tlm_net::packet_kind::control;
    s.send(mp);
  };
  sc_core::sc_start();

  BOOST_TEST(b.wire.packets.value == 4u);
  BOOST_TEST(b.wire.messages.value == 2u);
  BOOST_TEST(b.wire.control_packets.value == 1u);
  BOOST_TEST(b.wire.bytes.value == 512u + 512u + 100u + 40u + 32u);
  BOOST_TEST(b.wire.busy_ps.value == 90826u + 90826u + 17739u + 20000u + 5677u);
  // The declared statistics point at the same counters.
  const tlm_net::stat_group group = b.wire.stats();  // made on demand
  const std::vector<tlm_net::stat_info>& st = group.stats();
  BOOST_TEST_REQUIRE(st.size() == 6u);
  const char* names[] = {"packets", "messages", "control_packets", "bytes", "busy_ps", "dropped"};
  const uint64_t values[] = {4u, 2u, 1u, 1196u, 225068u, 0u};
  for (size_t i = 0; i < 6; ++i) {
    BOOST_TEST(std::strcmp(st[i].name, names[i]) == 0);
    BOOST_TEST_REQUIRE(st[i].c != nullptr);
    BOOST_TEST(st[i].c->value == values[i]);
  }
}

BOOST_AUTO_TEST_CASE(link_busy_link_rejects_a_new_packet) {
  bench b;
  std::string error;
  b.sender.script = [&](test_sender& s) {
    sc_core::wait(100, SC_NS);
    packet p1 = make_packet(512);
    s.send(p1);                   // busy until 190826 ps
    sc_core::wait(90825, SC_PS);  // 1 ps too early
    packet p2 = make_packet(64);
    try {
      s.send(p2);
    } catch (const sc_core::sc_report& r) {
      error = r.what();
    }
  };
  sc_core::sc_start();

  BOOST_CHECK_MESSAGE(error.find("still busy") != std::string::npos, "error was: " << error);
  BOOST_TEST(error.find("link") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(link_wrong_phase_error_escapes_sc_start) {
  bench b;
  b.sender.script = [&](test_sender& s) {
    packet p = make_packet(64);
    s.send(p, sc_core::SC_ZERO_TIME, tlm::END_REQ);  // only BEGIN_REQ goes forward
  };
  BOOST_CHECK_THROW(sc_core::sc_start(), sc_core::sc_report);
  BOOST_TEST(b.receiver.arrivals.empty());
  BOOST_TEST(b.wire.packets.value == 0u);
}

BOOST_AUTO_TEST_CASE(link_loses_the_chosen_packet_and_returns_its_credit) {
  // fault.drop_packet: the 2nd packet holds the link as any other, never arrives, goes back
  // to the pool, and its credit comes back as if the receiver had freed it on arrival.
  bench b;
  tlm_net::packet_pool pool;
  tlm_net::link_faults f;
  f.drop_nth = {2};
  f.pool = &pool;
  b.wire.set_faults(f);
  b.sender.script = [&](test_sender& s) {
    packet first = make_packet(512);
    s.send(first);
    sc_core::wait(b.wire.free_at() - sc_core::sc_time_stamp());
    packet* lost = pool.acquire();
    *lost = make_packet(512);
    lost->vc = 1;
    s.send(*lost);
    sc_core::wait(b.wire.free_at() - sc_core::sc_time_stamp());
    packet third = make_packet(100);
    s.send(third);
  };
  sc_core::sc_start();
  BOOST_TEST(b.wire.dropped.value == 1u);
  BOOST_TEST(b.wire.packets.value == 3u);  // it crossed (held) the link
  BOOST_TEST_REQUIRE(b.receiver.arrivals.size() == 2u);
  BOOST_TEST(b.receiver.arrivals[1].bytes == 100u);
  BOOST_TEST(pool.in_use() == 0u);
  BOOST_TEST_REQUIRE(b.sender.credits.size() == 1u);
  const test_sender::credit& c = b.sender.credits[0];
  BOOST_TEST(c.vc == 1);
  BOOST_TEST(c.bytes == 512u);
  // Second packet: starts at 90826, tail arrives at 181652 + 10 ns, credit back 10 ns later.
  BOOST_TEST(c.at.value() == 2u * 90826u + 20000u);
  BOOST_TEST(b.sender.calls[1].delay.value() == 90826u);  // the link stayed busy for it
}

BOOST_AUTO_TEST_CASE(link_drop_rate_loses_about_that_fraction_deterministically) {
  // Two links with the same seed, 2,000 packets each: about 10 % lost, the same ones.
  tlm_net::packet_pool pool;
  tlm_net::link_faults f;
  f.drop_rate = 0.1;
  f.seed = 42;
  f.pool = &pool;
  bench a(default_params(), "a_"), b(default_params(), "b_");
  a.wire.set_faults(f);
  b.wire.set_faults(f);
  for (bench* x : {&a, &b}) {
    x->sender.script = [x, &pool](test_sender& snd) {
      for (int i = 0; i < 2000; ++i) {
        packet* p = pool.acquire();
        *p = make_packet(64);
        snd.send(*p);
        sc_core::wait(x->wire.free_at() - sc_core::sc_time_stamp());
      }
    };
  }
  sc_core::sc_start();
  for (bench* x : {&a, &b}) {
    BOOST_TEST(x->receiver.arrivals.size() + x->wire.dropped.value == 2000u);
    BOOST_TEST(x->wire.dropped.value > 150u);
    BOOST_TEST(x->wire.dropped.value < 250u);
  }
  BOOST_TEST(a.wire.dropped.value == b.wire.dropped.value);
  for (size_t i = 0; i < a.receiver.arrivals.size(); ++i)
    BOOST_TEST(a.receiver.arrivals[i].head == b.receiver.arrivals[i].head);
}
