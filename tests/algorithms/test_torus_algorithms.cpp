// Every broadcast algorithm on the Tofu torus (network/torus.h): the 12-node ABC unit and
// the 768-node 4x4x4x2x3x2 torus, every terminal a rank, root 0, 16 KiB. Those that cannot
// run there are listed with the reason they give, so a change in either direction shows.
#include "algorithms/ragasa_tree.h"
#include "algorithms/registry.h"
#include "algorithms/verify.h"
#include "fixtures.h"
#include "network/placement.h"
#include "network/torus.h"

#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::algorithms;

namespace {

constexpr uint64_t k_bytes = 16384;

network::torus make_torus(uint32_t xyz) {
  network::torus_params p;
  p.x = p.y = p.z = xyz;
  return network::torus(p);
}

// An algorithm that refuses a torus shape, and a piece of its message.
struct refusal {
  std::string algorithm;
  uint32_t xyz;
  std::string reason;
};

// LLF and FOREST send from the root group straight to one rank of every other group over
// the first link of links_between_groups(): a dragonfly joins every pair of groups, a torus
// only neighbouring ABC units. Recursive doubling needs a power-of-two number of ranks, and
// 12 * xyz^3 never is one.
const std::vector<refusal> k_refusals = {
    {"llf", 4, "has no link between groups 0 and 2"},
    {"forest", 4, "has no link between groups 0 and 2"},
    {"scatter-rd-allgather", 1, "needs a power-of-two number of ranks"},
    {"scatter-rd-allgather", 4, "needs a power-of-two number of ranks"},
};

const refusal* find_refusal(const std::string& algorithm, uint32_t xyz) {
  for (const refusal& r : k_refusals) {
    if (r.algorithm == algorithm && r.xyz == xyz) return &r;
  }
  return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_algorithm_verifies_on_the_torus_or_says_why_not) {
  for (const uint32_t xyz : {1u, 4u}) {
    const network::torus t = make_torus(xyz);
    const network::placement place = test::make_placement(t, network::placement_kind::all, 0);
    const collective_request req{&t, &place, place.num_ranks(), 0, k_bytes};
    for (const algorithm_info& a : algorithms::algorithms()) {
      BOOST_TEST_CONTEXT(a.name << " on " << t.describe()) {
        if (const refusal* r = find_refusal(a.name, xyz)) {
          try {
            a.make(req);
            BOOST_ERROR("expected it to refuse: " + r->reason);
          } catch (const std::invalid_argument& e) {
            const std::string msg = e.what();
            BOOST_TEST(msg.find(r->reason) != std::string::npos, msg);
          }
          continue;
        }
        const verify_result v = verify_broadcast(a.make(req), a.contract);
        BOOST_TEST(v.ok, (v.errors.empty() ? std::string() : v.errors.front()));
        BOOST_TEST(v.messages > 0u);
      }
    }
  }
}

// Recursive doubling refuses only the rank count: on a power of two of the torus's
// terminals it verifies.
BOOST_AUTO_TEST_CASE(scatter_rd_allgather_verifies_on_a_power_of_two_of_the_torus) {
  for (const auto& [xyz, ranks] : {std::pair<uint32_t, uint32_t>{1, 8}, {4, 512}}) {
    const network::torus t = make_torus(xyz);
    const network::placement place =
        test::make_placement(t, network::placement_kind::contiguous, ranks);
    const algorithm_info& a = find_algorithm("scatter-rd-allgather");
    const verify_result v = verify_broadcast(a.make({&t, &place, ranks, 0, k_bytes}), a.contract);
    BOOST_TEST(v.ok, t.describe() << ", " << ranks << " ranks");
  }
}

// Ragasa's host schedule verifies (above), but its in-router tree assumes dragonfly groups:
// every router of a group a neighbour of every other (step 2), every pair of groups joined
// (step 1). On a torus neither holds, so the tree has edges that are not links.
BOOST_AUTO_TEST_CASE(ragasa_tree_is_not_a_tree_of_links_on_the_torus) {
  const network::torus unit = make_torus(1);
  const network::placement unit_place = test::make_placement(unit, network::placement_kind::all, 0);
  const ragasa_tree tree = make_ragasa_tree(unit, unit_place, 0);
  uint32_t not_links = 0;
  for (network::router_id r = 0; r < unit.num_routers(); ++r) {
    for (const bcast_child& c : tree.children[r]) {
      if (c.kind != child_kind::router) continue;
      try {
        link_class_between(unit, r, c.id);
      } catch (const std::invalid_argument&) {
        ++not_links;
      }
    }
  }
  // Router 0 of the unit has 4 neighbours (a, b+, b-, c) among 11 others.
  BOOST_TEST(not_links == 7u);

  const network::torus big = make_torus(4);
  const network::placement big_place = test::make_placement(big, network::placement_kind::all, 0);
  BOOST_CHECK_EXCEPTION(make_ragasa_tree(big, big_place, 0), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          return std::string(e.what()).find("not joined by a global link") !=
                                 std::string::npos;
                        });
}
