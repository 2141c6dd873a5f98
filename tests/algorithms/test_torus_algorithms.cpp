// Every broadcast algorithm on the Tofu torus (network/torus.h): the 12-node ABC unit and
// the 768-node 4x4x4x2x3x2 torus, every terminal a rank, 16 KiB. Every schedule verifies;
// recursive doubling refuses 12 and 768 ranks (not powers of two) and verifies on 8 and
// 512. Ragasa's in-router tree is made of links on every placement tried.
#include "algorithms/ragasa_tree.h"
#include "algorithms/registry.h"
#include "algorithms/verify.h"
#include "fixtures.h"
#include "network/placement.h"
#include "network/torus.h"
#include "tree_checks.h"

#include <boost/test/unit_test.hpp>

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::algorithms;

namespace {

constexpr uint64_t k_bytes = 16384;
const std::string k_needs_power_of_two = "scatter-rd-allgather";

network::torus make_torus(uint32_t xyz) {
  network::torus_params p;
  p.x = p.y = p.z = xyz;
  return network::torus(p);
}

}  // namespace

// LLF and FOREST reach the units not joined to the root's unit as distant groups (see
// algorithms/topology_aware.h), so they verify like every other algorithm; so does every
// root tried.
BOOST_AUTO_TEST_CASE(every_algorithm_verifies_on_the_torus) {
  for (const uint32_t xyz : {1u, 4u}) {
    const network::torus t = make_torus(xyz);
    const network::placement place = test::make_placement(t, network::placement_kind::all, 0);
    const uint32_t n = place.num_ranks();
    for (const algorithm_info& a : algorithms::algorithms()) {
      if (a.name == k_needs_power_of_two || a.name == "allgather-rd" || a.name == "nic-rd")
        continue;
      // An allgather has no root (its request's root is unused): one schedule is enough.
      const std::set<uint32_t> roots = a.kind == collective_kind::allgather
                                           ? std::set<uint32_t>{0}
                                           : std::set<uint32_t>{0, 5, n / 2, n - 1};
      for (const uint32_t root : roots) {
        BOOST_TEST_CONTEXT(a.name << " on " << t.describe() << " root " << root) {
          const verify_result v =
              verify_schedule(a.make({&t, &place, n, root, k_bytes}), a.contract);
          BOOST_TEST(v.ok, (v.errors.empty() ? std::string() : v.errors.front()));
          // The router-level and NIC-based all-to-all broadcasts move no host messages: the
          // engines and NICs do.
          if (a.offload != "galaxy" && a.offload != "lanai") BOOST_TEST(v.messages >= n - 1u);
        }
      }
    }
  }
}

// Recursive doubling needs a power-of-two number of ranks (as MPICH): 12 * xyz^3 never is
// one, and the refusal says so; on 8 and 512 contiguous ranks it verifies.
BOOST_AUTO_TEST_CASE(scatter_rd_allgather_needs_a_power_of_two_of_the_torus) {
  const algorithm_info& a = find_algorithm(k_needs_power_of_two);
  for (const auto& [xyz, ranks] : {std::pair<uint32_t, uint32_t>{1, 8}, {4, 512}}) {
    const network::torus t = make_torus(xyz);
    const network::placement all = test::make_placement(t, network::placement_kind::all, 0);
    BOOST_TEST_CONTEXT(t.describe()) {
      try {
        a.make({&t, &all, all.num_ranks(), 0, k_bytes});
        BOOST_ERROR("expected " << all.num_ranks() << " ranks to be refused");
      } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        BOOST_TEST(msg.find("power-of-two number of ranks") != std::string::npos, msg);
      }
      const network::placement place =
          test::make_placement(t, network::placement_kind::contiguous, ranks);
      const verify_result v = verify_schedule(a.make({&t, &place, ranks, 0, k_bytes}), a.contract);
      BOOST_TEST(v.ok, ranks << " ranks");
    }
  }
}

// Ragasa's tree is made of links wherever the paper's tree is not (algorithms/ragasa_tree.h):
// on the unit, whose routers are not all neighbours, and on 768 nodes, whose units are not
// all joined. Every placement and root tried.
BOOST_AUTO_TEST_CASE(ragasa_tree_is_a_tree_of_links_on_the_torus) {
  for (const uint32_t xyz : {1u, 4u}) {
    const network::torus t = make_torus(xyz);
    const uint32_t n = t.num_terminals();
    std::vector<network::placement> places;
    places.push_back(test::make_placement(t, network::placement_kind::all, 0));
    places.push_back(test::make_placement(t, network::placement_kind::contiguous, n / 2, n / 4));
    for (const uint64_t seed : {1u, 2u, 3u}) {
      places.push_back(test::make_placement(t, network::placement_kind::random, n / 3, 0, seed));
      places.push_back(test::make_placement(t, network::placement_kind::random, 3, 0, seed));
    }
    for (const network::placement& place : places) {
      for (const uint32_t root : std::set<uint32_t>{0, place.num_ranks() - 1}) {
        BOOST_TEST_CONTEXT(t.describe() << " " << place.num_ranks() << " ranks, root " << root) {
          const ragasa_tree tree = make_ragasa_tree(t, place, root);
          const test::tree_faults f = test::find_tree_faults(t, place, tree);
          BOOST_TEST(f.not_links == 0u);
          BOOST_TEST(f.routers_twice == 0u);
          BOOST_TEST(f.terminals_wrong == 0u);
        }
      }
    }
    // With every node a rank the paper's tree is never made of links there.
    const network::placement all = test::make_placement(t, network::placement_kind::all, 0);
    BOOST_TEST((make_ragasa_tree(t, all, 0).rule == tree_rule::shortest_path));
  }
}
