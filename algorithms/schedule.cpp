#include "algorithms/schedule.h"

#include <utility>

namespace bcastsim::algorithms {

const char* to_string(op_kind k) {
  switch (k) {
    case op_kind::send:
      return "send";
    case op_kind::recv:
      return "recv";
    case op_kind::compute:
      return "compute";
    case op_kind::offload_bcast:
      return "offload_bcast";
    case op_kind::join:
      return "join";
    case op_kind::wait_until:
      return "wait_until";
    case op_kind::offload_init:
      return "offload_init";
    case op_kind::offload_start:
      return "offload_start";
    case op_kind::offload_wait:
      return "offload_wait";
    case op_kind::offload_free:
      return "offload_free";
  }
  return "unknown";
}

uint32_t rank_program::then(op o) {
  std::vector<uint32_t> deps;
  // Blocking MPI semantics: each op waits for the one before it.
  if (!ops.empty()) deps.push_back(static_cast<uint32_t>(ops.size() - 1));
  return add(std::move(o), std::move(deps));
}

uint32_t rank_program::add(op o, std::vector<uint32_t> deps) {
  o.deps = std::move(deps);
  ops.push_back(std::move(o));
  return static_cast<uint32_t>(ops.size() - 1);
}

uint64_t schedule::total_ops() const {
  uint64_t n = 0;
  for (const rank_program& r : ranks) n += r.ops.size();
  return n;
}

op make_send(uint32_t dst, uint64_t offset, uint64_t bytes, uint32_t tag) {
  op o;
  o.kind = op_kind::send;
  o.peer = dst;
  o.offset = offset;
  o.bytes = bytes;
  o.tag = tag;
  return o;
}

op make_recv(uint32_t src, uint64_t offset, uint64_t bytes, uint32_t tag) {
  op o;
  o.kind = op_kind::recv;
  o.peer = src;
  o.offset = offset;
  o.bytes = bytes;
  o.tag = tag;
  return o;
}

op make_compute(uint64_t ns) {
  op o;
  o.kind = op_kind::compute;
  o.compute_ns = ns;
  return o;
}

op make_offload_bcast(uint32_t self, uint64_t offset, uint64_t bytes, uint32_t tag) {
  op o;
  o.kind = op_kind::offload_bcast;
  o.peer = self;
  o.offset = offset;
  o.bytes = bytes;
  o.tag = tag;
  return o;
}

op make_offload_call(op_kind kind, uint32_t self) {
  op o;
  o.kind = kind;
  o.peer = self;
  return o;
}

op make_join() {
  op o;
  o.kind = op_kind::join;
  return o;
}

op make_wait_until(uint64_t at_ns) {
  op o;
  o.kind = op_kind::wait_until;
  o.at_ns = at_ns;
  return o;
}

byte_span schedule::held_before(uint32_t rank) const {
  if (!own.empty()) return own[rank];
  return rank == root ? byte_span{0, bytes} : byte_span{};
}

}  // namespace bcastsim::algorithms
