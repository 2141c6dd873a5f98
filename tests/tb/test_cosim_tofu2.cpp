// Co-simulation of the Tofu2 command queue (tb/cosim/cq_lockstep.h): the verilated RTL
// (rtl/tofu2_cq.sv) against its SystemC twin, cycle by cycle, on random stimulus over ring
// sizes and both modes, and on a replay of a broadcast relay's queue; the fault build (the
// consumer passing the scheduling pointer by one) must diverge. Label cosim; skipped, with the
// reason, when the build has no Verilator.
#include "algorithms/tofu2_bcast.h"
#include "cli_runner.h"
#include "network/placement.h"
#include "network/torus.h"
#include "tb/cosim/cq_lockstep.h"

#include <boost/test/unit_test.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::tb::cosim;
using hw::tofu2::cq_model;
using hw::tofu2::queue_mode;

BOOST_AUTO_TEST_CASE(rtl_command_queue_matches_its_twin_on_random_stimulus) {
  for (const queue_mode mode : {queue_mode::session, queue_mode::normal}) {
    for (const uint64_t entries : {4ull, 16ull, 2048ull}) {
      for (const uint64_t seed : {1ull, 2ull, 3ull}) {
        cq_lockstep_options o;
        o.mode = mode;
        o.entries = entries;
        o.seed = seed;
        // A large ring fills only when the host outpaces the engine.
        if (entries == 2048) o.retire_per_mille = 300;
        const cq_lockstep_report r = run_cq_lockstep(o);
        BOOST_TEST_CONTEXT(to_string(mode) << " entries " << entries << " seed " << seed) {
          BOOST_TEST(r.ok, r.divergence);
          BOOST_TEST(r.cycles == o.cycles);
          BOOST_TEST(r.coverage.retires > 1000u);
          BOOST_TEST(r.coverage.wraps > 0u);
          if (entries <= 16) BOOST_TEST(r.coverage.refused > 0u);
          // A large ring lets SPS run far ahead of the consumer: waits are the small rings'.
          if (mode == queue_mode::session && entries <= 16) {
            BOOST_TEST(r.coverage.wait_cycles > 0u);
          }
        }
      }
    }
  }
}

// The fault build lets the consumer run one descriptor past the scheduling pointer: the
// lock step sees it in session mode, where it matters, and not in normal mode.
BOOST_AUTO_TEST_CASE(the_fault_build_is_caught) {
  cq_lockstep_options o;
  o.dut = cq_model::rtl_fault_pass_scheduling;
  const cq_lockstep_report r = run_cq_lockstep(o);
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.divergence.find("states differ") != std::string::npos, r.divergence);
  BOOST_TEST(r.cycles < 100u);
  o.mode = queue_mode::normal;
  BOOST_TEST(run_cq_lockstep(o).ok);
}

BOOST_AUTO_TEST_CASE(the_twin_checks_itself) {
  cq_lockstep_options o;
  o.dut = cq_model::systemc;
  BOOST_TEST(run_cq_lockstep(o).ok);
}

// Replay: the relay queue of rank 1 in a four-rank pipeline of 40 segments, as the TNI would
// drive it: the host enqueues the sequence while segments arrive (SPS 1 each) and the engine
// retires whatever may run. Every command runs, and the RTL writes a VCD of its pointers.
BOOST_AUTO_TEST_CASE(a_relay_queue_replays_in_lock_step) {
  network::torus_params tp;
  tp.x = 4;
  tp.y = tp.z = 1;
  const network::torus t(tp);
  network::placement_params pp;
  pp.kind = network::placement_kind::contiguous;
  pp.ranks = 4;
  const network::placement place(t, pp);
  const algorithms::tofu2_plan plan =
      algorithms::make_tofu2_plan(algorithms::tofu2_algorithm::pipeline, t, place, 0, 40000, 40);
  const auto& commands = plan.ranks[1].queues[0].commands;
  std::vector<hw::tofu2::cq_cycle> cycles;
  for (size_t i = 0; i < 3 * commands.size() + 10; ++i) {
    hw::tofu2::cq_cycle c;
    c.enqueue = i < commands.size();
    if (c.enqueue) c.descriptor = commands[i];
    c.sps_valid = i % 3 == 0 && i / 3 < commands.size();  // a segment every third cycle
    c.sps = plan.ranks[0].queues[0].commands[0].sps;
    c.retire = true;
    cycles.push_back(c);
  }
  const std::string vcd = "/tmp/bcastsim_cq_" + std::to_string(::getpid()) + ".vcd";
  cq_lockstep_options o;
  o.entries = 2048;
  o.vcd_path = vcd;
  const cq_lockstep_report r = run_cq_lockstep(cycles, o);
  BOOST_TEST(r.ok, r.divergence);
  BOOST_TEST(r.coverage.retires == commands.size());
  BOOST_TEST(r.coverage.wait_cycles > 0u);
  std::ifstream in(vcd);
  std::stringstream text;
  text << in.rdbuf();
  BOOST_TEST(text.str().find("scheduling") != std::string::npos);
  // Kept to look at (GTKWave) when BCASTSIM_KEEP_TEST_DIRS is set, as the CLI tests do.
  if (std::getenv("BCASTSIM_KEEP_TEST_DIRS") == nullptr) std::remove(vcd.c_str());
}

// The RTL holds the hardware's ring sizes only: powers of two up to its 2^11 entries.
BOOST_AUTO_TEST_CASE(the_rtl_refuses_ring_sizes_it_cannot_hold) {
  for (const uint64_t entries : {0ull, 3ull, 12ull, 4096ull}) {
    BOOST_CHECK_THROW(hw::tofu2::make_command_queue(cq_model::rtl, entries, queue_mode::session),
                      std::invalid_argument);
  }
  BOOST_TEST((hw::tofu2::make_command_queue(cq_model::rtl, 8, queue_mode::session) != nullptr));
}

// The RTL's pointers are 32-bit counts: starting 1,000 below 2^32, they wrap within the run
// and the queue must go on as the twin's 64-bit counts do (the scheduling lead is a distance,
// the slot a mask).
BOOST_AUTO_TEST_CASE(the_rtl_pointers_wrap_at_two_to_the_32) {
  for (const queue_mode mode : {queue_mode::session, queue_mode::normal}) {
    cq_lockstep_options o;
    o.mode = mode;
    o.start_count = (uint64_t{1} << 32) - 1000;
    const cq_lockstep_report r = run_cq_lockstep(o);
    BOOST_TEST(r.ok, r.divergence);
    BOOST_TEST(r.coverage.retires > 1000u);  // the consumer passed 2^32 too
  }
}

// The CLI on a fabric run's recording (`bcastsim run --record-unit-inputs`): the RTL passes
// every queue the run asked anything of; its fault build fails on the first relay queue whose
// head waits, at the cycle of that queue's first enqueue.
BOOST_AUTO_TEST_CASE(the_cli_replays_a_runs_queues_against_the_rtl) {
  const std::string dir = test::fresh_dir();
  const std::string rec = dir + "/cq.jsonl";
  const test::outcome run = test::run_cli(
      "run -q --out " + dir +
      " --set topology.kind=torus --set topology.x=1 --set topology.y=1 --set topology.z=1"
      " --set topology.terminals_per_node=4 --set job.ranks_per_node=1"
      " --set collective.algorithm=tofu2-trinaryx3 --set tofu2.segments=8"
      " --set collective.repeat=2 --record-unit-inputs " +
      rec);
  BOOST_TEST_REQUIRE(run.code == 0, run.output);
  const test::outcome rtl = test::run_cli("cosim --block tofu2-cq --dut rtl --replay " + rec);
  BOOST_TEST(rtl.code == 0, rtl.output);
  BOOST_TEST(!test::contains(rtl.output, "FAIL"), rtl.output);
  BOOST_TEST(test::contains(rtl.output, "SPS arrivals"), rtl.output);
  const test::outcome fault =
      test::run_cli("cosim --block tofu2-cq --dut rtl-fault-pass-scheduling --replay " + rec);
  BOOST_TEST(fault.code == 1, fault.output);
  BOOST_TEST(test::contains(fault.output, "FAIL after 1 cycles"), fault.output);
  BOOST_TEST(test::contains(fault.output, "first divergence: cycle 0"), fault.output);
}
