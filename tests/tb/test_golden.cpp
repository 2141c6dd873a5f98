// Golden results (label golden): every run and analyze below must give exactly its committed
// reference in tests/golden/ (see golden.h). The set covers the default scenario, every
// broadcast algorithm, every routing, the global-link arrangements and a dragonfly with
// several links per group pair, background and synthetic traffic, Ragasa (SystemC model;
// the RTL model is in test_golden_rtl.cpp), block statistics, link traffic, and the
// 5,256-terminal network's analyze.
#include "golden.h"

using bcastsim::test::check_golden;

namespace {
const std::string src = BCASTSIM_SOURCE_DIR;
const std::string random32 = " --set job.placement=random --set job.ranks=32";
}  // namespace

BOOST_AUTO_TEST_CASE(run_default) {
  check_golden("run_default", "run", "");
}
BOOST_AUTO_TEST_CASE(run_binomial_random32_64k) {
  check_golden("run_binomial_random32_64k", "run",
               "--set collective.bytes=65536 --set collective.root=5" + random32);
}
BOOST_AUTO_TEST_CASE(run_glf) {
  check_golden("run_glf", "run", "--set collective.algorithm=glf" + random32);
}
BOOST_AUTO_TEST_CASE(run_llf) {
  check_golden("run_llf", "run", "--set collective.algorithm=llf" + random32);
}
BOOST_AUTO_TEST_CASE(run_forest) {
  check_golden("run_forest", "run", "--set collective.algorithm=forest" + random32);
}
BOOST_AUTO_TEST_CASE(run_scatter_rd_allgather) {
  check_golden("run_scatter_rd_allgather", "run",
               "--set collective.algorithm=scatter-rd-allgather --set collective.bytes=65536" +
                   random32);
}
BOOST_AUTO_TEST_CASE(run_scatter_ring_allgather) {
  check_golden("run_scatter_ring_allgather", "run",
               "--set collective.algorithm=scatter-ring-allgather --set collective.bytes=65536");
}
BOOST_AUTO_TEST_CASE(run_mpich_auto) {
  check_golden("run_mpich_auto", "run",
               "--set collective.algorithm=mpich-auto --set collective.bytes=200000 "
               "--set collective.random_root=on --seed 7");
}
BOOST_AUTO_TEST_CASE(run_ragasa_systemc) {
  check_golden("run_ragasa_systemc", "run",
               src + "/experiments/ragasa/df72.yaml --set ragasa.relay=unit");
}
// The paper's reading (ragasa.relay: node, the default), one root and every node a root.
BOOST_AUTO_TEST_CASE(run_ragasa_node_relay) {
  check_golden("run_ragasa_node_relay", "run", src + "/experiments/ragasa/df72.yaml");
}
BOOST_AUTO_TEST_CASE(run_ragasa_all_roots) {
  check_golden("run_ragasa_all_roots", "run",
               src + "/experiments/ragasa/df72.yaml --set collective.roots=all "
                     "--set collective.bytes=2048");
}
BOOST_AUTO_TEST_CASE(run_ragasa_small_buffers) {
  check_golden("run_ragasa_small_buffers", "run",
               src + "/experiments/ragasa/df72.yaml --set collective.bytes=65536 "
                     "--set ragasa.working_memory_bytes=2048 --set ragasa.rx_queue_packets=2 "
                     "--set ragasa.descriptor_threshold_bytes=1024 "
                     "--set ragasa.relay=unit");
}
BOOST_AUTO_TEST_CASE(run_nonminimal_background) {
  check_golden("run_nonminimal_background", "run",
               "--set routing.kind=nonminimal --set traffic.kind=background" + random32);
}
BOOST_AUTO_TEST_CASE(run_adaptive_background) {
  check_golden("run_adaptive_background", "run",
               "--set routing.kind=adaptive --set traffic.kind=background "
               "--set collective.algorithm=forest" +
                   random32);
}
BOOST_AUTO_TEST_CASE(run_uniform_minimal) {
  check_golden("run_uniform_minimal", "run",
               src + "/experiments/traffic/df72-uniform.yaml --set traffic.measure_ns=10000");
}
BOOST_AUTO_TEST_CASE(run_adversarial_adaptive) {
  check_golden("run_adversarial_adaptive", "run",
               src + "/experiments/traffic/df72-adversarial.yaml --set routing.kind=adaptive "
                     "--set traffic.measure_ns=10000");
}
BOOST_AUTO_TEST_CASE(run_relative_g5_valiant) {
  check_golden("run_relative_g5_valiant", "run",
               "--set topology.arrangement=relative --set topology.g=5 "
               "--set routing.kind=valiant --set collective.algorithm=glf");
}
BOOST_AUTO_TEST_CASE(run_g5_minimal_block_stats_link_traffic) {
  check_golden("run_g5_minimal_block_stats_link_traffic", "run",
               "--set topology.g=5 --set output.block_stats=on --set output.link_traffic=on "
               "--set collective.algorithm=llf");
}
BOOST_AUTO_TEST_CASE(run_ragasa_block_stats) {
  check_golden("run_ragasa_block_stats", "run",
               "--set collective.algorithm=ragasa --set output.block_stats=on "
               "--set collective.bytes=4096 --set ragasa.relay=unit" +
                   random32);
}
BOOST_AUTO_TEST_CASE(analyze_default) {
  check_golden("analyze_default", "analyze", "");
}
BOOST_AUTO_TEST_CASE(analyze_ragasa) {
  check_golden("analyze_ragasa", "analyze",
               "--set collective.algorithm=ragasa --set ragasa.relay=unit" + random32);
}
BOOST_AUTO_TEST_CASE(analyze_ragasa_node_relay) {
  check_golden("analyze_ragasa_node_relay", "analyze",
               "--set collective.algorithm=ragasa" + random32);
}
BOOST_AUTO_TEST_CASE(analyze_df5k_binomial) {
  check_golden("analyze_df5k_binomial", "analyze", src + "/experiments/topology-aware/df5k.yaml");
}
BOOST_AUTO_TEST_CASE(analyze_df5k_forest) {
  check_golden("analyze_df5k_forest", "analyze",
               src + "/experiments/topology-aware/df5k.yaml --set collective.algorithm=forest "
                     "--set job.ranks=1024");
}
BOOST_AUTO_TEST_CASE(analyze_df5k_glf_valiant) {
  check_golden("analyze_df5k_glf_valiant", "analyze",
               src + "/experiments/topology-aware/df5k.yaml --set collective.algorithm=glf "
                     "--set routing.kind=nonminimal --set job.ranks=2048");
}
