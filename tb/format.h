// Human-readable figures for the CLI's tables.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
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

// Every digit, never an exponent: "68719476736", "0.000001", "5.25" (six decimals at most).
inline std::string plain_number(double v) {
  std::ostringstream os;
  if (v == std::floor(v) && std::fabs(v) < 1e21) {
    os << std::fixed << std::setprecision(0) << v;
    return os.str();
  }
  os << std::fixed << std::setprecision(6) << v;
  std::string s = os.str();
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

// A 64-bit digest as 16 hex digits ("3bcbedcc0c707e45"): JSON numbers lose bits past 2^53.
inline std::string hex64(uint64_t v) {
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

}  // namespace bcastsim::tb
