// A run's program: the collectives of a scenario (each with its algorithm, communicator,
// root or roots, size, start and repetitions) composed into one Schedule over the job's
// ranks, and the instances (collective x repetition) the hosts and results track.
//
// Composition keeps every component's own correctness and adds no deadlock:
//   - each component (one algorithm's schedule for one root, or one allgather) is verified
//     alone (verify_schedule) before it is composed;
//   - each component gets its own matching context (op::context), so components never take
//     each other's messages, whatever their tags;
//   - components are joined only by rank-local dependencies that follow one global order
//     (collective list order, then repetition), so a rank waits only for its own part of
//     an earlier component: with eager sends every component completes once all its ranks
//     have entered it, and by induction over that order all do.
// "after" is therefore rank-local, as consecutive MPI calls are: a rank starts a collective
// when its own part of the one before is done, not when every rank is.
#pragma once

#include "algorithms/registry.h"
#include "algorithms/schedule.h"
#include "algorithms/verify.h"
#include "network/placement.h"
#include "network/topology.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bcastsim::algorithms {

// How a host runs a collective and the computation beside it.
//   blocking  the collective, then compute_ns of computation, for each repetition;
//   overlap   start the collective, compute compute_ns meanwhile, wait for both (MPI
//             I-collective + compute + Wait; Tofu2's persistent start/wait), per repetition.
enum class host_mode : uint8_t { blocking, overlap };

// One collective as the scenario describes it (collective.* or one entry of collectives:).
struct collective_spec {
  std::string algorithm = "binomial";
  // The communicator: job ranks, in communicator order; empty = every rank of the job.
  std::vector<uint32_t> ranks;
  bool all_roots = false;  // every rank of the communicator broadcasts at once
  uint32_t root = 0;       // communicator rank (a broadcast with one root)
  uint64_t bytes = 0;      // broadcast: the buffer; allgather and all roots: per rank
  uint64_t start_ns = 0;   // no rank enters before
  int32_t after = -1;      // index of an earlier spec each rank finishes its part of first
  uint32_t repeat = 1;
  uint64_t compute_ns = 0;  // per repetition, see host_mode
  host_mode mode = host_mode::blocking;
};

// One repetition of one collective: a buffer the hosts fill and the results report.
struct instance_info {
  uint32_t collective = 0;  // index in the specs
  uint32_t repetition = 0;
  const algorithm_info* algorithm = nullptr;
  std::vector<uint32_t> ranks;  // job ranks, communicator order
  bool all_roots = false;
  uint32_t root = 0;               // job rank; a broadcast with one root
  uint64_t buffer_bytes = 0;       // what every member holds at the end
  std::vector<byte_span> own;      // [member]: held before
  std::vector<uint32_t> receives;  // [member]: its part's receives (of zero bytes, maybe)
  delivery contract = delivery::exactly_once;
  uint64_t messages = 0;       // matched send/recv pairs
  uint32_t first_context = 0;  // its components' contexts: [first, first + contexts)
  uint32_t contexts = 0;

  // Member m holds the whole buffer before the collective: a broadcast's root, or every
  // member of a zero-byte collective that sends it nothing (an allgather of 0 bytes).
  bool holds_at_start(size_t m) const {
    return own[m].size() == buffer_bytes && (buffer_bytes > 0 || receives[m] == 0);
  }
};

struct program {
  schedule sched;  // over the job's ranks; sched.root/bytes/own describe instance 0
  std::vector<instance_info> instances;
  std::vector<uint32_t> context_instance;  // [context]: its instance
  // [job rank]: (instance, member index) of every instance the rank is a member of, in
  // instance order (so a host finds its own without scanning every instance's ranks).
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> memberships;
  uint64_t messages = 0;
};

// Most operations a program of several components may hold: repetitions, roots and lists
// multiply them, and a run needs about 260 bytes per operation (the ops, the hosts' state per
// instance; measured: 14.2 M operations, 3.75 GB peak), so about 1.1 GB at this cap.
inline constexpr uint64_t max_program_ops = uint64_t{1} << 22;

struct program_error : std::invalid_argument {
  program_error(std::string key, const std::string& what)
      : std::invalid_argument(what), key(std::move(key)) {}
  std::string key;  // the scenario key at fault, e.g. "collectives.1.root"
};

// Builds and verifies the program. `key_prefix(i)` names spec i's keys in errors
// ("collective" or "collectives.i"). Throws program_error for a spec that cannot be built
// (bad rank, root outside the communicator, an algorithm refusing the communicator), and
// std::logic_error naming the algorithm when a component fails verification. `relay`: how
// Ragasa's broadcasts relay (ragasa.relay), which shapes their hosts' part.
// `tofu2`: how Tofu2's broadcasts run (tofu2.*).
program make_program(const std::vector<collective_spec>& specs, const network::topology& topo,
                     const network::placement& place, const std::vector<std::string>& key_prefixes,
                     ragasa_relay relay = ragasa_relay::unit, const tofu2_options& tofu2 = {});

}  // namespace bcastsim::algorithms
