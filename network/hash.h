// FNV-1a, 64 bits: a stable digest of text, the same on every platform and build, for what a
// result names by content (a study's base scenario, a run's allocation).
#pragma once

#include <cstdint>
#include <string_view>

namespace bcastsim::network {

constexpr uint64_t fnv1a(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

}  // namespace bcastsim::network
