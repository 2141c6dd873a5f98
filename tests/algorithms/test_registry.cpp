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
  const verify_result v = verify_schedule(s);
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
  for (const char* name : {"binomial", "glf", "llf", "forest", "ragasa"}) {
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
      const verify_result v = verify_schedule(s, info.contract);
      BOOST_TEST(v.ok);
      for (const std::string& e : v.errors) BOOST_TEST_MESSAGE(e);
      BOOST_TEST(!verify_schedule(s, delivery::exactly_once).ok);  // MPICH re-delivers
    }
  }
  req.num_ranks = 72;  // not a power of two
  BOOST_CHECK_THROW(find_algorithm("scatter-rd-allgather").make(req), std::invalid_argument);
  BOOST_TEST(verify_schedule(find_algorithm("mpich-auto").make(req), delivery::at_least_once).ok);
}

BOOST_AUTO_TEST_CASE(registry_ragasa_is_one_offload_and_one_recv_per_rank) {
  const algorithm_info& info = find_algorithm("ragasa");
  BOOST_TEST(info.name == "ragasa");
  BOOST_TEST(info.description.find("Bcast Unit") != std::string::npos);
  collective_request req;
  req.num_ranks = 72;
  req.root = 9;
  req.bytes = 16384;
  const schedule s = info.make(req);
  BOOST_TEST(s.num_ranks == 72u);
  BOOST_TEST(s.root == 9u);
  BOOST_TEST(s.bytes == 16384u);
  BOOST_TEST(s.total_ops() == 72u);
  for (uint32_t rank = 0; rank < s.num_ranks; ++rank) {
    BOOST_TEST_CONTEXT("rank " << rank) {
      BOOST_TEST_REQUIRE(s.ranks[rank].ops.size() == 1u);
      const op& o = s.ranks[rank].ops[0];
      BOOST_TEST((o.kind == (rank == 9 ? op_kind::offload_bcast : op_kind::recv)));
      BOOST_TEST(o.peer == 9u);
      BOOST_TEST(o.offset == 0u);
      BOOST_TEST(o.bytes == 16384u);
      BOOST_TEST(o.tag == 0u);
      BOOST_TEST(o.deps.empty());
    }
  }
  const verify_result v = verify_schedule(s, info.contract);
  for (const std::string& e : v.errors) BOOST_TEST_MESSAGE(e);
  BOOST_TEST(v.ok);
  BOOST_TEST(v.messages == 71u);
  BOOST_TEST(v.rounds == 1u);
  BOOST_TEST(s.total_ops() == ragasa_bcast(72, 9, 16384).total_ops());
  BOOST_TEST(verify_schedule(ragasa_bcast(1, 0, 8)).ok);  // a one-rank job
}

// Allgathers read the request's bytes per rank and ignore its root (registry.h).
BOOST_AUTO_TEST_CASE(registry_allgathers_are_allgather_kind) {
  uint32_t count = 0;
  for (const algorithm_info& a : algorithms()) {
    const bool allgather = a.name.rfind("allgather-", 0) == 0;
    const bool router_level = a.offload == "galaxy";  // sfata, rfata, a2a
    const bool nic_based = a.offload == "lanai";      // nic-cb, nic-rd
    BOOST_TEST_CONTEXT(a.name) {
      BOOST_TEST((a.kind == (allgather || router_level || nic_based ? collective_kind::allgather
                                                                    : collective_kind::broadcast)));
      BOOST_TEST(a.allgather_has_root == (router_level && a.name != "a2a"));
    }
    count += allgather ? 1 : 0;
  }
  BOOST_TEST(count == 4u);
  collective_request req;
  req.num_ranks = 16;
  req.root = 5;
  req.bytes = 1000;
  for (const char* name :
       {"allgather-ring", "allgather-rd", "allgather-bruck", "allgather-mpich"}) {
    BOOST_TEST_CONTEXT(name) {
      const algorithm_info& info = find_algorithm(name);
      BOOST_TEST((info.contract == delivery::exactly_once));
      BOOST_TEST(info.description.find("MPICH") != std::string::npos);
      BOOST_TEST(info.offload.empty());
      const schedule s = info.make(req);
      BOOST_TEST(s.bytes == 16000u);
      BOOST_TEST_REQUIRE(s.own.size() == 16u);
      BOOST_TEST(s.own[5].begin == 5000u);
      BOOST_TEST(s.own[5].end == 6000u);
      BOOST_TEST(verify_schedule(s, info.contract).ok);
    }
  }
  req.num_ranks = 12;
  BOOST_CHECK_THROW(find_algorithm("allgather-rd").make(req), std::invalid_argument);
  BOOST_TEST(verify_schedule(find_algorithm("allgather-mpich").make(req)).ok);  // Bruck
}
