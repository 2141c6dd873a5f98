// Tofu2's offloaded persistent broadcast (Morie et al., "Prototyping of Offloaded Persistent
// Broadcast on Tofu2 Interconnect"; FACTS §4), compiled to TOQ command sequences: for every
// rank, the RDMA puts its TNIs' command queues execute, with the session progress step (SPS)
// each put carries to the queue it designates at its receiver.
//
// The paper's mechanism: a non-root rank enqueues its puts in a session-mode queue, whose
// consumer pointer never passes its scheduling pointer; an arriving put advances the
// scheduling pointer of the queue it designates by its SPS. So a rank forwards segment s
// exactly when segment s has arrived, with no CPU. The root enqueues its puts in a
// normal-mode queue at MPI_Start and they run at once.
//
// Every algorithm here is a pipelined tree: the message is split into fragments (one per
// TNI used), each fragment into `segments` segments, and each fragment flows down its own
// tree segment by segment. A rank with c children has, per segment, c puts (one per child,
// in child order); the put that brings it a segment carries SPS = c, so its arrival releases
// exactly the puts that forward that segment. A leaf gets SPS 0 and has no queue.
//   pipeline   one fragment on TNI 0, one path: the ranks in snake order from the root
//              (the paper's "single-path pipelined broadcast").
//   trinary    one fragment on TNI 0; the root heads three pipeline paths (the paper: "similar
//              to single-path pipelined broadcast except that the data transmission branches.
//              The three pipeline paths of the trinary tree are mapped to the 3D torus").
//   trinaryx3  three fragments (the bytes split in thirds), fragment f a trinary broadcast on
//              TNI f whose paths follow a snake with the dimensions rotated by f, so the three
//              fragments start along different dimensions. They still share links: on the
//              12-node unit 7 of the 22 rank pairs the trees use carry more than one fragment,
//              and with only one dimension differing (or n <= 4) the three trees are the same.
//
// Choices where the paper is silent (its Figure 4 is not in our copy; FACTS §4 found no
// description of a Trinaryx3 broadcast):
//   - Snake order: the ranks' torus coordinates in reflected (boustrophedon) order over the
//     dimensions that differ among the communicator's nodes, fastest first in the torus's
//     order x, y, z, a, b, c (rotated for Trinaryx3's fragments); with three or more such
//     dimensions, an even-sized one other than the fastest goes slowest where the slowest
//     would be odd. Consecutive nodes of a full grid are one link apart. The snake closes
//     into a ring (its last node next to its first) on the 12-node unit for every rotation
//     (a-b-c, b-c-a, c-b-a) and on full tori whose slowest dimension is even; not on a mesh
//     or a partial box, nor on a plane of two dimensions with the odd one slowest, where the
//     trinary's last path starts two or three links from the root. Ranks on one node are
//     consecutive. On another topology: terminal id.
//   - The three paths of a trinary tree: the n - 1 ranks after the root in snake order (the
//     snake rotated to start at the root) cut into three contiguous parts as equal as possible
//     (the first parts one longer). The first part runs forward from the root's successor, the
//     last part backward from the root's predecessor (both one link from the root when the
//     snake closes into a ring), the middle part forward from its first rank (several links
//     from the root: 2 to 6 on a 4x4x4 torus).
//   - Segments: each fragment's bytes in `segments` parts as equal as possible (the first
//     parts one byte longer), fewer when a fragment has fewer bytes; at least one, so a
//     zero-byte broadcast is one empty put per tree edge (it still completes and carries SPS).
//   - A put's SPS is applied when its last packet has been processed at the receiver, so a
//     forwarded segment is always complete.
//   - The paper's readiness report (every rank tells rank 0 it has enqueued before rank 0
//     starts) belongs to MPI_Bcast_init on the host side, not to the plan.
#pragma once

#include "algorithms/schedule.h"
#include "network/placement.h"
#include "network/topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bcastsim::algorithms {

enum class tofu2_algorithm : uint8_t { pipeline, trinary, trinaryx3 };
const char* to_string(tofu2_algorithm a);  // "tofu2-pipeline", ...

// TOQ commands (FACTS §4, tof_icc.h): the broadcast uses puts; nop is a descriptor that moves
// the consumer without sending.
enum class toq_command : uint8_t { nop = 0, put = 1 };

// A TOQ descriptor, the fields the model reads (the hardware's is 32 B: FACTS §4).
struct toq_descriptor {
  toq_command command = toq_command::put;
  uint32_t remote_rank = 0;  // communicator rank (the TNI resolves its node)
  uint32_t remote_tni = 0;   // the header's ri
  // The receiver's queue its SPS advances: in a plan, its index in the receiver's queues;
  // on a TNI, the receiving TNI's queue number (MPI_Bcast_init maps one to the other);
  // toq_no_queue for a put that releases nothing (to a leaf).
  uint32_t remote_queue = 0;
  uint64_t local_offset = 0;  // buffer offsets; the broadcast reads and writes one buffer
  uint64_t remote_offset = 0;
  uint64_t length = 0;  // bytes; the put engine cuts it into frames
  uint32_t sps = 0;     // 4 bits in the header: 0..15
  // The remote TNI's terminal: filled from the placement when MPI_Bcast_init resolves the
  // plan (the hardware's rx..rc, ri coordinates); invalid until then.
  uint32_t remote_terminal = UINT32_MAX;
  uint32_t edata = 0;         // carried to the receiver's MRQ notice (the collective's id)
  bool notify_remote = true;  // the receiver's MRQ hears of the put's arrival
  bool notify_local = true;   // the sender's TCQ hears of its completion
};
inline constexpr uint32_t toq_max_sps = 15;
inline constexpr uint32_t toq_no_queue = UINT32_MAX;

enum class queue_mode : uint8_t { normal, session };
const char* to_string(queue_mode m);

// One command queue of one rank: what the rank enqueues in it for one execution.
struct toq_queue {
  uint32_t tni = 0;
  queue_mode mode = queue_mode::session;
  std::vector<toq_descriptor> commands;
};

struct tofu2_rank_plan {
  // [fragment]: the rank's queue for it, on TNI `fragment`; a put's remote_queue indexes the
  // receiver's. The root's are in normal mode (MPI_Start enqueues them), everyone else's in
  // session mode (MPI_Bcast_init enqueues them). A leaf's queue holds no command (its SPS is
  // 0): it needs no hardware queue.
  std::vector<toq_queue> queues;
  uint32_t puts_received = 0;  // puts that arrive here: MPI_Wait waits for their notices
};

struct tofu2_plan {
  tofu2_algorithm algorithm = tofu2_algorithm::pipeline;
  uint32_t num_ranks = 0;
  uint32_t root = 0;
  uint64_t bytes = 0;
  uint32_t segments = 0;  // requested per fragment
  uint32_t fragments = 0;
  // [fragment]: the tree, as parent per rank (the root's is itself) and children in order.
  std::vector<std::vector<uint32_t>> parent;
  std::vector<std::vector<std::vector<uint32_t>>> children;
  std::vector<tofu2_rank_plan> ranks;  // [rank]

  uint64_t total_puts() const;
};

// The ranks of the placement in snake order (see above), the dimensions rotated by `rotate`
// places among the ones that differ. Pure; a non-torus topology gives terminal-id order.
std::vector<uint32_t> tofu2_snake_order(const network::topology& topo,
                                        const network::placement& place, uint32_t rotate);

// Builds the plan. Throws std::invalid_argument for segments 0 or above max_tofu2_segments, a
// root outside the placement or an empty placement.
inline constexpr uint32_t max_tofu2_segments = 65536;
tofu2_plan make_tofu2_plan(tofu2_algorithm a, const network::topology& topo,
                           const network::placement& place, uint32_t root, uint64_t bytes,
                           uint32_t segments);

// The same broadcast progressed by the hosts (the paper's non-blocking baseline): every put a
// send, every arrival a recv, and a rank's sends of a segment depend on its recv of it.
schedule tofu2_host_schedule(const tofu2_plan& plan);

// How the scenario runs the Tofu2 broadcasts (the tofu2.* keys; tb/tofu2/family).
struct tofu2_options {
  bool offload = true;                  // tofu2.mode: offload (persistent) or host
  uint32_t segments = 4;                // tofu2.segments, per fragment
  double build_ns_per_descriptor = 50;  // generating one descriptor (host mode: every call)
};

// Tags of the set-up messages (the plan's own use tag = fragment, below 3).
inline constexpr uint32_t tofu2_address_tag = 100;  // + fragment: a child's buffer address
inline constexpr uint32_t tofu2_ready_tag = 200;    // a rank's readiness, to the root

// The schedule a rank's host runs for the plan.
//   offload  the MPI-4 persistent calls: each child sends its parent its buffer address (one
//            0-byte message per fragment, set-up); offload_init once the children's are in;
//            every non-root reports ready to the root (0-byte, set-up); offload_start once
//            ready (the root: once every rank is); offload_wait; offload_free. The TNIs move
//            the data; hardware_receives counts each rank's puts. Contract: hardware.
//   host     the non-blocking baseline, every call: the address exchange, the CPU building
//            every descriptor (a compute op of build_ns_per_descriptor each), then the
//            plan's puts as sends and receives (tofu2_host_schedule).
schedule tofu2_schedule(const tofu2_plan& plan, const tofu2_options& options);

// Checks a plan without SystemC by running its queues as the hardware would, untimed: a
// session queue executes only below its scheduling pointer; a put delivers its bytes and then
// advances its designated queue by its SPS. Every ready queue runs one command per round, in
// rank order, until none can. Passes when every queue has executed every command, no
// scheduling pointer ends beyond its queue's commands (an SPS too large), every put sends
// bytes its sender holds, SPS fits 4 bits, and every non-root rank receives every byte of the
// buffer exactly once (the root none) and as many puts as its plan says.
struct tofu2_check_result {
  bool ok = true;
  std::vector<std::string> errors;  // the first few problems, naming rank, queue and command
  uint64_t puts = 0;
  uint32_t rounds = 0;  // rounds until every queue was done (the pipeline's depth in steps)
};
tofu2_check_result check_tofu2_plan(const tofu2_plan& plan);

}  // namespace bcastsim::algorithms
