// Rank placement (all / contiguous / random) and the portable rng.
#include "network/dragonfly.h"
#include "network/hash.h"
#include "network/placement.h"

#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>
#include <vector>

using namespace bcastsim::network;

namespace {

const dragonfly& network72() {
  static const dragonfly df(dragonfly_params{9, 4, 2, 2, global_arrangement::absolute});
  return df;
}

// The std::invalid_argument message placement throws, or "" when it does not throw.
std::string error_of(const placement_params& params) {
  try {
    placement pl(network72(), params);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// rank_of and terminal_of are inverse, ranks sit on distinct terminals, and every other
// terminal reports invalid_id.
void check_consistent(const placement& pl) {
  const uint32_t n = network72().num_terminals();
  uint32_t with_rank = 0;
  for (terminal_id t = 0; t < n; ++t) {
    const uint32_t r = pl.rank_of(t);
    if (r == invalid_id) continue;
    ++with_rank;
    BOOST_REQUIRE(r < pl.num_ranks());
    BOOST_TEST(pl.terminal_of(r) == t);
  }
  BOOST_TEST(with_rank == pl.num_ranks());  // fails if two ranks share a terminal
  BOOST_TEST(pl.terminals().size() == pl.num_ranks());
  for (uint32_t r = 0; r < pl.num_ranks(); ++r) {
    BOOST_REQUIRE(pl.terminal_of(r) < n);
    BOOST_TEST(pl.rank_of(pl.terminal_of(r)) == r);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(placement_all_is_identity) {
  for (uint32_t ranks : {0u, 72u}) {
    const placement pl(network72(), {placement_kind::all, ranks, 0, 1});
    BOOST_TEST(pl.num_ranks() == 72u);
    for (uint32_t r = 0; r < 72; ++r) BOOST_TEST(pl.terminal_of(r) == r);
    check_consistent(pl);
  }
  const std::string message = error_of({placement_kind::all, 5, 0, 1});
  BOOST_TEST(contains(message, "job.ranks = 5"));
  BOOST_TEST(contains(message, "72"));
}

BOOST_AUTO_TEST_CASE(placement_contiguous) {
  const placement pl(network72(), {placement_kind::contiguous, 10, 7, 1});
  BOOST_TEST(pl.num_ranks() == 10u);
  for (uint32_t r = 0; r < 10; ++r) BOOST_TEST(pl.terminal_of(r) == 7 + r);
  BOOST_TEST(pl.rank_of(6) == invalid_id);
  BOOST_TEST(pl.rank_of(17) == invalid_id);
  check_consistent(pl);

  const placement rest(network72(), {placement_kind::contiguous, 0, 70, 1});
  BOOST_TEST(rest.num_ranks() == 2u);
  BOOST_TEST(rest.terminal_of(1) == 71u);
  const placement exact(network72(), {placement_kind::contiguous, 2, 70, 1});
  BOOST_TEST(exact.num_ranks() == 2u);

  const std::string too_many = error_of({placement_kind::contiguous, 3, 70, 1});
  BOOST_TEST(contains(too_many, "job.ranks = 3"));
  BOOST_TEST(contains(too_many, "job.first_terminal = 70"));
  BOOST_TEST(contains(too_many, "[1, 2]"));
  const std::string past_end = error_of({placement_kind::contiguous, 1, 72, 1});
  BOOST_TEST(contains(past_end, "job.first_terminal = 72"));
  BOOST_TEST(contains(past_end, "[0, 71]"));
}

BOOST_AUTO_TEST_CASE(placement_random_is_distinct_and_seeded) {
  const placement a(network72(), {placement_kind::random, 20, 0, 5});
  BOOST_TEST(a.num_ranks() == 20u);
  check_consistent(a);

  const placement again(network72(), {placement_kind::random, 20, 0, 5});
  BOOST_TEST(a.terminals() == again.terminals(), boost::test_tools::per_element());

  const placement other(network72(), {placement_kind::random, 20, 0, 6});
  check_consistent(other);
  BOOST_TEST((a.terminals() != other.terminals()));

  // Not simply the first terminals in order.
  bool identity = true;
  for (uint32_t r = 0; r < a.num_ranks(); ++r) identity = identity && a.terminal_of(r) == r;
  BOOST_TEST(!identity);

  // Every terminal: a permutation.
  for (uint32_t ranks : {0u, 72u}) {
    const placement all(network72(), {placement_kind::random, ranks, 0, 9});
    BOOST_TEST(all.num_ranks() == 72u);
    check_consistent(all);
  }

  const std::string message = error_of({placement_kind::random, 73, 0, 1});
  BOOST_TEST(contains(message, "job.ranks = 73"));
  BOOST_TEST(contains(message, "[1, 72]"));
}

// FNV-1a's published test vectors, and the digest over the terminals as "t,t,...,": the same
// terminals in the same rank order, the same digest; another order, another.
BOOST_AUTO_TEST_CASE(placement_digest_is_fnv1a_of_its_terminals) {
  BOOST_TEST(fnv1a("") == 0xcbf29ce484222325ull);
  BOOST_TEST(fnv1a("a") == 0xaf63dc4c8601ec8cull);
  BOOST_TEST(fnv1a("foobar") == 0x85944171f73967e8ull);
  const placement pl(network72(), std::vector<terminal_id>{0, 5, 17});
  BOOST_TEST(pl.terminals_fnv1a() == fnv1a("0,5,17,"));
  const placement reordered(network72(), std::vector<terminal_id>{5, 0, 17});
  BOOST_TEST(reordered.terminals_fnv1a() != pl.terminals_fnv1a());
  const placement a(network72(), {placement_kind::random, 20, 0, 5});
  const placement again(network72(), {placement_kind::random, 20, 0, 5});
  const placement other(network72(), {placement_kind::random, 20, 0, 6});
  BOOST_TEST(a.terminals_fnv1a() == again.terminals_fnv1a());
  BOOST_TEST(a.terminals_fnv1a() != other.terminals_fnv1a());
}

BOOST_AUTO_TEST_CASE(placement_random_covers_all_terminals_over_seeds) {
  // A shuffle that never reaches some terminals would show up here.
  std::vector<uint32_t> hits(72, 0);
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const placement pl(network72(), {placement_kind::random, 4, 0, seed});
    for (terminal_id t : pl.terminals()) ++hits[t];
  }
  for (terminal_id t = 0; t < 72; ++t) BOOST_TEST(hits[t] > 0u);
}

// dragonfly(9,4,2,2): 2 terminals per router, so ranks_per_node 1 takes the even terminals.
BOOST_AUTO_TEST_CASE(placement_ranks_per_node_keeps_the_first_terminals_of_each_router) {
  const dragonfly& df = network72();
  placement_params all{placement_kind::all, 0, 0, 1, 1};
  const placement one(df, all);
  BOOST_TEST(one.num_ranks() == df.num_routers());
  for (uint32_t r = 0; r < one.num_ranks(); ++r) BOOST_TEST(one.terminal_of(r) == 2 * r);
  check_consistent(one);
  all.per_router = 2;  // every terminal: the same as 0
  BOOST_TEST(placement(df, all).num_ranks() == df.num_terminals());

  const placement from(df, {placement_kind::contiguous, 3, 5, 1, 1});
  BOOST_TEST(from.num_ranks() == 3u);
  BOOST_TEST(from.terminal_of(0) == 6u);  // the first candidate at or after terminal 5
  BOOST_TEST(from.terminal_of(2) == 10u);

  const placement drawn(df, {placement_kind::random, 20, 0, 7, 1});
  check_consistent(drawn);
  for (uint32_t r = 0; r < drawn.num_ranks(); ++r) BOOST_TEST(drawn.terminal_of(r) % 2 == 0u);

  const std::string too_many = error_of({placement_kind::random, 37, 0, 1, 1});
  BOOST_TEST(contains(too_many, "job.ranks = 37"));
  BOOST_TEST(contains(too_many, "job.ranks_per_node"));
  BOOST_TEST(contains(too_many, "[1, 36]"));
  BOOST_TEST(contains(error_of({placement_kind::all, 72, 0, 1, 1}), "must be 0 or 36"));
}

BOOST_AUTO_TEST_CASE(placement_kind_names) {
  BOOST_TEST(std::string(to_string(placement_kind::all)) == "all");
  BOOST_TEST(std::string(to_string(placement_kind::contiguous)) == "contiguous");
  BOOST_TEST(std::string(to_string(placement_kind::random)) == "random");
}

BOOST_AUTO_TEST_CASE(rng_is_mt19937_64_and_below_stays_in_range) {
  // The 10000th draw of mt19937_64 seeded 5489 is fixed by the C++ standard.
  rng standard(5489);
  uint64_t x = 0;
  for (int i = 0; i < 10000; ++i) x = standard.next();
  BOOST_TEST(x == 9981545732273789042ull);

  rng r(42);
  for (uint64_t n : {1ull, 2ull, 3ull, 7ull, 1000ull, (1ull << 63) + 1, ~0ull}) {
    for (int i = 0; i < 2000; ++i) BOOST_REQUIRE(r.below(n) < n);
  }
  for (int i = 0; i < 1000; ++i) {
    const double u = r.unit();
    BOOST_REQUIRE(u >= 0.0);
    BOOST_REQUIRE(u < 1.0);
  }
  BOOST_CHECK_THROW(r.below(0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(rng_below_is_uniform) {
  // n = 3 * 2^62: unbiased, 2/3 of the draws fall below 2^63; plain modulo of a 64-bit
  // draw would fold [n, 2^64) onto [0, 2^62) and push that to 3/4.
  rng r(7);
  const uint64_t big = 3ull << 62;
  uint32_t low = 0;
  const uint32_t draws = 40000;
  for (uint32_t i = 0; i < draws; ++i) {
    const uint64_t v = r.below(big);
    BOOST_REQUIRE(v < big);
    low += v < (1ull << 63) ? 1 : 0;
  }
  BOOST_TEST(low > draws * 2 / 3 - 600);
  BOOST_TEST(low < draws * 2 / 3 + 600);

  uint32_t counts[3] = {0, 0, 0};
  for (uint32_t i = 0; i < 30000; ++i) ++counts[r.below(3)];
  for (uint32_t c : counts) {
    BOOST_TEST(c > 9400u);
    BOOST_TEST(c < 10600u);
  }

  rng a(11), b(11);
  for (int i = 0; i < 100; ++i) BOOST_REQUIRE(a.below(1000) == b.below(1000));
}
