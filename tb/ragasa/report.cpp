#include "tb/ragasa/report.h"

#include "tlm/units.h"

#include <algorithm>

namespace bcastsim::tb::ragasa {

nlohmann::json ragasa_report(const fabric& fab,
                             const std::vector<std::unique_ptr<hw::ragasa::bcast_unit_base>>& units,
                             const hw::ragasa::manager& m) {
  std::vector<uint64_t> control(fab.topo().num_link_classes());
  for (const auto& l : fab.links) control[l->params().cls] += l->control_packets.value;
  nlohmann::json setup = {
      {"setup_ns", units::ns_from_ps(static_cast<double>(m.setup_ps.value))},
      {"mini_packets", m.mini_packets_sent.value},
      {"mini_packet_bytes", m.mini_packet_bytes_sent.value},
      {"routers", m.expected_mini_packets()},
      {"mini_packets_held", m.mini_packets_held.value},
      {"mini_packet_wait_ns", units::ns_from_ps(static_cast<double>(m.mini_packet_wait_ps.value))},
      {"entries_freed", m.entries_freed.value}};
  for (network::link_class k = 0; k < control.size(); ++k)
    setup["traversals"][fab.topo().class_name(k)] = control[k];

  // Every unit's statistics combined as each is declared (sums, high-water marks), the
  // units that replicated data, and the busiest one.
  tlm_net::stat_totals t;
  uint64_t active = 0;
  const hw::ragasa::bcast_unit_base* busiest = nullptr;
  // The times are summed over units; the worst single unit's says whether one unit or
  // many stalled.
  uint64_t stall_max = 0, hol_max = 0, ri_max = 0;
  for (const auto& u : units) {
    t.add(u->stats());
    stall_max = std::max(stall_max, u->memory_stall_ps.value);
    hol_max = std::max(hol_max, u->rx_hol_blocked_ps.value);
    ri_max = std::max(ri_max, u->ri_blocked_ps.value);
    active += u->packets_in.value > u->mini_packets.value;
    if (!busiest || u->packets_out.value > busiest->packets_out.value) busiest = u.get();
  }
  const auto ns_of = [](uint64_t ps) { return units::ns_from_ps(static_cast<double>(ps)); };
  const auto ns = [&](const char* name) { return ns_of(t.value(name)); };
  const hw::ragasa::bcast_unit_params& p = units.front()->params();
  nlohmann::json summed = {{"count", units.size()},
                           {"replicating", active},
                           {"packets_in", t.value("packets_in")},
                           {"packets_out", t.value("packets_out")},
                           {"bytes_replicated", t.value("bytes_replicated")},
                           {"descriptors", t.value("descriptors")},
                           {"memory_stall_ns", ns("memory_stall_ps")},
                           {"rx_hol_blocked_ns", ns("rx_hol_blocked_ps")},
                           {"ri_blocked_ns", ns("ri_blocked_ps")},
                           {"connection_wait_ns", ns("connection_wait_ps")},
                           {"credit_wait_ns", ns("credit_wait_ps")},
                           {"credit_returns", t.value("credit_returns")},
                           {"reserved_chunks", p.reserved_chunks},
                           {"memory_stall_ns_unit_max", ns_of(stall_max)},
                           {"rx_hol_blocked_ns_unit_max", ns_of(hol_max)},
                           {"ri_blocked_ns_unit_max", ns_of(ri_max)},
                           {"working_memory_peak_bytes", t.value("working_memory_peak_bytes")},
                           {"working_memory_bytes", p.working_memory_bytes},
                           {"rx_queue_peak_packets", t.value("rx_queue_peak_packets")},
                           {"work_queue_peak_descriptors", t.value("work_queue_peak_descriptors")},
                           {"send_queue_peak_descriptors", t.value("send_queue_peak_descriptors")},
                           {"membership_peak_entries", t.value("membership_peak_entries")},
                           {"membership_entries", p.membership_entries},
                           {"membership_freed", t.value("membership_freed")},
                           {"membership_stall_ns", ns("membership_stall_ps")},
                           {"busiest", busiest ? busiest->basename() : ""},
                           {"busiest_packets_out", busiest ? busiest->packets_out.value : 0}};
  return {{"setup", setup}, {"units", summed}};
}

nlohmann::json broadcasts_report(const unit_broadcasts& bs, const hw::ragasa::manager& m,
                                 const std::vector<broadcast_figures>& figures, bool list) {
  tlm_net::accumulator setup, data, rank;
  nlohmann::json entries = nlohmann::json::array();
  for (size_t i = 0; i < bs.list.size(); ++i) {
    // The manager holds the broadcasts in the same order (family.cpp, attach).
    sc_core::sc_time at;
    const bool set_up = m.setup_done_at(i, at);
    const double setup_ns = units::ns_from_ps(static_cast<double>(at.value()));
    if (set_up) setup.sample(setup_ns);
    const uint32_t context = bs.list[i].context;
    const auto f =
        std::lower_bound(figures.begin(), figures.end(), context,
                         [](const broadcast_figures& x, uint32_t c) { return x.context < c; });
    const bool found = f != figures.end() && f->context == context;
    if (found && f->done) {
      data.sample(f->data_completion_ns);
      rank.sample(f->rank_average_ns);
    }
    if (!list) continue;
    entries.push_back({{"collective_id", context + 1},
                       {"root", found ? nlohmann::json(f->root) : nlohmann::json()},
                       {"setup_ns", set_up ? nlohmann::json(setup_ns) : nlohmann::json()},
                       {"start_ns", found ? f->start_ns : 0.0},
                       {"data_completion_ns", found ? f->data_completion_ns : 0.0},
                       {"rank_average_ns", found ? f->rank_average_ns : 0.0}});
  }
  nlohmann::json r = {{"count", bs.list.size()},
                      {"setup_ns", accumulator_json(setup)},
                      {"data_completion_ns", accumulator_json(data)},
                      {"rank_average_ns", accumulator_json(rank)}};
  if (list) r["list"] = std::move(entries);
  return r;
}

}  // namespace bcastsim::tb::ragasa
