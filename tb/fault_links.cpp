#include "tb/fault_links.h"

#include "tb/config.h"

#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace bcastsim::tb {

std::vector<std::string> fabric_link_names(const network::topology& topo) {
  using network::port_info;
  std::vector<std::string> names;
  for (network::router_id r = 0; r < topo.num_routers(); ++r) {
    for (network::port_id p = 0; p < topo.radix(r); ++p) {
      const port_info& info = topo.port(r, p);
      if (info.peer_kind == port_info::kind::unused) continue;
      names.push_back("link_r" + std::to_string(r) + "_" + std::to_string(p));
      if (info.peer_kind == port_info::kind::terminal) {
        names.push_back("link_nic_" + std::to_string(info.peer));
      }
    }
  }
  return names;
}

std::vector<std::pair<size_t, uint64_t>> parse_drop_packets(const std::string& list,
                                                            const network::topology& topo) {
  std::vector<std::pair<size_t, uint64_t>> drops;
  if (list.empty()) return drops;
  const std::vector<std::string> names = fabric_link_names(topo);
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < names.size(); ++i) index.emplace(names[i], i);
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t colon = item.rfind(':');
    const std::string name = item.substr(0, colon);
    uint64_t nth = 0;
    try {
      if (colon == std::string::npos || colon + 1 == item.size()) throw std::invalid_argument("");
      const std::string n = item.substr(colon + 1);
      if (n.find_first_not_of("0123456789") != std::string::npos) throw std::invalid_argument("");
      nth = std::stoull(n);  // out_of_range beyond 2^64 - 1
      if (nth == 0) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw config_error("fault.drop_packet",
                         "fault.drop_packet: '" + item +
                             "' is not LINK:N with N a whole number in 1 .. 18446744073709551615");
    }
    const auto at = index.find(name);
    if (at == index.end()) {
      throw config_error(
          "fault.drop_packet",
          "fault.drop_packet: '" + name + "' is not a link; allowed: " +
              (names.empty() ? std::string("none") : names.front() + " .. " + names.back()) +
              " (link_nic_T: terminal T into its router; link_rR_P: out of "
              "router R's port P)");
    }
    drops.emplace_back(at->second, nth);
  }
  return drops;
}

}  // namespace bcastsim::tb
