// Unit conversions written once: clock periods, link rates, ns <-> ps. Pure C++, no SystemC.
//
// Every function is the formula its call sites used before, operation for operation, so
// results stay bit-identical (tests/golden compares result.json exactly). Where two sites
// rounded differently they keep separate names (serialisation_ps rounds to nearest,
// serialisation_ps_truncated truncates) instead of agreeing on one.
//
// Times are integer picoseconds (the simulator's time resolution) unless a name says ns.
// 1 GiB = 2^30 bytes: link rates are in GiB/s, as CODES reads the paper's "GB/s".
#pragma once

#include <cmath>
#include <cstdint>

namespace bcastsim::units {

inline constexpr double bytes_per_gib = 1073741824.0;  // 2^30

// The period of a clock of `mhz` MHz, in ps, rounded to nearest (half up): 1000 MHz -> 1000.
constexpr uint64_t clock_period_ps(double mhz) {
  return static_cast<uint64_t>(1e6 / mhz + 0.5);
}

// Picoseconds to serialise one byte at `gib_per_s` GiB/s (not rounded).
constexpr double ps_per_byte(double gib_per_s) {
  return 1e12 / (gib_per_s * 1024.0 * 1024.0 * 1024.0);
}

// Bytes per ns at `gib_per_s` GiB/s: 1 GiB/s = 1.073741824 B/ns.
constexpr double bytes_per_ns(double gib_per_s) {
  return gib_per_s * bytes_per_gib / 1e9;
}

// Time for `bytes` at `rate_ps_per_byte` (see ps_per_byte()), rounded to the nearest ps: links.
inline uint64_t serialisation_ps(uint32_t bytes, double rate_ps_per_byte) {
  return static_cast<uint64_t>(std::llround(bytes * rate_ps_per_byte));
}

// The same, truncated to whole ps: the router's crossing of a wide Bcast Unit input.
constexpr uint64_t serialisation_ps_truncated(uint32_t bytes, double rate_ps_per_byte) {
  return static_cast<uint64_t>(bytes * rate_ps_per_byte);
}

// A duration in ns (latencies, CPU overheads) as whole ps, rounded to nearest.
inline uint64_t ps_from_ns(double ns) {
  return static_cast<uint64_t>(std::llround(ns * 1000.0));
}

// Picoseconds (a count or an average) as ns, for reports. Integers convert exactly up to
// 2^53 ps (about 104 days), as the static_cast<double> written at every site did.
constexpr double ns_from_ps(double ps) {
  return ps / 1000.0;
}

}  // namespace bcastsim::units
