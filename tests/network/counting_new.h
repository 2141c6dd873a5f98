// Counts heap allocations, so a routing test can show route() makes none. Replaces the
// global operator new and delete: include it in one test source per executable only.
#pragma once

#include "network/routing.h"
#include "network/topology.h"

#include <cstdint>
#include <cstdlib>
#include <new>

namespace bcastsim::network::counting_new {
inline uint64_t g_allocations = 0;

struct walk_count {
  uint64_t hops = 0;
  uint64_t allocations = 0;
};

// Routes from terminal src to every step-th terminal, hop by hop, counting the router-to-router
// hops taken and the heap allocations made meanwhile.
inline walk_count route_from(const topology& topo, const routing_policy& policy, terminal_id src,
                             uint32_t step) {
  walk_count c;
  const uint64_t before = g_allocations;
  for (terminal_id dst = 0; dst < topo.num_terminals(); dst += step) {
    route_state state;
    policy.init_state(src, dst, 0, state);
    router_id at = topo.router_of(src);
    for (;;) {
      const route_decision d = policy.route(at, dst, state, nullptr);
      const port_info& pi = topo.port(at, d.port);
      if (pi.peer_kind != port_info::kind::router) break;
      at = pi.peer;
      ++c.hops;
    }
  }
  c.allocations = g_allocations - before;
  return c;
}
}  // namespace bcastsim::network::counting_new

[[gnu::noinline]] void* operator new(std::size_t bytes) {
  ++bcastsim::network::counting_new::g_allocations;
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
// Neither is inlined: GCC would otherwise see free() of a pointer from malloc() paired with
// operator new and warn (-Wmismatched-new-delete).
[[gnu::noinline]] void operator delete(void* p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
