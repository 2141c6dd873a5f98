// Waveforms of the verilated RTL on a full disk (issue 39, defect 2): a run or a co-simulation
// whose VCD cannot be written whole exits 2 naming --vcd and the write's error, and leaves no
// waveform behind, neither a temporary file nor one under its final name. It used to hang for
// ever inside Verilator's VCD writer; a co-simulation's SystemC VCDs (cosim_ref.vcd,
// cosim_dut.vcd) were written under their final names and, with a SystemC DUT, left cut short
// with exit 0. Each case mounts a 64 KiB tmpfs in its scratch folder
// (skipped where mount is not permitted), nearly fills it and runs under a time limit, so a
// hang fails the case. Needs a build with Verilator (label cosim).
#include "cli_runner.h"
#include "scratch_tmpfs.h"

#include <boost/test/unit_test.hpp>

#include <string>

using bcastsim::test::contains;
using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;
using bcastsim::test::scratch_tmpfs;

namespace {

constexpr unsigned k_time_limit_s = 120;  // each run takes a few seconds

// Runs `args` (with DISK standing for the full file system) on a 64 KiB tmpfs left with
// 4 KiB: exit 2, a message naming --vcd and the disk's error, nothing written left there.
void expect_refused_on_full_disk(const std::string& args) {
  scratch_tmpfs disk;
  if (!disk.mounted()) {
    BOOST_TEST_MESSAGE("skipped: " << disk.why());
    return;
  }
  disk.fill_leaving(4096);
  std::string command = args;
  for (size_t at; (at = command.find("DISK")) != std::string::npos;)
    command.replace(at, 4, disk.dir());
  const outcome o = run_cli(command, k_time_limit_s);
  BOOST_TEST(o.code != 124, "timed out (hung): " << command << "\n" << o.output);
  BOOST_TEST(o.code == 2, command << " -> " << o.code << ":\n" << o.output);
  BOOST_TEST(contains(o.output, "--vcd"), o.output);
  BOOST_TEST(contains(o.output, "No space left on device"), o.output);
  for (const std::string& f : disk.files()) BOOST_TEST(false, "left behind: " << f);
}

}  // namespace

BOOST_AUTO_TEST_CASE(run_with_rtl_unit_vcd_on_a_full_disk_exits_2_and_leaves_nothing) {
  expect_refused_on_full_disk(std::string("run -q ") + BCASTSIM_SOURCE_DIR +
                              "/experiments/ragasa/df72.yaml --set ragasa.model=rtl "
                              "--set trace.blocks=unit_0 --vcd DISK/w.vcd --out " +
                              fresh_dir());
}

BOOST_AUTO_TEST_CASE(cosim_rtl_vcd_on_a_full_disk_exits_2_and_leaves_nothing) {
  expect_refused_on_full_disk("cosim -q --dut rtl --seed 1 --random-cycles 3000 --vcd DISK/vcd");
}

BOOST_AUTO_TEST_CASE(cosim_systemc_dut_vcd_on_a_full_disk_exits_2_and_leaves_nothing) {
  expect_refused_on_full_disk(
      "cosim -q --dut systemc --seed 1 --random-cycles 3000 --vcd DISK/vcd");
}

BOOST_AUTO_TEST_CASE(cosim_tofu2_cq_vcd_on_a_full_disk_exits_2_and_leaves_nothing) {
  expect_refused_on_full_disk(
      "cosim -q --block tofu2-cq --dut rtl --seed 1 --random-cycles 3000 --vcd DISK/vcd");
}
