// tlm/credit_output: the sender's books of one output under credit flow control, shared by
// the router, the host NIC and the Bcast Unit. Credits are spent by send(), come back through
// on_credit() usable from a later time, are applied only once that time has come, and a
// sender short of credits learns when to look again. Protocol errors are reported.
#include "tlm/credit_output.h"
#include "tlm/link.h"

#include <boost/test/unit_test.hpp>
#include <systemc>

#include <functional>
#include <vector>

using namespace bcastsim;
using sc_core::SC_NS;
using sc_core::sc_time;
using tlm_net::credit_output;
using tlm_net::packet;

namespace {

const sc_time k_max = sc_core::sc_max_time();

// Owns a credit_output and sends through it into a link; the script runs in a thread.
class sender final : public sc_core::sc_module, public tlm_net::bw_if {
 public:
  tlm_net::initiator_socket out;
  credit_output books;
  std::function<void(sender&)> script;
  std::vector<bool> woken;  // on_credit's answers, in order

  explicit sender(const sc_core::sc_module_name& name) : sc_core::sc_module(name), out("out") {
    out.bind(*this);
    books.init(this->name(), 2, 1000);
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(sender);

  sc_time send(packet& p) { return books.send(out, p, sc_core::sc_time_stamp()); }

  tlm::tlm_sync_enum nb_transport_bw(packet& p, tlm::tlm_phase& ph, sc_time& t) override {
    BOOST_CHECK(ph == tlm_net::CREDIT);
    woken.push_back(books.on_credit(sc_core::sc_time_stamp() + t, p.vc, p.size_bytes));
    return tlm::TLM_ACCEPTED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  void run() {
    if (script) script(*this);
  }
};

// Takes packets and gives their credit back `hold` (or holds[k] for the k-th) after the
// tail is in.
class receiver final : public sc_core::sc_module, public tlm_net::fw_if {
 public:
  tlm_net::target_socket in;
  sc_time hold = sc_time(100, SC_NS);
  std::vector<sc_time> holds;  // per packet, in order, if given
  std::vector<packet> kept;

  explicit receiver(const sc_core::sc_module_name& name) : sc_core::sc_module(name), in("in") {
    in.bind(*this);
  }
  tlm::tlm_sync_enum nb_transport_fw(packet& p, tlm::tlm_phase&, sc_time&) override {
    kept.push_back(p);
    tlm::tlm_phase c = tlm_net::CREDIT;
    const sc_time h = kept.size() <= holds.size() ? holds[kept.size() - 1] : hold;
    sc_time d = p.tail_time - sc_core::sc_time_stamp() + h;
    in->nb_transport_bw(p, c, d);
    return tlm::TLM_ACCEPTED;
  }
  void b_transport(packet&, sc_time&) override {}
  bool get_direct_mem_ptr(packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(packet&) override { return 0; }
};

struct bench {
  sender s{"sender"};
  tlm_net::link wire;
  receiver r{"receiver"};
  bench() : wire("link", params()) { wire.connect(s.out, r.in); }
  static tlm_net::link_params params() {
    tlm_net::link_params lp;
    lp.bandwidth_gib_per_s = 1.0;  // 1000 bytes: 931 ns on the wire
    lp.latency_ns = 10.0;
    return lp;
  }
};

packet make_packet(uint8_t vc, uint32_t bytes) {
  packet p;
  p.vc = vc;
  p.size_bytes = bytes;
  p.tail_time = sc_core::sc_time_stamp();
  return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(send_spends_credits_and_holds_the_link_for_the_links_answer) {
  bench b;
  packet p = make_packet(1, 600);
  sc_time t;
  b.s.script = [&](sender& s) {
    t = s.send(p);
    const sc_time now = sc_core::sc_time_stamp();
    BOOST_CHECK(t == b.wire.serialisation(600));
    BOOST_CHECK(s.books.busy_until() == now + t);
    BOOST_CHECK(!s.books.link_free(now));
    BOOST_CHECK(s.books.link_free(now + t));
    BOOST_CHECK_EQUAL(s.books.credits(1, now), 400u);
    BOOST_CHECK_EQUAL(s.books.credits(0, now), 1000u);  // VCs are apart
    BOOST_CHECK(!s.books.has_credits(1, 401, now));
    BOOST_CHECK(s.books.has_credits(1, 400, now));
    BOOST_CHECK_EQUAL(s.books.occupancy_bytes(now), 600u);
  };
  sc_core::sc_start();
  BOOST_REQUIRE_EQUAL(b.r.kept.size(), 1u);
  BOOST_CHECK_EQUAL(b.s.woken.size(), 1u);
  BOOST_CHECK(!b.s.woken[0]);  // nobody asked to be woken
}

BOOST_AUTO_TEST_CASE(a_credit_counts_only_from_the_time_it_comes_back) {
  bench b;
  packet p = make_packet(0, 1000);
  b.s.script = [&](sender& s) {
    s.send(p);
    // The credit is on its way: tail in at 10 ns + 931 ns, back 100 ns later, plus the
    // link's latency on the way back.
    const sc_time back =
        sc_time(10, SC_NS) + b.wire.serialisation(1000) + sc_time(100, SC_NS) + sc_time(10, SC_NS);
    sc_core::wait(sc_time(1, SC_NS));
    BOOST_CHECK_EQUAL(s.books.unreturned_bytes(), 0u);  // queued: counts as returned
    BOOST_CHECK_EQUAL(s.books.credits(0, back - sc_time(1, sc_core::SC_PS)), 0u);
    BOOST_CHECK_EQUAL(s.books.credits(0, back), 1000u);
    BOOST_CHECK(!s.books.has_credits(0, 1, sc_core::sc_time_stamp()));
    BOOST_CHECK(s.books.credit_retry_time() == back);  // look again when it is usable
    sc_core::wait(back - sc_core::sc_time_stamp());
    BOOST_CHECK(s.books.has_credits(0, 1000, sc_core::sc_time_stamp()));
    BOOST_CHECK_EQUAL(s.books.occupancy_bytes(sc_core::sc_time_stamp()), 0u);
  };
  sc_core::sc_start();
}

BOOST_AUTO_TEST_CASE(waiting_is_reported_once_to_the_next_credit) {
  credit_output c;
  c.init("books", 1, 100);
  BOOST_CHECK(c.credit_retry_time() == k_max);  // nothing queued: wait to be told
  BOOST_CHECK(c.on_credit(sc_time(5, SC_NS), 0, 0));
  BOOST_CHECK(!c.on_credit(sc_time(6, SC_NS), 0, 0));  // told once
  BOOST_CHECK(c.credit_retry_time() == sc_time(5, SC_NS));
  BOOST_CHECK(!c.on_credit(sc_time(7, SC_NS), 0, 0));  // a queued credit was the answer
}

BOOST_AUTO_TEST_CASE(protocol_errors_are_reported) {
  credit_output c;
  c.init("books", 2, 100);
  BOOST_CHECK_THROW(c.on_credit(sc_time(1, SC_NS), 2, 10), sc_core::sc_report);  // no VC 2
  c.on_credit(sc_time(10, SC_NS), 0, 10);
  // 10 bytes returned that were never spent: found when applied.
  BOOST_CHECK(c.has_credits(0, 100, sc_time(9, SC_NS)));
  BOOST_CHECK_THROW(c.has_credits(0, 100, sc_time(10, SC_NS)), sc_core::sc_report);
}

// An attached block's input frees at its own rate, so a later credit may be due earlier.
BOOST_AUTO_TEST_CASE(credits_returned_out_of_time_order_count_from_their_own_times) {
  bench b;
  b.r.holds = {sc_time(2, sc_core::SC_US), sc_core::SC_ZERO_TIME};
  packet p1 = make_packet(0, 400), p2 = make_packet(1, 400);
  b.s.script = [&](sender& s) {
    s.send(p1);
    sc_core::wait(s.books.busy_until() - sc_core::sc_time_stamp());
    s.send(p2);
    const sc_time tail2 = b.r.kept.at(1).tail_time;
    const sc_time back1 =
        b.r.kept.at(0).tail_time + sc_time(2, sc_core::SC_US) + sc_time(10, SC_NS);
    const sc_time back2 = tail2 + sc_time(10, SC_NS);
    BOOST_REQUIRE(back2 < back1);
    BOOST_CHECK(s.books.credit_retry_time() == back2);  // the earlier one first
    sc_core::wait(back2 - sc_core::sc_time_stamp());
    const sc_time now = sc_core::sc_time_stamp();
    BOOST_CHECK(s.books.has_credits(1, 1000, now));
    BOOST_CHECK(!s.books.has_credits(0, 601, now));
    BOOST_CHECK(s.books.credit_retry_time() == back1);
    sc_core::wait(back1 - now);
    BOOST_CHECK(s.books.has_credits(0, 1000, sc_core::sc_time_stamp()));
    BOOST_CHECK_EQUAL(s.books.unreturned_bytes(), 0u);
  };
  sc_core::sc_start();
}
