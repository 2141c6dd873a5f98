// Programs: collectives composed into one schedule (algorithms/program.h).
#include "algorithms/program.h"

#include "algorithms/registry.h"
#include "fixtures.h"

#include <boost/test/unit_test.hpp>

#include <map>
#include <string>

using namespace bcastsim;
using algorithms::collective_spec;
using algorithms::make_program;
using algorithms::op_kind;
using algorithms::program;
using algorithms::program_error;

namespace {

// Df(2,4,2): 72 terminals, every one a rank.
struct net {
  network::dragonfly topo = test::make_dragonfly(9, 4, 2, 2);
  network::placement place = test::make_placement(topo, network::placement_kind::all, 0);
  program make(const std::vector<collective_spec>& specs) const {
    std::vector<std::string> keys;
    for (size_t i = 0; i < specs.size(); ++i) keys.push_back("collectives." + std::to_string(i));
    return make_program(specs, topo, place, keys);
  }
};

collective_spec spec(const char* algorithm, uint64_t bytes) {
  collective_spec s;
  s.algorithm = algorithm;
  s.bytes = bytes;
  return s;
}

// The key a program_error names, or "" if none is thrown.
std::string refused_key(const net& n, const std::vector<collective_spec>& specs) {
  try {
    n.make(specs);
  } catch (const program_error& e) {
    return e.key;
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(program_of_one_broadcast_is_its_schedule) {
  const net n;
  const program p = n.make({spec("binomial", 1000)});
  const algorithms::schedule s = algorithms::binomial_bcast(72, 0, 1000);
  BOOST_TEST_REQUIRE(p.instances.size() == 1u);
  BOOST_TEST(p.messages == 71u);
  for (uint32_t r = 0; r < 72; ++r) {
    BOOST_TEST_REQUIRE(p.sched.ranks[r].ops.size() == s.ranks[r].ops.size());
    for (size_t i = 0; i < s.ranks[r].ops.size(); ++i) {
      const algorithms::op& a = p.sched.ranks[r].ops[i];
      const algorithms::op& b = s.ranks[r].ops[i];
      BOOST_TEST((a.kind == b.kind && a.peer == b.peer && a.offset == b.offset &&
                  a.bytes == b.bytes && a.tag == b.tag && a.deps == b.deps && a.context == 0u));
    }
  }
}

BOOST_AUTO_TEST_CASE(each_component_has_its_own_context_and_communicator_ranks) {
  const net n;
  collective_spec a = spec("binomial", 1000);
  collective_spec b = spec("binomial", 500);
  b.ranks = {40, 41, 42, 43};
  b.root = 2;  // job rank 42
  const program p = n.make({a, b});
  BOOST_TEST_REQUIRE(p.instances.size() == 2u);
  BOOST_TEST(p.instances[1].root == 42u);
  BOOST_TEST((p.context_instance == std::vector<uint32_t>{0, 1}));
  // Rank 42 roots b: its sends of b go to job ranks 43 and 40 (binomial from communicator
  // rank 2 over 4 ranks: to 0 (rel 2), then 3 (rel 1)), in context 1.
  std::vector<uint32_t> peers;
  for (const algorithms::op& o : p.sched.ranks[42].ops) {
    if (o.context == 1) {
      BOOST_TEST((o.kind == op_kind::send));
      peers.push_back(o.peer);
    }
  }
  BOOST_TEST((peers == std::vector<uint32_t>{40, 43}));
  // Ranks outside b have only a's ops.
  for (const algorithms::op& o : p.sched.ranks[0].ops) BOOST_TEST(o.context == 0u);
}

BOOST_AUTO_TEST_CASE(every_root_broadcasts_its_block_in_its_own_context) {
  const net n;
  collective_spec a = spec("binomial", 100);
  a.all_roots = true;
  a.ranks = {0, 1, 2, 3, 4};
  const program p = n.make({a});
  const algorithms::instance_info& inst = p.instances.at(0);
  BOOST_TEST(inst.contexts == 5u);
  BOOST_TEST(inst.buffer_bytes == 500u);
  BOOST_TEST(inst.messages == 5u * 4u);
  for (uint32_t r = 0; r < 5; ++r) {
    BOOST_TEST(inst.own[r].begin == 100u * r);
    BOOST_TEST(inst.own[r].end == 100u * (r + 1));
  }
  // Rank 3 receives block k from the broadcast rooted at k, in context k, at offset 100 k.
  for (const algorithms::op& o : p.sched.ranks[3].ops) {
    if (o.kind != op_kind::recv) continue;
    BOOST_TEST(o.offset == 100u * o.context);
    BOOST_TEST(o.bytes == 100u);
    BOOST_TEST(o.context != 3u);
  }
}

BOOST_AUTO_TEST_CASE(repetitions_after_and_start_chain_each_rank_in_order) {
  const net n;
  collective_spec a = spec("binomial", 100);
  a.repeat = 2;
  a.compute_ns = 500;
  collective_spec b = spec("binomial", 100);
  b.after = 0;
  b.start_ns = 7000;
  const program p = n.make({a, b});
  BOOST_TEST_REQUIRE(p.instances.size() == 3u);
  // Rank 1 (a leaf of the binomial tree from 0): recv (rep 0), compute, recv (rep 1) after
  // the compute, compute, then b: wait until 7 us after a's last compute, then its recv.
  const auto& ops = p.sched.ranks[1].ops;
  std::vector<op_kind> kinds;
  for (const algorithms::op& o : ops) kinds.push_back(o.kind);
  BOOST_TEST((kinds == std::vector<op_kind>{op_kind::recv, op_kind::compute, op_kind::recv,
                                            op_kind::compute, op_kind::wait_until, op_kind::recv}));
  BOOST_TEST((ops[1].deps == std::vector<uint32_t>{0}));
  BOOST_TEST((ops[2].deps == std::vector<uint32_t>{1}));
  BOOST_TEST((ops[4].deps == std::vector<uint32_t>{3}));
  BOOST_TEST(ops[4].at_ns == 7000u);
  BOOST_TEST((ops[5].deps == std::vector<uint32_t>{4}));
  BOOST_TEST(ops[0].context == 0u);
  BOOST_TEST(ops[2].context == 1u);
  BOOST_TEST(ops[5].context == 2u);
}

BOOST_AUTO_TEST_CASE(overlap_computes_beside_the_collective) {
  const net n;
  collective_spec a = spec("binomial", 100);
  a.compute_ns = 500;
  a.mode = algorithms::host_mode::overlap;
  a.repeat = 2;
  const program p = n.make({a});
  // Rank 1: recv and compute both ready at entry; a join waits for both; the next
  // repetition's recv waits for the join.
  const auto& ops = p.sched.ranks[1].ops;
  BOOST_TEST_REQUIRE(ops.size() == 6u);
  BOOST_TEST((ops[1].kind == op_kind::compute && ops[1].deps.empty()));
  BOOST_TEST((ops[2].kind == op_kind::join && ops[2].deps == std::vector<uint32_t>{0, 1}));
  BOOST_TEST((ops[3].kind == op_kind::recv && ops[3].deps == std::vector<uint32_t>{2}));
  BOOST_TEST((ops[4].kind == op_kind::compute && ops[4].deps == std::vector<uint32_t>{2}));
}

BOOST_AUTO_TEST_CASE(bad_specs_are_refused_naming_their_key) {
  const net n;
  collective_spec ranks = spec("binomial", 10);
  ranks.ranks = {3, 72};
  BOOST_TEST(refused_key(n, {ranks}) == "collectives.0.ranks");
  collective_spec root = spec("binomial", 10);
  root.ranks = {3, 4};
  root.root = 2;
  BOOST_TEST(refused_key(n, {spec("binomial", 1), root}) == "collectives.1.root");
  BOOST_TEST(refused_key(n, {spec("allgather-rd", 8)}) == "collectives.0.algorithm");  // 72
  BOOST_TEST(refused_key(n, {spec("no-such", 8)}) == "collectives.0.algorithm");
  collective_spec many = spec("binomial", 10);
  many.all_roots = true;
  many.repeat = 2000;  // 72 roots x 142 ops x 2000 > 2^22
  BOOST_TEST(refused_key(n, {many}) == "collectives.0.repeat");
}

// A persistent Tofu2 broadcast repeated three times (WIP, issue 15): MPI_Bcast_init and its
// set-up messages (address exchange, readiness) come once, MPI_Start and MPI_Wait three
// times, MPI_Request_free once; computation overlaps from MPI_Start on; the later
// repetitions expect only the hardware's puts.
BOOST_AUTO_TEST_CASE(a_persistent_collective_is_initialised_and_freed_once) {
  const network::torus t = test::make_torus(4, 1, 1);
  const network::placement place = test::make_placement(t, network::placement_kind::contiguous, 4);
  collective_spec s = spec("tofu2-pipeline", 4000);
  s.repeat = 3;
  s.compute_ns = 1000;
  s.mode = algorithms::host_mode::overlap;
  algorithms::tofu2_options o;
  o.segments = 2;
  const program p = make_program({s}, t, place, {"collective"}, algorithms::ragasa_relay::unit, o);
  BOOST_TEST_REQUIRE(p.instances.size() == 3u);
  for (uint32_t r = 0; r < 4; ++r) {
    std::map<op_kind, int> n;
    int setup = 0;
    for (const algorithms::op& x : p.sched.ranks[r].ops) {
      ++n[x.kind];
      setup += x.setup ? 1 : 0;
      if (x.kind == op_kind::compute) {  // after this repetition's MPI_Start
        BOOST_TEST_REQUIRE(x.deps.size() == 1u);
        BOOST_TEST((p.sched.ranks[r].ops[x.deps[0]].kind == op_kind::offload_start));
      }
    }
    BOOST_TEST(n[op_kind::offload_init] == 1);
    BOOST_TEST(n[op_kind::offload_free] == 1);
    BOOST_TEST(n[op_kind::offload_start] == 3);
    BOOST_TEST(n[op_kind::offload_wait] == 3);
    BOOST_TEST(n[op_kind::compute] == 3);
    // Rank 0 (the root) receives 3 readiness reports and its child's address; rank 3 (the
    // last) sends its address and its readiness.
    BOOST_TEST(setup == (r == 0 ? 4 : r == 3 ? 2 : 3));
  }
  // Rank 1 receives two segments per repetition, plus rank 2's address in the first.
  BOOST_TEST(p.instances[0].receives[1] == 3u);
  BOOST_TEST(p.instances[1].receives[1] == 2u);
  BOOST_TEST(p.instances[2].receives[1] == 2u);
  const algorithms::verify_result v = verify_schedule(p.sched, algorithms::delivery::hardware);
  BOOST_TEST(v.ok, (v.errors.empty() ? std::string() : v.errors.front()));
}
