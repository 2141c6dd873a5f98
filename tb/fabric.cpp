#include "tb/fabric.h"

#include "tb/fault_links.h"
#include "tlm/units.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace bcastsim::tb {

using network::port_info;

fabric::fabric(const sc_core::sc_module_name& name, const scenario& s,
               const network::topology& topo, const network::routing_policy& routing,
               const network::placement& place, const algorithms::program& prog,
               hw::collective_progress& progress, const std::string& record_unit_inputs)
    : sc_core::sc_module(name), m_topo(topo) {
  const algorithms::schedule& sched = prog.sched;
  const uint32_t nr = topo.num_routers();
  const uint32_t nt = topo.num_terminals();
  hw::router_params rparams = s.router;
  rparams.link_gib_per_s.clear();
  for (const tlm_net::link_params& lp : s.links)
    rparams.link_gib_per_s.push_back(lp.bandwidth_gib_per_s);
  const offload_family* f = family_of_scenario(s);
  const bool offload = f && (!sched.ranks.empty() || (f->nic_kind && f->name == s.nic_kind));
  if (!record_unit_inputs.empty()) check_records_unit_inputs(offload ? f : nullptr, s.algorithm);
  if (offload) {
    offloads.push_back(f->create(
        offload_context{s, topo, routing, place, sched, prog, progress, record_unit_inputs}));
    rparams.attached = offloads.back()->router_attachment();
  }
  routers.reserve(nr);
  for (uint32_t r = 0; r < nr; ++r) {
    routers.push_back(std::make_unique<hw::router>(("router_" + std::to_string(r)).c_str(), r, topo,
                                                   routing, rparams));
  }
  nics.reserve(nt);
  for (uint32_t t = 0; t < nt; ++t) {
    const std::string nic_name = "nic_" + std::to_string(t);
    std::unique_ptr<hw::nic> n;
    for (auto& o : offloads) {  // a family's NIC stands in place of the host NIC
      if (!n) n = o->make_nic(nic_name.c_str(), t, pool);
    }
    if (!n) n = std::make_unique<hw::host_nic>(nic_name.c_str(), t, s.nic, pool, routing);
    nics.push_back(std::move(n));
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
          make_link("link_r" + suffix, s.links[info.cls], {false, r, p},
                    {false, info.peer, info.peer_port})
              .connect(rt.out[p], routers[info.peer]->in[info.peer_port]);
          break;
        }
        case port_info::kind::terminal: {
          hw::nic& nic = *nics[info.peer];
          const tlm_net::link_params& lp = s.links[network::terminal_class];
          make_link("link_r" + suffix, lp, {false, r, p}, {true, info.peer, 0})
              .connect(rt.out[p], nic.in);
          make_link("link_nic_" + std::to_string(info.peer), lp, {true, info.peer, 0},
                    {false, r, p})
              .connect(nic.out, rt.in[p]);
          break;
        }
      }
    }
  }
  const uint32_t num_hosts = sched.ranks.empty() ? 0 : place.num_ranks();  // none: no hosts
  hosts.reserve(num_hosts);
  for (uint32_t rank = 0; rank < num_hosts; ++rank) {
    const network::terminal_id t = place.terminal_of(rank);
    hosts.push_back(std::make_unique<hw::host>(("host_" + std::to_string(rank)).c_str(), rank, prog,
                                               s.host, *nics[t], place, progress));
  }
  for (auto& o : offloads) o->attach(*this);
  if (s.traffic.kind != "none") make_traffic(s, topo, place, progress);
  if (s.faults()) set_faults(s);
}

// fault.drop_rate on every network link, fault.drop_packet on the links it names.
void fabric::set_faults(const scenario& s) {
  std::vector<tlm_net::link_faults> f(links.size());
  for (size_t i = 0; i < links.size(); ++i) {
    f[i].drop_rate = s.fault_drop_rate;
    f[i].seed = network::splitmix64(s.seed ^ network::splitmix64(0xfa017 + i));
    f[i].pool = &pool;
  }
  // links[i] is fabric_link_names(topo)[i]: both walk routers and ports in the same order.
  for (const auto& [i, nth] : parse_drop_packets(s.fault_drop_packet, m_topo)) {
    f[i].drop_nth.push_back(nth);
  }
  for (size_t i = 0; i < links.size(); ++i) links[i]->set_faults(f[i]);
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
      const bool used = std::any_of(offloads.begin(), offloads.end(),
                                    [t](const auto& o) { return o->uses_terminal(t); });
      if (place.rank_of(t) == network::invalid_id && !used) sources.push_back(t);
    }
    m_destinations.push_back(sources);
    stop_when = [&progress] { return progress.instances_done == progress.instances.size(); };
  } else {
    // Synthetic: every terminal, Poisson arrivals at the offered load of its link.
    const double bytes_per_ns =
        units::bytes_per_ns(s.links[network::terminal_class].bandwidth_gib_per_s);
    tp.mean_interarrival_ns =
        static_cast<double>(s.traffic.message_bytes) / (s.traffic.load * bytes_per_ns);
    tp.stop_ns = s.traffic.warmup_ns + s.traffic.measure_ns;
    tp.measure_start_ns = s.traffic.warmup_ns;
    tp.measure_end_ns = tp.stop_ns;
    tp.chunk_ps =  // a CODES chunk on the terminal link
        static_cast<double>(hw::traffic_params::codes_chunk_bytes) / bytes_per_ns * 1000.0;
    const double packets = std::ceil(static_cast<double>(s.traffic.message_bytes) /
                                     static_cast<double>(s.nic.packet_bytes));
    // A reservation, not a bound: capped so a long window grows the vector as samples come.
    tp.expected_samples = static_cast<size_t>(
        std::min(1.2 * packets * s.traffic.measure_ns / tp.mean_interarrival_ns + 16, 1048576.0));
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
  while (!offloads.empty()) offloads.pop_back();
  while (!links.empty()) links.pop_back();
  unconnected.reset();
  while (!nics.empty()) nics.pop_back();
  while (!routers.empty()) routers.pop_back();
}

void fabric::finish() {
  for (auto& o : offloads) o->finish();
}

tlm_net::link& fabric::make_link(const std::string& name, const tlm_net::link_params& params,
                                 link_end from, link_end to) {
  links.push_back(std::make_unique<tlm_net::link>(std::string(this->name()) + "." + name, params));
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
    for (auto& o : offloads) found = found || o->trace(window, b);
    if (!found) {
      std::string allowed = "router_0 .. router_" + std::to_string(routers.size() - 1) +
                            ", nic_0 .. nic_" + std::to_string(nics.size() - 1);
      for (const auto& o : offloads) {
        if (!o->traceable().empty()) allowed += ", " + o->traceable();
      }
      throw config_error("trace.blocks", "trace.blocks names '" + b +
                                             "', which is not a block; allowed: " + allowed);
    }
  }
}

}  // namespace bcastsim::tb
