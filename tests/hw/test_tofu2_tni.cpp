// The Tofu2 TNI (hw/tofu2/tni.h) on a bench: two TNIs, A (terminal 0) and B (terminal 1),
// joined by a link each way, no router. A put from a normal-mode queue leaves after the
// descriptor fetch; an arriving put's SPS releases exactly that many of the receiver's
// session-mode puts, after its last frame and the receive time; the consumer pointer moves
// when a put's last frame is on the link; a full TOQ refuses the host; frames are sized as
// FACTS §4 says.
#include "hw/tofu2/tni.h"
#include "network/torus.h"
#include "tlm/link.h"
#include "tlm/packet_pool.h"

#include <boost/test/unit_test.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

using namespace bcastsim;
using hw::tofu2::queue_mode;
using hw::tofu2::toq_descriptor;
using sc_core::sc_time;

namespace {

constexpr uint64_t k_ns = 1000;  // ps

struct event {
  uint64_t at_ps;
  uint32_t queue;   // put done: the queue; arrival: the tag (the designated queue)
  uint64_t offset;  // of the put
};

// Records what the TNI tells its host.
class recorder final : public hw::nic_client, public hw::tofu2::tni_client {
 public:
  std::vector<event> arrived, done;
  void on_message(network::terminal_id, uint32_t, uint32_t tag, uint64_t offset, uint64_t,
                  uint32_t) override {
    arrived.push_back({sc_core::sc_time_stamp().value(), tag, offset});
  }
  void on_put_arrived(network::terminal_id, uint32_t, uint64_t offset, uint64_t) override {
    arrived.push_back({sc_core::sc_time_stamp().value(), 0, offset});
  }
  void on_put_done(uint32_t queue, const toq_descriptor& d) override {
    done.push_back({sc_core::sc_time_stamp().value(), queue, d.local_offset});
  }
};

struct bench {
  network::torus topo{network::torus_params{}};
  network::torus_dor_routing routing{topo};
  tlm_net::packet_pool pool;
  std::unique_ptr<hw::tofu2::tni> a, b;
  std::unique_ptr<tlm_net::link> ab, ba;
  recorder ra, rb;

  explicit bench(uint64_t toq_entries = 2048) {
    hw::tofu2::tni_params p;
    p.toq_entries = toq_entries;
    a = std::make_unique<hw::tofu2::tni>("a", 0, p, pool, routing);
    b = std::make_unique<hw::tofu2::tni>("b", 1, p, pool, routing);
    tlm_net::link_params lp;
    lp.bandwidth_gib_per_s = 12.5e9 / (1024.0 * 1024 * 1024);  // Tofu2: 12.5 GB/s, 80 ps/B
    lp.latency_ns = 10;
    ab = std::make_unique<tlm_net::link>("ab", lp);
    ba = std::make_unique<tlm_net::link>("ba", lp);
    ab->connect(a->out, b->in);
    ba->connect(b->out, a->in);
    for (auto* t : {a.get(), b.get()}) t->set_client(t == a.get() ? &ra : &rb);
    a->set_queue_client(&ra);
    b->set_queue_client(&rb);
  }
};

toq_descriptor put(network::terminal_id to, uint32_t queue, uint64_t offset, uint64_t length,
                   uint32_t sps) {
  toq_descriptor d;
  d.remote_terminal = to;
  d.remote_queue = queue;
  d.local_offset = d.remote_offset = offset;
  d.length = length;
  d.sps = sps;
  return d;
}

}  // namespace

// Frames of FACTS §4: 1980 B of payload at most, 8 + a 32-B aligned TLP with a 4-B ECRC, at
// least 8 + 96 B.
BOOST_AUTO_TEST_CASE(frames_are_sized_as_tofu_frames) {
  const hw::tofu2::frame_format f;
  BOOST_TEST(f.max_payload_bytes() == 1980u);
  BOOST_TEST(f.frames(0) == 1u);
  BOOST_TEST(f.frames(1980) == 1u);
  BOOST_TEST(f.frames(1981) == 2u);
  BOOST_TEST(f.payload(5000, 2) == 1040u);
  BOOST_TEST(f.wire_bytes(1980) == 1992u);
  BOOST_TEST(f.wire_bytes(1040) == 8u + 1056u);
  BOOST_TEST(f.wire_bytes(8) == 104u);
  BOOST_TEST(f.wire_bytes(0) == 104u);
}

// The paper's pipeline between two TNIs: A's normal-mode queue puts two segments to B's
// session queue with SPS 1; B's queue holds its two forwarding puts (back to A, SPS 0) from
// the start but sends each only after that segment's notice.
BOOST_AUTO_TEST_CASE(an_arrival_releases_the_forwarding_put) {
  bench t;
  const uint32_t qa = t.a->open_queue(queue_mode::normal);
  const uint32_t qa_rx = t.a->open_queue(queue_mode::session);  // receives B's puts (SPS 0)
  const uint32_t qb = t.b->open_queue(queue_mode::session);
  BOOST_TEST(t.b->enqueue(qb, put(0, qa_rx, 0, 5000, 0)));
  BOOST_TEST(t.b->enqueue(qb, put(0, qa_rx, 5000, 5000, 0)));
  BOOST_TEST(t.a->enqueue(qa, put(1, qb, 0, 5000, 1)));
  BOOST_TEST(t.a->enqueue(qa, put(1, qb, 5000, 5000, 1)));
  sc_core::sc_start();

  BOOST_TEST_REQUIRE(t.rb.arrived.size() == 2u);
  BOOST_TEST_REQUIRE(t.rb.done.size() == 2u);
  BOOST_TEST_REQUIRE(t.ra.arrived.size() == 2u);
  BOOST_TEST(t.ra.done.size() == 2u);
  // Each forwarding put is done after its segment's notice, and the second only after the
  // second notice.
  BOOST_TEST(t.rb.done[0].at_ps > t.rb.arrived[0].at_ps);
  BOOST_TEST(t.rb.done[1].at_ps > t.rb.arrived[1].at_ps);
  BOOST_TEST(t.rb.done[0].offset == 0u);
  BOOST_TEST(t.rb.done[1].offset == 5000u);
  BOOST_TEST(t.ra.arrived[1].offset == 5000u);
  // Timing of the first segment by hand: the descriptor fetch (300 ns), three frames of 1992,
  // 1992 and 1064 B at 80 ps per byte, the link's 10 ns, then the receive time (300 ns).
  const uint64_t frames_ps = (1992 + 1992 + 1064) * 80;
  BOOST_TEST(t.rb.arrived[0].at_ps == 300 * k_ns + frames_ps + 10 * k_ns + 300 * k_ns);
  // B's put starts 300 ns after the notice and is done when its last frame is handed to the
  // link, after the first two.
  BOOST_TEST(t.rb.done[0].at_ps == t.rb.arrived[0].at_ps + 300 * k_ns + (1992 + 1992) * 80);
  // A's second put is fetched when its first put's last frame is handed to the link (the
  // fetch overlaps that frame): its notice comes two frames and a fetch after the first's.
  BOOST_TEST(t.rb.arrived[1].at_ps == t.rb.arrived[0].at_ps + (1992 + 1992) * 80 + 300 * k_ns);
  BOOST_TEST(t.b->queue(qb).consumer() == 2u);
  BOOST_TEST(t.b->queue(qb).scheduling() == 2u);
  BOOST_TEST(t.a->idle());
  BOOST_TEST(t.b->idle());
  BOOST_TEST(t.a->messages_sent.value == 2u);
  BOOST_TEST(t.a->packets_injected.value == 6u);
  BOOST_TEST(t.a->wire_bytes_sent.value == 2u * (1992 + 1992 + 1064));
}

// A put with SPS 2 releases two of B's three waiting puts and no more; B then reports a
// stall naming the queue and its pointers.
BOOST_AUTO_TEST_CASE(sps_two_releases_exactly_two) {
  bench t;
  const uint32_t qa = t.a->open_queue(queue_mode::normal);
  const uint32_t qa_rx = t.a->open_queue(queue_mode::session);
  const uint32_t qb = t.b->open_queue(queue_mode::session);
  for (uint64_t k = 0; k < 3; ++k) t.b->enqueue(qb, put(0, qa_rx, k * 100, 100, 0));
  t.a->enqueue(qa, put(1, qb, 0, 300, 2));
  sc_core::sc_start();
  BOOST_TEST(t.rb.done.size() == 2u);
  BOOST_TEST(t.ra.arrived.size() == 2u);
  BOOST_TEST(!t.b->idle());
  std::ostringstream os;
  BOOST_TEST(t.b->describe_stall(os));
  BOOST_TEST(os.str().find("queue 0: session queue: producer 3, consumer 2, scheduling 2 (1 of "
                           "2048 entries), head waits for SPS") != std::string::npos,
             os.str());
}

// A full TOQ refuses the host's enqueue and counts it; a normal-mode queue runs at once.
BOOST_AUTO_TEST_CASE(a_full_toq_refuses_the_host) {
  bench t(4);
  const uint32_t qb = t.b->open_queue(queue_mode::session);
  for (uint64_t k = 0; k < 4; ++k) BOOST_TEST(t.b->enqueue(qb, put(0, 0, 0, 8, 0)));
  BOOST_TEST(!t.b->enqueue(qb, put(0, 0, 0, 8, 0)));
  BOOST_TEST(t.b->enqueue_refused.value == 1u);
  BOOST_TEST(t.b->queue(qb).enqueue_refused.value == 1u);
  const uint32_t qa = t.a->open_queue(queue_mode::normal);
  t.a->enqueue(qa, put(1, algorithms::toq_no_queue, 0, 8, 0));
  sc_core::sc_start();
  BOOST_TEST(t.ra.done.size() == 1u);
  BOOST_TEST(t.ra.done[0].at_ps == 300 * k_ns);  // its one frame handed to the link
  BOOST_TEST(t.rb.arrived.size() == 1u);
  BOOST_TEST(t.b->queue(qb).consumer() == 0u);
}

// The waveform shows each queue's three pointers as ring slots: B's session queue 0 ends
// with its scheduling pointer at slot 2, after the two arrivals.
BOOST_AUTO_TEST_CASE(the_vcd_shows_the_queue_pointers) {
  const std::string stem = "/tmp/bcastsim_tni_" + std::to_string(::getpid());
  sc_core::sc_trace_file* vcd = sc_core::sc_create_vcd_trace_file(stem.c_str());
  bench t;
  tlm_net::trace_window w;
  w.file = vcd;
  // Queues first: a TNI traces the queues open when tracing starts.
  const uint32_t qa = t.a->open_queue(queue_mode::normal);
  const uint32_t qb = t.b->open_queue(queue_mode::session);
  t.a->trace(w, "a");
  t.b->trace(w, "b");
  t.b->enqueue(qb, put(0, algorithms::toq_no_queue, 0, 100, 0));
  t.b->enqueue(qb, put(0, algorithms::toq_no_queue, 100, 100, 0));
  t.a->enqueue(qa, put(1, qb, 0, 100, 1));
  t.a->enqueue(qa, put(1, qb, 100, 100, 1));
  sc_core::sc_start();
  sc_core::sc_close_vcd_trace_file(vcd);
  std::ifstream in(stem + ".vcd");
  std::string line, scope, id;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  // "$var wire 32 <id> scheduling [31:0] $end" under b's cq0.
  for (const std::string& l : lines) {
    if (l.find("$scope module b ") != std::string::npos) scope = "b";
    if (l.find("$scope module a ") != std::string::npos) scope = "a";
    if (scope == "b" && id.empty() && l.find(" scheduling ") != std::string::npos) {
      std::istringstream words(l);
      std::string w1, w2, w3;
      words >> w1 >> w2 >> w3 >> id;
    }
  }
  BOOST_TEST_REQUIRE(!id.empty());
  bool saw_two = false;
  for (const std::string& l : lines) saw_two = saw_two || l == "b10 " + id;
  BOOST_TEST(saw_two);
  // Kept to look at (GTKWave) when BCASTSIM_KEEP_TEST_DIRS is set, as the CLI tests do.
  if (std::getenv("BCASTSIM_KEEP_TEST_DIRS") == nullptr) std::remove((stem + ".vcd").c_str());
}

// Two queues with runnable heads and the host's own messages share the engine round robin,
// one put each in turn; host messages keep their MPI sequence numbers and tags.
BOOST_AUTO_TEST_CASE(queues_and_host_messages_take_turns) {
  bench t;
  const uint32_t q0 = t.a->open_queue(queue_mode::normal);
  const uint32_t q1 = t.a->open_queue(queue_mode::normal);
  for (uint64_t k = 0; k < 2; ++k) {
    t.a->enqueue(q0, put(1, algorithms::toq_no_queue, k, 1, 0));
    t.a->enqueue(q1, put(1, algorithms::toq_no_queue, 10 + k, 1, 0));
    hw::message m;
    m.dst = 1;
    m.bytes = 1;
    m.buf_offset = 20 + k;
    m.tag = 7;
    m.collective_id = 3;
    m.seq = static_cast<uint32_t>(k);
    t.a->send_message(m);
  }
  // Queue puts reach the queue client (the MRQ), host messages the host: one log for both.
  struct log final : hw::nic_client, hw::tofu2::tni_client {
    std::vector<std::pair<uint64_t, uint32_t>> got;  // (offset, seq)
    void on_message(network::terminal_id, uint32_t, uint32_t, uint64_t offset, uint64_t,
                    uint32_t seq) override {
      got.emplace_back(offset, seq);
    }
    void on_put_done(uint32_t, const toq_descriptor&) override {}
    void on_put_arrived(network::terminal_id, uint32_t, uint64_t offset, uint64_t) override {
      got.emplace_back(offset, UINT32_MAX);
    }
  } rx;
  t.b->set_client(&rx);
  t.b->set_queue_client(&rx);
  sc_core::sc_start();
  std::vector<uint64_t> order;
  for (const auto& [offset, seq] : rx.got) order.push_back(offset);
  BOOST_TEST((order == std::vector<uint64_t>{0, 10, 20, 1, 11, 21}));
  BOOST_TEST(rx.got[2].second == 0u);  // the host's first message, seq 0
  BOOST_TEST(rx.got[5].second == 1u);
}

// A descriptor the TOQ header cannot carry is refused loudly, not cut to fit.
BOOST_AUTO_TEST_CASE(a_descriptor_beyond_the_header_is_refused) {
  bench t;
  const uint32_t q = t.a->open_queue(queue_mode::normal);
  BOOST_CHECK_THROW(t.a->enqueue(q, put(1, 0, 0, 8, 16)), std::invalid_argument);
  BOOST_CHECK_THROW(t.a->enqueue(q, put(1, 255, 0, 8, 0)), std::invalid_argument);
  BOOST_CHECK_THROW(t.a->enqueue(q + 1, put(1, 0, 0, 8, 0)), std::invalid_argument);
  BOOST_TEST(t.a->enqueue(q, put(1, algorithms::toq_no_queue, 0, 8, 0)));
}
