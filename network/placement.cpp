#include "network/placement.h"

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

}  // namespace

placement::placement(const topology& topo, const placement_params& params) {
  const uint32_t n = topo.num_terminals();
  const uint32_t ranks = params.ranks;
  switch (params.kind) {
    case placement_kind::all: {
      if (ranks != 0 && ranks != n) {
        throw std::invalid_argument(
            "job.ranks = " + str(ranks) + " does not fit placement 'all', which puts a rank on " +
            "every terminal: job.ranks must be 0 or " + str(n) + " (the network's terminals)");
      }
      m_terminal.resize(n);
      for (terminal_id t = 0; t < n; ++t) m_terminal[t] = t;
      break;
    }
    case placement_kind::contiguous: {
      const uint32_t first = params.first_terminal;
      if (first >= n) {
        throw std::invalid_argument("job.first_terminal = " + str(first) +
                                    " is out of range: the network has " + str(n) +
                                    " terminals, so it must be in [0, " + str(n - 1) + "]");
      }
      const uint32_t room = n - first;
      if (ranks > room) {
        throw std::invalid_argument(
            "job.ranks = " + str(ranks) + " does not fit from job.first_terminal = " + str(first) +
            ": the network has " + str(n) + " terminals, so job.ranks must be in [1, " + str(room) +
            "] (or 0 for all of them)");
      }
      const uint32_t count = ranks == 0 ? room : ranks;
      m_terminal.resize(count);
      for (uint32_t i = 0; i < count; ++i) m_terminal[i] = first + i;
      break;
    }
    case placement_kind::random: {
      if (ranks > n) {
        throw std::invalid_argument(
            "job.ranks = " + str(ranks) + " is out of range: the network has " + str(n) +
            " terminals, so job.ranks must be in [1, " + str(n) + "] (or 0 for all of them)");
      }
      const uint32_t count = ranks == 0 ? n : ranks;
      // Our own partial Fisher-Yates: std::shuffle is not the same on every library.
      std::vector<terminal_id> pool(n);
      for (terminal_id t = 0; t < n; ++t) pool[t] = t;
      rng draw(params.seed);
      for (uint32_t i = 0; i < count; ++i) {
        const uint64_t j = i + draw.below(n - i);
        std::swap(pool[i], pool[j]);
      }
      pool.resize(count);
      m_terminal = std::move(pool);
      break;
    }
  }
  m_rank.assign(n, invalid_id);
  for (uint32_t r = 0; r < m_terminal.size(); ++r) m_rank[m_terminal[r]] = r;
}

placement::placement(const topology& topo, std::vector<terminal_id> terminals)
    : m_terminal(std::move(terminals)) {
  m_rank.assign(topo.num_terminals(), invalid_id);
  for (uint32_t r = 0; r < m_terminal.size(); ++r) m_rank[m_terminal[r]] = r;
}

}  // namespace bcastsim::network
