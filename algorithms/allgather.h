// MPICH all-to-all broadcasts (allgather), pmodels/mpich src/mpi/coll/allgather/:
// allgather_intra_ring.c, allgather_intra_recursive_doubling.c, allgather_intra_brucks.c,
// and MPICH's automatic choice between them.
//
// Every schedule has bytes = num_ranks * per_rank_bytes, own[r] = [r*b, (r+1)*b) (rank r's
// block before the collective) and root 0 (unused). Offsets are positions in the final,
// rank-ordered receive buffer, also for Bruck, which MPICH runs in a rotated temporary
// buffer (block k of rank r's tmp_buf is final block (r + k) mod p).
//
// Every step is an MPIC_Sendrecv: a send and a recv that depend on every op of the rank's
// previous step and not on each other (eager sends: the exchange cannot deadlock). MPICH
// uses MPIR_ALLGATHER_TAG for all of them; here tag 0.
//
// per_rank_bytes == 0: MPI_Allgather returns before any algorithm runs (MPICH 4.3
// src/binding/c/coll_api.txt, MPI_Allgather early_return: recvcount == 0), so the schedule
// has no ops, as the MPICH scatter broadcasts have none for 0 bytes (mpich_bcast.h).
//
// Delivery: all three deliver every block a rank lacks exactly once and never its own, so
// they meet delivery::exactly_once (algorithms/verify.h); see each function.
#pragma once

#include "algorithms/schedule.h"

#include <cstdint>
#include <string>

namespace bcastsim::algorithms {

// MPICH CVAR defaults (src/mpi/coll/cvars.txt): MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE and
// MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE, compared with the total bytes recvcount * p * size.
inline constexpr uint64_t mpich_allgather_short_msg_size = 81920;
inline constexpr uint64_t mpich_allgather_long_msg_size = 524288;

// Bruck splits a message whose rotated blocks wrap past the end of the final buffer into
// two ops (see bruck_allgather); the wrapped-around part carries this tag so the two parts
// match whatever order the sender's host issues them in.
inline constexpr uint32_t bruck_wrap_tag = 1;

// An allgather schedule with no ops: num_ranks, bytes and own set as described above.
// Throws std::invalid_argument when num_ranks * per_rank_bytes overflows 64 bits.
schedule empty_allgather(uint32_t num_ranks, uint64_t per_rank_bytes);

// MPIR_Allgather_intra_ring: p - 1 steps; in step i (1-based) rank r sends block
// (r - i + 1) mod p to r + 1 and receives block (r - i) mod p from r - 1. Each block
// travels once around the ring, reaching every other rank once: exactly once.
// p (p - 1) messages of per_rank_bytes, p - 1 rounds.
schedule ring_allgather(uint32_t num_ranks, uint64_t per_rank_bytes);

// MPIR_Allgather_intra_recursive_doubling: for mask = 1, 2, ... < p rank r exchanges with
// r ^ mask: it sends the mask blocks of its mask-aligned subtree and receives the partner's.
// MPICH posts the recv for (p - dst_tree_root) blocks and learns the real count (mask
// blocks) from the status; here the recv has the size actually sent. The subtrees received
// are disjoint and exclude r's own block: exactly once. p log2 p messages, log2 p rounds.
// MPICH asserts a power-of-two communicator (its non-power-of-two branch is marked
// experimental and never selected); throws std::invalid_argument naming
// collective.algorithm otherwise.
schedule rd_allgather(uint32_t num_ranks, uint64_t per_rank_bytes);

// MPIR_Allgather_intra_brucks: for pof2 = 1, 2, ... <= p / 2 rank r sends tmp blocks
// [0, pof2) to r - pof2 and receives tmp blocks [pof2, 2 pof2) from r + pof2; if p is not a
// power of two a last step moves the remaining rem = p - pof2 blocks. ceil(log2 p) rounds;
// rank r receives final blocks r + 1 ... r + p - 1 (mod p) once each: exactly once.
// One MPICH message of tmp blocks [k, k + c) covers final blocks (r + k) ... mod p; when
// they wrap past block p - 1 the op model (one contiguous span per message) needs two ops:
// the part up to the buffer's end (tag 0), then the part from block 0 (bruck_wrap_tag),
// both in the same step. Such a step sends MPICH's bytes as two messages, so the schedule
// has p ceil(log2 p) + (p - 1 - ceil(log2 p)) messages, not MPICH's p ceil(log2 p).
schedule bruck_allgather(uint32_t num_ranks, uint64_t per_rank_bytes);

// MPICH's choice (MPICH 3.3 src/mpi/coll/allgather/allgather.c MPIR_Allgather_intra_auto;
// MPICH 4.x maint/tuning/coll/mpir/generic.json "collective=allgather" with csel.c
// get_total_msgsize): with total = p * per_rank_bytes, "allgather-rd" if
// total < 524288 and p a power of two, else "allgather-bruck" if total < 81920, else
// "allgather-ring".
std::string mpich_allgather_choice(uint32_t num_ranks, uint64_t per_rank_bytes);
schedule mpich_auto_allgather(uint32_t num_ranks, uint64_t per_rank_bytes);

}  // namespace bcastsim::algorithms
