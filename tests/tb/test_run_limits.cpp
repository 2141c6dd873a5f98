// Runs that cannot finish or cannot be represented (issue 13): a time limit reached before
// the work is done is diagnosed by block; sizes beyond the 32-bit packet count and offered
// loads far beyond a link are refused as bad input (exit 2, naming the key); analyze refuses
// what run refuses.
#include <boost/test/unit_test.hpp>

#include "cli_runner.h"

#include <string>

using bcastsim::test::contains;
using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;

// Reproduction 3: the limit used to end in SystemC's W571 only, naming nothing.
BOOST_AUTO_TEST_CASE(time_limit_names_the_blocks_holding_work) {
  const outcome o = run_cli("run -q --set sim.max_time_ns=1 --out " + fresh_dir());
  BOOST_TEST(o.code == 1, o.output);
  BOOST_TEST(!contains(o.output, "W571"), o.output);
  BOOST_TEST(contains(o.output, "sim.max_time_ns"), o.output);
  BOOST_TEST(contains(o.output, "fabric.host_0 (rank 0)"), o.output);
  BOOST_TEST(contains(o.output, "ops done"), o.output);
}

// Reproduction 5: 2^32 + 1 packets used to wrap to 1 and end in a false "deadlock".
BOOST_AUTO_TEST_CASE(more_than_2_to_the_32_packets_per_message_is_refused) {
  const std::string sets =
      " --set network.packet_bytes=1 --set collective.bytes=4294967297"
      " --set job.placement=contiguous --set job.ranks=2 --out " +
      fresh_dir();
  for (const char* command : {"run -q", "analyze -q"}) {
    const outcome o = run_cli(command + sets);
    BOOST_TEST(o.code == 2, command << ": " << o.output);
    BOOST_TEST(contains(o.output, "collective.bytes = 4294967297"), o.output);
    BOOST_TEST(contains(o.output, "at most 4294967295 packets per message"), o.output);
  }
}

// Smaller point: traffic.mean_interarrival_ns = 0.001 ran without end (an arrival per ps at
// every background terminal, all dropped).
BOOST_AUTO_TEST_CASE(background_traffic_far_beyond_the_link_is_refused) {
  const outcome o = run_cli(
      "run -q --set traffic.kind=background --set traffic.mean_interarrival_ns=0.001 "
      "--set job.placement=contiguous --set job.ranks=64 --out " +
      fresh_dir());
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "traffic.mean_interarrival_ns = 0.001"), o.output);
  BOOST_TEST(contains(o.output, "allowed: at least"), o.output);
}

// Smaller point: analyze accepted a Mini Packet larger than a packet that run refuses.
BOOST_AUTO_TEST_CASE(analyze_refuses_an_oversized_mini_packet_as_run_does) {
  const std::string sets =
      " --set collective.algorithm=ragasa --set ragasa.mini_packet_child_bytes=512 --out " +
      fresh_dir();
  const outcome run = run_cli("run -q" + sets);
  const outcome analyze = run_cli("analyze -q" + sets);
  BOOST_TEST(run.code == 2, run.output);
  BOOST_TEST(analyze.code == 2, analyze.output);
  BOOST_TEST(contains(run.output, "ragasa.mini_packet_child_bytes"), run.output);
  BOOST_TEST(analyze.output == run.output);
}
