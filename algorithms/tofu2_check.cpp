// check_tofu2_plan (algorithms/tofu2_bcast.h): the plan's queues run untimed, as the
// session-mode hardware would run them.
#include "algorithms/tofu2_bcast.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bcastsim::algorithms {

namespace {

constexpr size_t max_errors = 8;

// Disjoint byte ranges one rank holds: start -> end.
class holdings {
 public:
  // False if [begin, end) overlaps a range held already.
  bool add(uint64_t begin, uint64_t end) {
    if (begin == end) return true;
    auto next = m_ranges.lower_bound(begin);
    if (next != m_ranges.end() && next->first < end) return false;
    if (next != m_ranges.begin() && std::prev(next)->second > begin) return false;
    m_ranges.emplace(begin, end);
    m_bytes += end - begin;
    return true;
  }
  bool covers(uint64_t begin, uint64_t end) const {
    if (begin == end) return true;
    auto it = m_ranges.upper_bound(begin);
    if (it == m_ranges.begin()) return false;
    --it;
    uint64_t reached = begin;
    for (; it != m_ranges.end() && it->first <= reached; ++it) {
      if (it->second > reached) reached = it->second;
      if (reached >= end) return true;
    }
    return false;
  }
  uint64_t bytes() const { return m_bytes; }

 private:
  std::map<uint64_t, uint64_t> m_ranges;
  uint64_t m_bytes = 0;
};

struct queue_state {
  size_t consumer = 0;
  uint64_t scheduling = 0;  // session mode: the consumer stays below it
};

class runner {
 public:
  explicit runner(const tofu2_plan& plan) : m_plan(plan), m_held(plan.num_ranks) {
    m_state.resize(plan.num_ranks);
    for (uint32_t r = 0; r < plan.num_ranks; ++r) m_state[r].resize(plan.ranks[r].queues.size());
    m_received.assign(plan.num_ranks, 0);
  }

  tofu2_check_result run() {
    if (m_plan.root < m_plan.num_ranks) m_held[m_plan.root].add(0, m_plan.bytes);
    for (;;) {
      std::vector<std::pair<uint32_t, uint32_t>> ready;  // (rank, queue)
      for (uint32_t r = 0; r < m_plan.num_ranks; ++r) {
        for (uint32_t q = 0; q < m_state[r].size(); ++q) {
          if (can_execute(r, q)) ready.emplace_back(r, q);
        }
      }
      if (ready.empty()) break;
      ++m_result.rounds;
      for (const auto& [r, q] : ready) execute(r, q);
    }
    finish();
    return std::move(m_result);
  }

 private:
  bool can_execute(uint32_t r, uint32_t q) const {
    const toq_queue& queue = m_plan.ranks[r].queues[q];
    const queue_state& st = m_state[r][q];
    if (st.consumer >= queue.commands.size()) return false;
    return queue.mode == queue_mode::normal || st.consumer < st.scheduling;
  }

  void execute(uint32_t r, uint32_t q) {
    queue_state& st = m_state[r][q];
    const toq_descriptor& d = m_plan.ranks[r].queues[q].commands[st.consumer];
    const size_t index = st.consumer;
    const auto where = [&] {  // only formatted for an error
      return "rank " + std::to_string(r) + " queue " + std::to_string(q) + " command " +
             std::to_string(index);
    };
    ++st.consumer;
    if (d.command != toq_command::put) return;
    ++m_result.puts;
    if (d.sps > toq_max_sps) error(where() + ": SPS " + std::to_string(d.sps) + " > 15");
    // A session queue's commands were checked when they were released.
    if (m_plan.ranks[r].queues[q].mode == queue_mode::normal) check_holds(r, q, st.consumer - 1);
    if (d.remote_rank >= m_plan.num_ranks) {
      error(where() + ": its remote rank does not exist");
      return;
    }
    const bool to_queue = d.remote_queue != toq_no_queue;
    if (to_queue && d.remote_queue >= m_plan.ranks[d.remote_rank].queues.size()) {
      error(where() + ": its remote queue does not exist");
      return;
    }
    if (!to_queue && d.sps != 0) error(where() + ": SPS for no queue");
    if (to_queue && m_plan.ranks[d.remote_rank].queues[d.remote_queue].tni != d.remote_tni) {
      error(where() + ": its remote queue is not on TNI " + std::to_string(d.remote_tni));
    }
    // A broadcast has one buffer: a put writes what it reads, at the same offset.
    if (d.remote_offset != d.local_offset) {
      error(where() + ": reads at " + std::to_string(d.local_offset) + " but writes at " +
            std::to_string(d.remote_offset));
    }
    const uint64_t end = d.remote_offset + d.length;
    if (end > m_plan.bytes) error(where() + ": writes beyond the buffer");
    const std::string bytes =
        "bytes [" + std::to_string(d.remote_offset) + ", " + std::to_string(end) + ")";
    if (d.remote_rank == m_plan.root) {
      error(where() + ": sends " + bytes + " to the root");
    } else if (!m_held[d.remote_rank].add(d.remote_offset, end)) {
      error(where() + ": rank " + std::to_string(d.remote_rank) + " receives " + bytes +
            " a second time");
    }
    ++m_received[d.remote_rank];
    if (to_queue) release(d.remote_rank, d.remote_queue, d.sps);
  }

  // The arrival advances the queue's scheduling pointer: the commands it releases may run at
  // once, so they may only send what the rank holds now. (Checking at execution instead
  // would pass a plan whose next arrival happens to come first.)
  void release(uint32_t r, uint32_t q, uint32_t sps) {
    queue_state& st = m_state[r][q];
    const uint64_t n = m_plan.ranks[r].queues[q].commands.size();
    for (uint64_t i = st.scheduling; i < std::min<uint64_t>(st.scheduling + sps, n); ++i) {
      check_holds(r, q, static_cast<size_t>(i));
    }
    st.scheduling += sps;
  }

  void check_holds(uint32_t r, uint32_t q, size_t i) {
    const toq_descriptor& d = m_plan.ranks[r].queues[q].commands[i];
    if (d.command != toq_command::put) return;
    if (!m_held[r].covers(d.local_offset, d.local_offset + d.length)) {
      error("rank " + std::to_string(r) + " queue " + std::to_string(q) + " command " +
            std::to_string(i) + ": may send bytes [" + std::to_string(d.local_offset) + ", " +
            std::to_string(d.local_offset + d.length) + ") before it holds them");
    }
  }

  void finish() {
    for (uint32_t r = 0; r < m_plan.num_ranks; ++r) {
      for (uint32_t q = 0; q < m_state[r].size(); ++q) {
        const size_t n = m_plan.ranks[r].queues[q].commands.size();
        const queue_state& st = m_state[r][q];
        if (st.consumer < n) {
          error("rank " + std::to_string(r) + " queue " + std::to_string(q) +
                " waits forever at command " + std::to_string(st.consumer) + " of " +
                std::to_string(n) + ": scheduling pointer " + std::to_string(st.scheduling));
        }
        if (m_plan.ranks[r].queues[q].mode == queue_mode::session && st.scheduling > n) {
          error("rank " + std::to_string(r) + " queue " + std::to_string(q) +
                ": scheduling pointer " + std::to_string(st.scheduling) + " beyond its " +
                std::to_string(n) + " commands");
        }
      }
      if (m_held[r].bytes() != m_plan.bytes) {
        error("rank " + std::to_string(r) + " holds " + std::to_string(m_held[r].bytes()) + " of " +
              std::to_string(m_plan.bytes) + " bytes");
      }
      if (m_received[r] != m_plan.ranks[r].puts_received) {
        error("rank " + std::to_string(r) + " received " + std::to_string(m_received[r]) +
              " puts; its plan waits for " + std::to_string(m_plan.ranks[r].puts_received));
      }
    }
  }

  void error(std::string what) {
    m_result.ok = false;
    if (m_result.errors.size() < max_errors) m_result.errors.push_back(std::move(what));
  }

  const tofu2_plan& m_plan;
  std::vector<holdings> m_held;
  std::vector<std::vector<queue_state>> m_state;
  std::vector<uint32_t> m_received;
  tofu2_check_result m_result;
};

}  // namespace

tofu2_check_result check_tofu2_plan(const tofu2_plan& plan) {
  if (plan.ranks.size() != plan.num_ranks) {
    tofu2_check_result bad;
    bad.ok = false;
    bad.errors.push_back("the plan has " + std::to_string(plan.ranks.size()) + " rank plans for " +
                         std::to_string(plan.num_ranks) + " ranks");
    return bad;
  }
  return runner(plan).run();
}

}  // namespace bcastsim::algorithms
