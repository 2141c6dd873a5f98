#include "tb/huge_pages.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace bcastsim::tb {

namespace {

constexpr const char* k_tunable = "glibc.malloc.hugetlb";
// Set for the second execution: it never executes again, whatever glibc did with the tunable.
constexpr const char* k_marker = "BCASTSIM_ON_HUGE_PAGES";

bool kernel_offers_huge_pages() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  return std::getline(in, modes) && modes.find("[never]") == std::string::npos;
}

bool under_valgrind() {
  const char* preload = std::getenv("LD_PRELOAD");
  return preload && std::string(preload).find("vgpreload") != std::string::npos;
}

// This program's file, so the process keeps its name (exec names it after the path); the
// /proc link itself when the file is gone (replaced on disk while running).
std::string own_file() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "/proc/self/exe";
  path[n] = '\0';
  return access(path, X_OK) == 0 ? std::string(path) : "/proc/self/exe";
}

}  // namespace

double huge_pages_mb() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("AnonHugePages:", 0) != 0) continue;
    std::istringstream fields(line.substr(14));
    double kib = 0;
    fields >> kib;
    return kib / 1024.0;
  }
  return 0;
}

void run_on_huge_pages(char* argv[]) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  (void)argv;
#else
  if (std::getenv(k_marker)) return;
  const char* given = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = given ? given : "";
  if (tunables.find(k_tunable) != std::string::npos) return;
  if (!kernel_offers_huge_pages() || under_valgrind()) return;
  const std::string with = (tunables.empty() ? "" : tunables + ":") + k_tunable + "=1";
  if (setenv("GLIBC_TUNABLES", with.c_str(), 1) != 0 || setenv(k_marker, "1", 1) != 0) return;
  execv(own_file().c_str(), argv);
  // Still here: it could not be executed; go on as we are.
  unsetenv(k_marker);
  if (given) {
    setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
#endif
}

}  // namespace bcastsim::tb
