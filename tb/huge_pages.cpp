#include "tb/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace bcastsim::tb {

namespace {

constexpr const char* k_tunable = "glibc.malloc.hugetlb";

bool kernel_offers_huge_pages() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  return std::getline(in, modes) && modes.find("[never]") == std::string::npos;
}

bool under_valgrind() {
  const char* preload = std::getenv("LD_PRELOAD");
  return preload && std::string(preload).find("vgpreload") != std::string::npos;
}

}  // namespace

bool heap_on_huge_pages() {
  const char* given = std::getenv("GLIBC_TUNABLES");
  if (!given) return false;
  const std::string tunables = given;
  const size_t at = tunables.rfind(std::string(k_tunable) + "=");
  if (at == std::string::npos) return false;
  const size_t value = at + std::string(k_tunable).size() + 1;
  const size_t end = tunables.find(':', value);
  return tunables.substr(value, end - value) == "1" && kernel_offers_huge_pages();
}

void run_on_huge_pages(char* argv[]) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  (void)argv;
#else
  const char* given = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = given ? given : "";
  if (tunables.find(k_tunable) != std::string::npos) return;
  if (!kernel_offers_huge_pages() || under_valgrind()) return;
  const std::string with = (tunables.empty() ? "" : tunables + ":") + k_tunable + "=1";
  if (setenv("GLIBC_TUNABLES", with.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Still here: it could not be executed; go on as we are.
  if (given) {
    setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
#endif
}

}  // namespace bcastsim::tb
