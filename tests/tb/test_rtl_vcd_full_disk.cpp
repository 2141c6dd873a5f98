// Waveforms of the verilated RTL on a full disk (issue 39, defect 2): a run or a co-simulation
// whose VCD cannot be written whole exits 2 naming --vcd and the write's error, and leaves no
// waveform behind, neither a temporary file nor one under its final name. It used to hang for
// ever inside Verilator's VCD writer; a co-simulation's SystemC VCDs (cosim_ref.vcd,
// cosim_dut.vcd) were written under their final names (the SystemC DUT's case, which needs no
// Verilator, is in test_waveforms_cli.cpp). Each case mounts a 64 KiB tmpfs in its scratch folder
// (skipped where mount is not permitted), nearly fills it and runs under a time limit, so a
// hang fails the case. Needs a build with Verilator (label cosim).
#include "full_disk.h"

#include <boost/test/unit_test.hpp>

#include <string>

using bcastsim::test::expect_refused_on_full_disk;
using bcastsim::test::fresh_dir;

BOOST_AUTO_TEST_CASE(run_with_rtl_unit_vcd_on_a_full_disk_exits_2_and_leaves_nothing) {
  expect_refused_on_full_disk(std::string("run -q ") + BCASTSIM_SOURCE_DIR +
                              "/experiments/ragasa/df72.yaml --set ragasa.model=rtl "
                              "--set trace.blocks=unit_0 --vcd DISK/w.vcd --out " +
                              fresh_dir());
}

BOOST_AUTO_TEST_CASE(cosim_rtl_vcd_on_a_full_disk_exits_2_and_leaves_nothing) {
  expect_refused_on_full_disk("cosim -q --dut rtl --seed 1 --random-cycles 3000 --vcd DISK/vcd");
}

BOOST_AUTO_TEST_CASE(cosim_tofu2_cq_vcd_on_a_full_disk_exits_2_and_leaves_nothing) {
  expect_refused_on_full_disk(
      "cosim -q --block tofu2-cq --dut rtl --seed 1 --random-cycles 3000 --vcd DISK/vcd");
}
