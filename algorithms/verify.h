// Checks a Schedule without SystemC: sends and receives match (by source, destination,
// context and tag, in order, with equal offset and size; an offload_bcast is one message to
// each rank that receives from it on its context and tag, matched as a send to each, and its
// peer must be its own rank); the dependency graph
// completes (no deadlock under MPI matching with eager sends); no rank receives bytes
// outside the buffer; and the algorithm's delivery contract holds:
//   exactly_once   every rank receives every byte of the buffer it does not hold before
//                  (schedule::held_before: a broadcast's root all, an allgather's rank its
//                  block) exactly once, and none it holds;
//   at_least_once  what every rank holds before and receives covers the whole buffer; bytes
//                  may arrive more than once and the root may receive.
//   hardware       offload hardware moves the buffer (Tofu2's command queues): the
//                  schedule's own messages match and complete, and its bytes are not
//                  checked here (the family's plan checker does, e.g. check_tofu2_plan; a run
//                  checks every byte arrives exactly once).
// Persistent offload calls (is_offload_call) complete at once here, and their peer must be
// their own rank.
#pragma once

#include "algorithms/schedule.h"

#include <string>
#include <vector>

namespace bcastsim::algorithms {

// What an algorithm promises about the bytes each rank receives (see above).
enum class delivery : uint8_t { exactly_once, at_least_once, hardware };

struct verify_result {
  bool ok = true;
  std::vector<std::string> errors;  // first few problems, human-readable, naming ranks/ops
  uint64_t messages = 0;            // matched send/recv pairs (an offload: one per recv)
  // Longest chain of dependent message steps: a send or offload_bcast is one step after its
  // deps, a recv completes in its send's step (or after its own deps), compute adds no step.
  uint32_t rounds = 0;
};

verify_result verify_schedule(const schedule& s, delivery contract = delivery::exactly_once);

}  // namespace bcastsim::algorithms
