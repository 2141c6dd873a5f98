// MPICH allgather schedules (pmodels/mpich src/mpi/coll/allgather/allgather_intra_ring.c,
// allgather_intra_recursive_doubling.c, allgather_intra_brucks.c) and MPICH's automatic
// choice between them. See allgather.h.
#include "algorithms/allgather.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace bcastsim::algorithms {

namespace {

// MPICH's test: !(comm_size & (comm_size - 1)), which also holds for one rank.
bool is_pow2(uint64_t p) {
  return (p & (p - 1)) == 0;
}

// One MPIC_Sendrecv step after another: a step's ops depend on every op of the previous
// step and not on each other.
class sendrecv_steps {
 public:
  explicit sendrecv_steps(rank_program& prog) : m_prog(prog) {}
  void add(op o) { m_step.push_back(m_prog.add(std::move(o), m_prev)); }
  void end_step() {
    m_prev = std::move(m_step);
    m_step.clear();
  }

 private:
  rank_program& m_prog;
  std::vector<uint32_t> m_prev;
  std::vector<uint32_t> m_step;
};

// Adds the send (or recv) of final blocks first, first + 1, ..., first + count - 1 (mod p)
// of b bytes each: one op, or two when the blocks wrap past block p - 1 (see allgather.h).
void add_wrapped(sendrecv_steps& step, op_kind kind, uint32_t peer, uint64_t first, uint64_t count,
                 uint64_t p, uint64_t b) {
  const uint64_t head = std::min(count, p - first);  // blocks first ... p - 1
  const auto make = kind == op_kind::send ? make_send : make_recv;
  step.add(make(peer, first * b, head * b, 0));
  if (head < count) step.add(make(peer, 0, (count - head) * b, bruck_wrap_tag));
}

}  // namespace

schedule empty_allgather(uint32_t num_ranks, uint64_t per_rank_bytes) {
  if (num_ranks > 0 && per_rank_bytes > std::numeric_limits<uint64_t>::max() / num_ranks) {
    throw std::invalid_argument("allgather of " + std::to_string(per_rank_bytes) +
                                " bytes per rank on " + std::to_string(num_ranks) +
                                " ranks: the buffer size overflows 64 bits");
  }
  schedule s(num_ranks);
  s.root = 0;
  s.bytes = uint64_t{num_ranks} * per_rank_bytes;
  s.own.resize(num_ranks);
  for (uint64_t r = 0; r < num_ranks; ++r) {
    s.own[r] = {r * per_rank_bytes, (r + 1) * per_rank_bytes};
  }
  return s;
}

schedule ring_allgather(uint32_t num_ranks, uint64_t per_rank_bytes) {
  schedule s = empty_allgather(num_ranks, per_rank_bytes);
  const uint64_t p = num_ranks;
  const uint64_t b = per_rank_bytes;
  if (b == 0) return s;  // MPI_Allgather's early return
  for (uint64_t rank = 0; rank < p; ++rank) {
    const auto left = static_cast<uint32_t>((rank + p - 1) % p);
    const auto right = static_cast<uint32_t>((rank + 1) % p);
    sendrecv_steps steps(s.ranks[rank]);
    // MPICH: j = rank, jnext = left; send block j right, receive block jnext from the left.
    uint64_t j = rank;
    uint64_t jnext = (rank + p - 1) % p;
    for (uint64_t i = 1; i < p; ++i) {
      steps.add(make_send(right, j * b, b, 0));
      steps.add(make_recv(left, jnext * b, b, 0));
      steps.end_step();
      j = jnext;
      jnext = (jnext + p - 1) % p;
    }
  }
  return s;
}

schedule rd_allgather(uint32_t num_ranks, uint64_t per_rank_bytes) {
  if (!is_pow2(num_ranks)) {
    throw std::invalid_argument(
        "collective.algorithm = 'allgather-rd' needs a power-of-two number of ranks "
        "(MPICH uses recursive doubling only then); got " +
        std::to_string(num_ranks) + " ranks");
  }
  schedule s = empty_allgather(num_ranks, per_rank_bytes);
  const uint64_t p = num_ranks;
  const uint64_t b = per_rank_bytes;
  if (b == 0) return s;
  for (uint64_t rank = 0; rank < p; ++rank) {
    sendrecv_steps steps(s.ranks[rank]);
    for (uint64_t mask = 1; mask < p; mask <<= 1) {
      // Zero the low log2(mask) bits: the roots of rank's and dst's subtrees, whose mask
      // blocks each side holds (curr_cnt = mask blocks on a power of two).
      const uint64_t dst = rank ^ mask;
      const uint64_t my_tree_root = rank & ~(mask - 1);
      const uint64_t dst_tree_root = dst & ~(mask - 1);
      const auto peer = static_cast<uint32_t>(dst);
      steps.add(make_send(peer, my_tree_root * b, mask * b, 0));
      steps.add(make_recv(peer, dst_tree_root * b, mask * b, 0));
      steps.end_step();
    }
  }
  return s;
}

schedule bruck_allgather(uint32_t num_ranks, uint64_t per_rank_bytes) {
  schedule s = empty_allgather(num_ranks, per_rank_bytes);
  const uint64_t p = num_ranks;
  const uint64_t b = per_rank_bytes;
  if (b == 0) return s;  // also allgather_intra_brucks.c's own early exit
  for (uint64_t rank = 0; rank < p; ++rank) {
    sendrecv_steps steps(s.ranks[rank]);
    // tmp block k of this rank is final block (rank + k) mod p. Each step sends tmp blocks
    // [0, count) to rank - pof2 and receives tmp blocks [curr_cnt, curr_cnt + count) from
    // rank + pof2: count = curr_cnt in the first floor(log2 p) steps, rem in the last.
    uint64_t curr_cnt = 1;
    uint64_t pof2 = 1;
    const auto exchange = [&](uint64_t count) {
      const auto src = static_cast<uint32_t>((rank + pof2) % p);
      const auto dst = static_cast<uint32_t>((rank + p - pof2) % p);
      add_wrapped(steps, op_kind::send, dst, rank, count, p, b);
      add_wrapped(steps, op_kind::recv, src, (rank + curr_cnt) % p, count, p, b);
      steps.end_step();
    };
    while (pof2 <= p / 2) {
      exchange(curr_cnt);
      curr_cnt *= 2;
      pof2 *= 2;
    }
    const uint64_t rem = p - pof2;  // p == 0 never reaches here: no ranks
    if (rem > 0) exchange(rem);
  }
  return s;
}

std::string mpich_allgather_choice(uint32_t num_ranks, uint64_t per_rank_bytes) {
  // tot_bytes = recvcount * comm_size * type_size; saturate rather than wrap around.
  const uint64_t p = num_ranks;
  const uint64_t tot_bytes = p > 0 && per_rank_bytes > std::numeric_limits<uint64_t>::max() / p
                                 ? std::numeric_limits<uint64_t>::max()
                                 : p * per_rank_bytes;
  if (tot_bytes < mpich_allgather_long_msg_size && is_pow2(p)) return "allgather-rd";
  if (tot_bytes < mpich_allgather_short_msg_size) return "allgather-bruck";
  return "allgather-ring";
}

schedule mpich_auto_allgather(uint32_t num_ranks, uint64_t per_rank_bytes) {
  const std::string choice = mpich_allgather_choice(num_ranks, per_rank_bytes);
  if (choice == "allgather-rd") return rd_allgather(num_ranks, per_rank_bytes);
  if (choice == "allgather-bruck") return bruck_allgather(num_ranks, per_rank_bytes);
  return ring_allgather(num_ranks, per_rank_bytes);
}

}  // namespace bcastsim::algorithms
