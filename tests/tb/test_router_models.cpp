// router.model in whole runs (issue 18): the output-queued router (CODES's) drains every
// routing's traffic at overload on the dragonfly, the torus and Galaxyfly (deadlock-free under
// the VC disciplines the input-queued router uses; the watchdog's conservation holds); the
// CODES-like preset (experiments/codes/df72.yaml) saturates where its NIC pacing caps it and
// the input-queued router on the same network does not get there; bad values exit 2.
//
// Every case runs the real binary (one SystemC design per process).
#include "cli_result.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

using namespace bcastsim;
using test::contains;
using test::fresh_dir;
using test::run_cli;

namespace {

using test::run_result;

run_result run(const std::string& args) {
  return test::run_for_json("run", args);
}

const std::string k_df72 = std::string(BCASTSIM_SOURCE_DIR) + "/experiments/codes/df72.yaml";

}  // namespace

BOOST_AUTO_TEST_CASE(output_queued_drains_every_routing_at_overload) {
  // Offered 1.0 for 20 us, then drained: a deadlock would stall the run (exit 1) and a lost
  // packet break conservation.
  const std::string traffic =
      " --set router.model=output_queued --set collective.algorithm=none"
      " --set traffic.load=1.0 --set traffic.measure_ns=20000";
  const std::vector<std::string> cases = {
      "--set traffic.kind=adversarial --set routing.kind=minimal",
      "--set traffic.kind=adversarial --set routing.kind=valiant",
      "--set traffic.kind=adversarial --set routing.kind=adaptive",
      "--set traffic.kind=uniform --set routing.kind=adaptive-codes",
      "--set topology.kind=torus --set traffic.kind=uniform",
      "--set topology.kind=galaxyfly --set traffic.kind=uniform",
  };
  for (const std::string& c : cases) {
    BOOST_TEST_CONTEXT(c) {
      const run_result r = run(c + traffic);
      BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
      BOOST_TEST(r.result["packets"]["injected"] == r.result["packets"]["delivered"]);
      BOOST_TEST(r.result["packets"]["delivered"].get<uint64_t>() > 1000u);
      BOOST_TEST(r.result["config"]["router"]["model"] == "output_queued");
    }
  }
}

BOOST_AUTO_TEST_CASE(codes_preset_saturates_at_its_nic_pacing) {
  // CODES's NIC injects one 32-B chunk per 5.677 + 0.505 + 0.5 ns: at most 0.85 of the link
  // (codes-dragonfly-notes.md §4). Offered 0.9 with minimal routing, the output-queued router
  // accepts close to that cap; the input-queued one on the same network stays far below it
  // (0.645 in experiments/codes/README.md).
  const run_result oq = run(k_df72 + " --set traffic.load=0.9");
  const run_result iq = run(k_df72 + " --set traffic.load=0.9 --set router.model=input_queued");
  BOOST_TEST_REQUIRE(oq.out.code == 0, oq.out.output);
  BOOST_TEST_REQUIRE(iq.out.code == 0, iq.out.output);
  const double cap = 5.6766 / (5.6766 + 0.505 + 0.5);
  const double oq_accepted = oq.result["traffic"]["codes_accepted_load"].get<double>();
  const double iq_accepted = iq.result["traffic"]["codes_accepted_load"].get<double>();
  BOOST_TEST(oq_accepted <= cap);
  BOOST_TEST(oq_accepted > 0.95 * cap);
  BOOST_TEST(iq_accepted < 0.8 * cap);
}

BOOST_AUTO_TEST_CASE(router_model_and_overheads_refuse_bad_values) {
  const test::outcome model =
      run_cli("run -q --out " + fresh_dir() + " --set router.model=wormhole");
  BOOST_TEST(model.code == 2);
  BOOST_TEST(contains(model.output, "router.model"), model.output);
  BOOST_TEST(contains(model.output, "input_queued, output_queued"), model.output);
  for (const std::string key : {"link.local.flit_overhead_ns", "nic.flit_gap_ns"}) {
    const test::outcome o = run_cli("run -q --out " + fresh_dir() + " --set " + key + "=-1");
    BOOST_TEST(o.code == 2, key << ": " << o.output);
    BOOST_TEST(contains(o.output, key), o.output);
  }
}
