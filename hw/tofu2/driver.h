// The Tofu2 MPI library of one rank (Morie et al.): it runs the rank's MPI-4 persistent
// calls (algorithms/schedule.h: offload_init, offload_start, offload_wait, offload_free) over
// its node's TNIs, as the host's offload agent (hw/nic/host.h).
//   MPI_Bcast_init  CPU: the call, registering the buffer, building every descriptor of the
//                   rank's plan and, off the root, writing them into the session-mode queues;
//                   they become visible when the call returns. (Exchanging buffer addresses
//                   and reporting ready to the root are messages of the schedule.)
//   MPI_Start       CPU: the call and writing the round's descriptors: the root's into its
//                   normal-mode queues, the others' again into their session-mode queues for
//                   every round after the first. Visible when the call returns; a descriptor
//                   a full TOQ refuses waits until a slot frees (the enqueue_refused count).
//   MPI_Wait        returns, after a poll of the completion queues, once the round's puts of
//                   this rank have all left (TCQ) and every put it receives in the round has
//                   arrived (MRQ).
//   MPI_Request_free  CPU: the call; the queues' pointers go back to 0.
// Arrivals write the host's buffer (host::offload_data). A put's edata names its round's
// collective context + 1.
#pragma once

#include "algorithms/tofu2_bcast.h"
#include "hw/nic/host.h"
#include "hw/tofu2/tni.h"

#include <cstdint>
#include <iosfwd>
#include <vector>

namespace bcastsim::hw::tofu2 {

struct driver_params {
  double call_ns = 200;                    // any persistent call's own cost
  double register_ns = 20000;              // registering the buffer with the TNIs (init)
  double build_ns_per_descriptor = 50;     // generating one TOQ descriptor (init)
  double enqueue_ns_per_descriptor = 100;  // writing one 32-B descriptor into a TOQ
  double poll_ns = 100;                    // reading the completion queues (wait)
};

// One persistent request of the rank: one collective of the program, all its repetitions.
struct driver_request {
  struct queue {
    tni* engine = nullptr;
    uint32_t number = 0;  // on that TNI
    queue_mode mode = queue_mode::session;
    std::vector<toq_descriptor> commands;  // resolved: remote terminals and queue numbers
  };
  std::vector<queue> queues;
  uint32_t collective = 0;         // its index in the scenario's collectives
  std::vector<uint32_t> contexts;  // [repetition]: its instance's context
  uint32_t puts_received = 0;      // per round
  bool root = false;
};

// When one rank's calls of one repetition were made and returned (ps; 0: not yet).
struct call_times {
  uint64_t init_called = 0, init_returned = 0;  // the first repetition's
  uint64_t start_called = 0, start_returned = 0;
  uint64_t wait_called = 0;  // when the CPU was free to wait (after overlapped computation)
  uint64_t wait_returned = 0;
  uint64_t data_in = 0;  // the round's last put arrived (the root: its MPI_Start call)
};

class driver final : public offload_agent, public tni_client {
 public:
  driver(host& h, const driver_params& params, std::vector<driver_request> requests,
         uint32_t contexts);

  // offload_agent
  void call(uint32_t index, const algorithms::op& o) override;
  void returned(uint32_t index, const algorithms::op& o) override;
  bool describe_stall(std::ostream& os) const override;

  // tni_client
  void on_put_done(uint32_t queue, const toq_descriptor& d) override;
  void on_put_arrived(network::terminal_id src, uint32_t edata, uint64_t offset,
                      uint64_t bytes) override;

  // No call waiting and nothing left to enqueue.
  bool idle() const;
  const std::vector<driver_request>& requests() const { return m_requests; }
  // [request][repetition]
  const std::vector<std::vector<call_times>>& times() const { return m_times; }

 private:
  struct round_state {
    uint32_t puts_done = 0;
    uint32_t puts_arrived = 0;
    int64_t wait_op = -1;  // an MPI_Wait waiting for the round
  };
  struct where {
    uint32_t request = 0;
    uint32_t round = 0;
  };

  where locate(uint32_t context) const { return m_where[context]; }
  uint32_t own_puts(const driver_request& r) const;
  void enqueue_round(uint32_t request, uint32_t round);
  void drain_pending();
  void check_wait(uint32_t request, uint32_t round);

  host& m_host;
  driver_params m_params;
  std::vector<driver_request> m_requests;
  std::vector<where> m_where;                      // [context]; request UINT32_MAX: none
  std::vector<std::vector<round_state>> m_rounds;  // [request][round]
  std::vector<std::vector<call_times>> m_times;    // [request][round]
  struct pending {
    uint32_t request;
    uint32_t queue;
    uint32_t round;
    size_t next;  // the next command to enqueue
  };
  std::vector<pending> m_pending;  // enqueues a full TOQ refused, in order
};

}  // namespace bcastsim::hw::tofu2
