// NIC-based all-to-all broadcast on programmable Myrinet NICs (Yu, Panda, Buntinas,
// "Scalable, High-performance NIC-based All-to-all Broadcast over Myrinet/GM", Cluster 2004;
// FACTS §5): the pieces of the NICs' control program that are plain logic, so they are
// tested without SystemC and the NIC model (hw/lanai/) only adds time.
//
// Concurrent broadcasting (NIC-CB). Every NIC is the root of its own binomial tree over the
// group and every packet carries a hop flag (i, j): i the rank of the NIC it started from, j
// the log of the distance of the hop that brought it. The paper: "the current NIC finds out
// the next destination of a hopping packet as (|rank - i| + 2^j); if it is not less than the
// size of the group, then there is no need for the packet to make any further hops". Our
// reading (the paper's Figure 3 is not in our copy): a NIC holding a packet with flag (i, j),
// received or just sent, sends it next with flag (i, j + 1) to relative rank
// rel + 2^(j + 1), rel = (rank - i) mod N, while that is below N; the origin starts with
// (i, 0) to rel 1. So the root sends to distances 1, 2, 4, ..., and relative rank r > 0 hears
// from r - 2^msb(r) and sends to r + 2^k for k > msb(r): a binomial spanning tree per origin,
// every rank reached exactly once. A NIC sends to rank + 2^k and hears from rank - 2^k, so it
// keeps 2 log N peers (fewer when N is not a power of two), as the paper says.
//
// Recursive doubling (NIC-RD): log2 N steps; at step k rank r exchanges with r XOR 2^k the
// 2^k blocks it holds (those of the ranks sharing r's bits above k), combined into as few
// packets as the MTU allows. N must be a power of two (the paper's 2 to 16 nodes are).
// Staging: the NIC keeps received data for the next step in its 8 KiB staging buffer when
// all it then holds fits (the paper: "a contiguous 8 KB staging buffer is also preallocated
// at the NIC to allow the group to temporarily buffer received packets"); otherwise the
// received data goes to host memory by DMA and comes back by DMA for the next step ("it has
// to buffer the intermediate data by copying the received data, using DMA, to the host
// memory and then copying it back to the NIC for the next step").
//
// Reliability is receiver-driven (paper §4.4): no ACKs; a receiver that times out on an
// expected packet sends a NACK to the NIC that should have sent it -- for NIC-CB its parent
// in the origin's tree, which resends the packet if it holds it, or else passes the NACK on
// up the tree, as far as the origin if need be. cb_recover() runs that logically, in timeout
// rounds, with any packets and NACKs lost.
#pragma once

#include "algorithms/schedule.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bcastsim::algorithms::lanai {

// --- NIC-CB: hopping packets ---

struct hop_flag {
  uint32_t origin = 0;
  uint8_t log_distance = 0;  // j: the hop that brought the packet spanned 2^j ranks
};

struct hop {
  uint32_t to = 0;  // rank
  hop_flag flag;    // the flag the packet carries on this hop
};

// (rank - origin) mod n.
uint32_t relative_rank(uint32_t rank, uint32_t origin, uint32_t n);
// The first hop of origin's own packet (to origin + 1); none when n == 1.
std::optional<hop> first_hop(uint32_t origin, uint32_t n);
// The hop after `flag` at NIC `rank` (which received the packet with it, or just sent it with
// it); none when the tree ends there.
std::optional<hop> next_hop(uint32_t rank, hop_flag flag, uint32_t n);
// Every hop NIC `rank` makes for origin's packet, in order (the first one's flag and the
// rest by next_hop): its children in origin's tree.
std::vector<hop> cb_sends(uint32_t rank, uint32_t origin, uint32_t n);
// The flag origin's packet carries on the hop into `rank` (rank != origin): the log of the
// distance from its parent.
hop_flag arrival_flag(uint32_t rank, uint32_t origin, uint32_t n);
// The rank that sends origin's packet to `rank` (its parent in origin's tree); origin itself
// for rank == origin.
uint32_t cb_parent(uint32_t rank, uint32_t origin, uint32_t n);
// The ranks NIC `rank` sends to or hears from, ascending, without duplicates.
std::vector<uint32_t> cb_peers(uint32_t rank, uint32_t n);

// --- The arrival record: a status bit vector and a counter (paper §4.3.3) ---

class arrival_record {
 public:
  explicit arrival_record(uint32_t n = 0) { reset(n); }
  void reset(uint32_t n);
  // Marks origin's packet arrived; false (and nothing changes) when it had already.
  bool mark(uint32_t origin);
  bool has(uint32_t origin) const { return (m_bits[origin / 64] >> (origin % 64)) & 1u; }
  uint32_t count() const { return m_count; }
  uint32_t size() const { return m_n; }
  bool complete() const { return m_count == m_n; }
  // The origins not yet arrived, ascending: read only when a timeout fires, so the common
  // path is one bit and one counter.
  std::vector<uint32_t> missing() const;

 private:
  uint32_t m_n = 0;
  uint32_t m_count = 0;
  std::vector<uint64_t> m_bits;
};

// --- The two all-to-all broadcast buffer channels (paper §4.2, Figure 2) ---
//
// Operation s uses channel s mod 2. Requests come only after the previous one completed
// locally, so at most one operation sends and at most two receive: a NIC whose operation s is
// open may already get packets of s + 1 (a faster peer moved on), never of s + 2 or of an
// operation it completed. The channels check exactly that.
class buffer_channels {
 public:
  enum class verdict : uint8_t { current, early, stale, too_early };
  // The operation a packet of sequence number seq belongs to, seen from this NIC.
  verdict classify(uint32_t seq) const;
  uint32_t channel_of(uint32_t seq) const { return seq % 2; }
  // The host posted operation `seq` (must be the next one: returns false otherwise).
  bool open(uint32_t seq);
  // Operation `seq` completed locally (must be the open one).
  bool complete(uint32_t seq);
  // The open operation's sequence number; or the next to open.
  uint32_t current() const { return m_next; }
  bool is_open() const { return m_open; }

 private:
  uint32_t m_next = 0;  // the open operation, or the next one to open
  bool m_open = false;
};

// --- NIC-RD ---

struct rd_step {
  uint32_t peer = 0;
  uint32_t first_block = 0;  // blocks [first_block, first_block + blocks) sent (rank order)
  uint32_t blocks = 0;
  uint32_t peer_first_block = 0;  // blocks received
  uint64_t bytes = 0;             // sent (= received)
  uint32_t packets = 0;           // ceil(bytes / mtu), at least 1
  // The data held after this step does not fit the NIC's staging buffer: what arrives goes
  // to host memory, and the next step's send comes back from it by DMA.
  bool staged_in_host = false;
};

// Throws std::invalid_argument when n is not a power of two or rank >= n.
std::vector<rd_step> rd_steps(uint32_t rank, uint32_t n, uint64_t block_bytes, uint64_t mtu_bytes,
                              uint64_t staging_bytes);

// --- Logical runs with losses and receiver-driven recovery ---

enum class message_kind : uint8_t { data, nack };
// Whether a message is lost: data (origin's packet from `from` to `to`) or a NACK (from
// `from` to `to` for origin's packet); attempt counts earlier tries of the same message.
using loss_fn = std::function<bool(message_kind kind, uint32_t origin, uint32_t from, uint32_t to,
                                   uint32_t attempt)>;

struct recovery_report {
  // [rank][origin] copies delivered to the NIC (every one of them must be exactly 1 after the
  // dedup of the arrival record, the NIC hands each origin to the host once).
  std::vector<std::vector<uint32_t>> arrivals;
  std::vector<std::vector<uint32_t>> delivered_to_host;  // [rank][origin]
  uint64_t data_packets = 0;                             // sends, retransmissions included
  uint64_t lost_packets = 0;                             // data and NACKs
  uint64_t nacks = 0;                                    // NACKs sent, propagated ones included
  uint64_t propagated_nacks = 0;                         // NACKs a NIC lacking the packet passed up
  uint64_t retransmissions = 0;                          // data sent in answer to a NACK
  uint64_t duplicates = 0;                               // arrivals the record already had
  uint32_t timeout_rounds = 0;                           // rounds in which some NIC timed out
  bool complete = false;                                 // every NIC holds every origin
};

// NIC-CB among n NICs, every message lost or not by `lost`; after the traffic settles, each
// timeout round every NIC missing origin i NACKs its parent in i's tree, and so on, until
// all hold everything or max_rounds pass.
recovery_report cb_recover(uint32_t n, const loss_fn& lost, uint32_t max_rounds = 64);

// A loss function dropping a fraction `rate` of all messages, from `seed` (a pure function:
// the same message and attempt always get the same answer).
loss_fn random_loss(double rate, uint64_t seed);

// --- The hosts' side ---

// NIC-CB or NIC-RD among `ranks` ranks, `bytes` per rank: each rank's program is one
// offload_start (its gm_gossip request; the NICs do the rest) and its NIC delivers every other
// rank's block (hardware_receives). Throws std::invalid_argument for NIC-RD on a group that is
// not a power of two.
schedule gossip_schedule(uint32_t ranks, uint64_t bytes, bool recursive_doubling);

}  // namespace bcastsim::algorithms::lanai
