// Recorded stimulus of Tofu2 command queues: what a fabric run's TNIs asked of every queue
// (`bcastsim run --record-unit-inputs FILE` with a tofu2-* algorithm), for the lock-step
// co-simulation to replay (`bcastsim cosim --block tofu2-cq --replay FILE`).
//
// The file, JSON lines, one per queue the run asked anything of, in TNI then queue order:
//   {"type":"tofu2_queue","queue":"nic_4.cq0","mode":"session","entries":2048,
//    "cycles":[{"enqueue":{descriptor}},{"sps":3},{"retire":true},...]}
// Each cycle carries one request, in the order the TNI made them (an enqueue a full TOQ
// refused included); a queue's recording ends when MPI_Request_free resets it.
#pragma once

#include "hw/tofu2/command_queue.h"

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace bcastsim::tb::cosim {

struct cq_stimulus {
  std::string name;  // e.g. nic_4.cq0
  hw::tofu2::queue_mode mode = hw::tofu2::queue_mode::session;
  uint64_t entries = 2048;
  std::vector<hw::tofu2::cq_cycle> cycles;
  uint64_t line = 0;  // its line in the recording, for messages
};

// A recording that cannot be read: the message names the file, the line and the field.
class cq_replay_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void write_cq_stimulus(std::ostream& out, const cq_stimulus& s);
// Throws cq_replay_error.
std::vector<cq_stimulus> load_cq_replay(const std::string& path);

}  // namespace bcastsim::tb::cosim
