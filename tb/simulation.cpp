#include "tb/simulation.h"

#include "algorithms/registry.h"
#include "algorithms/verify.h"
#include "network/topology_kind.h"
#include "tb/broadcast_figures.h"
#include "tb/collective_keys.h"
#include "tb/fabric.h"
#include "tb/format.h"
#include "tb/huge_pages.h"
#include "tb/link_traffic.h"
#include "tb/memory_estimate.h"
#include "tb/plan.h"
#include "tb/traffic_report.h"
#include "tb/watchdog.h"
#include "tb/waveforms.h"
#include "tlm/units.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <memory>
#include <new>
#include <ostream>

namespace bcastsim::tb {

namespace {

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double ns(const sc_core::sc_time& t) {
  return units::ns_from_ps(static_cast<double>(t.value()));
}

}  // namespace

namespace {

nlohmann::json json_value(const key_info& k, const std::string& v) {
  if (k.type == value_type::uint) return std::stoull(v);
  if (k.type == value_type::real) return std::stod(v);
  return v;
}

}  // namespace

nlohmann::json stats_to_json(const tlm_net::stat_group& g) {
  nlohmann::json j = nlohmann::json::object();
  for (const tlm_net::stat_info& st : g.stats()) {
    if (st.c) {
      j[st.name] = st.c->value;
    } else {
      j[st.name] = accumulator_json(*st.a);
    }
  }
  return j;
}

namespace {

template <class Blocks>
void add_block_stats(nlohmann::json& out, const Blocks& blocks) {
  for (const auto& b : blocks) out[b->name()] = stats_to_json(b->stats());
}

}  // namespace

namespace {

// A fabric of the smallest dragonfly with a block of every kind the algorithm adds: two
// groups of one router, one terminal each, one rank, background traffic; `every_terminal`:
// a rank on each terminal and no traffic (an algorithm that needs a rank on every router).
struct probe {
  probe(const std::string& name, const std::string& algorithm, bool every_terminal = false)
      : s(make_scenario([&] {
          config cfg;
          cfg.set("topology.a", "1");
          cfg.set("topology.p", "1");
          cfg.set("topology.h", "1");
          cfg.set("job.placement", "contiguous");  // a terminal left for a generator
          cfg.set("job.ranks", every_terminal ? "0" : "1");
          cfg.set("traffic.kind", every_terminal ? "none" : "background");
          cfg.set("collective.algorithm", algorithm);
          return cfg;
        }())),
        p(make_plan(s)),
        progress(make_progress(p)),
        fab(name.c_str(), s, *p.topo, *p.routing, *p.place, p.prog, progress) {}
  static hw::collective_progress make_progress(const plan& p) {
    hw::collective_progress progress;
    progress.reset(p.prog);
    return progress;
  }
  scenario s;
  plan p;
  hw::collective_progress progress;
  fabric fab;
};

}  // namespace

void list_statistics(std::ostream& os) {
  auto show = [&os](const char* kind, const tlm_net::stat_group& g) {
    for (const tlm_net::stat_info& st : g.stats()) {
      os << "  " << std::left << std::setw(10) << kind << std::setw(28) << st.name << std::setw(12)
         << st.unit << std::setw(13) << (st.a ? "merge" : tlm_net::to_string(st.how))
         << st.description << "\n";
    }
  };
  os << "  " << std::left << std::setw(10) << "block" << std::setw(28) << "statistic"
     << std::setw(12) << "unit" << std::setw(13) << "over blocks"
     << "description (of one block)\n";
  const probe base("probe", "binomial");
  show("router", base.fab.routers.front()->stats());
  show("link", base.fab.links.front()->stats());
  show("nic", base.fab.nics.front()->stats());
  show("host", base.fab.hosts.front()->stats());
  show("traffic", base.fab.generators.front()->stats());
  // Each offload family's blocks, from a fabric of an algorithm that needs them.
  for (const offload_family& f : offload_families()) {
    for (const algorithms::algorithm_info& a : algorithms::algorithms()) {
      if (a.offload != f.name) continue;
      const bool every_terminal = a.kind == algorithms::collective_kind::allgather;
      const probe with("probe_" + f.name, a.name, every_terminal);
      for (const auto& o : with.fab.offloads) o->list_statistics(show);
      break;
    }
  }
}

nlohmann::json config_to_json(const config& cfg) {
  auto pointer = [](std::string p) {
    for (char& ch : p)
      if (ch == '.') ch = '/';
    return nlohmann::json::json_pointer("/" + p);
  };
  nlohmann::json j = nlohmann::json::object();
  for (const key_info* k : keys_of_kind(cfg.kind()))
    j[pointer(k->key)] = json_value(*k, cfg.text(k->key));
  // collectives.N.X in index order: /collectives/N/X makes an array.
  for (const std::string& key : collective_entry_keys(cfg))
    j[pointer(key)] = json_value(*find_key(key, cfg.kind()), cfg.text(key));
  return j;
}

namespace {

// What every block declared, by block name (output.block_stats).
nlohmann::json block_stats(const fabric& fab) {
  nlohmann::json b = nlohmann::json::object();
  add_block_stats(b, fab.routers);
  add_block_stats(b, fab.links);
  add_block_stats(b, fab.nics);
  add_block_stats(b, fab.hosts);
  add_block_stats(b, fab.generators);
  for (const auto& o : fab.offloads) o->add_block_stats(b);
  return b;
}

// Instance i's figures: from its first send call to the last member holding every byte,
// over the members that had bytes to receive.
struct instance_figures {
  bool done = false;
  double start_ns = 0;
  double completion_ns = 0;
  double rank_completion_ns_avg = 0;
};

instance_figures figures(const algorithms::instance_info& inst, const hw::instance_progress& ip) {
  instance_figures f;
  double last = -1, sum = 0;
  uint32_t receivers = 0;
  for (size_t m = 0; m < inst.ranks.size(); ++m) {
    if (inst.holds_at_start(m)) continue;
    ++receivers;
    last = std::max(last, ns(ip.rank_done[m]));
    sum += ns(ip.rank_done[m]);
  }
  f.start_ns = ns(ip.start);
  // Nothing to receive (an allgather of 0 bytes): done from the start, in no time.
  f.done = ip.members_done == inst.ranks.size() && (ip.started || receivers == 0);
  if (f.done && receivers > 0) {
    f.completion_ns = last - f.start_ns;
    // The same per-rank figure for every algorithm (host-forwarded or offloaded), unlike a
    // packet's latency, which spans one network traversal.
    f.rank_completion_ns_avg = sum / receivers - f.start_ns;
  }
  return f;
}

// result.json's collectives: one entry per collective and repetition.
nlohmann::json instances_section(const scenario& s, const plan& p,
                                 const hw::collective_progress& progress) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < p.prog.instances.size(); ++i) {
    const algorithms::instance_info& inst = p.prog.instances[i];
    const algorithms::collective_spec& spec = s.collectives[inst.collective];
    const instance_figures f = figures(inst, progress.instances[i]);
    list.push_back({{"collective", s.collective_names[inst.collective]},
                    {"repetition", inst.repetition},
                    {"algorithm", inst.algorithm->name},
                    {"kind", algorithms::to_string(inst.algorithm->kind)},
                    {"ranks", inst.ranks.size()},
                    {"root", inst.all_roots ? nlohmann::json("all") : nlohmann::json(inst.root)},
                    {"bytes", spec.bytes},
                    {"buffer_bytes", inst.buffer_bytes},
                    {"start_ns", f.start_ns},
                    {"completion_ns", f.completion_ns},
                    {"rank_completion_ns_avg", f.rank_completion_ns_avg},
                    {"ranks_complete", progress.instances[i].members_done},
                    {"messages", inst.messages}});
  }
  return list;
}

// The run's collective section: from the first instance's start to the last one's
// completion; min/mean/max over the instances; 0 without them.
nlohmann::json collective_section(const scenario& s, const plan& p,
                                  const hw::collective_progress& progress) {
  if (s.algorithm == "none") return {{"algorithm", "none"}};
  double first = 0, last = 0, sum = 0, lo = 0, hi = 0, rank_sum = 0;
  bool all_done = true;
  for (size_t i = 0; i < p.prog.instances.size(); ++i) {
    const instance_figures f = figures(p.prog.instances[i], progress.instances[i]);
    all_done = all_done && f.done;
    if (i == 0 || f.start_ns < first) first = f.start_ns;
    last = std::max(last, f.start_ns + f.completion_ns);
    lo = i == 0 ? f.completion_ns : std::min(lo, f.completion_ns);
    hi = std::max(hi, f.completion_ns);
    sum += f.completion_ns;
    rank_sum += f.rank_completion_ns_avg;
  }
  const double count = static_cast<double>(p.prog.instances.size());
  // Ranks holding every byte of every instance they are a member of (roots from the start).
  std::vector<bool> complete(p.place->num_ranks(), true);
  for (size_t i = 0; i < p.prog.instances.size(); ++i) {
    const algorithms::instance_info& inst = p.prog.instances[i];
    for (size_t m = 0; m < inst.ranks.size(); ++m) {
      if (!progress.instances[i].done[m]) complete[inst.ranks[m]] = false;
    }
  }
  const auto ranks_complete =
      static_cast<uint64_t>(std::count(complete.begin(), complete.end(), true));
  nlohmann::json c = {{"algorithm", s.algorithm},
                      {"ranks", p.place->num_ranks()},
                      {"root", s.root},
                      {"bytes", s.bytes},
                      {"collectives", p.prog.instances.size()},
                      {"completion_ns", all_done ? last - first : 0.0},
                      {"completion_ns_min", lo},
                      {"completion_ns_mean", sum / count},
                      {"completion_ns_max", hi},
                      {"rank_completion_ns_avg", rank_sum / count},
                      {"ranks_complete", ranks_complete},
                      {"messages", p.prog.messages}};
  // Every rank broadcasting: each broadcast from its own start, apart from the others'.
  if (has_all_roots_broadcast(p.prog))
    c["broadcasts"] = broadcasts_summary(broadcasts_of(p.prog, progress));
  return c;
}

// result.json without perf and blocks.
nlohmann::json results(const scenario& s, const plan& p, const fabric& fab,
                       const hw::collective_progress& progress) {
  nlohmann::json r;
  r["schema"] = result_schema;
  r["seed"] = s.seed;
  // The effective configuration: derived defaults resolved to what was simulated.
  config effective = s.cfg;
  for (const auto& [key, value] : p.topo->effective_params()) effective.set(key, value);
  effective.set("job.ranks", std::to_string(p.place->num_ranks()));
  effective.set("job.seed", std::to_string(s.job.seed));
  // Roots drawn with random_root.
  for (size_t i = 0; i < s.collectives.size(); ++i)
    effective.set(s.collective_keys[i] + ".root", std::to_string(s.collectives[i].root));
  r["config"] = config_to_json(effective);
  r["topology"] = p.topo->describe();
  // The allocation by content: paired points of a sweep show the same digest.
  r["job"] = {{"terminals_fnv1a", hex64(p.place->terminals_fnv1a())}};
  r["sim_time_ns"] = ns(sc_core::sc_time_stamp());

  r["collective"] = collective_section(s, p, progress);
  if (s.algorithm != "none") r["collectives"] = instances_section(s, p, progress);

  std::vector<uint64_t> cls_packets(p.topo->num_link_classes());
  std::vector<uint64_t> cls_messages(p.topo->num_link_classes());
  for (const auto& l : fab.links) {
    const network::link_class k = l->params().cls;
    cls_packets[k] += l->packets.value;
    cls_messages[k] += l->messages.value;
  }
  for (network::link_class k = 0; k < p.topo->num_link_classes(); ++k) {
    r["traversals"][p.topo->class_name(k)] = {{"packets", cls_packets[k]},
                                              {"messages", cls_messages[k]}};
  }

  tlm_net::stat_totals nics;  // every NIC's statistics, combined as declared
  for (const auto& n : fab.nics) nics.add(n->stats());
  const tlm_net::accumulator& latency = nics.merged("latency_ps");
  const tlm_net::accumulator& routers = nics.merged("routers");
  // Offload blocks (Bcast Units) take packets in and put copies out: the balance is
  // injected + offload_copies = delivered + offload_taken.
  uint64_t copies = 0, taken = 0;
  for (const auto& o : fab.offloads) o->count_packets(copies, taken);
  r["packets"] = {{"injected", nics.value("packets_injected")},
                  {"delivered", nics.value("packets_delivered")},
                  {"offload_copies", copies},
                  {"offload_taken", taken},
                  {"hops_avg", routers.mean()},
                  {"latency_ns_avg", units::ns_from_ps(latency.mean())},
                  {"latency_ns_max", latency.count ? units::ns_from_ps(latency.max) : 0.0}};
  // The hosts' CPU: what their calls cost (send and receive overheads, offload calls,
  // computation), per rank and over the run's simulated time.
  if (!fab.hosts.empty()) {
    double busy_ps = 0, share = 0;
    const double now_ps = static_cast<double>(sc_core::sc_time_stamp().value());
    for (const auto& h : fab.hosts) {
      busy_ps += static_cast<double>(h->cpu_busy_ps.value);
      share += now_ps > 0 ? static_cast<double>(h->cpu_busy_ps.value) / now_ps : 0.0;
    }
    const double hosts = static_cast<double>(fab.hosts.size());
    r["host"] = {{"cpu_busy_ns", busy_ps / hosts / 1e3}, {"cpu_utilization", share / hosts}};
  }
  if (s.faults()) {
    uint64_t dropped = 0;
    for (const auto& l : fab.links) dropped += l->dropped.value;
    r["packets"]["dropped"] = dropped;
  }
  if (s.traffic.kind != "none") r["traffic"] = traffic_report(s, fab);
  for (const auto& o : fab.offloads) r[o->name()] = o->report();
  if (s.link_traffic) r["link_traffic"] = link_traffic_report(fab, *p.topo, *p.place, s.root);

  return r;
}

// Link traversals by packets, Mini Packets included, the offload families' links too.
uint64_t packet_hops(const fabric& fab) {
  uint64_t hops = 0;
  for (const auto& l : fab.links) hops += l->packets.value + l->control_packets.value;
  for (const auto& o : fab.offloads) hops += o->packet_hops();
  return hops;
}

}  // namespace

nlohmann::json run_scenario(const config& cfg,
                            const std::function<void(const nlohmann::json&)>& on_result,
                            const std::string& record_unit_inputs) {
  const auto wall_start = std::chrono::steady_clock::now();
  scenario s = make_scenario(cfg);
  plan p = make_plan(s);

  hw::collective_progress progress;
  progress.reset(p.prog);

  fabric fab("fabric", s, *p.topo, *p.routing, *p.place, p.prog, progress, record_unit_inputs);

  waveforms wave(s, fab);

  // Binding, end of elaboration and process initialisation happen in the first sc_start;
  // a zero-time start separates that cost from simulation proper.
  std::chrono::steady_clock::time_point sim_start;
  // An sc_start that reaches no event before the time limit is no error of its own: the
  // watchdog below names what is left undone.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_,
                                          sc_core::SC_DO_NOTHING);
  try {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    sim_start = std::chrono::steady_clock::now();
    if (!sc_core::sc_pending_activity()) {
      // Nothing to simulate (a one-rank job): another sc_start would only warn.
    } else if (s.max_time_ns > 0) {
      sc_core::sc_start(sc_core::sc_time(s.max_time_ns, sc_core::SC_NS),
                        sc_core::SC_EXIT_ON_STARVATION);
    } else {
      sc_core::sc_start();
    }
  } catch (const sc_core::sc_report& e) {
    try {
      wave.close();
    } catch (const config_error&) {
      // The simulation's error is the one to report.
    }
    if (is_out_of_memory(e)) throw std::bad_alloc();  // told as such, not as a failure
    throw simulation_failure(std::string("simulation error at ") +
                             sc_core::sc_time_stamp().to_string() + ": " + e.what());
  }
  const auto sim_end = std::chrono::steady_clock::now();
  wave.close();
  fab.finish();

  const std::string problem = check_finished(fab, progress, s);
  if (!problem.empty()) throw simulation_failure(problem);
  for (const auto& g : fab.generators) {
    if (!g->stopped()) {
      throw simulation_failure(std::string(g->name()) + " still generates traffic at the end");
    }
  }

  nlohmann::json r = results(s, p, fab, progress);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const double sim_wall = std::chrono::duration<double>(sim_end - sim_start).count();
  const uint64_t hops = packet_hops(fab);
  r["perf"] = {{"wall_s", wall},
               {"elaborate_wall_s", std::chrono::duration<double>(sim_start - wall_start).count()},
               {"simulate_wall_s", sim_wall},
               {"packet_hops", hops},
               {"packet_hops_per_s", sim_wall > 0 ? static_cast<double>(hops) / sim_wall : 0.0},
               {"peak_rss_mb", peak_rss_mb()},
               {"pool_packets_peak", fab.pool.peak_in_use()},
               {"huge_pages_mb", huge_pages_mb()}};
  if (s.block_stats) r["blocks"] = block_stats(fab);
  if (on_result) on_result(r);
  return r;
}

void configure_reports() {
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_THROW);
}

}  // namespace bcastsim::tb
