// `run` puts its heap on transparent huge pages (tb/huge_pages.h) by executing itself again
// with glibc.malloc.hugetlb=1, unless GLIBC_TUNABLES already chooses; result.json says which
// (perf.heap_huge_pages), and the results are the same either way. Runs the real binary.
#include "cli_runner.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;

namespace {

nlohmann::json run_with_tunables(const char* tunables) {
  if (tunables) {
    setenv("GLIBC_TUNABLES", tunables, 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
  const std::string dir = fresh_dir();
  const outcome o = run_cli("run -q --set collective.bytes=4096 --out " + dir);
  unsetenv("GLIBC_TUNABLES");
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  std::ifstream in(dir + "/result.json");
  return nlohmann::json::parse(in);
}

bool kernel_offers_huge_pages() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  return std::getline(in, modes) && modes.find("[never]") == std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(run_uses_huge_pages_unless_told_otherwise) {
  nlohmann::json chosen = run_with_tunables(nullptr);
  nlohmann::json refused = run_with_tunables("glibc.malloc.hugetlb=0");
#if defined(__SANITIZE_ADDRESS__)
  const bool expected = false;  // the sanitizer's allocator is not glibc's: no second execution
#else
  const bool expected = kernel_offers_huge_pages();
#endif
  BOOST_TEST(chosen["perf"]["heap_huge_pages"].get<bool>() == expected);
  BOOST_TEST(!refused["perf"]["heap_huge_pages"].get<bool>());
  chosen.erase("perf");
  refused.erase("perf");
  BOOST_TEST(chosen.dump() == refused.dump());
}
