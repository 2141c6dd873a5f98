#include "tb/link_traffic.h"

namespace bcastsim::tb {

namespace {

// One direction of a cable, named by its ends (the fabric records them as it builds links).
nlohmann::json describe_link(const network::topology& topo, const fabric::link_end& from,
                             const fabric::link_end& to, network::link_class cls) {
  nlohmann::json j;
  j["class"] = topo.class_name(from.terminal || to.terminal ? network::terminal_class : cls);
  if (from.terminal) {
    j["from_terminal"] = from.id;
  } else {
    j["from_router"] = from.id;
    j["from_port"] = from.port;
  }
  if (to.terminal) {
    j["to_terminal"] = to.id;
  } else {
    j["to_router"] = to.id;
    j["to_port"] = to.port;
  }
  return j;
}

}  // namespace

nlohmann::json link_traffic_report(const fabric& fab, const network::topology& topo,
                                   const network::placement& place, uint32_t root) {
  nlohmann::json r;
  for (const auto& [name, value] : topo.shape()) r[name] = value;
  nlohmann::json ranks = nlohmann::json::array();
  for (uint32_t rank = 0; rank < place.num_ranks(); ++rank)
    ranks.push_back(place.terminal_of(rank));
  r["ranks_terminals"] = std::move(ranks);
  // null without a root rank (collective.algorithm = none with an empty job)
  r["root_terminal"] =
      root < place.num_ranks() ? nlohmann::json(place.terminal_of(root)) : nlohmann::json(nullptr);
  nlohmann::json links = nlohmann::json::array();
  for (size_t i = 0; i < fab.links.size(); ++i) {
    const tlm_net::link& l = *fab.links[i];
    if (l.messages.value == 0 && l.packets.value == 0) continue;
    const auto& [from, to] = fab.link_ends.at(i);
    nlohmann::json j = describe_link(topo, from, to, l.params().cls);
    j["messages"] = l.messages.value;
    j["packets"] = l.packets.value;
    links.push_back(std::move(j));
  }
  r["links"] = std::move(links);
  return r;
}

}  // namespace bcastsim::tb
