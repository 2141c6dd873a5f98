#include "tb/fabric.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace bcastsim::tb {

using network::port_info;

fabric::fabric(const sc_core::sc_module_name& name, const scenario& s,
               const network::topology& topo, const network::routing_policy& routing,
               const network::placement& place, const algorithms::schedule& sched,
               hw::collective_progress& progress, const std::string& record_unit_inputs)
    : sc_core::sc_module(name), m_topo(topo) {
  if (!record_unit_inputs.empty()) {
    try {
      recorder = std::make_unique<cosim::unit_input_recorder>(record_unit_inputs);
    } catch (const std::runtime_error& e) {
      throw config_error("--record-unit-inputs", std::string("--record-unit-inputs: ") + e.what());
    }
  }
  const uint32_t nr = topo.num_routers();
  const uint32_t nt = topo.num_terminals();
  bool offload = false;
  for (const algorithms::rank_program& rp : sched.ranks) {
    for (const algorithms::op& o : rp.ops) offload |= o.kind == algorithms::op_kind::offload_bcast;
  }
  hw::router_params rparams = s.router;
  if (offload) {
    rparams.bcast_unit_port = true;
    rparams.unit_in_vc_buffer_bytes = s.ragasa.unit.output_buffer_bytes;
    rparams.unit_credit_bytes = s.ragasa.unit.input_buffer_bytes;
    rparams.unit_input_gib_per_s = s.ragasa.port.bandwidth_gib_per_s;
  }
  routers.reserve(nr);
  for (uint32_t r = 0; r < nr; ++r) {
    routers.push_back(std::make_unique<hw::router>(("router_" + std::to_string(r)).c_str(), r, topo,
                                                   routing, rparams));
  }
  nics.reserve(nt);
  for (uint32_t t = 0; t < nt; ++t) {
    nics.push_back(std::make_unique<hw::host_nic>(("nic_" + std::to_string(t)).c_str(), t, s.nic,
                                                  pool, routing));
  }
  for (uint32_t r = 0; r < nr; ++r) {
    hw::router& rt = *routers[r];
    for (uint32_t p = 0; p < topo.radix(r); ++p) {
      const port_info& info = topo.port(r, p);
      const std::string suffix = std::to_string(r) + "_" + std::to_string(p);
      switch (info.peer_kind) {
        case port_info::kind::unused:
          if (!unconnected) unconnected = std::make_unique<tlm_net::null_endpoint>("unconnected");
          rt.out[p].bind(unconnected->in);
          unconnected->out.bind(rt.in[p]);
          break;
        case port_info::kind::router: {
          tlm_net::link& l = make_link("link_r" + suffix, s.links[info.cls],
                                       {false, r, p}, {false, info.peer, info.peer_port});
          rt.out[p].bind(l.in);
          l.out.bind(routers[info.peer]->in[info.peer_port]);
          break;
        }
        case port_info::kind::terminal: {
          hw::host_nic& nic = *nics[info.peer];
          const tlm_net::link_params& lp = s.links[network::terminal_class];
          tlm_net::link& down =
              make_link("link_r" + suffix, lp, {false, r, p}, {true, info.peer, 0});
          rt.out[p].bind(down.in);
          down.out.bind(nic.in);
          tlm_net::link& up = make_link("link_nic_" + std::to_string(info.peer), lp,
                                        {true, info.peer, 0}, {false, r, p});
          nic.out.bind(up.in);
          up.out.bind(rt.in[p]);
          break;
        }
      }
    }
  }
  const uint32_t num_hosts = sched.ranks.empty() ? 0 : place.num_ranks();  // none: no hosts
  hosts.reserve(num_hosts);
  for (uint32_t rank = 0; rank < num_hosts; ++rank) {
    const network::terminal_id t = place.terminal_of(rank);
    hosts.push_back(std::make_unique<hw::host>(("host_" + std::to_string(rank)).c_str(), rank,
                                               sched.ranks[rank], s.host, *nics[t], place,
                                               progress));
  }
  if (offload) make_offload(s, topo, routing, place, sched);
  if (s.traffic.kind != "none") make_traffic(s, topo, place, progress);
}

void fabric::make_offload(const scenario& s, const network::topology& topo,
                          const network::routing_policy& routing, const network::placement& place,
                          const algorithms::schedule& sched) {
  const uint32_t nr = topo.num_routers();
  tree = algorithms::make_ragasa_tree(topo, place, sched.root);
  hw::ragasa::manager_params mp;
  mp.mini_packet_header_bytes = s.ragasa.mini_packet_header_bytes;
  mp.mini_packet_child_bytes = s.ragasa.mini_packet_child_bytes;
  if (mp.mini_packet_header_bytes > s.nic.packet_bytes) {
    throw config_error(
        "ragasa.mini_packet_header_bytes",
        "ragasa.mini_packet_header_bytes = " + std::to_string(mp.mini_packet_header_bytes) +
            " exceeds one packet; allowed: at most network.packet_bytes = " +
            std::to_string(s.nic.packet_bytes));
  }
  for (uint32_t r = 0; r < nr; ++r) {
    if (hw::ragasa::mini_packet_bytes(mp, tree.children[r].size()) > s.nic.packet_bytes) {
      throw config_error("ragasa.mini_packet_child_bytes",
                         "the Mini Packet of router " + std::to_string(r) + " (" +
                             std::to_string(tree.children[r].size()) +
                             " children) exceeds one packet (network.packet_bytes = " +
                             std::to_string(s.nic.packet_bytes) +
                             "); allowed: ragasa.mini_packet_header_bytes + children * "
                             "ragasa.mini_packet_child_bytes <= network.packet_bytes");
    }
  }
  memberships.resize(nr);
  units.reserve(nr);
  for (uint32_t r = 0; r < nr; ++r) {
    const std::string id = std::to_string(r);
    // The unit draws routing entropy as a NIC of its router would.
    units.push_back(hw::ragasa::make_bcast_unit(s.ragasa.model, ("unit_" + id).c_str(),
                                                topo.terminals_of(r).front(), s.ragasa.unit, pool,
                                                memberships[r], &routing));
    hw::ragasa::bcast_unit_base& u = *units.back();
    hw::router& rt = *routers[r];
    unit_links.push_back(
        std::make_unique<tlm_net::link>(("link_r" + id + "_unit").c_str(), s.ragasa.port));
    rt.out[rt.unit_port()].bind(unit_links.back()->in);
    if (recorder) {  // a tap records what enters the unit
      recorder->add_unit(u.basename(), r, topo.terminals_of(r).front(), u.params(), s.ragasa.port,
                         s.router);
      taps.push_back(std::make_unique<cosim::unit_input_tap>(("tap_unit_" + id).c_str(), *recorder,
                                                             u.basename(), memberships[r]));
      unit_links.back()->out.bind(taps.back()->in);
      taps.back()->out.bind(u.in);
    } else {
      unit_links.back()->out.bind(u.in);
    }
    unit_links.push_back(
        std::make_unique<tlm_net::link>(("link_unit_" + id).c_str(), s.ragasa.port));
    u.out.bind(unit_links.back()->in);
    unit_links.back()->out.bind(rt.in[rt.unit_port()]);
  }
  const uint32_t mgmt = s.ragasa.management_terminal == network::invalid_id
                            ? place.terminal_of(sched.root)
                            : s.ragasa.management_terminal;
  if (mgmt >= topo.num_terminals()) {
    throw config_error("ragasa.management_terminal",
                       "ragasa.management_terminal = " + std::to_string(mgmt) +
                           " is not a terminal; allowed: root or 0 .. " +
                           std::to_string(topo.num_terminals() - 1));
  }
  manager =
      std::make_unique<hw::ragasa::manager>("manager", topo, tree, *nics[mgmt], memberships, mp);
  for (auto& u : units) u->set_listener(manager.get());
  for (uint32_t rank = 0; rank < hosts.size(); ++rank) {
    bool offloads = false;
    for (const algorithms::op& o : sched.ranks[rank].ops)
      offloads |= o.kind == algorithms::op_kind::offload_bcast;
    if (!offloads) continue;
    hosts[rank]->enable_offload(topo.router_of(place.terminal_of(rank)), mp.collective_id);
    manager->add_gated_host(*hosts[rank]);
  }
}

void fabric::make_traffic(const scenario& s, const network::topology& topo,
                          const network::placement& place,
                          const hw::collective_progress& progress) {
  const uint32_t nt = topo.num_terminals();
  hw::traffic_params tp;
  tp.message_bytes = s.traffic.message_bytes;
  tp.max_queue_messages = s.traffic.max_queue_messages;
  tp.seed = s.seed;
  std::function<bool()> stop_when;
  std::vector<network::terminal_id> sources;
  if (s.traffic.kind == "background") {
    // Terminals outside the job, to each other, until every rank holds the data.
    tp.mean_interarrival_ns = s.traffic.mean_interarrival_ns;
    for (uint32_t t = 0; t < nt; ++t) {
      if (place.rank_of(t) == network::invalid_id) sources.push_back(t);
    }
    m_destinations.push_back(sources);
    const uint32_t ranks = place.num_ranks();
    stop_when = [&progress, ranks] { return progress.ranks_done + 1 >= ranks; };
  } else {
    // Synthetic: every terminal, Poisson arrivals at the offered load of its link.
    const double bytes_per_ns =
        s.links[network::terminal_class].bandwidth_gib_per_s *
        1073741824.0 / 1e9;
    tp.mean_interarrival_ns =
        static_cast<double>(s.traffic.message_bytes) / (s.traffic.load * bytes_per_ns);
    tp.stop_ns = s.traffic.warmup_ns + s.traffic.measure_ns;
    tp.measure_start_ns = s.traffic.warmup_ns;
    tp.measure_end_ns = tp.stop_ns;
    const double packets = std::ceil(static_cast<double>(s.traffic.message_bytes) /
                                     static_cast<double>(s.nic.packet_bytes));
    tp.expected_samples =
        static_cast<size_t>(1.2 * packets * s.traffic.measure_ns / tp.mean_interarrival_ns) + 16;
    for (uint32_t t = 0; t < nt; ++t) sources.push_back(t);
    if (s.traffic.kind == "uniform") {
      m_destinations.push_back(sources);
    } else {  // adversarial: group i sends to group i + 1
      m_destinations.resize(topo.num_groups());
      for (uint32_t t = 0; t < nt; ++t) m_destinations[topo.group_of_terminal(t)].push_back(t);
    }
  }
  generators.reserve(sources.size());
  for (const network::terminal_id t : sources) {
    const std::vector<network::terminal_id>& dst =
        s.traffic.kind == "adversarial"
            ? m_destinations[(topo.group_of_terminal(t) + 1) % topo.num_groups()]
            : m_destinations.front();
    generators.push_back(std::make_unique<hw::traffic_generator>(
        ("traffic_" + std::to_string(t)).c_str(), t, tp, *nics[t], dst, stop_when));
    // The generator measures what arrives on a terminal without a rank.
    if (place.rank_of(t) == network::invalid_id || hosts.empty()) {
      nics[t]->set_client(generators.back().get());
    }
  }
}

// SystemC's registries remove an object by a linear search, so teardown of a large fabric
// is quadratic in any order: the port and export registries search from their newest
// entry, the module registry and child lists from their oldest. Newest-first keeps the
// port/export side linear (measured on the 16,512-terminal dragonfly: 3.8 s, against 8.5 s
// in creation order and 29 s when the oldest router goes first). The CLI skips teardown.
fabric::~fabric() {
  while (!generators.empty()) generators.pop_back();
  while (!hosts.empty()) hosts.pop_back();
  manager.reset();
  while (!taps.empty()) taps.pop_back();
  while (!unit_links.empty()) unit_links.pop_back();
  while (!units.empty()) units.pop_back();
  while (!links.empty()) links.pop_back();
  unconnected.reset();
  while (!nics.empty()) nics.pop_back();
  while (!routers.empty()) routers.pop_back();
}

void fabric::finish_recording() {
  if (!recorder) return;
  try {
    recorder->finish();
  } catch (const std::runtime_error& e) {
    throw config_error("--record-unit-inputs", std::string("--record-unit-inputs: ") + e.what());
  }
}

tlm_net::link& fabric::make_link(const std::string& name, const tlm_net::link_params& params,
                                 link_end from, link_end to) {
  links.push_back(std::make_unique<tlm_net::link>(name.c_str(), params));
  link_ends.emplace_back(from, to);
  return *links.back();
}

void fabric::trace(const tlm_net::trace_window& window, const std::vector<std::string>& blocks) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    const std::string& b = blocks[i];
    if (std::find(blocks.begin(), blocks.begin() + i, b) != blocks.begin() + i)
      throw config_error("trace.blocks", "trace.blocks names '" + b + "' twice");
    bool found = false;
    for (auto& r : routers) {
      if (b == r->basename()) r->trace(window, b), found = true;
    }
    for (auto& n : nics) {
      if (b == n->basename()) n->trace(window, b), found = true;
    }
    for (auto& u : units) {
      if (b == u->basename()) u->trace(window, b), found = true;
    }
    if (!found) {
      throw config_error(
          "trace.blocks",
          "trace.blocks names '" + b + "', which is not a block; allowed: router_0 .. router_" +
              std::to_string(routers.size() - 1) + ", nic_0 .. nic_" +
              std::to_string(nics.size() - 1) +
              (units.empty() ? std::string()
                             : ", unit_0 .. unit_" + std::to_string(units.size() - 1)));
    }
  }
}

}  // namespace bcastsim::tb
