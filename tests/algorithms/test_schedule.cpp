// algorithms/schedule: op builders, then()/add() dependencies, total_ops.
#include "algorithms/schedule.h"

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <vector>

using namespace bcastsim::algorithms;

BOOST_AUTO_TEST_CASE(schedule_op_kind_names) {
  BOOST_TEST(std::strcmp(to_string(op_kind::send), "send") == 0);
  BOOST_TEST(std::strcmp(to_string(op_kind::recv), "recv") == 0);
  BOOST_TEST(std::strcmp(to_string(op_kind::compute), "compute") == 0);
}

BOOST_AUTO_TEST_CASE(schedule_builders_fill_fields) {
  const op s = make_send(3, 16, 64, 7);
  BOOST_TEST((s.kind == op_kind::send));
  BOOST_TEST(s.peer == 3u);
  BOOST_TEST(s.offset == 16u);
  BOOST_TEST(s.bytes == 64u);
  BOOST_TEST(s.tag == 7u);
  BOOST_TEST(s.deps.empty());

  const op r = make_recv(5, 0, 128);
  BOOST_TEST((r.kind == op_kind::recv));
  BOOST_TEST(r.peer == 5u);
  BOOST_TEST(r.bytes == 128u);
  BOOST_TEST(r.tag == 0u);

  const op c = make_compute(250);
  BOOST_TEST((c.kind == op_kind::compute));
  BOOST_TEST(c.compute_ns == 250u);
}

BOOST_AUTO_TEST_CASE(schedule_then_chains_and_add_sets_deps) {
  rank_program p;
  BOOST_TEST(p.then(make_recv(0, 0, 8)) == 0u);
  BOOST_TEST(p.then(make_send(1, 0, 8)) == 1u);
  BOOST_TEST(p.add(make_send(2, 0, 8), {0}) == 2u);
  BOOST_TEST(p.add(make_compute(1), {}) == 3u);
  BOOST_TEST(p.then(make_compute(1)) == 4u);

  BOOST_TEST(p.ops[0].deps.empty());
  BOOST_TEST(p.ops[1].deps == std::vector<uint32_t>{0}, boost::test_tools::per_element());
  BOOST_TEST(p.ops[2].deps == std::vector<uint32_t>{0}, boost::test_tools::per_element());
  BOOST_TEST(p.ops[3].deps.empty());
  BOOST_TEST(p.ops[4].deps == std::vector<uint32_t>{3}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(schedule_total_ops_sums_ranks) {
  schedule s(3);
  BOOST_TEST(s.num_ranks == 3u);
  BOOST_TEST(s.ranks.size() == 3u);
  BOOST_TEST(s.total_ops() == 0u);
  s.ranks[0].then(make_send(1, 0, 1));
  s.ranks[0].then(make_send(2, 0, 1));
  s.ranks[2].then(make_recv(0, 0, 1));
  BOOST_TEST(s.total_ops() == 3u);
}
