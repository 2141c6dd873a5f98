// Entry point of the SystemC test executables: SystemC owns main(), so Boost.Test runs
// inside sc_main. SystemC warnings become exceptions, so they fail the test that caused them.
#include <boost/test/unit_test.hpp>
#include <systemc>

#include <cstdlib>

static bool init_unit_test() {
  return true;
}

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING,
                                          sc_core::SC_DISPLAY | sc_core::SC_THROW);
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR,
                                          sc_core::SC_DISPLAY | sc_core::SC_THROW);
  // The deprecation notice about sc_set_time_resolution is not a defect of a test.
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", 0);  // before SystemC prints it
  return sc_core::sc_elab_and_sim(argc, argv);
}
