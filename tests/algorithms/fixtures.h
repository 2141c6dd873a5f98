// Test helpers shared by the algorithm tests: a dragonfly and a placement from a few numbers.
#pragma once

#include "network/dragonfly.h"
#include "network/placement.h"
#include "network/torus.h"

#include <cstdint>
#include <vector>

namespace bcastsim::test {

inline network::dragonfly make_dragonfly(
    uint32_t g, uint32_t a, uint32_t p, uint32_t h,
    network::global_arrangement arrangement = network::global_arrangement::absolute) {
  network::dragonfly_params dp;
  dp.g = g;
  dp.a = a;
  dp.p = p;
  dp.h = h;
  dp.arrangement = arrangement;
  return network::dragonfly(dp);
}

inline network::placement make_placement(const network::topology& topo,
                                         network::placement_kind kind, uint32_t ranks,
                                         uint32_t first = 0, uint64_t seed = 1) {
  network::placement_params pp;
  pp.kind = kind;
  pp.ranks = ranks;
  pp.first_terminal = first;
  pp.seed = seed;
  return network::placement(topo, pp);
}

inline network::torus make_torus(uint32_t x, uint32_t y, uint32_t z,
                                 const std::vector<network::torus_dim>& mesh = {}) {
  network::torus_params tp;
  tp.x = x;
  tp.y = y;
  tp.z = z;
  for (const network::torus_dim d : mesh) tp.mesh[d] = true;
  return network::torus(tp);
}

}  // namespace bcastsim::test
