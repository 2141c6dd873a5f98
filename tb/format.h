// Human-readable figures for the CLI's tables.
#pragma once

#include <iomanip>
#include <sstream>
#include <string>

namespace bcastsim::tb {

// "26.121 us": ns, us or ms with three decimals.
inline std::string format_ns(double ns) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3);
  if (ns >= 1e6) {
    os << ns / 1e6 << " ms";
  } else if (ns >= 1e3) {
    os << ns / 1e3 << " us";
  } else {
    os << ns << " ns";
  }
  return os.str();
}

}  // namespace bcastsim::tb
