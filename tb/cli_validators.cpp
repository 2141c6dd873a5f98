#include "tb/cli_validators.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace bcastsim::tb {

CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& v) {
        return v.empty() ? std::string("empty; allowed: a non-empty value") : std::string();
      },
      "", "non-empty");
}

CLI::Validator unsigned_in(uint64_t lo, uint64_t hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& v) {
        const std::string allowed = "'" + v + "' is not allowed; allowed: an integer from " +
                                    std::to_string(lo) + " to " + std::to_string(hi);
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return allowed;
        errno = 0;
        const unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
        if (errno == ERANGE || n < lo || n > hi) return allowed;
        return std::string();
      },
      range, "unsigned_in");
}

}  // namespace bcastsim::tb
