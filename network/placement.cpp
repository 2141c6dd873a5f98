#include "network/placement.h"

#include "network/hash.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace bcastsim::network {

uint64_t rng::below(uint64_t n) {
  if (n == 0) throw std::invalid_argument("rng::below(0): the range [0, 0) is empty");
  // Reject draws under 2^64 mod n, so the accepted range holds a whole number of
  // copies of [0, n) and the modulo below is unbiased.
  const uint64_t threshold = (uint64_t{0} - n) % n;
  uint64_t x = next();
  while (x < threshold) x = next();
  return x % n;
}

const char* to_string(placement_kind k) {
  switch (k) {
    case placement_kind::all:
      return "all";
    case placement_kind::contiguous:
      return "contiguous";
    case placement_kind::random:
      return "random";
  }
  return "unknown";
}

namespace {

std::string str(uint64_t v) {
  return std::to_string(v);
}

// The terminals a rank may sit on, in order: all, or the first per_router of every router.
std::vector<terminal_id> candidates(const topology& topo, uint32_t per_router) {
  std::vector<terminal_id> out;
  std::vector<uint32_t> seen(topo.num_routers(), 0);
  for (terminal_id t = 0; t < topo.num_terminals(); ++t) {
    if (per_router == 0 || seen[topo.router_of(t)]++ < per_router) out.push_back(t);
  }
  return out;
}

}  // namespace

placement::placement(const topology& topo, const placement_params& params) {
  const std::vector<terminal_id> pool = candidates(topo, params.per_router);
  const auto n = static_cast<uint32_t>(pool.size());
  // Names the terminals counted: with job.ranks_per_node only some of them hold ranks.
  const std::string what = params.per_router == 0
                               ? " terminals"
                               : " terminals in the first " + str(params.per_router) +
                                     " of every node (job.ranks_per_node)";
  const uint32_t ranks = params.ranks;
  switch (params.kind) {
    case placement_kind::all: {
      if (ranks != 0 && ranks != n) {
        throw std::invalid_argument(
            "job.ranks = " + str(ranks) + " does not fit placement 'all', which puts a rank on " +
            "every terminal: job.ranks must be 0 or " + str(n) + " (the network's" + what + ")");
      }
      m_terminal = pool;
      break;
    }
    case placement_kind::contiguous: {
      const uint32_t first = params.first_terminal;
      if (first >= topo.num_terminals()) {
        throw std::invalid_argument(
            "job.first_terminal = " + str(first) + " is out of range: the network has " +
            str(topo.num_terminals()) + " terminals, so it must be in [0, " +
            str(topo.num_terminals() - 1) + "]");
      }
      const auto from =
          static_cast<uint32_t>(std::lower_bound(pool.begin(), pool.end(), first) - pool.begin());
      const uint32_t room = n - from;
      if (room == 0) {
        throw std::invalid_argument("job.first_terminal = " + str(first) +
                                    " leaves no terminal for a rank: the network's last of its" +
                                    what + " is " + str(pool.empty() ? 0 : pool.back()) +
                                    " (job.first_terminal must be at most that)");
      }
      if (ranks > room) {
        throw std::invalid_argument(
            "job.ranks = " + str(ranks) + " does not fit from job.first_terminal = " + str(first) +
            ": the network has " + str(n) + what + ", so job.ranks must be in [1, " + str(room) +
            "] (or 0 for all of them)");
      }
      const uint32_t count = ranks == 0 ? room : ranks;
      m_terminal.assign(pool.begin() + from, pool.begin() + from + count);
      break;
    }
    case placement_kind::random: {
      if (ranks > n) {
        throw std::invalid_argument(
            "job.ranks = " + str(ranks) + " is out of range: the network has " + str(n) + what +
            ", so job.ranks must be in [1, " + str(n) + "] (or 0 for all of them)");
      }
      const uint32_t count = ranks == 0 ? n : ranks;
      // Our own partial Fisher-Yates: std::shuffle is not the same on every library.
      std::vector<terminal_id> drawn = pool;
      rng draw(params.seed);
      for (uint32_t i = 0; i < count; ++i) {
        const uint64_t j = i + draw.below(n - i);
        std::swap(drawn[i], drawn[j]);
      }
      drawn.resize(count);
      m_terminal = std::move(drawn);
      break;
    }
  }
  m_rank.assign(topo.num_terminals(), invalid_id);
  for (uint32_t r = 0; r < m_terminal.size(); ++r) m_rank[m_terminal[r]] = r;
}

placement::placement(const topology& topo, std::vector<terminal_id> terminals)
    : m_terminal(std::move(terminals)) {
  m_rank.assign(topo.num_terminals(), invalid_id);
  for (uint32_t r = 0; r < m_terminal.size(); ++r) m_rank[m_terminal[r]] = r;
}

uint64_t placement::terminals_fnv1a() const {
  std::string text;
  text.reserve(m_terminal.size() * 6);
  for (const terminal_id t : m_terminal) text += std::to_string(t) + ",";
  return fnv1a(text);
}

}  // namespace bcastsim::network
