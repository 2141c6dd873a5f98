// The NIC-based all-to-all broadcast's logic (algorithms/lanai_gossip.h), the unit benches
// issue 17 asks for that need no time: hopping-packet forwarding (every origin's binomial
// tree reaches every rank once, by the paper's next-destination rule, over 2 log N peers),
// the status bit vector and arrival counter, the rotation of the two buffer channels,
// recursive doubling's steps and staging, and receiver-driven recovery: with one chosen packet
// lost, with an inner node's packet lost (the NACK passed up), with NACKs lost, and with 1 %
// and 20 % random loss, every NIC gets every origin exactly once.
#include "algorithms/lanai_gossip.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

using namespace bcastsim::algorithms::lanai;

namespace {

const uint32_t k_sizes[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 32, 64, 100, 128};

uint32_t log2_ceil(uint32_t n) {
  uint32_t b = 0;
  while ((uint64_t{1} << b) < n) ++b;
  return b;
}

// Every NIC got every other origin exactly once, on the NIC and at the host.
uint32_t exactly_once_errors(const recovery_report& r) {
  uint32_t wrong = 0;
  const uint32_t n = static_cast<uint32_t>(r.delivered_to_host.size());
  for (uint32_t rank = 0; rank < n; ++rank) {
    for (uint32_t o = 0; o < n; ++o) wrong += r.delivered_to_host[rank][o] != (o == rank ? 0u : 1u);
  }
  return wrong;
}

}  // namespace

BOOST_AUTO_TEST_CASE(hopping_packets_walk_a_binomial_tree_per_origin) {
  for (const uint32_t n : k_sizes) {
    BOOST_TEST_CONTEXT("n = " << n) {
      uint32_t wrong = 0;
      for (uint32_t origin = 0; origin < n; ++origin) {
        std::vector<uint32_t> reached(n, 0);
        std::vector<uint32_t> depth(n, 0);
        reached[origin] = 1;
        std::vector<uint32_t> todo = {origin};
        while (!todo.empty()) {
          const uint32_t at = todo.back();
          todo.pop_back();
          for (const hop& h : cb_sends(at, origin, n)) {
            ++reached[h.to];
            depth[h.to] = depth[at] + 1;
            todo.push_back(h.to);
            wrong += cb_parent(h.to, origin, n) != at;
            wrong += h.flag.origin != origin;
            // The flag names the hop's distance, 2^j ranks.
            wrong += relative_rank(h.to, at, n) != (1u << h.flag.log_distance);
          }
        }
        for (uint32_t r = 0; r < n; ++r) {
          wrong += reached[r] != 1;
          wrong += depth[r] > log2_ceil(n);
        }
        wrong += cb_parent(origin, origin, n) != origin;
      }
      BOOST_TEST(wrong == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(hopping_follows_the_papers_next_destination_rule) {
  // "The current NIC finds out the next destination of a hopping packet as |rank - i| + 2^j;
  // if it is not less than the size of the group, no further hops": with j the flag after
  // the increment, from the origin's 1, 2, 4, 8 on 16 NICs.
  std::vector<uint32_t> root;
  for (const hop& h : cb_sends(5, 5, 16)) root.push_back(h.to);
  BOOST_TEST(root == (std::vector<uint32_t>{6, 7, 9, 13}), boost::test_tools::per_element());
  // Relative rank 3 (rank 8 for origin 5) heard from relative 1 over distance 2 (j = 1): it
  // sends to relative 3 + 4 and 3 + 8 with j = 2 and 3.
  const std::vector<hop> mid = cb_sends(8, 5, 16);
  BOOST_REQUIRE(mid.size() == 2u);
  BOOST_TEST(mid[0].to == 12u);
  BOOST_TEST(mid[0].flag.log_distance == 2);
  BOOST_TEST(mid[1].to == 0u);  // relative 11 wraps to rank 0
  BOOST_TEST(mid[1].flag.log_distance == 3);
  BOOST_TEST(!next_hop(0, mid[1].flag, 16).has_value());  // 11 + 16 >= 16
  BOOST_TEST(cb_parent(8, 5, 16) == 6u);
  BOOST_TEST(!first_hop(0, 1).has_value());
}

BOOST_AUTO_TEST_CASE(a_nic_keeps_two_log_n_peers) {
  for (const uint32_t n : k_sizes) {
    BOOST_TEST_CONTEXT("n = " << n) {
      uint32_t wrong = 0;
      for (uint32_t rank = 0; rank < n; ++rank) {
        const std::vector<uint32_t> peers = cb_peers(rank, n);
        const std::set<uint32_t> peer_set(peers.begin(), peers.end());
        wrong += peer_set.count(rank);
        if (n >= 4 && (n & (n - 1)) == 0) wrong += peers.size() != 2 * log2_ceil(n) - 1;
        wrong += peers.size() > 2 * log2_ceil(n);
        // Every packet it sends or gets, for any origin, is with one of them.
        for (uint32_t origin = 0; origin < n; ++origin) {
          for (const hop& h : cb_sends(rank, origin, n)) wrong += !peer_set.count(h.to);
          if (origin != rank) wrong += !peer_set.count(cb_parent(rank, origin, n));
        }
      }
      BOOST_TEST(wrong == 0u);
    }
  }
  // 16 NICs: +-1, +-2, +-4 and 8 (both ways the same): 7 peers = 2 log N - 1.
  BOOST_TEST(cb_peers(0, 16) == (std::vector<uint32_t>{1, 2, 4, 8, 12, 14, 15}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(arrival_record_counts_marks_once_and_lists_what_is_missing) {
  arrival_record a(130);  // three 64-bit words
  BOOST_TEST(a.count() == 0u);
  BOOST_TEST(a.mark(0));
  BOOST_TEST(a.mark(64));
  BOOST_TEST(a.mark(129));
  BOOST_TEST(!a.mark(64));  // a duplicate changes nothing
  BOOST_TEST(a.count() == 3u);
  BOOST_TEST(a.has(129));
  BOOST_TEST(!a.has(128));
  BOOST_TEST(a.missing().size() == 127u);
  for (uint32_t i = 0; i < 130; ++i) a.mark(i);
  BOOST_TEST(a.complete());
  BOOST_TEST(a.missing().empty());
  a.reset(3);
  BOOST_TEST(a.count() == 0u);
  BOOST_TEST(a.missing() == (std::vector<uint32_t>{0, 1, 2}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(buffer_channels_rotate_and_refuse_what_cannot_happen) {
  using v = buffer_channels::verdict;
  buffer_channels c;
  BOOST_TEST((c.classify(0) == v::early));  // arrived before the host posted it
  BOOST_TEST((c.classify(1) == v::too_early));
  BOOST_TEST(!c.open(1));
  BOOST_TEST(c.open(0));
  BOOST_TEST(!c.open(0));
  BOOST_TEST((c.classify(0) == v::current));
  BOOST_TEST((c.classify(1) == v::early));  // a faster peer moved on: the other channel
  BOOST_TEST((c.classify(2) == v::too_early));
  BOOST_TEST(c.channel_of(0) != c.channel_of(1));
  BOOST_TEST(c.channel_of(0) == c.channel_of(2));
  BOOST_TEST(!c.complete(1));
  BOOST_TEST(c.complete(0));
  BOOST_TEST((c.classify(0) == v::stale));  // a late retransmission of a finished operation
  BOOST_TEST((c.classify(1) == v::early));
  BOOST_TEST(c.open(1));
  BOOST_TEST(c.current() == 1u);
  // 32-bit sequence numbers wrap.
  buffer_channels w;
  for (uint32_t s = 0; s < 3; ++s) {
    BOOST_TEST(w.open(s));
    BOOST_TEST(w.complete(s));
  }
  BOOST_TEST((w.classify(0xffffffffu) == v::stale));
}

BOOST_AUTO_TEST_CASE(recursive_doubling_steps_combine_and_stage) {
  // 16 NICs, 4-byte blocks: log2 16 = 4 steps of 1, 2, 4, 8 blocks, one packet each, all in
  // the NIC (the paper's combining of small messages).
  const std::vector<rd_step> small = rd_steps(5, 16, 4, 4096, 8192);
  BOOST_REQUIRE(small.size() == 4u);
  const uint32_t peers[] = {4, 7, 1, 13};
  const uint32_t firsts[] = {5, 4, 4, 0};
  for (uint32_t k = 0; k < 4; ++k) {
    BOOST_TEST(small[k].peer == peers[k]);
    BOOST_TEST(small[k].blocks == 1u << k);
    BOOST_TEST(small[k].first_block == firsts[k]);
    BOOST_TEST(small[k].packets == 1u);
    BOOST_TEST(!small[k].staged_in_host);
  }
  // 4 KiB blocks: step 0 leaves 8 KiB (fits the staging buffer), step 1 leaves 16 KiB (to the
  // host); the last step has no next one.
  const std::vector<rd_step> large = rd_steps(5, 16, 4096, 4096, 8192);
  BOOST_TEST(!large[0].staged_in_host);
  BOOST_TEST(large[1].staged_in_host);
  BOOST_TEST(large[2].staged_in_host);
  BOOST_TEST(!large[3].staged_in_host);
  BOOST_TEST(large[3].packets == 8u);
  // Every rank receives every other block once, and its peer sends the blocks it receives.
  for (const uint32_t n : {1u, 2u, 8u, 64u}) {
    for (uint32_t r = 0; r < n; ++r) {
      std::vector<uint32_t> got(n, 0);
      got[r] = 1;
      for (const rd_step& s : rd_steps(r, n, 4, 4096, 8192)) {
        for (uint32_t b = 0; b < s.blocks; ++b) ++got[s.peer_first_block + b];
        const std::vector<rd_step> theirs = rd_steps(s.peer, n, 4, 4096, 8192);
        BOOST_TEST(theirs[log2_ceil(s.blocks + 1) - 1].first_block == s.peer_first_block);
      }
      for (uint32_t b = 0; b < n; ++b) BOOST_TEST(got[b] == 1u);
    }
  }
  BOOST_CHECK_THROW(rd_steps(0, 12, 4, 4096, 8192), std::invalid_argument);
  BOOST_CHECK_THROW(rd_steps(16, 16, 4, 4096, 8192), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(without_loss_every_packet_goes_once_and_nothing_times_out) {
  for (const uint32_t n : k_sizes) {
    const recovery_report r = cb_recover(n, nullptr);
    BOOST_TEST_CONTEXT("n = " << n) {
      BOOST_TEST(r.complete);
      BOOST_TEST(exactly_once_errors(r) == 0u);
      BOOST_TEST(r.data_packets == uint64_t{n} * (n - 1));
      BOOST_TEST(r.timeout_rounds == 0u);
      BOOST_TEST(r.nacks == 0u);
      BOOST_TEST(r.duplicates == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(one_lost_packet_to_a_leaf_costs_one_nack_and_one_retransmission) {
  // Origin 0's packet from rank 0 to rank 1 on 16 NICs: rank 1 relays to 3, 5 and 9, so its
  // loss leaves 8 NICs without it. Lose instead the packet 7 -> 15 (origin 0): 15 is a leaf.
  auto lose_one = [](message_kind kind, uint32_t origin, uint32_t from, uint32_t to,
                     uint32_t attempt) {
    return kind == message_kind::data && origin == 0 && from == 7 && to == 15 && attempt == 0;
  };
  const recovery_report r = cb_recover(16, lose_one);
  BOOST_TEST(r.complete);
  BOOST_TEST(exactly_once_errors(r) == 0u);
  BOOST_TEST(r.lost_packets == 1u);
  BOOST_TEST(r.timeout_rounds == 1u);
  BOOST_TEST(r.nacks == 1u);
  BOOST_TEST(r.retransmissions == 1u);
  BOOST_TEST(r.propagated_nacks == 0u);
  BOOST_TEST(r.duplicates == 0u);
}

BOOST_AUTO_TEST_CASE(a_lost_packet_to_a_relay_is_recovered_down_its_subtree) {
  // 0 -> 1 (origin 0) lost: 1, 3, 5, 7, 9, 11, 13, 15 all lack it. Rank 1 NACKs 0, which
  // resends; the others NACK parents that lack it, which pass the NACK up (absorbed once a
  // round per NIC). Each gets the packet once.
  auto lose = [](message_kind kind, uint32_t origin, uint32_t from, uint32_t to, uint32_t a) {
    return kind == message_kind::data && origin == 0 && from == 0 && to == 1 && a == 0;
  };
  const recovery_report r = cb_recover(16, lose);
  BOOST_TEST(r.complete);
  BOOST_TEST(exactly_once_errors(r) == 0u);
  BOOST_TEST(r.timeout_rounds == 1u);
  BOOST_TEST(r.nacks == 8u);             // one per NIC lacking the packet; none passed further up
  BOOST_TEST(r.propagated_nacks == 7u);  // parents that lacked it, absorbed by their own NACK
  BOOST_TEST(r.retransmissions == 1u);
}

BOOST_AUTO_TEST_CASE(a_lost_nack_is_sent_again_next_round) {
  auto lose = [](message_kind kind, uint32_t origin, uint32_t from, uint32_t to, uint32_t a) {
    // Origin 2 on 8 NICs: rank 1 (relative 7, a leaf) hears from rank 5 (relative 3).
    if (kind == message_kind::data) return origin == 2 && from == 5 && to == 1 && a == 0;
    return origin == 2 && from == 1 && a < 2;  // rank 1's first two NACKs
  };
  const recovery_report r = cb_recover(8, lose);
  BOOST_TEST(r.complete);
  BOOST_TEST(exactly_once_errors(r) == 0u);
  BOOST_TEST(r.timeout_rounds == 3u);
  BOOST_TEST(r.nacks == 3u);
  BOOST_TEST(r.lost_packets == 3u);
}

BOOST_AUTO_TEST_CASE(random_loss_is_recovered_exactly_once) {
  for (const double rate : {0.01, 0.2}) {
    for (const uint32_t n : {16u, 64u, 100u}) {
      uint64_t lost = 0;
      uint64_t resent = 0;
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        const recovery_report r = cb_recover(n, random_loss(rate, seed));
        BOOST_TEST_CONTEXT("rate " << rate << " n " << n << " seed " << seed) {
          BOOST_TEST(r.complete);
          BOOST_TEST(exactly_once_errors(r) == 0u);
        }
        lost += r.lost_packets;
        resent += r.retransmissions;
      }
      BOOST_TEST(lost > 0u);  // the runs did lose packets, and recovered them
      BOOST_TEST(resent > 0u);
    }
  }
  // The loss draw is a pure function of the message and the seed.
  const loss_fn a = random_loss(0.5, 7);
  const loss_fn b = random_loss(0.5, 7);
  uint32_t differ = 0;
  uint32_t dropped = 0;
  for (uint32_t i = 0; i < 1000; ++i) {
    differ +=
        a(message_kind::data, i, i + 1, i + 2, 0) != b(message_kind::data, i, i + 1, i + 2, 0);
    dropped += a(message_kind::data, i, i + 1, i + 2, 0);
  }
  BOOST_TEST(differ == 0u);
  BOOST_TEST(dropped > 400u);
  BOOST_TEST(dropped < 600u);
}
