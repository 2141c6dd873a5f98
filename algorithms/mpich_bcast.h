// MPICH large-message broadcasts (FACTS §7; pmodels/mpich src/mpi/coll/bcast/):
// binomial scatter (MPII_Scatter_for_bcast, bcast_utils.c) followed by a recursive-doubling
// or a ring allgather, and the bcast.c MPIR_Bcast_intra_auto selection between them and the
// binomial tree.
//
// Scatter: scatter_size ss = ceil(bytes / p); relative rank r owns [r*ss, min((r+1)*ss,
// bytes)); r receives its subtree's bytes from r - lowbit(r), then for mask = lowbit(r)/2 ...
// 1 sends curr_size - ss*mask bytes at offset ss*(r + mask) to r + mask. As in MPICH, sends
// and receives of 0 bytes are skipped (no op): with ss*p >= bytes some high ranks get none.
//
// Allgather steps are MPIC_Sendrecv: a send and a recv that do not depend on each other but
// both depend on every op of the rank's previous step (so the exchange cannot deadlock).
//
// Traffic is MPICH's exactly: its allgather does not restrict itself to blocks the receiver
// lacks. After the binomial scatter, relative rank r holds the blocks of its whole scatter
// subtree [r, min(p, r + lowbit(r))) (the root holds all), yet recursive doubling exchanges
// whole subtree blocks with every partner and the ring passes every block around the whole
// ring, so the root receives p - 1 blocks back and every scatter-interior rank receives its
// subtree's blocks a second time. These schedules therefore meet delivery::at_least_once
// (algorithms/verify.h), not exactly_once.
#pragma once

#include "algorithms/registry.h"
#include "algorithms/schedule.h"

#include <cstdint>
#include <string>

namespace bcastsim::algorithms {

// MPICH bcast.c CVAR defaults.
inline constexpr uint64_t mpich_bcast_short_msg_size = 12288;
inline constexpr uint64_t mpich_bcast_long_msg_size = 524288;
inline constexpr uint32_t mpich_bcast_min_procs = 8;

// Appends MPII_Scatter_for_bcast to `s` (s.num_ranks ranks, s.root, s.bytes).
void mpich_scatter_for_bcast(schedule& s);

// Binomial scatter + recursive-doubling allgather. MPICH runs it for power-of-two p only
// (its non-power-of-two branch is marked experimental and never selected); throws
// std::invalid_argument naming collective.algorithm when p is not a power of two.
schedule scatter_rd_allgather_bcast(uint32_t num_ranks, uint32_t root, uint64_t bytes);

// Binomial scatter + ring allgather: p - 1 steps; in step i rank sends block rel(j) to
// rank + 1 and receives block rel(j - 1) from rank - 1, with j = rank - i + 1.
schedule scatter_ring_allgather_bcast(uint32_t num_ranks, uint32_t root, uint64_t bytes);

// MPIR_Bcast_intra_auto: bytes < 12288 || p < 8 -> "binomial"; else bytes < 524288 and p a
// power of two -> "scatter-rd-allgather"; else "scatter-ring-allgather".
std::string mpich_auto_choice(uint32_t num_ranks, uint64_t bytes);
schedule mpich_auto_bcast(uint32_t num_ranks, uint32_t root, uint64_t bytes);

}  // namespace bcastsim::algorithms
