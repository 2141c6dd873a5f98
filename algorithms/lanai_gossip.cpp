#include "algorithms/lanai_gossip.h"

#include "network/routing.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <unordered_map>

namespace bcastsim::algorithms::lanai {

namespace {

uint32_t msb(uint32_t x) {
  uint32_t b = 0;
  while (x >>= 1) ++b;
  return b;
}

}  // namespace

hop_flag arrival_flag(uint32_t rank, uint32_t origin, uint32_t n) {
  return {origin, static_cast<uint8_t>(msb(relative_rank(rank, origin, n)))};
}

uint32_t relative_rank(uint32_t rank, uint32_t origin, uint32_t n) {
  return static_cast<uint32_t>((static_cast<uint64_t>(rank) + n - origin % n) % n);
}

std::optional<hop> first_hop(uint32_t origin, uint32_t n) {
  if (n <= 1) return std::nullopt;
  return hop{(origin + 1) % n, hop_flag{origin, 0}};
}

std::optional<hop> next_hop(uint32_t rank, hop_flag flag, uint32_t n) {
  const uint32_t j = flag.log_distance + 1u;
  if (j >= 32) return std::nullopt;
  const uint64_t distance = uint64_t{1} << j;
  if (relative_rank(rank, flag.origin, n) + distance >= n) return std::nullopt;
  return hop{static_cast<uint32_t>((rank + distance) % n),
             hop_flag{flag.origin, static_cast<uint8_t>(j)}};
}

std::vector<hop> cb_sends(uint32_t rank, uint32_t origin, uint32_t n) {
  std::vector<hop> out;
  std::optional<hop> h;
  if (rank == origin) {
    h = first_hop(origin, n);
  } else {
    h = next_hop(rank, arrival_flag(rank, origin, n), n);
  }
  while (h) {
    out.push_back(*h);
    h = next_hop(rank, h->flag, n);
  }
  return out;
}

uint32_t cb_parent(uint32_t rank, uint32_t origin, uint32_t n) {
  const uint32_t rel = relative_rank(rank, origin, n);
  if (rel == 0) return origin;
  const uint32_t parent_rel = rel - (1u << msb(rel));
  return static_cast<uint32_t>((static_cast<uint64_t>(origin) + parent_rel) % n);
}

std::vector<uint32_t> cb_peers(uint32_t rank, uint32_t n) {
  std::vector<uint32_t> peers;
  for (uint64_t d = 1; d < n; d <<= 1) {
    peers.push_back(static_cast<uint32_t>((rank + d) % n));
    peers.push_back(static_cast<uint32_t>((rank + n - d) % n));
  }
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  return peers;
}

void arrival_record::reset(uint32_t n) {
  m_n = n;
  m_count = 0;
  m_bits.assign((n + 63) / 64, 0);
}

bool arrival_record::mark(uint32_t origin) {
  uint64_t& word = m_bits[origin / 64];
  const uint64_t bit = uint64_t{1} << (origin % 64);
  if (word & bit) return false;
  word |= bit;
  ++m_count;
  return true;
}

std::vector<uint32_t> arrival_record::missing() const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < m_n; ++i) {
    if (!has(i)) out.push_back(i);
  }
  return out;
}

buffer_channels::verdict buffer_channels::classify(uint32_t seq) const {
  // Signed distance: the 32-bit sequence numbers may wrap.
  const int32_t ahead = static_cast<int32_t>(seq - m_next);
  if (ahead < 0) return verdict::stale;
  if (ahead == 0) return m_open ? verdict::current : verdict::early;
  if (ahead == 1 && m_open) return verdict::early;
  return verdict::too_early;
}

bool buffer_channels::open(uint32_t seq) {
  if (m_open || seq != m_next) return false;
  m_open = true;
  return true;
}

bool buffer_channels::complete(uint32_t seq) {
  if (!m_open || seq != m_next) return false;
  m_open = false;
  ++m_next;
  return true;
}

std::vector<rd_step> rd_steps(uint32_t rank, uint32_t n, uint64_t block_bytes, uint64_t mtu_bytes,
                              uint64_t staging_bytes) {
  if (n == 0 || (n & (n - 1)) != 0) {
    throw std::invalid_argument("recursive doubling needs a power-of-two group; " +
                                std::to_string(n) + " is not");
  }
  if (rank >= n) throw std::invalid_argument("rank " + std::to_string(rank) + " not below n");
  if (mtu_bytes == 0) throw std::invalid_argument("mtu_bytes must be >= 1");
  std::vector<rd_step> steps;
  for (uint32_t k = 0; (uint64_t{1} << k) < n; ++k) {
    rd_step s;
    const uint32_t blocks = 1u << k;
    s.peer = rank ^ blocks;
    s.blocks = blocks;
    s.first_block = rank & ~(blocks - 1);
    s.peer_first_block = s.peer & ~(blocks - 1);
    s.bytes = blocks * block_bytes;
    s.packets = static_cast<uint32_t>(s.bytes == 0 ? 1 : (s.bytes + mtu_bytes - 1) / mtu_bytes);
    const bool last = (uint64_t{2} << k) >= n;
    s.staged_in_host = !last && 2 * s.bytes > staging_bytes;
    steps.push_back(s);
  }
  return steps;
}

namespace {

struct message {
  message_kind kind;
  uint32_t origin;
  uint32_t from;
  uint32_t to;
  bool retransmission;
};

class cb_logical_run {
 public:
  cb_logical_run(uint32_t n, const loss_fn& lost) : m_n(n), m_lost(lost) {
    m_has.resize(n);
    m_report.arrivals.assign(n, std::vector<uint32_t>(n, 0));
    m_report.delivered_to_host.assign(n, std::vector<uint32_t>(n, 0));
    for (uint32_t r = 0; r < n; ++r) {
      m_has[r].reset(n);
      m_has[r].mark(r);
    }
  }

  recovery_report run(uint32_t max_rounds) {
    for (uint32_t r = 0; r < m_n; ++r) send_down(r, r);
    drain();
    while (!all_complete() && m_report.timeout_rounds < max_rounds) {
      ++m_report.timeout_rounds;
      m_nacked.assign(static_cast<size_t>(m_n) * m_n, false);
      for (uint32_t r = 0; r < m_n; ++r) {
        for (uint32_t i : m_has[r].missing()) send_nack(r, i);
      }
      drain();
    }
    m_report.complete = all_complete();
    return std::move(m_report);
  }

 private:
  bool all_complete() const {
    for (const arrival_record& a : m_has) {
      if (!a.complete()) return false;
    }
    return true;
  }

  // NIC `rank` sends origin's packet on every hop of its tree (it just got it, or owns it).
  void send_down(uint32_t rank, uint32_t origin) {
    for (const hop& h : cb_sends(rank, origin, m_n)) {
      m_queue.push_back({message_kind::data, origin, rank, h.to, false});
    }
  }

  // NIC `rank` lacks origin's packet: it NACKs its parent in origin's tree, once a round.
  void send_nack(uint32_t rank, uint32_t origin) {
    std::vector<bool>::reference sent = m_nacked[static_cast<size_t>(rank) * m_n + origin];
    if (sent) return;
    sent = true;
    ++m_report.nacks;
    m_queue.push_back({message_kind::nack, origin, rank, cb_parent(rank, origin, m_n), false});
  }

  void drain() {
    while (!m_queue.empty()) {
      const message m = m_queue.front();
      m_queue.pop_front();
      if (m.kind == message_kind::data) ++m_report.data_packets;
      if (m_lost && m_lost(m.kind, m.origin, m.from, m.to, next_attempt(m))) {
        ++m_report.lost_packets;
        continue;
      }
      if (m.kind == message_kind::data) {
        ++m_report.arrivals[m.to][m.origin];
        if (!m_has[m.to].mark(m.origin)) {
          ++m_report.duplicates;
          continue;
        }
        ++m_report.delivered_to_host[m.to][m.origin];
        send_down(m.to, m.origin);
      } else if (m_has[m.to].has(m.origin)) {
        ++m_report.retransmissions;
        m_queue.push_back({message_kind::data, m.origin, m.to, m.from, true});
      } else {
        ++m_report.propagated_nacks;
        send_nack(m.to, m.origin);
      }
    }
  }

  uint32_t next_attempt(const message& m) {
    const uint64_t key =
        ((static_cast<uint64_t>(m.kind) * m_n + m.origin) * m_n + m.from) * m_n + m.to;
    return m_attempts[key]++;
  }

  uint32_t m_n;
  const loss_fn& m_lost;
  std::vector<arrival_record> m_has;
  std::vector<bool> m_nacked;  // [rank * n + origin] this round
  std::deque<message> m_queue;
  std::unordered_map<uint64_t, uint32_t> m_attempts;
  recovery_report m_report;
};

}  // namespace

recovery_report cb_recover(uint32_t n, const loss_fn& lost, uint32_t max_rounds) {
  if (n == 0) return recovery_report{{}, {}, 0, 0, 0, 0, 0, 0, 0, true};
  return cb_logical_run(n, lost).run(max_rounds);
}

loss_fn random_loss(double rate, uint64_t seed) {
  return [rate, seed](message_kind kind, uint32_t origin, uint32_t from, uint32_t to,
                      uint32_t attempt) {
    using network::splitmix64;
    uint64_t h = splitmix64(seed ^ static_cast<uint64_t>(kind));
    h = splitmix64(h ^ origin);
    h = splitmix64(h ^ (static_cast<uint64_t>(from) << 32 | to));
    h = splitmix64(h ^ attempt);
    return static_cast<double>(h >> 11) * 0x1.0p-53 < rate;
  };
}

schedule gossip_schedule(uint32_t ranks, uint64_t bytes, bool recursive_doubling) {
  if (recursive_doubling && (ranks == 0 || (ranks & (ranks - 1)) != 0)) {
    throw std::invalid_argument("collective.algorithm = 'nic-rd' needs a power-of-two number "
                                "of ranks (recursive doubling pairs rank r with r XOR 2^k); got " +
                                std::to_string(ranks) + " ranks; allowed: 1, 2, 4, 8, ... ranks, "
                                "or nic-cb");
  }
  schedule s(ranks);
  s.bytes = bytes * ranks;
  s.own.resize(ranks);
  s.hardware_receives.assign(ranks, ranks - 1);
  for (uint32_t r = 0; r < ranks; ++r) {
    s.own[r] = {r * bytes, (r + 1) * bytes};
    s.ranks[r].then(make_offload_call(op_kind::offload_start, r));
  }
  return s;
}

}  // namespace bcastsim::algorithms::lanai
