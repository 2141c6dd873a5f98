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

BOOST_AUTO_TEST_CASE(registry_delivery_contracts) {
  for (const char* name : {"binomial", "glf", "llf", "forest"}) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST((find_algorithm(name).contract == delivery::exactly_once));
    }
  }
  for (const char* name : {"scatter-rd-allgather", "scatter-ring-allgather", "mpich-auto"}) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST((find_algorithm(name).contract == delivery::at_least_once));
      BOOST_TEST(find_algorithm(name).description.find("MPICH") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(registry_mpich_algorithms_meet_their_contract) {
  collective_request req;
  req.num_ranks = 64;
  req.root = 5;
  req.bytes = 65536;
  for (const char* name : {"scatter-rd-allgather", "scatter-ring-allgather", "mpich-auto"}) {
    BOOST_TEST_CONTEXT(name) {
      const algorithm_info& info = find_algorithm(name);
      const schedule s = info.make(req);
      BOOST_TEST(s.num_ranks == 64u);
      BOOST_TEST(s.root == 5u);
      BOOST_TEST(s.bytes == 65536u);
      const verify_result v = verify_broadcast(s, info.contract);
      BOOST_TEST(v.ok);
      for (const std::string& e : v.errors) BOOST_TEST_MESSAGE(e);
      BOOST_TEST(!verify_broadcast(s, delivery::exactly_once).ok);  // MPICH re-delivers
    }
  }
  req.num_ranks = 72;  // not a power of two
  BOOST_CHECK_THROW(find_algorithm("scatter-rd-allgather").make(req), std::invalid_argument);
  BOOST_TEST(verify_broadcast(find_algorithm("mpich-auto").make(req), delivery::at_least_once).ok);
}
