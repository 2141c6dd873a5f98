// Placement of a job's ranks on terminals, and the project's portable random numbers.
#pragma once

#include "network/topology.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace bcastsim::network {

// Deterministic on every platform: std::mt19937_64 is fully specified, and the bounded
// draw below is ours (std::uniform_int_distribution is implementation-defined).
class rng {
 public:
  explicit rng(uint64_t seed) : m_engine(seed) {}
  uint64_t next() { return m_engine(); }
  // Uniform in [0, n), n > 0, by rejection (no modulo bias).
  uint64_t below(uint64_t n);
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(m_engine() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 m_engine;
};

enum class placement_kind : uint8_t {
  all,         // rank i on terminal i; ranks = every terminal
  contiguous,  // rank i on terminal first + i
  random,      // ranks on distinct terminals drawn with the seed
};
const char* to_string(placement_kind k);

struct placement_params {
  placement_kind kind = placement_kind::all;
  uint32_t ranks = 0;           // 0 = every terminal
  uint32_t first_terminal = 0;  // contiguous only
  uint64_t seed = 1;            // random only
  // Ranks only on the first k terminals of every router (node), 0 = on all of them: one
  // process per node, with the node's other NICs free for it (Tofu2's TNIs).
  uint32_t per_router = 0;
};

// rank -> terminal and back. Throws std::invalid_argument (message names job.ranks or
// job.first_terminal) when the job does not fit.
class placement {
 public:
  placement(const topology& topo, const placement_params& params);
  // The ranks of a communicator: its rank i on terminals[i] (distinct terminals of topo).
  placement(const topology& topo, std::vector<terminal_id> terminals);

  uint32_t num_ranks() const { return static_cast<uint32_t>(m_terminal.size()); }
  terminal_id terminal_of(uint32_t rank) const { return m_terminal[rank]; }
  // invalid_id for a terminal without a rank of the job.
  uint32_t rank_of(terminal_id t) const { return m_rank[t]; }
  const std::vector<terminal_id>& terminals() const { return m_terminal; }
  // FNV-1a of the terminals in rank order as decimal text, each followed by a comma ("0,5,17,"):
  // runs with the same digest ran on the same allocation (a paired sweep's check).
  uint64_t terminals_fnv1a() const;

 private:
  std::vector<terminal_id> m_terminal;  // [rank]
  std::vector<uint32_t> m_rank;         // [terminal]
};

}  // namespace bcastsim::network
