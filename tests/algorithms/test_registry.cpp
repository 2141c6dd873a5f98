// algorithms/registry: lookup by name and alias, helpful error for unknown names.
#include "algorithms/registry.h"
#include "algorithms/verify.h"

#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>

using namespace bcastsim::algorithms;

BOOST_AUTO_TEST_CASE(registry_lists_binomial_first) {
  const auto& all = algorithms();
  BOOST_TEST_REQUIRE(!all.empty());
  BOOST_TEST(all[0].name == "binomial");
  BOOST_TEST(all[0].aliases.size() == 1u);
  BOOST_TEST(all[0].aliases[0] == "tree");
  BOOST_TEST(!all[0].description.empty());
  BOOST_TEST(&algorithms() == &all);  // built once
}

BOOST_AUTO_TEST_CASE(registry_finds_name_and_alias) {
  const algorithm_info& by_name = find_algorithm("binomial");
  const algorithm_info& by_alias = find_algorithm("tree");
  BOOST_TEST(&by_name == &by_alias);
  BOOST_TEST(by_name.name == "binomial");
}

BOOST_AUTO_TEST_CASE(registry_factory_builds_binomial) {
  collective_request req;
  req.num_ranks = 12;
  req.root = 3;
  req.bytes = 4096;
  const schedule s = find_algorithm("tree").make(req);
  BOOST_TEST(s.num_ranks == 12u);
  BOOST_TEST(s.root == 3u);
  BOOST_TEST(s.bytes == 4096u);
  const schedule ref = binomial_bcast(12, 3, 4096);
  BOOST_TEST(s.total_ops() == ref.total_ops());
  const verify_result v = verify_broadcast(s);
  BOOST_TEST(v.ok);
  BOOST_TEST(v.messages == 11u);
}

BOOST_AUTO_TEST_CASE(registry_unknown_name_throws_listing_allowed) {
  BOOST_CHECK_THROW(find_algorithm("ring"), std::invalid_argument);
  BOOST_CHECK_THROW(find_algorithm(""), std::invalid_argument);
  BOOST_CHECK_THROW(find_algorithm("Binomial"), std::invalid_argument);  // case-sensitive
  try {
    find_algorithm("ring");
    BOOST_FAIL("find_algorithm(\"ring\") did not throw");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    BOOST_TEST_MESSAGE(msg);
    BOOST_TEST(msg.find("collective.algorithm = 'ring'") != std::string::npos);
    BOOST_TEST(msg.find("binomial") != std::string::npos);
    BOOST_TEST(msg.find("tree") != std::string::npos);
  }
}
