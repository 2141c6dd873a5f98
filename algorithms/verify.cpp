// Abstract, time-free execution of a schedule. Every op is a node of a per-rank dependency
// graph; a worklist releases ops as their deps complete. Sends are eager (complete at once
// and queue a message); an offload_bcast is a send, in one step, to every rank whose program
// receives from it on its context and tag (the offload hardware's tree is built to reach
// exactly those: Ragasa's from the root or, with nodes relaying, from each relay); a recv
// completes when its channel (src, dst, context, tag) holds a message.
// Ready recvs on one channel match messages in the order they became ready; the worklist
// is FIFO and releases ops in index order, so the result is deterministic.
#include "algorithms/verify.h"

#include <algorithm>
#include <deque>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace bcastsim::algorithms {

namespace {

constexpr size_t max_reported_errors = 10;

// Keeps the first few errors in full and counts the rest, so a broken 16k-rank schedule
// produces a readable report rather than megabytes of text.
class error_sink {
 public:
  explicit error_sink(verify_result& r) : m_result(r) {}
  void add(const std::string& msg) {
    if (m_result.errors.size() < max_reported_errors) {
      m_result.errors.push_back(msg);
    } else {
      ++m_suppressed;
    }
  }
  bool any() const { return !m_result.errors.empty(); }
  void finish() {
    if (m_suppressed > 0) {
      m_result.errors.push_back("... and " + std::to_string(m_suppressed) + " more errors");
    }
    m_result.ok = m_result.errors.empty();
  }

 private:
  verify_result& m_result;
  uint64_t m_suppressed = 0;
};

std::string describe(const op& o) {
  std::ostringstream os;
  os << to_string(o.kind);
  if (o.kind == op_kind::send) os << " to " << o.peer << " tag " << o.tag;
  if (o.kind == op_kind::recv) os << " from " << o.peer << " tag " << o.tag;
  if (o.kind == op_kind::offload_bcast) os << " by " << o.peer << " tag " << o.tag;
  return os.str();
}

std::string range(uint64_t lo, uint64_t hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + ")";
}

struct channel_key {
  uint32_t src;
  uint32_t dst;
  uint32_t context;
  uint32_t tag;
  bool operator==(const channel_key& o) const {
    return src == o.src && dst == o.dst && context == o.context && tag == o.tag;
  }
};

struct channel_key_hash {
  size_t operator()(const channel_key& k) const {
    uint64_t h = (static_cast<uint64_t>(k.src) << 32) | k.dst;
    h ^= (static_cast<uint64_t>(k.context) << 32 | k.tag) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return static_cast<size_t>(h);
  }
};

struct message {
  uint64_t offset;
  uint64_t bytes;
  uint32_t send_op;  // index in the sender's program
  uint32_t depth;    // the send's step
};

// FIFO without std::deque's per-instance block allocation: a vector and a head index.
template <typename T>
struct fifo {
  std::vector<T> items;
  size_t head = 0;
  bool empty() const { return head == items.size(); }
  const T& front() const { return items[head]; }
  void pop() { ++head; }
};

struct channel {
  fifo<message> messages;
  fifo<uint32_t> waiting_recvs;  // op indices in the receiver's program
};

struct interval {
  uint64_t lo;
  uint64_t hi;
};

class simulator {
 public:
  simulator(const schedule& s, delivery contract, verify_result& r, error_sink& errors)
      : m_s(s), m_contract(contract), m_result(r), m_errors(errors) {}

  bool validate();
  void run();
  void report_incomplete();
  void report_leftovers();
  void check_coverage();

 private:
  uint32_t id(uint32_t rank, uint32_t index) const { return m_base[rank] + index; }
  void release(uint32_t rank, uint32_t index);
  void complete(uint32_t rank, uint32_t index, uint32_t depth);
  void match(const channel_key& key, channel& c);
  void post_message(uint32_t rank, uint32_t index, uint32_t dst, uint32_t depth);
  uint32_t deps_depth(uint32_t rank, const op& o) const;

  const schedule& m_s;
  delivery m_contract;
  verify_result& m_result;
  error_sink& m_errors;

  std::vector<uint32_t> m_base;                       // [rank] first global op id
  std::vector<uint32_t> m_pending;                    // [id] deps not yet complete
  std::vector<uint8_t> m_done;                        // [id]
  std::vector<uint32_t> m_depth;                      // [id]
  std::vector<uint32_t> m_first_dependent;            // CSR offsets, [id] .. [id + 1]
  std::vector<uint32_t> m_dependents;                 // op indices of the same rank
  std::deque<std::pair<uint32_t, uint32_t>> m_ready;  // (rank, index)
  std::unordered_map<channel_key, channel, channel_key_hash> m_channels;
  // (src, -, context, tag) -> the ranks receiving from src there: an offload's receivers.
  std::unordered_map<channel_key, std::vector<uint32_t>, channel_key_hash> m_receivers;
  std::vector<std::vector<interval>> m_received;  // [rank]
};

bool simulator::validate() {
  if (m_s.ranks.size() != m_s.num_ranks) {
    m_errors.add("schedule has num_ranks " + std::to_string(m_s.num_ranks) + " but " +
                 std::to_string(m_s.ranks.size()) + " rank programs");
    return false;
  }
  if (!m_s.own.empty() && m_s.own.size() != m_s.num_ranks) {
    m_errors.add("schedule has num_ranks " + std::to_string(m_s.num_ranks) + " but " +
                 std::to_string(m_s.own.size()) + " initially held spans");
    return false;
  }
  for (uint32_t rank = 0; rank < m_s.own.size(); ++rank) {
    const byte_span& o = m_s.own[rank];
    if (o.begin > o.end || o.end > m_s.bytes) {
      m_errors.add("rank " + std::to_string(rank) + " holds " + range(o.begin, o.end) +
                   " before the collective, outside the buffer of " + std::to_string(m_s.bytes) +
                   " bytes");
    }
  }
  if (m_s.num_ranks > 0 && m_s.root >= m_s.num_ranks) {
    m_errors.add("root " + std::to_string(m_s.root) + " is not below num_ranks " +
                 std::to_string(m_s.num_ranks));
  }
  uint64_t total = m_s.total_ops();
  if (total >= 0xffffffffull) {
    m_errors.add("schedule has too many ops (" + std::to_string(total) + ")");
    return false;
  }
  for (uint32_t rank = 0; rank < m_s.num_ranks; ++rank) {
    const auto& ops = m_s.ranks[rank].ops;
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const op& o = ops[i];
      const bool local = o.kind == op_kind::compute || o.kind == op_kind::join ||
                         o.kind == op_kind::wait_until || is_offload_call(o.kind);
      if (!local && o.peer >= m_s.num_ranks) {
        m_errors.add("rank " + std::to_string(rank) + " op " + std::to_string(i) + " (" +
                     describe(o) + "): peer is not below num_ranks " +
                     std::to_string(m_s.num_ranks));
      }
      if (is_offload_call(o.kind) && o.peer != rank) {
        m_errors.add("rank " + std::to_string(rank) + " op " + std::to_string(i) + " (" +
                     describe(o) + "): a persistent offload call's peer must be its own rank " +
                     std::to_string(rank));
      }
      if (o.kind == op_kind::offload_bcast && o.peer != rank) {
        m_errors.add("rank " + std::to_string(rank) + " op " + std::to_string(i) + " (" +
                     describe(o) + "): an offload_bcast's peer must be its own rank " +
                     std::to_string(rank));
      }
      // Requiring deps to precede the op rules out cycles within a rank.
      for (uint32_t d : o.deps) {
        if (d >= i) {
          m_errors.add("rank " + std::to_string(rank) + " op " + std::to_string(i) + " (" +
                       describe(o) + "): dep " + std::to_string(d) +
                       " is not an earlier op of the same rank");
        }
      }
    }
  }
  return !m_errors.any();
}

void simulator::run() {
  const uint32_t n = m_s.num_ranks;
  m_base.assign(n + 1, 0);
  for (uint32_t rank = 0; rank < n; ++rank) {
    m_base[rank + 1] = m_base[rank] + static_cast<uint32_t>(m_s.ranks[rank].ops.size());
  }
  const uint32_t total = m_base[n];
  m_pending.assign(total, 0);
  m_done.assign(total, 0);
  m_depth.assign(total, 0);
  m_first_dependent.assign(total + 1, 0);
  m_received.assign(n, {});

  // Dependents in compressed rows: count, prefix-sum, fill.
  for (uint32_t rank = 0; rank < n; ++rank) {
    const auto& ops = m_s.ranks[rank].ops;
    for (uint32_t i = 0; i < ops.size(); ++i) {
      m_pending[id(rank, i)] = static_cast<uint32_t>(ops[i].deps.size());
      for (uint32_t d : ops[i].deps) ++m_first_dependent[id(rank, d) + 1];
    }
  }
  for (uint32_t k = 0; k < total; ++k) m_first_dependent[k + 1] += m_first_dependent[k];
  m_dependents.assign(m_first_dependent[total], 0);
  std::vector<uint32_t> fill(m_first_dependent.begin(), m_first_dependent.end() - 1);
  for (uint32_t rank = 0; rank < n; ++rank) {
    const auto& ops = m_s.ranks[rank].ops;
    for (uint32_t i = 0; i < ops.size(); ++i) {
      for (uint32_t d : ops[i].deps) m_dependents[fill[id(rank, d)]++] = i;
    }
  }

  for (uint32_t rank = 0; rank < n; ++rank) {
    for (const op& o : m_s.ranks[rank].ops) {
      if (o.kind != op_kind::recv) continue;
      std::vector<uint32_t>& to = m_receivers[channel_key{o.peer, ~0u, o.context, o.tag}];
      if (to.empty() || to.back() != rank) to.push_back(rank);
    }
  }
  for (uint32_t rank = 0; rank < n; ++rank) {
    for (uint32_t i = 0; i < m_s.ranks[rank].ops.size(); ++i) {
      if (m_pending[id(rank, i)] == 0) m_ready.emplace_back(rank, i);
    }
  }
  while (!m_ready.empty()) {
    auto [rank, index] = m_ready.front();
    m_ready.pop_front();
    release(rank, index);
  }
}

uint32_t simulator::deps_depth(uint32_t rank, const op& o) const {
  uint32_t depth = 0;
  for (uint32_t d : o.deps) depth = std::max(depth, m_depth[id(rank, d)]);
  return depth;
}

void simulator::release(uint32_t rank, uint32_t index) {
  const op& o = m_s.ranks[rank].ops[index];
  const uint32_t depth = deps_depth(rank, o);
  switch (o.kind) {
    case op_kind::compute:
    case op_kind::join:
    case op_kind::wait_until:
    case op_kind::offload_init:
    case op_kind::offload_start:
    case op_kind::offload_wait:
    case op_kind::offload_free:
      complete(rank, index, depth);
      break;
    case op_kind::send: {
      // A send occupies the step after its deps, so a rank's successive sends are
      // successive steps (binomial on p ranks then takes ceil(log2 p) of them).
      complete(rank, index, depth + 1);
      post_message(rank, index, o.peer, depth + 1);
      break;
    }
    case op_kind::offload_bcast: {
      // The network replicates the data: one step, like a send, to each of its receivers.
      complete(rank, index, depth + 1);
      const auto it = m_receivers.find(channel_key{rank, ~0u, o.context, o.tag});
      if (it == m_receivers.end()) break;
      for (const uint32_t dst : it->second) {
        if (dst != rank) post_message(rank, index, dst, depth + 1);
      }
      break;
    }
    case op_kind::recv: {
      const channel_key key{o.peer, rank, o.context, o.tag};
      channel& c = m_channels[key];
      c.waiting_recvs.items.push_back(index);
      match(key, c);
      break;
    }
  }
}

// Queues the message of send or offload op `index` of `rank` on channel (rank, dst, tag).
void simulator::post_message(uint32_t rank, uint32_t index, uint32_t dst, uint32_t depth) {
  const op& o = m_s.ranks[rank].ops[index];
  const channel_key key{rank, dst, o.context, o.tag};
  channel& c = m_channels[key];
  c.messages.items.push_back({o.offset, o.bytes, index, depth});
  match(key, c);
}

void simulator::complete(uint32_t rank, uint32_t index, uint32_t depth) {
  const uint32_t k = id(rank, index);
  m_done[k] = 1;
  m_depth[k] = depth;
  m_result.rounds = std::max(m_result.rounds, depth);
  for (uint32_t j = m_first_dependent[k]; j < m_first_dependent[k + 1]; ++j) {
    const uint32_t dep = m_dependents[j];
    if (--m_pending[id(rank, dep)] == 0) m_ready.emplace_back(rank, dep);
  }
}

void simulator::match(const channel_key& key, channel& c) {
  while (!c.messages.empty() && !c.waiting_recvs.empty()) {
    const message msg = c.messages.front();
    const uint32_t index = c.waiting_recvs.front();
    c.messages.pop();
    c.waiting_recvs.pop();
    const op& r = m_s.ranks[key.dst].ops[index];
    if (r.offset != msg.offset || r.bytes != msg.bytes) {
      m_errors.add("rank " + std::to_string(key.dst) + " op " + std::to_string(index) + " (" +
                   describe(r) + ") expects offset " + std::to_string(r.offset) + " bytes " +
                   std::to_string(r.bytes) + " but matched rank " + std::to_string(key.src) +
                   " op " + std::to_string(msg.send_op) + " sending offset " +
                   std::to_string(msg.offset) + " bytes " + std::to_string(msg.bytes));
    }
    ++m_result.messages;
    if (r.bytes > 0) m_received[key.dst].push_back({r.offset, r.offset + r.bytes});
    // Completing the recv may release more ops; they queue on m_ready, not recurse here.
    // The recv lands in its send's step (or later, if its own deps finish later).
    complete(key.dst, index, std::max(deps_depth(key.dst, r), msg.depth));
  }
}

void simulator::report_incomplete() {
  // Ops that are ready but unmatched are the root causes; report them before ops that
  // only wait on them.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t rank = 0; rank < m_s.num_ranks; ++rank) {
      const auto& ops = m_s.ranks[rank].ops;
      for (uint32_t i = 0; i < ops.size(); ++i) {
        const uint32_t k = id(rank, i);
        if (m_done[k]) continue;
        const bool waiting_on_peer = m_pending[k] == 0;
        if (waiting_on_peer != (pass == 0)) continue;
        std::string msg = "deadlock: rank " + std::to_string(rank) + " op " + std::to_string(i) +
                          " (" + describe(ops[i]) + ") never completes";
        msg += waiting_on_peer
                   ? ": no matching message ever arrives"
                   : ": waits on " + std::to_string(m_pending[k]) + " incomplete dep(s)";
        m_errors.add(msg);
      }
    }
  }
}

void simulator::report_leftovers() {
  // Sorted so the report does not depend on hash-map order.
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>> keys;
  for (const auto& [key, c] : m_channels) {
    if (!c.messages.empty()) keys.emplace_back(key.src, key.dst, key.context, key.tag);
  }
  std::sort(keys.begin(), keys.end());
  for (const auto& [src, dst, context, tag] : keys) {
    const channel& c = m_channels.at(channel_key{src, dst, context, tag});
    for (size_t j = c.messages.head; j < c.messages.items.size(); ++j) {
      const message& m = c.messages.items[j];
      m_errors.add("unreceived message: rank " + std::to_string(src) + " op " +
                   std::to_string(m.send_op) + " sends " + range(m.offset, m.offset + m.bytes) +
                   " to rank " + std::to_string(dst) + " tag " + std::to_string(tag) +
                   " but no recv matches it");
    }
  }
}

void simulator::check_coverage() {
  const uint64_t size = m_s.bytes;
  const bool once = m_contract == delivery::exactly_once;
  for (uint32_t rank = 0; rank < m_s.num_ranks; ++rank) {
    auto& got = m_received[rank];
    const std::string who = "rank " + std::to_string(rank);
    const byte_span own = m_s.held_before(rank);
    const bool root = m_s.own.empty() && rank == m_s.root;
    if (root && once && !got.empty()) {
      m_errors.add(who + " is the root but receives " + std::to_string(got.size()) +
                   " message(s), first " + range(got[0].lo, got[0].hi));
      continue;
    }
    // Sweep over interval boundaries; between two boundaries the coverage count is fixed.
    std::vector<std::pair<uint64_t, int>> events;
    events.reserve(2 * got.size() + 2);
    for (const interval& iv : got) {
      events.emplace_back(iv.lo, +1);
      events.emplace_back(iv.hi, -1);
    }
    // What the rank holds from the start counts as received once.
    if (own.size() > 0) {
      events.emplace_back(own.begin, +1);
      events.emplace_back(own.end, -1);
    }
    events.emplace_back(0, 0);
    events.emplace_back(size, 0);
    std::sort(events.begin(), events.end());
    int count = 0;
    uint64_t at = 0;
    // Runs of equal classification are merged before reporting.
    enum cls : uint8_t { fine, missing, duplicated, outside };
    cls run_class = fine;
    uint64_t run_lo = 0;
    auto flush = [&](uint64_t hi) {
      if (run_class == fine || run_lo >= hi) return;
      const char* what = run_class == missing      ? " never receives bytes "
                         : run_class == duplicated ? " receives more than once bytes "
                                                   : " receives bytes outside the buffer ";
      m_errors.add(who + what + range(run_lo, hi));
    };
    for (const auto& [pos, delta] : events) {
      if (pos > at) {
        cls c = fine;
        if (at >= size) {
          if (count > 0) c = outside;
        } else if (count == 0) {
          c = missing;
        } else if (count > 1 && once) {
          c = duplicated;
        }
        if (c != run_class) {
          flush(at);
          run_class = c;
          run_lo = at;
        }
        at = pos;
      }
      count += delta;
    }
    flush(at);
  }
}

}  // namespace

verify_result verify_schedule(const schedule& s, delivery contract) {
  verify_result result;
  error_sink errors(result);
  simulator sim(s, contract, result, errors);
  if (sim.validate()) {
    sim.run();
    sim.report_incomplete();
    sim.report_leftovers();
    if (contract != delivery::hardware) sim.check_coverage();
  }
  errors.finish();
  return result;
}

}  // namespace bcastsim::algorithms
