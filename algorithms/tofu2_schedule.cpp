// tofu2_schedule (algorithms/tofu2_bcast.h): what the hosts run for a Tofu2 plan.
#include "algorithms/tofu2_bcast.h"

#include <vector>

namespace bcastsim::algorithms {

namespace {

// Each child sends its parent its buffer address, per fragment; returns, per rank, the recv
// ops of its children's addresses. `setup`: first repetition only.
std::vector<std::vector<uint32_t>> exchange_addresses(const tofu2_plan& plan, schedule& s,
                                                      bool setup) {
  std::vector<std::vector<uint32_t>> recvs(plan.num_ranks);
  for (uint32_t f = 0; f < plan.fragments; ++f) {
    for (uint32_t r = 0; r < plan.num_ranks; ++r) {
      rank_program& prog = s.ranks[r];
      if (r != plan.root) {
        op send = make_send(plan.parent[f][r], 0, 0, tofu2_address_tag + f);
        send.setup = setup;
        prog.add(send, {});
      }
      for (const uint32_t c : plan.children[f][r]) {
        op recv = make_recv(c, 0, 0, tofu2_address_tag + f);
        recv.setup = setup;
        recvs[r].push_back(prog.add(recv, {}));
      }
    }
  }
  return recvs;
}

schedule offload_schedule(const tofu2_plan& plan) {
  schedule s(plan.num_ranks);
  s.root = plan.root;
  s.bytes = plan.bytes;
  const std::vector<std::vector<uint32_t>> addresses = exchange_addresses(plan, s, true);
  for (uint32_t r = 0; r < plan.num_ranks; ++r) {
    rank_program& prog = s.ranks[r];
    const uint32_t init = prog.add(make_offload_call(op_kind::offload_init, r), addresses[r]);
    std::vector<uint32_t> ready;
    if (r == plan.root) {
      for (uint32_t x = 0; x < plan.num_ranks; ++x) {
        if (x == r) continue;
        op recv = make_recv(x, 0, 0, tofu2_ready_tag);
        recv.setup = true;
        ready.push_back(prog.add(recv, {init}));
      }
    } else {
      op send = make_send(plan.root, 0, 0, tofu2_ready_tag);
      send.setup = true;
      ready.push_back(prog.add(send, {init}));
    }
    if (ready.empty()) ready.push_back(init);  // a root alone
    const uint32_t start = prog.add(make_offload_call(op_kind::offload_start, r), ready);
    const uint32_t wait = prog.add(make_offload_call(op_kind::offload_wait, r), {start});
    prog.add(make_offload_call(op_kind::offload_free, r), {wait});
    s.hardware_receives.push_back(plan.ranks[r].puts_received);
  }
  return s;
}

schedule host_schedule(const tofu2_plan& plan, const tofu2_options& options) {
  schedule s(plan.num_ranks);
  s.root = plan.root;
  s.bytes = plan.bytes;
  const std::vector<std::vector<uint32_t>> addresses = exchange_addresses(plan, s, false);
  const schedule puts = tofu2_host_schedule(plan);
  for (uint32_t r = 0; r < plan.num_ranks; ++r) {
    rank_program& prog = s.ranks[r];
    uint64_t descriptors = 0;
    for (const toq_queue& q : plan.ranks[r].queues) descriptors += q.commands.size();
    const auto build_ns =
        static_cast<uint64_t>(options.build_ns_per_descriptor * static_cast<double>(descriptors));
    const uint32_t built = prog.add(make_compute(build_ns), addresses[r]);
    const auto base = static_cast<uint32_t>(prog.ops.size());
    for (const op& o : puts.ranks[r].ops) {
      op n = o;
      for (uint32_t& d : n.deps) d += base;
      if (n.deps.empty()) n.deps = {built};
      prog.ops.push_back(std::move(n));
    }
  }
  return s;
}

}  // namespace

schedule tofu2_schedule(const tofu2_plan& plan, const tofu2_options& options) {
  return options.offload ? offload_schedule(plan) : host_schedule(plan, options);
}

}  // namespace bcastsim::algorithms
