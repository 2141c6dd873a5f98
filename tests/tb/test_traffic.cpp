// Traffic generators in whole runs: background traffic beside a broadcast, synthetic
// (uniform, adversarial) traffic without one. In-process runs use one design per test case;
// comparisons of two runs use the bcastsim binary.
#include "cli_runner.h"
#include "tb/fabric.h"
#include "tb/plan.h"
#include "tb/simulation.h"
#include "tb/traffic_report.h"
#include "tb/watchdog.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace bcastsim;
using tb::config;
using tb::run_scenario;

namespace {

// Sits between a NIC and its generator: checks every delivered packet, then passes it on.
class packet_check final : public hw::nic_client {
 public:
  packet_check(hw::traffic_generator& gen, std::function<bool(const tlm_net::packet&)> ok)
      : m_gen(gen), m_ok(std::move(ok)) {}
  void on_message(network::terminal_id src, uint32_t collective_id, uint32_t tag, uint64_t offset,
                  uint64_t bytes, uint32_t seq) override {
    m_gen.on_message(src, collective_id, tag, offset, bytes, seq);
  }
  void on_packet(const tlm_net::packet& p) override {
    ++packets;
    if (!m_ok(p)) ++bad;
    m_gen.on_packet(p);
  }
  uint64_t packets = 0, bad = 0;

 private:
  hw::traffic_generator& m_gen;
  std::function<bool(const tlm_net::packet&)> m_ok;
};

// Elaborates the scenario, puts a check on every generator's NIC, runs it to the end, and
// returns the packets checked (all passed, or the test failed).
uint64_t run_checked(const config& cfg,
                     const std::function<bool(const network::topology&, const network::placement&,
                                              const tlm_net::packet&)>& ok) {
  tb::scenario s = tb::make_scenario(cfg);
  tb::plan p = tb::make_plan(s);
  hw::collective_progress progress;
  progress.reset(p.prog);
  tb::fabric fab("fabric", s, *p.topo, *p.routing, *p.place, p.prog, progress);
  std::vector<std::unique_ptr<packet_check>> checks;
  for (auto& g : fab.generators) {
    checks.push_back(std::make_unique<packet_check>(
        *g, [&](const tlm_net::packet& pkt) { return ok(*p.topo, *p.place, pkt); }));
    fab.nics[g->terminal()]->set_client(checks.back().get());
  }
  sc_core::sc_start();
  BOOST_TEST(tb::check_finished(fab, progress, s) == "");
  uint64_t packets = 0;
  for (const auto& c : checks) {
    BOOST_TEST(c->bad == 0u);
    packets += c->packets;
  }
  return packets;
}

struct outcome {
  int code = -1;
  nlohmann::json result;
};

outcome run_cli(const std::string& args) {
  const std::string dir = test::fresh_dir();
  const std::string cmd =
      std::string(BCASTSIM_BINARY) + " run -q --out " + dir + " " + args + " 2>&1";
  outcome o;
  const int status = std::system(cmd.c_str());
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (o.code == 0) {
    std::ifstream in(dir + "/result.json");
    o.result = nlohmann::json::parse(in);
  }
  return o;
}

const char* synthetic =
    "--set collective.algorithm=none --set topology.a=4 --set topology.p=2 "
    "--set topology.h=2 --set routing.kind=minimal --set traffic.load=0.5 ";

}  // namespace

BOOST_AUTO_TEST_CASE(background_traffic_during_a_broadcast_completes_and_conserves_packets) {
  config c;
  c.set("job.placement=contiguous");
  c.set("job.ranks=36");
  c.set("traffic.kind=background");
  const auto r = run_scenario(c);
  BOOST_TEST(r["collective"]["ranks_complete"].get<int>() == 36);
  const auto& t = r["traffic"];
  BOOST_TEST(t["kind"] == "background");
  BOOST_TEST(t["generators"].get<int>() == 36);
  BOOST_TEST(t["messages_sent"].get<uint64_t>() > 0u);
  BOOST_TEST(t["messages_delivered"] == t["messages_sent"]);
  BOOST_TEST(r["packets"]["injected"] == r["packets"]["delivered"]);
  // 35 broadcast messages of 32 packets, the rest is background (1024 B = 2 packets).
  BOOST_TEST(r["packets"]["injected"].get<uint64_t>() ==
             35u * 32u + 2u * t["messages_sent"].get<uint64_t>());
  // Generation stopped when the broadcast completed: nothing created after the last rank.
  BOOST_TEST(r["sim_time_ns"].get<double>() <
             r["collective"]["completion_ns"].get<double>() + 20000.0);
}

BOOST_AUTO_TEST_CASE(background_destinations_are_outside_the_job_and_never_the_source) {
  config c;
  c.set("job.placement=random");
  c.set("job.ranks=30");
  c.set("traffic.kind=background");
  const uint64_t n = run_checked(
      c, [](const network::topology&, const network::placement& pl, const tlm_net::packet& p) {
        return p.src != p.dst && pl.rank_of(p.src) == network::invalid_id &&
               pl.rank_of(p.dst) == network::invalid_id;
      });
  BOOST_TEST(n > 100u);
}

BOOST_AUTO_TEST_CASE(adversarial_destinations_are_in_the_next_group) {
  config c;
  c.set("collective.algorithm=none");
  c.set("traffic.kind=adversarial");
  c.set("traffic.load=0.05");
  c.set("traffic.measure_ns=5000");
  const uint64_t n = run_checked(c, [](const network::topology& topo, const network::placement&,
                                       const tlm_net::packet& p) {
    return topo.group_of_terminal(p.dst) == (topo.group_of_terminal(p.src) + 1) % topo.num_groups();
  });
  BOOST_TEST(n > 100u);
}

BOOST_AUTO_TEST_CASE(uniform_traffic_at_low_load_is_accepted) {
  config c;
  c.set("collective.algorithm=none");
  c.set("traffic.kind=uniform");
  c.set("traffic.load=0.1");
  const auto r = run_scenario(c);
  const auto& t = r["traffic"];
  BOOST_TEST(t["offered_load"].get<double>() == 0.1);
  BOOST_TEST(std::abs(t["accepted_load"].get<double>() / 0.1 - 1.0) < 0.1);
  BOOST_TEST(t["dropped_at_source"].get<uint64_t>() == 0u);
  BOOST_TEST(t["messages_measured"].get<uint64_t>() > 1000u);
  const auto& l = t["latency_ns"];
  BOOST_TEST(l["p50"].get<double>() > 0.0);
  BOOST_TEST(l["p50"].get<double>() <= l["p90"].get<double>());
  BOOST_TEST(l["p90"].get<double>() <= l["p99"].get<double>());
  BOOST_TEST(l["p99"].get<double>() <= l["max"].get<double>());
  BOOST_TEST(r["packets"]["injected"] == r["packets"]["delivered"]);
  BOOST_TEST(r["collective"]["algorithm"] == "none");
}

BOOST_AUTO_TEST_CASE(exact_nearest_rank_percentiles) {
  const std::vector<uint64_t> v = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  BOOST_TEST(tb::percentile(v, 50) == 50u);
  BOOST_TEST(tb::percentile(v, 90) == 90u);
  BOOST_TEST(tb::percentile(v, 99) == 100u);
  BOOST_TEST(tb::percentile(v, 1) == 10u);
  BOOST_TEST(tb::percentile({}, 50) == 0u);
}

// The report's k-way merge against the one sorted vector it replaced: the same percentiles,
// and the same sum to the bit (added in the same order).
BOOST_AUTO_TEST_CASE(merged_runs_summarize_as_their_sorted_union) {
  std::mt19937_64 rng(7);
  std::vector<std::vector<uint64_t>> runs(50);
  std::vector<uint64_t> all;
  for (size_t i = 0; i < runs.size(); ++i) {
    const size_t n = i % 7 == 0 ? 0 : rng() % 500;  // some generators measured nothing
    for (size_t k = 0; k < n; ++k) runs[i].push_back(1000 + rng() % 2000000 / (1 + rng() % 50));
    std::sort(runs[i].begin(), runs[i].end());
    all.insert(all.end(), runs[i].begin(), runs[i].end());
  }
  std::sort(all.begin(), all.end());
  double sum = 0;
  for (const uint64_t v : all) sum += static_cast<double>(v);
  std::vector<const std::vector<uint64_t>*> ptrs;
  for (const auto& r : runs) ptrs.push_back(&r);
  const tb::latency_summary m = tb::summarize_sorted_runs(ptrs);
  BOOST_TEST(m.count == all.size());
  BOOST_TEST(m.sum_ps == sum);  // exact: same order of addition
  BOOST_TEST(m.p50 == tb::percentile(all, 50));
  BOOST_TEST(m.p90 == tb::percentile(all, 90));
  BOOST_TEST(m.p99 == tb::percentile(all, 99));
  BOOST_TEST(m.max == all.back());
  const tb::latency_summary none = tb::summarize_sorted_runs({ptrs[0]});
  BOOST_TEST(none.count == 0u);
  BOOST_TEST(none.p99 == 0u);
}

BOOST_AUTO_TEST_CASE(adversarial_traffic_under_minimal_routing_is_slower_than_uniform) {
  const outcome u = run_cli(std::string(synthetic) + "--set traffic.kind=uniform");
  const outcome a = run_cli(std::string(synthetic) + "--set traffic.kind=adversarial");
  BOOST_REQUIRE(u.code == 0);
  BOOST_REQUIRE(a.code == 0);
  const auto& ul = u.result["traffic"]["latency_ns"];
  const auto& al = a.result["traffic"]["latency_ns"];
  BOOST_TEST(al["avg"].get<double>() > ul["avg"].get<double>());
  BOOST_TEST(al["p99"].get<double>() > ul["p99"].get<double>());
  // One global link per group pair carries all of a group's adversarial traffic.
  BOOST_TEST(a.result["traffic"]["accepted_load"].get<double>() <
             u.result["traffic"]["accepted_load"].get<double>());
}

BOOST_AUTO_TEST_CASE(the_same_seed_gives_identical_traffic_results) {
  const std::string args = std::string(synthetic) + "--set traffic.kind=uniform --seed 5";
  const outcome x = run_cli(args);
  const outcome y = run_cli(args);
  const outcome z = run_cli(std::string(synthetic) + "--set traffic.kind=uniform --seed 6");
  BOOST_REQUIRE(x.code == 0);
  BOOST_REQUIRE(y.code == 0);
  BOOST_REQUIRE(z.code == 0);
  BOOST_TEST(x.result["traffic"] == y.result["traffic"]);
  BOOST_TEST(x.result["packets"] == y.result["packets"]);
  BOOST_TEST(x.result["traffic"] != z.result["traffic"]);
}

BOOST_AUTO_TEST_CASE(traffic_keys_are_checked) {
  auto bad = [](const std::string& key, const std::string& value, const std::string& named) {
    config c;
    try {
      c.set(key, value);
      tb::make_scenario(c);
    } catch (const tb::config_error& e) {
      BOOST_TEST(e.key == named, key << "=" << value << " named " << e.key);
      return;
    }
    BOOST_ERROR(key << "=" << value << " was accepted");
  };
  bad("traffic.kind", "bursty", "traffic.kind");
  bad("traffic.load", "0", "traffic.load");
  bad("traffic.load", "1.01", "traffic.load");
  bad("traffic.max_queue_messages", "0", "traffic.max_queue_messages");
  bad("collective.algorithm", "none", "collective.algorithm");  // needs synthetic traffic
  bad("traffic.kind", "uniform", "traffic.kind");               // needs algorithm none
  config ok;
  ok.set("collective.algorithm=none");
  ok.set("traffic.kind=adversarial");
  BOOST_CHECK_NO_THROW(tb::make_scenario(ok));
}

BOOST_AUTO_TEST_CASE(random_root_is_drawn_from_the_seed_among_the_ranks) {
  config c;
  c.set("collective.random_root=on");
  c.set("job.placement=contiguous");
  c.set("job.ranks=20");
  c.set("seed=3");
  const tb::scenario a = tb::make_scenario(c);
  BOOST_TEST(a.root < 20u);
  BOOST_TEST(tb::make_scenario(c).root == a.root);
  bool moved = false;
  for (int seed = 4; seed < 12 && !moved; ++seed) {
    c.set("seed", std::to_string(seed));
    moved = tb::make_scenario(c).root != a.root;
  }
  BOOST_TEST(moved);
}
