#include "tb/ragasa_report.h"

#include "tlm/units.h"

#include <algorithm>

namespace bcastsim::tb {

nlohmann::json ragasa_report(const fabric& fab) {
  if (!fab.manager) return nullptr;
  const hw::ragasa::manager& m = *fab.manager;
  std::vector<uint64_t> control(fab.topo().num_link_classes());
  for (const auto& l : fab.links) control[l->params().cls] += l->control_packets.value;
  nlohmann::json setup = {{"setup_ns", units::ns_from_ps(static_cast<double>(m.setup_ps.value))},
                          {"mini_packets", m.mini_packets_sent.value},
                          {"mini_packet_bytes", m.mini_packet_bytes_sent.value},
                          {"routers", m.expected_mini_packets()}};
  for (network::link_class k = 0; k < control.size(); ++k)
    setup["traversals"][fab.topo().class_name(k)] = control[k];

  // Sums over the units, and high-water marks with the unit that reached them.
  uint64_t in = 0, out = 0, bytes = 0, descriptors = 0, stall = 0, hol = 0, ri = 0, active = 0;
  uint64_t peak_memory = 0, peak_rx = 0, peak_wq = 0, peak_sq = 0, peak_table = 0;
  const hw::ragasa::bcast_unit_base* busiest = nullptr;
  for (const auto& u : fab.units) {
    in += u->packets_in.value;
    out += u->packets_out.value;
    bytes += u->bytes_replicated.value;
    descriptors += u->descriptors.value;
    stall += u->memory_stall_ps.value;
    hol += u->rx_hol_blocked_ps.value;
    ri += u->ri_blocked_ps.value;
    active += u->packets_in.value > u->mini_packets.value;
    peak_memory = std::max(peak_memory, u->working_memory_peak_bytes.value);
    peak_rx = std::max(peak_rx, u->rx_queue_peak_packets.value);
    peak_wq = std::max(peak_wq, u->work_queue_peak_descriptors.value);
    peak_sq = std::max(peak_sq, u->send_queue_peak_descriptors.value);
    peak_table = std::max(peak_table, u->membership_peak_entries.value);
    if (!busiest || u->packets_out.value > busiest->packets_out.value) busiest = u.get();
  }
  const hw::ragasa::bcast_unit_params& p = fab.units.front()->params();
  nlohmann::json units = {{"count", fab.units.size()},
                          {"replicating", active},
                          {"packets_in", in},
                          {"packets_out", out},
                          {"bytes_replicated", bytes},
                          {"descriptors", descriptors},
                          {"memory_stall_ns", units::ns_from_ps(static_cast<double>(stall))},
                          {"rx_hol_blocked_ns", units::ns_from_ps(static_cast<double>(hol))},
                          {"ri_blocked_ns", units::ns_from_ps(static_cast<double>(ri))},
                          {"working_memory_peak_bytes", peak_memory},
                          {"working_memory_bytes", p.working_memory_bytes},
                          {"rx_queue_peak_packets", peak_rx},
                          {"work_queue_peak_descriptors", peak_wq},
                          {"send_queue_peak_descriptors", peak_sq},
                          {"membership_peak_entries", peak_table},
                          {"busiest", busiest ? busiest->basename() : ""},
                          {"busiest_packets_out", busiest ? busiest->packets_out.value : 0}};
  return {{"setup", setup}, {"units", units}};
}

}  // namespace bcastsim::tb
