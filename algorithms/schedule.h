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
// join: completes as soon as its deps have, at no cost (a rank's entry into or exit from a
// collective in a program). wait_until: completes at absolute time at_ns, at no cost.
// offload_init, offload_start, offload_wait, offload_free: the MPI-4 persistent calls
// (MPI_Bcast_init, MPI_Start, MPI_Wait, MPI_Request_free) of a collective offloaded to NIC
// command queues (Tofu2): the rank's offload agent (hw/nic/host.h) does their work and says
// when each completes; the hardware moves the data (the schedule's contract is
// delivery::hardware). `peer` is the rank itself. Repeated, a collective keeps offload_init
// (and every op marked `setup`) in its first repetition only and offload_free in its last
// only (algorithms/program.h).
enum class op_kind : uint8_t {
  send,
  recv,
  compute,
  offload_bcast,
  join,
  wait_until,
  offload_init,
  offload_start,
  offload_wait,
  offload_free,
};
// The four persistent calls above.
inline bool is_offload_call(op_kind k) {
  return k == op_kind::offload_init || k == op_kind::offload_start || k == op_kind::offload_wait ||
         k == op_kind::offload_free;
}
const char* to_string(op_kind k);

struct op {
  op_kind kind = op_kind::compute;
  uint32_t peer = 0;    // destination rank (send), source rank (recv), self (offload)
  uint64_t offset = 0;  // first byte of the collective buffer carried (send/recv)
  uint64_t bytes = 0;   // bytes carried (send/recv)
  uint32_t tag = 0;     // MPI-like tag; matched with peer and context, in order
  // The matching space (an MPI communicator's context id): sends and receives match only
  // within one context, so collectives in flight together never take each other's
  // messages. One algorithm's schedule uses context 0; a run's program numbers them
  // (algorithms/program.h).
  uint32_t context = 0;
  // Part of a persistent collective's set-up (what MPI_*_init does, e.g. exchanging buffer
  // addresses): repeated, the collective keeps it in its first repetition only.
  bool setup = false;
  // Which of the rank's NICs sends it (send only): 0 its own; a family with several NICs
  // per node may give a rank more (Tofu2's host-progressed fragment f goes on TNI f).
  uint8_t lane = 0;
  uint64_t compute_ns = 0;  // compute only
  uint64_t at_ns = 0;       // wait_until only
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

// Bytes [begin, end) of a collective buffer.
struct byte_span {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const { return end - begin; }
};

struct schedule {
  uint32_t num_ranks = 0;
  uint32_t root = 0;   // a broadcast's root (unused when `own` is given)
  uint64_t bytes = 0;  // collective buffer size; after the collective every rank holds it
  // [rank]: the bytes a rank holds before the collective. Empty: a broadcast, where the root
  // holds the whole buffer and the others nothing. An allgather: each rank its own block.
  std::vector<byte_span> own;
  std::vector<rank_program> ranks;  // [rank]
  // [rank]: the messages offload hardware delivers to the rank besides its recv ops (Tofu2's
  // puts), so a zero-byte collective knows when a member has them all; empty: none.
  std::vector<uint32_t> hardware_receives;

  explicit schedule(uint32_t n = 0) : num_ranks(n), ranks(n) {}
  uint64_t total_ops() const;
  // What `rank` holds before the collective (see `own`).
  byte_span held_before(uint32_t rank) const;
};

op make_send(uint32_t dst, uint64_t offset, uint64_t bytes, uint32_t tag = 0);
op make_recv(uint32_t src, uint64_t offset, uint64_t bytes, uint32_t tag = 0);
op make_compute(uint64_t ns);
op make_join();
op make_wait_until(uint64_t at_ns);
op make_offload_bcast(uint32_t self, uint64_t offset, uint64_t bytes, uint32_t tag = 0);
// One of the persistent calls (is_offload_call(kind)).
op make_offload_call(op_kind kind, uint32_t self);

}  // namespace bcastsim::algorithms
