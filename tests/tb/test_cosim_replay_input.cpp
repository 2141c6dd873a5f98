// What `cosim --replay` reads (tb/cosim/replay.cpp, cq_replay.cpp), for both blocks: only a
// regular file of bounded size (a device, a FIFO or a directory is refused, exit 2, never read
// or waited on); every bad line is refused naming the file, the line, the field, what it holds
// and what is allowed; cosim runs under the address-space cap `run` takes; --seeds takes every
// seed up to 2^64 - 1. Issue 39, defects 4 and 8 and the --seeds range.
//
// Device nodes and FIFOs are made inside the test's own scratch folder, never /dev's.
#include "cli_runner.h"
#include "hw/ragasa/bcast_unit_base.h"
#include "tb/cosim/command.h"
#include "tb/cosim/cq_replay.h"
#include "tb/cosim/stimulus.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::tb::cosim;
using test::contains;
using test::fresh_dir;
using test::outcome;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

// `command` run by the shell, with its exit code and output (stdout and stderr).
outcome run_shell(const std::string& command) {
  outcome o;
  FILE* f = popen((command + " 2>&1").c_str(), "r");
  BOOST_REQUIRE(f != nullptr);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) o.output.append(buf, n);
  const int status = pclose(f);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

// The CLI killed after `seconds` (so code that reads /dev/zero or waits on a FIFO for ever
// fails rather than hangs), under a 2 GiB address space where AddressSanitizer allows it
// (the unfixed /dev/zero read grew by 370 MB a second).
outcome run_cli_bounded(const std::string& args, int seconds = 20) {
  std::string prefix = sanitized ? "" : "ulimit -v 2097152; ";
  return run_shell(prefix + "exec timeout -s KILL " + std::to_string(seconds) + " " +
                   BCASTSIM_BINARY + " " + args);
}

const char* const k_blocks[] = {"bcast-unit", "tofu2-cq"};

}  // namespace

// --seeds takes the seeds its message allows, up to 2^64 - 1 (a 20-digit seed was refused),
// without wrapping after the last; 2^64, A > B and more than max_seeds seeds are refused.
BOOST_AUTO_TEST_CASE(seed_ranges_reach_the_largest_seed) {
  uint64_t first = 0, last = 0;
  BOOST_TEST(parse_seed_range("18446744073709551615-18446744073709551615", first, last));
  BOOST_TEST(first == 18446744073709551615u);
  BOOST_TEST(last == 18446744073709551615u);
  BOOST_TEST(parse_seed_range("18446744073709551615", first, last));
  BOOST_TEST(parse_seed_range("18446744073709541616-18446744073709551615", first, last));
  BOOST_TEST(parse_seed_range("0-9999", first, last));
  for (const char* bad :
       {"18446744073709551616", "18446744073709551615-18446744073709551616", "99999999999999999999",
        "18446744073709551615-18446744073709551614", "18446744073709541615-18446744073709551615",
        "5-2", "0-10000", "", "-", "1-", "-1", "1-2-3", "+1", " 1", "1 ", "0x10", "1e3"}) {
    BOOST_TEST(!parse_seed_range(bad, first, last), "'" << bad << "'");
  }
  for (const char* block : k_blocks) {
    const std::string args = std::string("cosim --block ") + block + " --random-cycles 500";
    const outcome o = run_cli_bounded(args + " --seeds 18446744073709551614-18446744073709551615");
    BOOST_TEST(o.code == 0, block << ": " << o.output);
    BOOST_TEST(contains(o.output, "seed 18446744073709551615"), block << ": " << o.output);
    BOOST_TEST(!contains(o.output, "seed 0"), block << ": " << o.output);
    for (const char* bad : {"18446744073709551616", "18446744073709551615-18446744073709551614"}) {
      const outcome b = run_cli_bounded(args + " --seeds " + bad);
      BOOST_TEST(b.code == 2, block << " " << bad << ": " << b.output);
      BOOST_TEST(contains(b.output, "--seeds '" + std::string(bad) + "' is not a seed range"),
                 b.output);
    }
  }
}
