// Entry point of the pure C++ test executables (network/, algorithms/): no SystemC.
#define BOOST_TEST_MODULE bcastsim
#include <boost/test/unit_test.hpp>
