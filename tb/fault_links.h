// fault.drop_packet read against a topology, without SystemC: the links the fabric makes
// (link_rR_P out of router R's port P, link_nic_T from terminal T into its router) and the
// packets to lose on each. Shared by make_plan (so `analyze` refuses what `run` refuses) and
// the fabric (which applies it).
#pragma once

#include "network/topology.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bcastsim::tb {

// The fabric's link names in the order it makes them: per router and port, link_rR_P, and
// for a terminal port then link_nic_T.
std::vector<std::string> fabric_link_names(const network::topology& topo);

// fault.drop_packet's LINK:N items as (index into fabric_link_names, N). Throws config_error
// on fault.drop_packet for an item that is not LINK:N with N in 1 .. 2^64 - 1, or a LINK
// the fabric does not make (naming the allowed range).
std::vector<std::pair<size_t, uint64_t>> parse_drop_packets(const std::string& list,
                                                            const network::topology& topo);

}  // namespace bcastsim::tb
