// Tofu2's pipelined broadcasts compiled to TOQ command sequences (algorithms/tofu2_bcast.h):
// the paper's four-rank example by hand, the snake and the trees on the 12-node unit, every
// plan run by the untimed session-queue checker and, as the host-progressed baseline, by
// verify_schedule; and the checker catching the faults it exists for.
#include "algorithms/tofu2_bcast.h"
#include "algorithms/verify.h"
#include "fixtures.h"
#include "network/torus.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::algorithms;

namespace {

const std::vector<tofu2_algorithm> k_all = {tofu2_algorithm::pipeline, tofu2_algorithm::trinary,
                                            tofu2_algorithm::trinaryx3};

// Torus links between the routers of two ranks: 0 (same node), 1 (neighbours) or more.
uint32_t distance(const network::torus& t, const network::placement& place, uint32_t a,
                  uint32_t b) {
  const network::torus_coords ca = t.coords(t.router_of(place.terminal_of(a)));
  const network::torus_coords cb = t.coords(t.router_of(place.terminal_of(b)));
  uint32_t d = 0;
  for (uint32_t k = 0; k < network::torus_num_dims; ++k) {
    const uint32_t diff = ca[k] > cb[k] ? ca[k] - cb[k] : cb[k] - ca[k];
    d += t.wraps(k) ? std::min(diff, t.size(k) - diff) : diff;
  }
  return d;
}

bool has_error(const tofu2_check_result& r, const std::string& text) {
  for (const std::string& e : r.errors) {
    if (e.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

// The paper's Figure: four ranks in a line, two segments. Rank 0's normal-mode queue puts
// both segments to rank 1 with SPS 1; ranks 1 and 2 forward each segment once it is released;
// rank 3 enqueues nothing.
BOOST_AUTO_TEST_CASE(paper_four_rank_pipeline_by_hand) {
  const network::torus t = test::make_torus(4, 1, 1);
  const network::placement place = test::make_placement(t, network::placement_kind::contiguous, 4);
  const tofu2_plan plan = make_tofu2_plan(tofu2_algorithm::pipeline, t, place, 0, 1000, 2);
  BOOST_TEST(plan.fragments == 1u);
  BOOST_TEST((plan.ranks[0].queues[0].mode == queue_mode::normal));
  const uint32_t sps[4] = {1, 1, 0, 0};
  for (uint32_t r = 0; r < 3; ++r) {
    const toq_queue& q = plan.ranks[r].queues[0];
    if (r > 0) BOOST_TEST((q.mode == queue_mode::session));
    BOOST_TEST_REQUIRE(q.commands.size() == 2u);
    for (uint32_t s = 0; s < 2; ++s) {
      BOOST_TEST(q.commands[s].remote_rank == r + 1);
      BOOST_TEST(q.commands[s].local_offset == 500u * s);
      BOOST_TEST(q.commands[s].length == 500u);
      BOOST_TEST(q.commands[s].sps == sps[r]);
      // Rank 3 forwards nothing: its puts release no queue.
      BOOST_TEST(q.commands[s].remote_queue == (r == 2 ? toq_no_queue : 0u));
    }
    BOOST_TEST(plan.ranks[r + 1].puts_received == 2u);
  }
  BOOST_TEST(plan.ranks[3].queues[0].commands.empty());
  const tofu2_check_result c = check_tofu2_plan(plan);
  BOOST_TEST(c.ok);
  BOOST_TEST(c.puts == 6u);
  BOOST_TEST(c.rounds == 4u);  // segments + ranks - 2: the pipeline's depth
}

// The snake visits the 12-node ABC unit and a 3x3x2 block of units one link at a time, for
// each of the three rotations Trinaryx3 uses, and the unit's snake closes into a ring for
// each (the third runs c, b, a: with the odd b slowest it would end two links away).
BOOST_AUTO_TEST_CASE(snake_steps_one_link_at_a_time) {
  for (const auto& [x, y, z] : {std::array<uint32_t, 3>{1, 1, 1}, {3, 3, 2}}) {
    const network::torus t = test::make_torus(x, y, z);
    const network::placement place = test::make_placement(t, network::placement_kind::all, 0);
    for (uint32_t rot = 0; rot < 3; ++rot) {
      const std::vector<uint32_t> order = tofu2_snake_order(t, place, rot);
      BOOST_TEST_REQUIRE(order.size() == place.num_ranks());
      BOOST_TEST(std::set<uint32_t>(order.begin(), order.end()).size() == order.size());
      for (size_t i = 1; i < order.size(); ++i) {
        BOOST_TEST(distance(t, place, order[i - 1], order[i]) == 1u,
                   "rotation " << rot << " step " << i);
      }
      if (x == 1) BOOST_TEST(distance(t, place, order.front(), order.back()) == 1u);
    }
    // The rotations start differently: fragment f's snake runs first along its own dimension.
    BOOST_TEST(tofu2_snake_order(t, place, 0)[1] != tofu2_snake_order(t, place, 1)[1]);
  }
}

// Trinary on the 12-node unit: the root heads three paths of 4, 4 and 3 ranks whose heads are
// its torus neighbours for the first and the last path; every other rank forwards to at most
// one. Trinaryx3's three fragments take different trees, each on its own TNI.
BOOST_AUTO_TEST_CASE(trinary_trees_on_the_twelve_node_unit) {
  const network::torus t = test::make_torus(1, 1, 1);
  const network::placement place = test::make_placement(t, network::placement_kind::all, 0);
  for (const uint32_t root : {0u, 7u}) {
    const tofu2_plan tri = make_tofu2_plan(tofu2_algorithm::trinary, t, place, root, 12000, 4);
    const auto& ch = tri.children[0];
    BOOST_TEST_REQUIRE(ch[root].size() == 3u);
    BOOST_TEST(distance(t, place, root, ch[root][0]) == 1u);
    BOOST_TEST(distance(t, place, root, ch[root][2]) == 1u);
    std::vector<uint32_t> lengths;
    for (const uint32_t head : ch[root]) {
      uint32_t len = 1;
      for (uint32_t r = head; !ch[r].empty(); r = ch[r][0]) {
        BOOST_TEST(ch[r].size() == 1u);
        BOOST_TEST(distance(t, place, r, ch[r][0]) == 1u);
        ++len;
      }
      lengths.push_back(len);
    }
    BOOST_TEST((lengths == std::vector<uint32_t>{4, 4, 3}));
    // The root puts each segment to the three heads, each carrying its head's fan-out.
    BOOST_TEST(tri.ranks[root].queues[0].commands.size() == 12u);
    BOOST_TEST(tri.ranks[root].queues[0].commands[2].sps == 1u);

    const tofu2_plan x3 = make_tofu2_plan(tofu2_algorithm::trinaryx3, t, place, root, 12001, 4);
    BOOST_TEST(x3.fragments == 3u);
    std::set<std::vector<uint32_t>> trees;
    for (uint32_t f = 0; f < 3; ++f) {
      trees.insert(x3.parent[f]);
      for (const tofu2_rank_plan& r : x3.ranks) BOOST_TEST(r.queues[f].tni == f);
      // Fragments of 4001, 4000 and 4000 bytes, in order.
      const auto& first = x3.ranks[root].queues[f].commands.front();
      BOOST_TEST(first.local_offset == (f == 0 ? 0u : 4001u + 4000u * (f - 1)));
      BOOST_TEST(first.remote_tni == f);
    }
    BOOST_TEST(trees.size() == 3u);
  }
}

// Every algorithm, root, segment count and size on the unit, a 768-node torus and a random
// 100-rank placement: the session queues deliver every byte once with no queue left waiting,
// and the same plan progressed by the hosts verifies as a Schedule with one message per put.
BOOST_AUTO_TEST_CASE(every_plan_checks_and_its_host_schedule_verifies) {
  const network::torus unit = test::make_torus(1, 1, 1);
  const network::torus big = test::make_torus(4, 4, 4);
  const network::placement p_unit = test::make_placement(unit, network::placement_kind::all, 0);
  const network::placement p_big = test::make_placement(big, network::placement_kind::all, 0);
  const network::placement p_rand =
      test::make_placement(big, network::placement_kind::random, 100, 0, 7);
  struct cfg {
    const network::torus* t;
    const network::placement* p;
  };
  for (const cfg& c : {cfg{&unit, &p_unit}, cfg{&big, &p_big}, cfg{&big, &p_rand}}) {
    const uint32_t n = c.p->num_ranks();
    for (const tofu2_algorithm a : k_all) {
      for (const uint32_t root : {0u, n / 2, n - 1}) {
        for (const uint32_t segs : {1u, 3u, 8u}) {
          for (const uint64_t bytes : {0ull, 5ull, 65537ull}) {
            if (n > 100 && (segs != 8 || bytes != 65537)) continue;  // keep it quick
            BOOST_TEST_CONTEXT(to_string(a) << " n " << n << " root " << root << " segments "
                                            << segs << " bytes " << bytes) {
              const tofu2_plan plan = make_tofu2_plan(a, *c.t, *c.p, root, bytes, segs);
              const tofu2_check_result r = check_tofu2_plan(plan);
              BOOST_TEST(r.ok, (r.errors.empty() ? std::string() : r.errors.front()));
              BOOST_TEST(r.puts == plan.total_puts());
              const verify_result v = verify_schedule(tofu2_host_schedule(plan));
              BOOST_TEST(v.ok, (v.errors.empty() ? std::string() : v.errors.front()));
              BOOST_TEST(v.messages == plan.total_puts());
            }
          }
        }
      }
    }
  }
}

// Segments never split a fragment below one byte; a zero-byte broadcast is one empty put per
// tree edge, so it still completes by SPS.
BOOST_AUTO_TEST_CASE(segments_are_capped_by_the_bytes) {
  const network::torus t = test::make_torus(4, 1, 1);
  const network::placement place = test::make_placement(t, network::placement_kind::contiguous, 4);
  BOOST_TEST(make_tofu2_plan(tofu2_algorithm::pipeline, t, place, 0, 5, 8)
                 .ranks[0]
                 .queues[0]
                 .commands.size() == 5u);
  const tofu2_plan empty = make_tofu2_plan(tofu2_algorithm::pipeline, t, place, 0, 0, 8);
  BOOST_TEST(empty.total_puts() == 3u);
  BOOST_TEST(empty.ranks[3].puts_received == 1u);
  BOOST_CHECK_THROW(make_tofu2_plan(tofu2_algorithm::pipeline, t, place, 0, 5, 0),
                    std::invalid_argument);
  BOOST_CHECK_THROW(make_tofu2_plan(tofu2_algorithm::pipeline, t, place, 4, 5, 1),
                    std::invalid_argument);
}

// The checker finds each fault it is for: an SPS one short (a queue waits forever), one too
// many (its scheduling pointer runs past its commands), a relay forwarding segment 1 before
// segment 0 arrived, a put sent twice, and an SPS that does not fit 4 bits.
BOOST_AUTO_TEST_CASE(checker_catches_broken_plans) {
  const network::torus t = test::make_torus(4, 1, 1);
  const network::placement place = test::make_placement(t, network::placement_kind::contiguous, 4);
  const tofu2_plan good = make_tofu2_plan(tofu2_algorithm::pipeline, t, place, 0, 1000, 2);
  BOOST_TEST_REQUIRE(check_tofu2_plan(good).ok);

  tofu2_plan shy = good;
  shy.ranks[0].queues[0].commands[1].sps = 0;
  BOOST_TEST(has_error(check_tofu2_plan(shy), "rank 1 queue 0 waits forever at command 1 of 2"));

  tofu2_plan eager = good;
  eager.ranks[0].queues[0].commands[0].sps = 2;
  BOOST_TEST(has_error(check_tofu2_plan(eager), "scheduling pointer 3 beyond its 2 commands"));

  tofu2_plan early = good;
  auto& relay = early.ranks[1].queues[0].commands;
  std::swap(relay[0], relay[1]);
  BOOST_TEST(
      has_error(check_tofu2_plan(early),
                "rank 1 queue 0 command 0: may send bytes [500, 1000) before it holds them"));

  tofu2_plan twice = good;
  twice.ranks[2].queues[0].commands.push_back(twice.ranks[2].queues[0].commands[0]);
  twice.ranks[2].queues[0].commands.back().sps = 0;
  twice.ranks[1].queues[0].commands[1].sps = 2;
  BOOST_TEST(has_error(check_tofu2_plan(twice), "rank 3 receives bytes [0, 500) a second time"));

  tofu2_plan misplaced = good;  // rank 3's segments written at each other's offsets
  std::swap(misplaced.ranks[2].queues[0].commands[0].remote_offset,
            misplaced.ranks[2].queues[0].commands[1].remote_offset);
  BOOST_TEST(has_error(check_tofu2_plan(misplaced),
                       "rank 2 queue 0 command 0: reads at 0 but "
                       "writes at 500"));

  tofu2_plan to_root = good;
  to_root.ranks[2].queues[0].commands[0].remote_rank = 0;
  BOOST_TEST(has_error(check_tofu2_plan(to_root), "sends bytes [0, 500) to the root"));

  tofu2_plan wide = good;
  wide.ranks[0].queues[0].commands[0].sps = 16;
  BOOST_TEST(has_error(check_tofu2_plan(wide), "SPS 16 > 15"));
}
