// `bcastsim analyze`: the preliminary study of the topology-aware broadcast paper (IV-A,
// IV-B: makespan in links, messages over each link class) of a scenario, without simulation.
// The scenario is planned exactly as `run` plans it (tb/plan.h); every message's route is
// walked with the real routing policy on an idle network, with the entropy the NIC would
// give the message's first packet, and the schedule is executed in the link-count model:
//   - a send lasts as many time units as links it crosses (terminal -> router -> ... ->
//     terminal: two terminals on one router = 2, through two routers = 3);
//   - a sender performs one send at a time and waits for delivery before its next op
//     (blocking), so the message is available to the receiver when the send ends;
//   - an offload_bcast occupies the sender like a send; it follows the replication tree the
//     algorithm's offload family gives for the rank (offload_family::replication_tree;
//     Ragasa's: algorithms/ragasa_tree.h), not routing: every other rank's message is available
//     after the links of its tree path (injection, router-to-router edges, ejection) and the
//     sender is free when the last one arrives;
//   - a recv completes at max(posted, message available); compute ops take no time.
// makespan_links is the time the last rank holds every byte. makespan_packets is the same
// schedule with every send (and every copy an offload delivers) lasting as many units as the
// message has packets: the longest chain of packet injections, each rank sending one message
// at a time and forwarding only what it has received whole. Times one packet's time at the
// terminal link, it is a lower bound on completion whatever the routing (contention only
// adds), and for a large message close to it when the messages do not contend. sends_max is
// the most point-to-point sends one rank posts (sends_max_rank the lowest such rank); an
// offload's injection is not counted.
// Messages are counted once per link they cross (as run counts first packets); packets are
// messages times packets per message. With minimal routing both equal run's counts; a
// randomised policy sends later packets of a message on their own routes, and an adaptive
// one sees an idle network here, so those counts are the model's, not the simulation's.
// An offload counts each tree edge once (the routers replicate the data), packets likewise;
// hops_avg averages the routers on each delivered message's path (a send's route or a tree
// path).
#pragma once

#include "network/routing.h"
#include "tb/config.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>

namespace bcastsim::tb {

inline constexpr const char* analyze_schema = "bcastsim.analyze/1";

// The links one message crosses from terminal `src` to terminal `dst`.
struct route_walk {
  std::array<uint32_t, network::max_link_classes> links{};  // by link_class
  uint32_t routers = 0;                                     // the paper's "hops"
  uint32_t total_links() const {
    uint32_t n = 0;
    for (uint32_t l : links) n += l;
    return n;
  }
};

// Follows `routing` from the source terminal's router until ejection at `dst`, with no
// load on any port; `entropy` is the packet's random draw (network::packet_entropy).
// Throws simulation_failure if the route does not reach `dst`.
route_walk walk_route(const network::routing_policy& routing, network::terminal_id src,
                      network::terminal_id dst, uint64_t entropy = 0);

// The analyze.json document of the scenario. Throws config_error for bad input (the same
// checks as run_scenario), simulation_failure for an invalid schedule.
nlohmann::json analyze_scenario(const config& cfg);

}  // namespace bcastsim::tb
