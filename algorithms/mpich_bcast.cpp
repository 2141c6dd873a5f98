// MPICH scatter + allgather broadcasts (FACTS §7): bcast_utils.c MPII_Scatter_for_bcast,
// bcast_intra_scatter_recursive_doubling_allgather.c, bcast_intra_scatter_ring_allgather.c,
// bcast.c MPIR_Bcast_intra_auto. See mpich_bcast.h for why they re-deliver bytes.
#include "algorithms/mpich_bcast.h"

#include <stdexcept>
#include <utility>
#include <vector>

namespace bcastsim::algorithms {

namespace {

bool is_pow2(uint64_t p) {
  return p > 0 && (p & (p - 1)) == 0;
}

// Geometry of the scattered buffer: ceil(bytes / p) bytes per block, the last blocks short
// or empty.
struct blocks {
  uint64_t p;
  uint64_t bytes;
  uint64_t ss;  // scatter_size

  blocks(uint64_t num_ranks, uint64_t total)
      : p(num_ranks), bytes(total), ss(num_ranks == 0 ? 0 : (total + num_ranks - 1) / num_ranks) {}
  uint64_t offset(uint64_t block) const { return block * ss; }
  // Bytes of blocks [first, first + count), clipped to the buffer (MPICH's clamped
  // min(..., nbytes - offset)).
  uint64_t span(uint64_t first, uint64_t count) const {
    const uint64_t lo = first * ss;
    if (lo >= bytes) return 0;
    const uint64_t hi = (first + count) * ss;
    return (hi < bytes ? hi : bytes) - lo;
  }
};

schedule empty_schedule(uint32_t num_ranks, uint32_t root, uint64_t bytes) {
  schedule s(num_ranks);
  s.root = root;
  s.bytes = bytes;
  return s;
}

// One MPIC_Sendrecv step per rank: its ops depend on every op of the rank's previous step
// (initially on its last scatter op) and not on each other.
class step_chain {
 public:
  explicit step_chain(rank_program& prog) : m_prog(prog) {
    if (!prog.ops.empty()) m_prev.push_back(static_cast<uint32_t>(prog.ops.size() - 1));
  }
  void add(op o) { m_step.push_back(m_prog.add(std::move(o), m_prev)); }
  void end_step() {
    if (!m_step.empty()) m_prev = std::move(m_step);
    m_step.clear();
  }

 private:
  rank_program& m_prog;
  std::vector<uint32_t> m_prev;
  std::vector<uint32_t> m_step;
};

uint32_t to_rank(uint64_t relative, uint64_t root, uint64_t p) {
  return static_cast<uint32_t>((relative + root) % p);
}

}  // namespace

void mpich_scatter_for_bcast(schedule& s) {
  const uint64_t p = s.num_ranks;
  const uint64_t root = s.root;
  const blocks b(p, s.bytes);
  if (p <= 1 || s.bytes == 0) return;
  // sent[r]: bytes relative rank r's parent sends it; parents have smaller relative ranks,
  // so one ascending pass sees every parent before its children.
  std::vector<uint64_t> sent(p, 0);
  for (uint64_t r = 0; r < p; ++r) {
    rank_program& prog = s.ranks[to_rank(r, root, p)];
    uint64_t curr = r == 0 ? s.bytes : 0;
    uint64_t mask = 1;
    while (mask < p) {
      if (r & mask) {
        // MPICH posts nbytes - r*ss and skips the recv when that is <= 0.
        if (b.offset(r) < s.bytes) {
          curr = sent[r];
          prog.then(make_recv(to_rank(r - mask, root, p), b.offset(r), curr));
        }
        break;
      }
      mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
      if (r + mask >= p) continue;
      const uint64_t keep = b.ss * mask;
      if (curr <= keep) continue;  // send_size <= 0: MPICH sends nothing
      const uint64_t send_size = curr - keep;
      prog.then(make_send(to_rank(r + mask, root, p), b.offset(r + mask), send_size));
      sent[r + mask] = send_size;
      curr -= send_size;
    }
  }
}

schedule scatter_rd_allgather_bcast(uint32_t num_ranks, uint32_t root, uint64_t bytes) {
  if (num_ranks > 0 && !is_pow2(num_ranks)) {
    throw std::invalid_argument(
        "collective.algorithm = 'scatter-rd-allgather' needs a power-of-two number of ranks "
        "(MPICH uses recursive doubling only then); got " +
        std::to_string(num_ranks) + " ranks");
  }
  schedule s = empty_schedule(num_ranks, root, bytes);
  const uint64_t p = num_ranks;
  if (p <= 1 || bytes == 0) return s;
  mpich_scatter_for_bcast(s);
  const blocks b(p, bytes);
  for (uint64_t r = 0; r < p; ++r) {
    step_chain chain(s.ranks[to_rank(r, root, p)]);
    for (uint64_t mask = 1; mask < p; mask <<= 1) {
      // Blocks of the 'mask'-aligned subtrees of r and its partner: what each holds now.
      const uint64_t d = r ^ mask;
      const uint64_t my_tree = r & ~(mask - 1);
      const uint64_t dst_tree = d & ~(mask - 1);
      const uint32_t dst = to_rank(d, root, p);
      chain.add(make_send(dst, b.offset(my_tree), b.span(my_tree, mask)));
      chain.add(make_recv(dst, b.offset(dst_tree), b.span(dst_tree, mask)));
      chain.end_step();
    }
  }
  return s;
}

schedule scatter_ring_allgather_bcast(uint32_t num_ranks, uint32_t root, uint64_t bytes) {
  schedule s = empty_schedule(num_ranks, root, bytes);
  const uint64_t p = num_ranks;
  if (p <= 1 || bytes == 0) return s;
  mpich_scatter_for_bcast(s);
  const blocks b(p, bytes);
  for (uint64_t rank = 0; rank < p; ++rank) {
    const auto left = static_cast<uint32_t>((rank + p - 1) % p);
    const auto right = static_cast<uint32_t>((rank + 1) % p);
    step_chain chain(s.ranks[rank]);
    uint64_t j = rank;
    uint64_t jnext = left;
    for (uint64_t i = 1; i < p; ++i) {
      const uint64_t rel_j = (j + p - root) % p;
      const uint64_t rel_jnext = (jnext + p - root) % p;
      chain.add(make_send(right, b.offset(rel_j), b.span(rel_j, 1)));
      chain.add(make_recv(left, b.offset(rel_jnext), b.span(rel_jnext, 1)));
      chain.end_step();
      j = jnext;
      jnext = (jnext + p - 1) % p;
    }
  }
  return s;
}

std::string mpich_auto_choice(uint32_t num_ranks, uint64_t bytes) {
  if (bytes < mpich_bcast_short_msg_size || num_ranks < mpich_bcast_min_procs) return "binomial";
  if (bytes < mpich_bcast_long_msg_size && is_pow2(num_ranks)) return "scatter-rd-allgather";
  return "scatter-ring-allgather";
}

schedule mpich_auto_bcast(uint32_t num_ranks, uint32_t root, uint64_t bytes) {
  const std::string choice = mpich_auto_choice(num_ranks, bytes);
  if (choice == "binomial") return binomial_bcast(num_ranks, root, bytes);
  if (choice == "scatter-rd-allgather") return scatter_rd_allgather_bcast(num_ranks, root, bytes);
  return scatter_ring_allgather_bcast(num_ranks, root, bytes);
}

}  // namespace bcastsim::algorithms
