// The router-level all-to-all broadcasts (SFATA, RFATA, A2A; algorithms/galaxy_a2a.h) as an
// offload family (tb/offload_family.h): a collective engine (hw/galaxy/engine.h) on every
// router's attached port runs the run's plan; the hosts only start it (offload_start) and
// receive the blocks their router's engine holds. result.json gets `galaxy` with the paper's
// metrics (Zhuang et al. §5.2):
//   avg_time_ns / max_time_ns / min_time_ns   AvgTime, MaxTime, MinTime: over the routers, the
//                               time from the start until the router holds every origin
//   avg_redundant_packets       AvgPacket: packets of an origin the router already held, summed
//                               over the routers, divided by the routers
//   router_time_ns              RouterTime: over the routers, the time until the router holds
//                               every origin of its own supernode
//   avg_channel_utilization     AvgChannel: over the router-to-router channels (each direction
//                               of each link), busy time divided by MaxTime
//   success_rate / failure_rate SuccessRate, FailureRate: routers holding / not holding every
//                               origin at the end, over the routers
#pragma once

#include "tb/offload_family.h"

namespace bcastsim::tb::galaxy {

offload_family family();

}  // namespace bcastsim::tb::galaxy
