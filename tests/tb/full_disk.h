// A command whose waveforms go to a full disk: a 64 KiB tmpfs mounted inside the test's
// scratch folder and left with 4 KiB. It must exit 2 in time, naming --vcd and the disk's
// error, and leave nothing there. Skipped, with the reason, where mount is not permitted.
#pragma once

#include "cli_runner.h"
#include "scratch_tmpfs.h"

#include <boost/test/unit_test.hpp>

#include <string>

namespace bcastsim::test {

// Runs `args`, DISK standing for the full file system's folder.
inline void expect_refused_on_full_disk(const std::string& args) {
  constexpr unsigned k_time_limit_s = 120;  // each run takes a few seconds
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

}  // namespace bcastsim::test
