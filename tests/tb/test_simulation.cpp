// Whole runs in-process (one per test case, so one SystemC design per process).
#include "tb/simulation.h"

#include <boost/test/unit_test.hpp>

using bcastsim::tb::config;
using bcastsim::tb::run_scenario;

BOOST_AUTO_TEST_CASE(default_scenario_delivers_all_bytes_to_all_ranks) {
  const auto r = run_scenario(config());
  // 71 messages of 16 KiB in 512-byte packets: 32 packets each.
  BOOST_TEST(r["collective"]["ranks"].get<int>() == 72);
  BOOST_TEST(r["collective"]["messages"].get<int>() == 71);
  BOOST_TEST(r["collective"]["ranks_complete"].get<int>() == 72);
  BOOST_TEST(r["packets"]["injected"].get<int>() == 71 * 32);
  BOOST_TEST(r["packets"]["delivered"].get<int>() == 71 * 32);
  // Every message leaves one terminal link and enters another.
  BOOST_TEST(r["traversals"]["terminal"]["messages"].get<int>() == 2 * 71);
  BOOST_TEST(r["traversals"]["terminal"]["packets"].get<int>() == 2 * 71 * 32);
  BOOST_TEST(r["collective"]["completion_ns"].get<double>() > 0.0);
  BOOST_TEST(r["config"]["topology"]["g"].get<int>() == 9);
  BOOST_TEST(r["schema"].get<std::string>() == "bcastsim.result/2");
  // A lower bound: the root sends ceil(log2 72) = 7 messages one after the other, each
  // serialised on its 5.25 GiB/s terminal link.
  const double ser_ns = 16384 / (5.25 * 1073741824.0) * 1e9;
  BOOST_TEST(r["collective"]["completion_ns"].get<double>() > 7 * ser_ns);
}

BOOST_AUTO_TEST_CASE(random_placement_conserves_packets_with_small_buffers) {
  config c;
  c.set("job.placement=random");
  c.set("job.ranks=50");
  c.set("collective.root=17");
  c.set("collective.bytes=5000");  // 9 packets, the last one shorter
  c.set("router.vc_buffer_bytes.local=512");
  c.set("router.vc_buffer_bytes.global=512");
  c.set("router.vc_buffer_bytes.terminal=512");
  const auto r = run_scenario(c);
  BOOST_TEST(r["collective"]["messages"].get<int>() == 49);
  BOOST_TEST(r["packets"]["injected"].get<int>() == 49 * 10);
  BOOST_TEST(r["packets"]["delivered"] == r["packets"]["injected"]);
}

BOOST_AUTO_TEST_CASE(relative_arrangement_and_wider_dragonfly_run) {
  config c;
  c.set("topology.a=8");
  c.set("topology.p=4");
  c.set("topology.h=4");
  c.set("topology.g=11");
  c.set("topology.arrangement=relative");
  c.set("collective.bytes=1024");
  c.set("collective.root=100");
  const auto r = run_scenario(c);
  BOOST_TEST(r["collective"]["ranks"].get<int>() == 11 * 8 * 4);
  BOOST_TEST(r["packets"]["delivered"].get<int>() == (11 * 8 * 4 - 1) * 2);
  // Minimal routing: at most 4 routers (local, global, local hops).
  BOOST_TEST(r["packets"]["hops_avg"].get<double>() <= 4.0);
  BOOST_TEST(r["traversals"]["global"]["messages"].get<int>() > 0);
}

BOOST_AUTO_TEST_CASE(block_statistics_add_up_to_the_link_traversals) {
  config c;
  c.set("output.block_stats=on");
  c.set("collective.bytes=2048");
  const auto r = run_scenario(c);
  const auto& blocks = r["blocks"];
  BOOST_TEST(blocks.contains("fabric.router_0"));
  BOOST_TEST(blocks.contains("fabric.nic_71"));
  BOOST_TEST(blocks.contains("fabric.host_0"));
  BOOST_TEST(blocks["fabric.router_0"]["wait_ps"].contains("mean"));
  // Every router grant crosses one link; the other link crossings are NIC injections.
  uint64_t switched = 0, link_packets = 0;
  for (const auto& [name, stats] : blocks.items()) {
    if (name.rfind("fabric.router_", 0) == 0) switched += stats["packets"].get<uint64_t>();
    if (name.rfind("fabric.link_", 0) == 0) link_packets += stats["packets"].get<uint64_t>();
  }
  const auto& t = r["traversals"];
  const uint64_t all = t["terminal"]["packets"].get<uint64_t>() +
                       t["local"]["packets"].get<uint64_t>() +
                       t["global"]["packets"].get<uint64_t>();
  BOOST_TEST(link_packets == all);
  BOOST_TEST(switched == all - r["packets"]["injected"].get<uint64_t>());
  // The root's host spent 7 send overheads of 300 ns.
  BOOST_TEST(blocks["fabric.host_0"]["cpu_busy_ps"].get<uint64_t>() == 7u * 300000u);
}

// MPICH scatter + allgather broadcasts re-deliver blocks (the root gets blocks back): every
// rank still ends up holding every byte, and every packet is delivered.
BOOST_AUTO_TEST_CASE(scatter_ring_allgather_completes_on_the_default_scenario) {
  config c;
  c.set("collective.algorithm=scatter-ring-allgather");
  c.set("collective.bytes=65536");
  const auto r = run_scenario(c);
  const int p = 72;
  BOOST_TEST(r["collective"]["ranks"].get<int>() == p);
  BOOST_TEST(r["collective"]["ranks_complete"].get<int>() == p);
  // 911-byte blocks: every rank gets one in the scatter (p - 1 messages), then the ring's
  // p (p - 1) sendrecv transfers.
  BOOST_TEST(r["collective"]["messages"].get<int>() == (p - 1) + p * (p - 1));
  BOOST_TEST(r["packets"]["delivered"] == r["packets"]["injected"]);
  BOOST_TEST(r["collective"]["completion_ns"].get<double>() > 0.0);
}

BOOST_AUTO_TEST_CASE(scatter_rd_allgather_completes_on_64_contiguous_ranks) {
  config c;
  c.set("collective.algorithm=scatter-rd-allgather");
  c.set("job.ranks=64");
  c.set("job.placement=contiguous");
  const auto r = run_scenario(c);
  BOOST_TEST(r["collective"]["ranks"].get<int>() == 64);
  BOOST_TEST(r["collective"]["ranks_complete"].get<int>() == 64);
  // 63 scatter messages, then log2(64) = 6 sendrecv exchanges per rank.
  BOOST_TEST(r["collective"]["messages"].get<int>() == 63 + 64 * 6);
  BOOST_TEST(r["packets"]["delivered"] == r["packets"]["injected"]);
}
