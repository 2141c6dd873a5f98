// SystemC's reports as bcastsim sets them (tb::configure_reports): a warning a process raises
// ends the simulation as an exception that names it, and SystemC prints nothing of its own,
// so the CLI's message is the only one. Each case elaborates its own design (one per process).
#include "tb/simulation.h"

#include <boost/test/unit_test.hpp>

#include <systemc>

#include <iostream>
#include <sstream>
#include <string>

namespace {

struct warner : sc_core::sc_module {
  SC_HAS_PROCESS(warner);
  explicit warner(const sc_core::sc_module_name& n) : sc_core::sc_module(n) { SC_METHOD(run); }
  void run() { SC_REPORT_WARNING(name(), "a link saw a flit of no packet"); }
};

// Captures std::cout and std::cerr (where SystemC's handler displays) while alive.
struct captured_output {
  captured_output()
      : m_out(std::cout.rdbuf(m_text.rdbuf())), m_err(std::cerr.rdbuf(m_text.rdbuf())) {}
  ~captured_output() {
    std::cout.rdbuf(m_out);
    std::cerr.rdbuf(m_err);
  }
  std::string text() const { return m_text.str(); }

 private:
  std::ostringstream m_text;
  std::streambuf* m_out;
  std::streambuf* m_err;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_warning_is_thrown_once_and_not_displayed) {
  bcastsim::tb::configure_reports();
  warner w("warner");
  std::string thrown, shown;
  {
    captured_output out;
    try {
      sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS));
    } catch (const sc_core::sc_report& r) {
      thrown = r.what();
      BOOST_TEST(r.get_severity() == sc_core::SC_WARNING);
    }
    shown = out.text();
  }
  BOOST_TEST(thrown.find("a link saw a flit of no packet") != std::string::npos, thrown);
  BOOST_TEST(shown.find("a link saw a flit of no packet") == std::string::npos, shown);
}
