// MPICH binomial broadcast (src/mpi/coll/bcast/bcast_intra_binomial.c), FACTS §7.
#include "algorithms/registry.h"

namespace bcastsim::algorithms {

schedule binomial_bcast(uint32_t num_ranks, uint32_t root, uint64_t bytes) {
  schedule s(num_ranks);
  s.root = root;
  s.bytes = bytes;
  // 64-bit arithmetic: mask may reach 2p, which overflows 32 bits for p near 2^32.
  const uint64_t p = num_ranks;
  for (uint64_t rank = 0; rank < p; ++rank) {
    rank_program& prog = s.ranks[rank];
    const uint64_t r = (rank + p - root) % p;
    uint64_t mask = 1;
    // Receive from the parent: the rank that differs in r's lowest set bit.
    while (mask < p) {
      if (r & mask) {
        const auto src = static_cast<uint32_t>((rank + p - mask) % p);
        prog.then(make_recv(src, 0, bytes));
        break;
      }
      mask <<= 1;
    }
    // Send to children, largest subtree first.
    mask >>= 1;
    while (mask > 0) {
      if (r + mask < p) {
        const auto dst = static_cast<uint32_t>((rank + mask) % p);
        prog.then(make_send(dst, 0, bytes));
      }
      mask >>= 1;
    }
  }
  return s;
}

}  // namespace bcastsim::algorithms
