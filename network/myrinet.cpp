#include "network/myrinet.h"

namespace bcastsim::network {

uint64_t myrinet::max_nodes(uint32_t switch_ports) {
  // switch_ports leaves (a spine's ports) of switch_ports / 2 hosts each.
  return static_cast<uint64_t>(switch_ports) * (switch_ports / 2);
}

myrinet::myrinet(const myrinet_params& params) : m_params(params) {
  const uint32_t k = params.switch_ports;
  if (k < 4 || k > 256) {
    throw topology_error("topology.switch_ports",
                         "topology.switch_ports = " + std::to_string(k) +
                             " is out of range: a Myrinet crossbar has 4 to 256 ports (a "
                             "source-route entry is one byte); Myrinet-2000's has 16");
  }
  if (params.nodes == 0) {
    throw topology_error("topology.nodes",
                         "topology.nodes = 0 is out of range: a Myrinet network has at least "
                         "1 node");
  }
  m_classes = {"terminal", "clos"};
  if (params.nodes <= k) {
    m_leaves = 1;
    m_hosts_per_leaf = k;
  } else {
    if (k % 2 != 0) {
      throw topology_error("topology.switch_ports",
                           "topology.switch_ports = " + std::to_string(k) +
                               " is odd: " + std::to_string(params.nodes) +
                               " nodes need a Clos, whose leaf crossbars give half their "
                               "ports to hosts and half to spines; allowed: an even "
                               "topology.switch_ports, or topology.nodes <= "
                               "topology.switch_ports (one crossbar)");
    }
    if (params.nodes > max_nodes(k)) {
      throw topology_error(
          "topology.nodes",
          "topology.nodes = " + std::to_string(params.nodes) +
              " needs a Clos of more than two levels, which is not built: at most " +
              std::to_string(max_nodes(k)) +
              " nodes with topology.switch_ports = " + std::to_string(k) + " (k * k/2)");
    }
    m_hosts_per_leaf = k / 2;
    m_leaves = (params.nodes + m_hosts_per_leaf - 1) / m_hosts_per_leaf;
    m_spines = k / 2;
  }

  m_ports.assign(m_leaves + m_spines, std::vector<port_info>(k));
  m_terminals.resize(params.nodes);
  for (terminal_id t = 0; t < params.nodes; ++t) {
    const router_id leaf = t / m_hosts_per_leaf;
    const port_id port = t % m_hosts_per_leaf;
    m_terminals[t] = {leaf, port};
    m_ports[leaf][port] = {port_info::kind::terminal, myrinet_classes::terminal, t, invalid_id};
  }
  for (router_id leaf = 0; leaf < m_leaves && m_spines > 0; ++leaf) {
    for (uint32_t j = 0; j < m_spines; ++j) {
      const router_id spine = m_leaves + j;
      m_ports[leaf][up_port(j)] = {port_info::kind::router, myrinet_classes::clos, spine, leaf};
      m_ports[spine][leaf] = {port_info::kind::router, myrinet_classes::clos, leaf, up_port(j)};
    }
  }
}

std::string myrinet::describe() const {
  const std::string k = std::to_string(m_params.switch_ports);
  if (m_spines == 0) {
    return "myrinet " + std::to_string(m_params.nodes) + " nodes on one " + k + "-port crossbar";
  }
  return "myrinet " + std::to_string(m_params.nodes) + " nodes, Clos of " + k +
         "-port crossbars (" + std::to_string(m_leaves) + " leaves, " + std::to_string(m_spines) +
         " spines)";
}

std::vector<std::pair<std::string, uint64_t>> myrinet::shape() const {
  return {{"nodes", m_params.nodes},
          {"switch_ports", m_params.switch_ports},
          {"leaves", m_leaves},
          {"spines", m_spines}};
}

myrinet_source_routing::myrinet_source_routing(const myrinet& net)
    : routing_policy(net), m_net(net) {}

void myrinet_source_routing::write_route(router_id at, terminal_id dst, route_state& state) const {
  const terminal_attach& to = m_net.attach(dst);
  if (at == to.router) {
    state.aux = to.port;
    state.choice = 1;
  } else if (m_net.is_spine(at)) {
    state.aux = to.router | to.port << 8;
    state.choice = 2;
  } else {
    const uint32_t j = to.port % m_net.spines();
    state.aux = m_net.up_port(j) | to.router << 8 | to.port << 16;
    state.choice = 3;
  }
}

// The NIC writes the route; entropy is unused (one path per flow, in order).
void myrinet_source_routing::init_state(terminal_id src, terminal_id dst, uint64_t,
                                        route_state& state) const {
  state = route_state{};
  write_route(m_net.router_of(src), dst, state);
}

route_decision myrinet_source_routing::route(router_id at, terminal_id dst, route_state& state,
                                             const port_occupancy_view*) const {
  if (state.choice == 0) write_route(at, dst, state);
  const port_id port = state.aux & 0xffu;
  state.aux >>= 8;
  --state.choice;
  if (m_net.port(at, port).peer_kind == port_info::kind::router && state.local_hops < UINT8_MAX) {
    ++state.local_hops;
  }
  return {port, 0};
}

}  // namespace bcastsim::network
