// hw/traffic: the traffic generator as a block. Its NIC's injection port ends in a sink that
// records every packet and returns its credit at once (or never, to fill the source queue);
// nothing is delivered to the NIC. Whole-network traffic runs are in tests/tb/test_traffic.cpp.
#include "hw/nic/host_nic.h"
#include "hw/traffic/traffic_generator.h"
#include "network/dragonfly.h"
#include "network/routing.h"
#include "network/topology_kind.h"
#include "tlm/null_endpoint.h"
#include "tlm/packet_pool.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <systemc>
#include <vector>

using namespace bcastsim;
using sc_core::sc_time;
using tlm_net::packet;

namespace {

class packet_sink final : public sc_core::sc_module, public tlm_net::fw_if {
 public:
  tlm_net::target_socket in;
  struct arrival {
    network::terminal_id dst;
    uint64_t created_ps;
  };
  std::vector<arrival> got;  // first packets of messages
  bool return_credits = true;

  packet_sink(const sc_core::sc_module_name& name, tlm_net::packet_pool& pool)
      : sc_core::sc_module(name), in("in"), m_pool(pool) {
    in.bind(*this);
  }
  tlm::tlm_sync_enum nb_transport_fw(packet& p, tlm::tlm_phase&, sc_time&) override {
    if (p.first_of_message()) got.push_back(arrival{p.dst, p.created.value()});
    if (return_credits) {
      tlm::tlm_phase c = tlm_net::CREDIT;
      sc_time d = sc_core::SC_ZERO_TIME;
      in->nb_transport_bw(p, c, d);
    }
    m_pool.release(&p);
    return tlm::TLM_ACCEPTED;
  }
  void b_transport(packet&, sc_time&) override {}
  bool get_direct_mem_ptr(packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(packet&) override { return 0; }

 private:
  tlm_net::packet_pool& m_pool;
};

// One terminal: NIC, sink, generator.
struct bench {
  network::dragonfly topo{network::dragonfly_params{}};  // 72 terminals
  std::unique_ptr<network::routing_policy> routing = network::make_routing("minimal", topo);
  tlm_net::packet_pool pool;
  tlm_net::null_endpoint none{"none"};
  std::vector<std::unique_ptr<hw::host_nic>> nics;
  std::vector<std::unique_ptr<packet_sink>> sinks;
  std::vector<std::unique_ptr<hw::traffic_generator>> gens;

  hw::traffic_generator& add(network::terminal_id t, const hw::traffic_params& tp,
                             const std::vector<network::terminal_id>& dst) {
    const std::string k = std::to_string(nics.size());
    nics.push_back(
        std::make_unique<hw::host_nic>(("nic_" + k).c_str(), t, hw::nic_params{}, pool, *routing));
    sinks.push_back(std::make_unique<packet_sink>(("sink_" + k).c_str(), pool));
    nics.back()->out.bind(sinks.back()->in);
    none.out.bind(nics.back()->in);
    gens.push_back(
        std::make_unique<hw::traffic_generator>(("gen_" + k).c_str(), t, tp, *nics.back(), dst));
    return *gens.back();
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(poisson_arrivals_have_the_mean_and_spread_of_an_exponential) {
  bench b;
  const std::vector<network::terminal_id> dst = {1, 3, 6, 8};
  hw::traffic_params tp;
  tp.message_bytes = 1;
  tp.mean_interarrival_ns = 750;
  tp.stop_ns = 750.0 * 40000;
  tp.seed = 42;
  hw::traffic_generator& g = b.add(6, tp, dst);
  sc_core::sc_start();
  BOOST_TEST(g.stopped());
  const auto& got = b.sinks[0]->got;
  BOOST_REQUIRE(got.size() > 30000u);
  BOOST_TEST(g.messages_sent.value == got.size());
  BOOST_TEST(g.dropped_at_source.value == 0u);
  // Inter-arrival times: mean 750 ns, standard deviation = mean (exponential).
  double sum = 0, sq = 0;
  uint64_t prev = 0;
  for (const auto& a : got) {
    const double d = static_cast<double>(a.created_ps - prev) / 1000.0;
    sum += d;
    sq += d * d;
    prev = a.created_ps;
  }
  const double n = static_cast<double>(got.size());
  const double mean = sum / n;
  const double sd = std::sqrt(sq / n - mean * mean);
  BOOST_TEST_MESSAGE("seed 42: " << got.size() << " arrivals, mean " << mean << " ns, sd " << sd);
  BOOST_TEST(std::abs(mean / 750.0 - 1.0) < 0.02);
  BOOST_TEST(std::abs(sd / mean - 1.0) < 0.03);
  // Destinations: uniform over the list, never itself.
  std::map<network::terminal_id, uint64_t> per;
  for (const auto& a : got) ++per[a.dst];
  BOOST_TEST(per.size() == 3u);
  BOOST_TEST(per.count(6) == 0u);
  for (const auto& [t, c] : per) BOOST_TEST(std::abs(c / n * 3.0 - 1.0) < 0.05, "terminal " << t);
}

BOOST_AUTO_TEST_CASE(same_seed_and_terminal_give_the_same_stream) {
  bench b;
  const std::vector<network::terminal_id> dst = {0, 1, 2, 3, 4, 5, 6, 7};
  hw::traffic_params tp;
  tp.mean_interarrival_ns = 200;
  tp.stop_ns = 200.0 * 500;
  tp.seed = 7;
  b.add(3, tp, dst);
  b.add(3, tp, dst);
  tp.seed = 8;
  b.add(3, tp, dst);
  sc_core::sc_start();
  const auto& x = b.sinks[0]->got;
  const auto& y = b.sinks[1]->got;
  const auto& z = b.sinks[2]->got;
  BOOST_REQUIRE(x.size() == y.size());
  bool same = true, differs = x.size() != z.size();
  for (size_t i = 0; i < x.size(); ++i) {
    same = same && x[i].dst == y[i].dst && x[i].created_ps == y[i].created_ps;
    if (i < z.size()) differs = differs || x[i].created_ps != z[i].created_ps;
  }
  BOOST_TEST(same);
  BOOST_TEST(differs);
  for (const auto& a : x) BOOST_TEST(a.dst != 3u);
}

BOOST_AUTO_TEST_CASE(a_full_source_queue_drops_offers_at_the_source) {
  bench b;
  const std::vector<network::terminal_id> dst = {0, 1};
  hw::traffic_params tp;
  tp.message_bytes = 4096;  // 16 KiB of credits: four messages, then the NIC waits forever
  tp.mean_interarrival_ns = 10;
  tp.stop_ns = 10000;
  tp.max_queue_messages = 5;
  hw::traffic_generator& g = b.add(0, tp, dst);
  b.sinks[0]->return_credits = false;
  sc_core::sc_start();
  BOOST_TEST(g.messages_offered.value > 100u);
  BOOST_TEST(g.messages_sent.value == 4u + 5u);  // four injected, five waiting
  BOOST_TEST(g.dropped_at_source.value == g.messages_offered.value - 9u);
  BOOST_TEST(b.nics[0]->queued_messages() == 5u);
}

// CODES's latency, by hand: 1-ns chunks, window end 100 ns. A 512-B packet (16 chunks)
// created at 50 ns with its tail at 90 ns has chunks at 75..90 ns: latencies 25..40 ns, all
// counted. The same packet with its tail at 105 ns has chunks at 90..105 ns; the 10 before
// 100 ns count (latencies 40..49 ns). A 100-B packet is 4 chunks.
BOOST_AUTO_TEST_CASE(codes_latency_counts_each_chunk_that_arrives_before_the_end) {
  bench b;
  const std::vector<network::terminal_id> dst = {0, 1};
  hw::traffic_params tp;
  tp.stop_ns = 0;  // no arrivals: the packets come by hand
  tp.measure_end_ns = 100;
  tp.chunk_ps = 1000;
  hw::traffic_generator& g = b.add(0, tp, dst);
  packet* p = b.pool.acquire();
  p->size_bytes = 512;
  p->created = sc_time(50, sc_core::SC_NS);
  sc_core::sc_start(sc_time(90, sc_core::SC_NS));
  g.on_packet(*p);
  BOOST_TEST(g.codes_chunks.value == 16u);
  BOOST_TEST(g.codes_chunk_ps.value == (25u + 40u) * 16u / 2u * 1000u);
  sc_core::sc_start(sc_time(15, sc_core::SC_NS));  // now 105 ns
  g.on_packet(*p);
  BOOST_TEST(g.codes_chunks.value == 16u + 10u);
  BOOST_TEST(g.codes_chunk_ps.value == (520u + (40u + 49u) * 10u / 2u) * 1000u);
  p->size_bytes = 100;
  p->created = sc_time(90, sc_core::SC_NS);
  sc_core::sc_start(sc_time(1, sc_core::SC_NS));  // now 106 ns: chunks at 103..106, none count
  g.on_packet(*p);
  BOOST_TEST(g.codes_chunks.value == 26u);
  b.pool.release(p);
}
