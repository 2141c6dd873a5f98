// Golden results of the RTL Bcast Unit (labels golden, cosim): needs Verilator, so it is
// reported as skipped in a build without it. See golden.h.
#include "golden.h"

using bcastsim::test::check_golden;

BOOST_AUTO_TEST_CASE(run_ragasa_rtl) {
  check_golden("run_ragasa_rtl", "run",
               std::string(BCASTSIM_SOURCE_DIR) +
                   "/experiments/ragasa/df72.yaml --set ragasa.model=rtl --set ragasa.relay=unit");
}
