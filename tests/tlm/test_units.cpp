// tlm/units: clock periods from MHz, link rates from GiB/s (1 GiB = 2^30 B), ns <-> ps. The
// formulas are the ones the blocks wrote inline before, so the values here are the values
// the simulator has always used.
#include "tlm/units.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>

using namespace bcastsim;

// Usable where a constant is needed.
static_assert(units::clock_period_ps(1000.0) == 1000);
static_assert(units::bytes_per_gib == 1024.0 * 1024.0 * 1024.0);
static_assert(units::serialisation_ps_truncated(2, 44.5) == 89);

BOOST_AUTO_TEST_CASE(clock_period_from_mhz_rounds_to_nearest_ps) {
  BOOST_TEST(units::clock_period_ps(1000.0) == 1000u);
  BOOST_TEST(units::clock_period_ps(2000.0) == 500u);
  BOOST_TEST(units::clock_period_ps(800.0) == 1250u);
  BOOST_TEST(units::clock_period_ps(1500.0) == 667u);  // 666.67 rounds up
  BOOST_TEST(units::clock_period_ps(3000.0) == 333u);  // 333.33 rounds down
  BOOST_TEST(units::clock_period_ps(1.0) == 1000000u);
}

BOOST_AUTO_TEST_CASE(link_rate_from_gib_per_s) {
  // 5.25 GiB/s, the default link: 5.25 * 2^30 B per 1e9 ns.
  BOOST_TEST(units::bytes_per_ns(5.25) == 5.637144576, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(units::ps_per_byte(5.25) == 177.39477611723402, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(units::bytes_per_ns(1.0) == 1.073741824, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(units::ps_per_byte(1.0) == 1e12 / 1073741824.0);
  // 1 GiB at 1 GiB/s takes one second.
  BOOST_TEST(units::serialisation_ps(1u << 30, units::ps_per_byte(1.0)) == 1000000000000u);
}

BOOST_AUTO_TEST_CASE(link_rate_round_trip) {
  // ps per byte and bytes per ns are reciprocal up to a factor of 1000 (ps per ns).
  for (double gib : {0.001, 1.0, 5.25, 11.641532182693481, 21.0, 100.0, 12345.678}) {
    BOOST_TEST(units::ps_per_byte(gib) * units::bytes_per_ns(gib) == 1000.0,
               boost::test_tools::tolerance(1e-14));
    // Both scale GiB to bytes by 2^30, which is exact in binary floating point: the two
    // spellings of the factor agree bit for bit.
    BOOST_TEST(gib * units::bytes_per_gib == gib * 1024.0 * 1024.0 * 1024.0);
  }
}

BOOST_AUTO_TEST_CASE(serialisation_rounds_to_nearest_and_truncated_truncates) {
  const double rate = units::ps_per_byte(21.0);  // 44.3487 ps/B, the Bcast Unit port
  BOOST_TEST(units::serialisation_ps(1, rate) == 44u);
  BOOST_TEST(units::serialisation_ps_truncated(1, rate) == 44u);
  BOOST_TEST(units::serialisation_ps(2, rate) == 89u);  // 88.70
  BOOST_TEST(units::serialisation_ps_truncated(2, rate) == 88u);
  BOOST_TEST(units::serialisation_ps(4096, rate) == 181652u);  // 181652.25
  BOOST_TEST(units::serialisation_ps(0, rate) == 0u);
}

BOOST_AUTO_TEST_CASE(ns_and_ps) {
  BOOST_TEST(units::ps_from_ns(1.0) == 1000u);
  BOOST_TEST(units::ps_from_ns(750.0) == 750000u);
  BOOST_TEST(units::ps_from_ns(0.25) == 250u);
  BOOST_TEST(units::ps_from_ns(0.0006) == 1u);  // 0.6 ps rounds up
  BOOST_TEST(units::ps_from_ns(0.0004) == 0u);
  BOOST_TEST(units::ns_from_ps(1500.0) == 1.5);
  BOOST_TEST(units::ns_from_ps(0.0) == 0.0);
  // Whole ps survive the way to ns and back, far beyond any simulated time.
  for (uint64_t ps : {uint64_t{1}, uint64_t{999}, uint64_t{123456789}, uint64_t{1} << 40,
                      (uint64_t{1} << 50) + 7}) {
    BOOST_TEST(units::ps_from_ns(units::ns_from_ps(static_cast<double>(ps))) == ps);
  }
}
