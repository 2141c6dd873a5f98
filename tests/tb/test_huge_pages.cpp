// `run` puts its heap on transparent huge pages (tb/huge_pages.h) by executing itself again
// with glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, unless the variable already chooses;
// result.json says how much of its memory was on them (perf.huge_pages_mb), and the results
// are the same either way. Runs the real binary, on the 1,056-terminal CODES-like dragonfly
// (a heap large enough for huge pages; the 72-terminal one's is not).
#include "cli_runner.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;

namespace {

// GLIBC_TUNABLES as given to the test, put back when a case ends.
struct tunables_guard {
  tunables_guard() {
    if (const char* v = std::getenv("GLIBC_TUNABLES")) m_saved = v;
  }
  ~tunables_guard() {
    if (m_saved) {
      setenv("GLIBC_TUNABLES", m_saved->c_str(), 1);
    } else {
      unsetenv("GLIBC_TUNABLES");
    }
  }
  std::optional<std::string> m_saved;
};

nlohmann::json run_with_tunables(const char* tunables) {
  if (tunables) {
    setenv("GLIBC_TUNABLES", tunables, 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
  const std::string dir = fresh_dir();
  const outcome o =
      run_cli(std::string("run ") + BCASTSIM_SOURCE_DIR +
              "/experiments/codes/df1056.yaml -q --set traffic.measure_ns=2000 --out " + dir);
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  std::ifstream in(dir + "/result.json");
  return nlohmann::json::parse(in);
}

std::string thp_modes() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(in, modes);
  return modes;
}

}  // namespace

BOOST_AUTO_TEST_CASE(run_uses_huge_pages_unless_told_otherwise) {
  const tunables_guard guard;
  nlohmann::json chosen = run_with_tunables(nullptr);
  nlohmann::json appended = run_with_tunables("glibc.malloc.arena_max=8");
  nlohmann::json refused = run_with_tunables("glibc.malloc.hugetlb=0");
  const std::string modes = thp_modes();
#if defined(__SANITIZE_ADDRESS__)
  const bool expected = false;  // the sanitizer's allocator is not glibc's: no second execution
#else
  const bool expected = !modes.empty() && modes.find("[never]") == std::string::npos;
#endif
  if (!expected) BOOST_TEST_MESSAGE("no huge pages to expect here (" << modes << ")");
  BOOST_TEST((chosen["perf"]["huge_pages_mb"].get<double>() > 0) == expected);
  BOOST_TEST((appended["perf"]["huge_pages_mb"].get<double>() > 0) == expected);
  // Asked not to: none, unless the kernel gives them to every process anyway.
  if (modes.find("[madvise]") != std::string::npos)
    BOOST_TEST(refused["perf"]["huge_pages_mb"].get<double>() == 0);
  for (nlohmann::json* r : {&chosen, &appended, &refused}) r->erase("perf");
  BOOST_TEST(chosen.dump() == refused.dump());
  BOOST_TEST(chosen.dump() == appended.dump());
}
