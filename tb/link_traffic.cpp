#include "tb/link_traffic.h"

#include "tb/simulation.h"

#include <cstdlib>
#include <string>

namespace bcastsim::tb {

namespace {

// Reads the unsigned number at s[pos..] up to `stop` (or the end); false if there is none.
bool read_number(const std::string& s, size_t& pos, char stop, uint32_t& out) {
  const size_t end = stop ? s.find(stop, pos) : s.size();
  if (end == std::string::npos || end == pos) return false;
  const std::string digits = s.substr(pos, end - pos);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return false;
  out = static_cast<uint32_t>(std::strtoul(digits.c_str(), nullptr, 10));
  pos = end + (stop ? 1 : 0);
  return true;
}

// The fabric names its network links after their sending end (tb/fabric.cpp): link_r<R>_<P>
// leaves router R by port P; link_nic_<T> leaves terminal T's NIC.
nlohmann::json describe_link(const std::string& name, const network::dragonfly& topo) {
  using network::port_info;
  const auto bad = [&name](const std::string& why) {
    return simulation_failure("link_traffic: link '" + name + "' " + why);
  };
  nlohmann::json j;
  uint32_t a = 0, b = 0;
  size_t pos = 0;
  if (name.rfind("link_nic_", 0) == 0) {
    pos = 9;
    if (!read_number(name, pos, 0, a) || a >= topo.num_terminals()) throw bad("names no terminal");
    const network::terminal_attach& at = topo.attach(a);
    j["class"] = network::to_string(network::link_class::terminal);
    j["from_terminal"] = a;
    j["to_router"] = at.router;
    j["to_port"] = at.port;
    return j;
  }
  if (name.rfind("link_r", 0) != 0) throw bad("is not a network link");
  pos = 6;
  if (!read_number(name, pos, '_', a) || !read_number(name, pos, 0, b) || a >= topo.num_routers() ||
      b >= topo.radix(a)) {
    throw bad("names no router port");
  }
  const port_info& info = topo.port(a, b);
  j["class"] = network::to_string(info.cls);
  j["from_router"] = a;
  j["from_port"] = b;
  if (info.peer_kind == port_info::kind::terminal) {
    j["class"] = network::to_string(network::link_class::terminal);
    j["to_terminal"] = info.peer;
  } else if (info.peer_kind == port_info::kind::router) {
    j["to_router"] = info.peer;
    j["to_port"] = info.peer_port;
  } else {
    throw bad("leaves an unused port");
  }
  return j;
}

}  // namespace

nlohmann::json link_traffic_report(const fabric& fab, const network::dragonfly& topo,
                                   const network::placement& place, uint32_t root) {
  nlohmann::json r;
  r["groups"] = topo.g();
  r["routers_per_group"] = topo.a();
  r["terminals_per_router"] = topo.p();
  r["global_ports_per_router"] = topo.h();
  nlohmann::json ranks = nlohmann::json::array();
  for (uint32_t rank = 0; rank < place.num_ranks(); ++rank)
    ranks.push_back(place.terminal_of(rank));
  r["ranks_terminals"] = std::move(ranks);
  // null without a root rank (collective.algorithm = none with an empty job)
  r["root_terminal"] =
      root < place.num_ranks() ? nlohmann::json(place.terminal_of(root)) : nlohmann::json(nullptr);
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : fab.links) {
    if (l->messages.value == 0 && l->packets.value == 0) continue;
    nlohmann::json j = describe_link(l->basename(), topo);
    j["messages"] = l->messages.value;
    j["packets"] = l->packets.value;
    links.push_back(std::move(j));
  }
  r["links"] = std::move(links);
  return r;
}

}  // namespace bcastsim::tb
