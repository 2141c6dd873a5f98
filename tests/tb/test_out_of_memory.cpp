// Running out of memory inside a SystemC process: SystemC hands the std::bad_alloc on as an
// sc_report holding only its what(); tb::is_out_of_memory tells it from other failures, so
// the user reads the out-of-memory message, not "simulation failed: std::bad_alloc". Each
// case elaborates its own design (one per process).
#include "tb/memory_estimate.h"

#include <boost/test/unit_test.hpp>

#include <systemc>

#include <new>
#include <stdexcept>
#include <string>

namespace {

// A process that throws `E` when it first runs.
template <typename E>
struct thrower : sc_core::sc_module {
  SC_HAS_PROCESS(thrower);
  explicit thrower(const sc_core::sc_module_name& n) : sc_core::sc_module(n) { SC_METHOD(run); }
  void run() { throw E(); }
};

struct logic_failure : std::runtime_error {
  logic_failure() : std::runtime_error("a broken invariant") {}
};

// The report sc_start throws for the design's process.
template <typename E>
std::string report_of_throwing_process(bool& out_of_memory) {
  thrower<E> t("thrower");
  try {
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS));
  } catch (const sc_core::sc_report& r) {
    out_of_memory = bcastsim::tb::is_out_of_memory(r);
    return r.get_msg();
  }
  return "(no report)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(bad_alloc_in_a_process_is_out_of_memory) {
  bool oom = false;
  const std::string msg = report_of_throwing_process<std::bad_alloc>(oom);
  BOOST_TEST(msg == std::string(std::bad_alloc().what()));
  BOOST_TEST(oom);
  BOOST_TEST(bcastsim::tb::out_of_memory_message().find("sim.max_memory_gib") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(another_exception_in_a_process_is_not_out_of_memory) {
  bool oom = true;
  const std::string msg = report_of_throwing_process<logic_failure>(oom);
  BOOST_TEST(msg == "a broken invariant");
  BOOST_TEST(!oom);
}
