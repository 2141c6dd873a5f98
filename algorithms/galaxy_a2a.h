// Router-level all-to-all broadcasts (Zhuang, Chang, Li, Song, Lin, "All-to-All Broadcast
// Algorithm in Galaxyfly Networks", Mathematics 2023; FACTS §6): every router holds one packet
// (its "origin") and every router must receive every other router's. The packets move among
// the routers only (the paper: "the proposed all-to-all broadcast algorithms only transmit the
// packets among the routers"), always over one link between neighbouring routers; a router
// stores what it receives and forwards it as the algorithm says.
//
// A plan is a list of transfers (from, to, origins) between adjacent routers. A transfer fires
// once its sender holds all of its origins: this is the whole timing rule the per-router
// engines follow (hw/galaxy/engine.h), so a plan that is correct in this logical order is
// correct in any timing. Its origins are the procedure's packets minus those the two routers
// have already exchanged (in either direction): a router knows what it sent to and received
// from a neighbour, nothing more -- except in SFATA's SPD, whose transfers carry what the
// receiver lacks (see sfata below). A packet that reaches a router holding it is redundant.
//
// Supernodes are the topology's groups, whose routers must be fully connected (Galaxyfly,
// dragonfly); supernode X's gateway to a neighbouring supernode Y, gw(X, Y), is the router of
// X holding the lowest-numbered link to Y (router, then port order) -- on a Galaxyfly, link
// number 0 of the pair, whose other end is gw(Y, X).
//
// The basic procedures (paper §3), on the routers B of one supernode:
//   RPC(B, m)  Router-Packet-Collection: the routers of B other than m, in id order, split at
//              m into those before it (B1) and after it (B2); each non-empty Bi collects
//              into bi = Bi[|Bi| / 2] by RPC(Bi, bi), then bi sends what it holds to m. This is
//              the paper's Figure 3 (RPC({R1..R8}, R4): {R1,R2,R3} -> R2, {R5..R8} -> R7) except
//              one equal-cost leaf: there {R5,R6} collect into R5, here into R6 (the paper's
//              Algorithm 1 is an image missing from our copy; its text does not say how bi is
//              chosen, and the upper median keeps the recursion log2(a) deep).
//   RPD(B, m, S) Router-Packet-Distribution, RPC's inverse: m sends set S to each bi, which
//              distributes it in Bi by RPD(Bi, bi, S).
//   SPC / SPD  Supernode-Packet-Collection / -Distribution over the breadth-first tree of the
//              supernode graph from the root supernode A: neighbours in id order, each claimed
//              by the first visited supernode adjacent to it (the paper's Figure 4 for S8).
//
// The algorithms (the paper's Algorithm 3 is SPC(U, A); SPD(U, A); Algorithm 4 and the
// dragonfly's A2A are described in text only). The one difference the paper defines between
// SFATA and RFATA is what a supernode does with packets it receives from another supernode:
// §4.1 "once one supernode receives the packets, this supernode will distribute them to the
// next supernode immediately" (supernode-first); §4.2 "the supernode will distribute it to all
// routers inside it in priority, instead of distributing it to other supernodes immediately"
// (router-first). Our readings, each open point with its choice and reason:
//   sfata  Supernode-first. A's own packets first go round A by RPC(A, r0) and
//          RPD(A, r0, A's packets) (r0 its first router): the text is silent on them (the S8
//          example only says what S8 does with what arrives), §4.1's supernode-first rule is
//          about packets a supernode "receives" and A has no next supernode to send to until
//          it "receives all the packets", so spreading its own at once delays no forward;
//          RPC+RPD is the one intra-supernode pair the paper builds from. SPC: every
//          supernode X first collects its own packets by RPC(X, gw(X, P)), before any child's
//          arrive, and gw(X, P) sends them to gw(P, X) at once; each time a set arrives from a
//          child (at gw(X, C)), X runs RPC toward gw(X, P) again for that set only -- it
//          moves up gw(X, C)'s path in X's RPC tree -- and sends it on at once. Reading and
//          reason: Theorem 5 "Each time the packets are collected to a supernode, it is
//          necessary to execute RPC to collect the packets to a router again" names RPC as the
//          way an arrival reaches the gateway, once per arrival ("each time"), and §4.1
//          "once one supernode receives the packets, this supernode will distribute them to
//          the next supernode immediately" forbids waiting for the other children or for a
//          distribution inside. The alternative, the entry router sending straight to
//          gw(X, P) (one local hop), is not RPC; the text names no such hop in SPC, so it is
//          not SFATA here. In A, each arrival is distributed from its entry router by
//          RPD(A, gw(A, X), the set) (the S8 example: "execute RPD to send the packets from
//          the routers connected with S5, S7, S9 and S12 to other routers in S8. Finally,
//          execute SPD"). SPD, parents before children: gw(P, X) sends X what it lacks (out of
//          A only once it holds every origin: A "receives all the packets and forwards them
//          to all of the other supernodes"). Supernode-first in SPD: the entry router
//          gw(X, P), as soon as it holds that set, sends it straight to X's gateway toward
//          each BFS child C, gw(X, C) (one local hop, the supernode being fully connected),
//          and in parallel distributes inside by RPD(X, gw(X, P)); gw(X, C) forwards to C
//          once it holds what C lacks. Here the text's procedure for the supernode, "the SPD
//          algorithm will call the RPD algorithm to distribute the packets to all routers
//          within the supernode", is about reaching X's routers, which the RPD still does; it
//          does not name RPD as the way to the next supernode, as Theorem 5 names RPC in SPC.
//          So SPC and SPD are not mirror images here, although §3.2 says SPD "can be designed
//          as the inverse process of SPC with the same time complexity" (a design remark
//          about cost). Open points: (1) a forward waits for the whole set it carries (one
//          supernode's packets in SPC, the parent's set in SPD), not packet by packet: a
//          plan's transfer fires when its sender holds all its origins (the procedures are
//          "collect, then send"). (2) In SFATA's SPD a transfer carries what its receiver
//          lacks at that point of the plan, not the "less what the pair exchanged" rule of
//          RPC/RPD: gw(X, C) got the set straight from gw(X, P), so its RPD parent must not
//          send it again, and Theorem 5 says "each router does not receive redundant
//          packets". The plan is static (computed before the run), so a sender's sets are
//          fixed in advance; this needs no acknowledgements. (3) The root supernode keeps
//          RPD-then-SPD, as the S8 example states it.
//   rfata  Router-first. Every supernode first runs RPC(X, m) and RPD(X, m, X's packets)
//          (m = gw(X, P), or r0 for A): "the packets from routers within the same supernode
//          are first collected into one router, and then this router will distribute these
//          packets to all routers in the same supernode". Then SPC, deepest first: gw(X, P)
//          sends X's collection to gw(P, X), which at once distributes what arrived over P by
//          RPD(P, gw(P, X), that set) ("as long as the supernode receives a packet, it will
//          immediately send it to all routers inside it"); the next supernode up is fed by
//          gw(P, PP) once that distribution has brought it the set ("in priority, instead of
//          distributing it to other supernodes immediately"). Then SPD, parents before
//          children: gw(P, X) sends everything X lacks by the exchanged rule to gw(X, P),
//          which distributes it by RPD(X, gw(X, P), everything); gw(X, C) forwards to C only
//          once that RPD has reached it (router-first again). Open point: which packets a
//          router resends is the "less what the pair exchanged" rule (Algorithm 4 is an image
//          missing from our copy), so RFATA's three trees inside a supernode (its own RPC/RPD,
//          RPD from each entry router, SPD's RPD) produce some redundant packets, as the paper's
//          AvgPacket 0.64-2.33 for RFATA has.
//   a2a    Dragonfly A2A (Xiang & Ju, COCOON 2021, as FACTS §6 summarises it): each group's
//          routers send their packets to the group's first router, which sends the group's
//          packets to every router of the group; each router sends them over its global
//          links (one per neighbouring group, the gateway link) to the other groups; each
//          router forwards all the packets it received over global links to every other
//          router of its group. Every pair of groups must be joined.
#pragma once

#include "algorithms/schedule.h"
#include "network/placement.h"
#include "network/topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bcastsim::algorithms {

enum class galaxy_algorithm : uint8_t { sfata, rfata, a2a };
const char* to_string(galaxy_algorithm a);

// The supernode structure the algorithms need, read from a topology's groups and ports.
struct galaxy_view {
  struct gateway {
    uint32_t group = 0;   // the neighbouring supernode
    uint32_t router = 0;  // this supernode's end of the link: gw(this, group)
    uint32_t peer = 0;    // the other end: gw(group, this)
  };
  uint32_t routers = 0;
  std::vector<uint32_t> group_of;                // [router]
  std::vector<std::vector<uint32_t>> members;    // [group] routers, ascending
  std::vector<std::vector<gateway>> neighbours;  // [group] by neighbour, ascending
  // Throws std::invalid_argument when a group's routers are not fully connected, or a group
  // has no router.
  static galaxy_view of(const network::topology& topo);
  const gateway* find(uint32_t from_group, uint32_t to_group) const;
};

struct galaxy_transfer {
  uint32_t from = 0;
  uint32_t to = 0;
  uint32_t first = 0;  // origins: plan.origins[first, first + count)
  uint32_t count = 0;
  // The sender also waits until it holds every origin (SPD out of the root supernode: "a
  // supernode, which receives all the packets and forwards them to all of the other
  // supernodes").
  bool after_all = false;
};

struct galaxy_plan {
  galaxy_algorithm algorithm = galaxy_algorithm::sfata;
  uint32_t routers = 0;
  uint32_t root_group = 0;
  std::vector<galaxy_transfer> transfers;  // in logical order
  std::vector<uint32_t> origins;           // router ids (a router's packet is its origin)
  // The logical execution's account, timing-independent: what each router received.
  std::vector<uint32_t> received;   // [router] packets that reached it, redundant included
  std::vector<uint32_t> redundant;  // [router] of those, packets it already held
  uint32_t complete_routers = 0;    // routers holding every origin at the end
  uint64_t redundant_total() const;
};

// Throws std::invalid_argument (naming the reason) when the algorithm cannot run on the
// view: root_group out of range, a supernode graph that is not connected, or (a2a) two
// groups not joined.
galaxy_plan make_galaxy_plan(galaxy_algorithm a, const galaxy_view& view, uint32_t root_group);

// The breadth-first parent of every supernode from `root` (root: itself; unreachable:
// 0xffffffff) and the visiting order, as SPC and SPD use them.
struct galaxy_bfs {
  std::vector<uint32_t> parent;
  std::vector<uint32_t> order;
  std::vector<uint32_t> depth;
};
galaxy_bfs galaxy_bfs_tree(const galaxy_view& view, uint32_t root);

// RPC's tree on `routers` (ascending ids) toward m, as (child, parent) edges in the order the
// children send (post-order); RPD uses the same edges reversed, in reverse order.
std::vector<std::pair<uint32_t, uint32_t>> galaxy_rpc_edges(const std::vector<uint32_t>& routers,
                                                            uint32_t m);

// The hosts' side of a router-level all-to-all broadcast of `bytes` per router: the
// communicator must have exactly one member on every router (member m's block is the packet of
// its router); each member's program is one offload_start (the engines start then), and the
// engine of its router delivers every other origin's block to it (hardware_receives).
// Throws std::invalid_argument naming the problem.
schedule galaxy_schedule(const network::topology& topo, const network::placement& place,
                         uint64_t bytes);

}  // namespace bcastsim::algorithms
