// A Schedule: per rank, a list of operations with dependencies. Algorithms produce them;
// the host model (hw/nic/host) executes them; verify.h checks them without SystemC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bcastsim::algorithms {

// offload_bcast: the rank hands [offset, offset + bytes) to the in-network broadcast tree
// of the communicator (Ragasa's Bcast Units); every other rank receives it as one message
// from this rank with this tag, matched by its own recv. `peer` is the rank itself.
enum class op_kind : uint8_t { send, recv, compute, offload_bcast };
const char* to_string(op_kind k);

struct op {
  op_kind kind = op_kind::compute;
  uint32_t peer = 0;        // destination rank (send), source rank (recv), self (offload)
  uint64_t offset = 0;      // first byte of the collective buffer carried (send/recv)
  uint64_t bytes = 0;       // bytes carried (send/recv)
  uint32_t tag = 0;         // MPI-like tag; matched with peer, in order
  uint64_t compute_ns = 0;  // compute only
  // Indices of ops of the same rank that must complete first. An op with no deps is ready
  // at start. Builders default to "the previous op" (blocking MPI semantics).
  std::vector<uint32_t> deps;
};

struct rank_program {
  std::vector<op> ops;

  // Appends an op that depends on the previous op (if any); returns its index.
  uint32_t then(op o);
  // Appends an op with explicit dependencies; returns its index.
  uint32_t add(op o, std::vector<uint32_t> deps);
};

struct schedule {
  uint32_t num_ranks = 0;
  uint32_t root = 0;
  uint64_t bytes = 0;  // collective buffer size; after the collective every rank holds it
  std::vector<rank_program> ranks;  // [rank]

  explicit schedule(uint32_t n = 0) : num_ranks(n), ranks(n) {}
  uint64_t total_ops() const;
};

op make_send(uint32_t dst, uint64_t offset, uint64_t bytes, uint32_t tag = 0);
op make_recv(uint32_t src, uint64_t offset, uint64_t bytes, uint32_t tag = 0);
op make_compute(uint64_t ns);
op make_offload_bcast(uint32_t self, uint64_t offset, uint64_t bytes, uint32_t tag = 0);

}  // namespace bcastsim::algorithms
