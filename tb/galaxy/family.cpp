#include "tb/galaxy/family.h"

#include "algorithms/galaxy_a2a.h"
#include "hw/galaxy/engine.h"
#include "hw/galaxy/router_hook.h"
#include "tb/config.h"
#include "tb/fabric.h"
#include "tb/format.h"
#include "tb/simulation.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <ostream>

namespace bcastsim::tb::galaxy {

namespace {

bool is_galaxy(const std::string& algorithm) {
  const offload_family* f = family_of_algorithm(algorithm);
  return f != nullptr && f->name == "galaxy";
}

struct settings {
  double engine_ns = 0;
  double port_gib_per_s = 0;  // 0: the router's aggregate router-to-router rate
  double port_latency_ns = 0;
  bool arrivals = false;
  bool transfers = false;  // result.json lists the plan's transfers and when each fired
};

settings read_settings(const config& cfg) {
  settings st;
  st.engine_ns = cfg.real("galaxy.engine_ns");
  st.port_gib_per_s = cfg.real("galaxy.port_bandwidth_gib_per_s");
  st.port_latency_ns = cfg.real("galaxy.port_latency_ns");
  st.arrivals = cfg.text("galaxy.report_arrivals") == "on";
  st.transfers = cfg.text("galaxy.report_transfers") == "on";
  return st;
}

// One galaxy collective, not repeated, of packets the routers' buffers hold.
void check(const config& cfg, const scenario& s) {
  read_settings(cfg);
  uint32_t found = 0;
  for (size_t i = 0; i < s.collectives.size(); ++i) {
    const algorithms::collective_spec& c = s.collectives[i];
    if (!is_galaxy(c.algorithm)) continue;
    const std::string& key = s.collective_keys[i];
    if (++found > 1)
      throw config_error(key + ".algorithm",
                         key + ".algorithm = " + c.algorithm +
                             ": a run holds one router-level all-to-all broadcast (the routers' "
                             "engines run one plan); allowed: one collective of sfata, rfata, a2a");
    if (c.repeat != 1)
      throw config_error(key + ".repeat", key + ".repeat = " + std::to_string(c.repeat) + " for " +
                                              c.algorithm + "; allowed: 1");
    const uint32_t buffer =
        *std::min_element(s.router.vc_buffer_bytes.begin(), s.router.vc_buffer_bytes.end());
    if (c.bytes == 0 || c.bytes > buffer)
      throw config_error(key + ".bytes",
                         key + ".bytes = " + std::to_string(c.bytes) + " for " + c.algorithm +
                             " is one router's packet; allowed: 1 .. " + std::to_string(buffer) +
                             " (the smallest router.vc_buffer_bytes.*)");
  }
}

class instance;

// The router of the member whose supernode the plan starts from: the collective's root where
// the algorithm has one (sfata, rfata collect there; program.cpp checked the root), else the
// first member. A2A has no root, so its collective.root is unchecked and not read (a root
// past the ranks had indexed past them).
uint32_t root_router(const algorithms::collective_spec& c, const algorithms::instance_info& inst,
                     const network::topology& topo, const network::placement& place) {
  const uint32_t member = inst.algorithm->allgather_has_root ? c.root : 0;
  return topo.router_of(place.terminal_of(inst.ranks.at(member)));
}

// The rank's offload_start starts its router's engine; the call returns at once.
class agent final : public hw::offload_agent {
 public:
  agent(instance& inst, hw::host& host, uint32_t router)
      : m_inst(inst), m_host(host), m_router(router) {}
  void call(uint32_t index, const algorithms::op& o) override;

 private:
  instance& m_inst;
  hw::host& m_host;
  uint32_t m_router;
};

class instance final : public offload_instance, public hw::galaxy::engine_listener {
 public:
  explicit instance(const offload_context& ctx) : m_ctx(ctx), m_settings(read_settings(ctx.s.cfg)) {
    for (uint32_t i = 0; i < ctx.prog.instances.size(); ++i) {
      const algorithms::instance_info& inst = ctx.prog.instances[i];
      if (inst.algorithm->offload != "galaxy") continue;
      m_instance = i;
      m_spec = &ctx.s.collectives[inst.collective];
    }
    const algorithms::instance_info& inst = ctx.prog.instances[m_instance];
    const uint32_t routers = ctx.topo.num_routers();
    m_member_of_router.assign(routers, network::invalid_id);
    for (uint32_t m = 0; m < inst.ranks.size(); ++m)
      m_member_of_router[ctx.topo.router_of(ctx.place.terminal_of(inst.ranks[m]))] = m;
    const uint32_t root = root_router(*m_spec, inst, ctx.topo, ctx.place);
    try {
      m_view = algorithms::galaxy_view::of(ctx.topo);
      m_plan = algorithms::make_galaxy_plan(algorithm(), m_view, m_view.group_of[root]);
    } catch (const std::invalid_argument& e) {
      const std::string key = ctx.s.collective_keys[inst.collective] + ".algorithm";
      throw config_error(key, key + " = " + m_spec->algorithm + ": " + e.what());
    }
    for (uint32_t r = 0; r < routers; ++r)
      m_first_terminal.push_back(ctx.topo.terminals_of(r).front());
    m_complete.assign(routers, sc_core::SC_ZERO_TIME);
    m_supernode_done.assign(routers, sc_core::SC_ZERO_TIME);
    m_held.assign(routers, 0);
    m_held_own.assign(routers, 0);
    if (m_settings.arrivals) m_arrivals.resize(routers);
  }

  ~instance() override {
    m_agents.clear();
    while (!m_links.empty()) m_links.pop_back();
    while (!m_engines.empty()) m_engines.pop_back();
  }

  std::string name() const override { return "galaxy"; }
  algorithms::galaxy_algorithm algorithm() const {
    if (m_spec->algorithm == "rfata") return algorithms::galaxy_algorithm::rfata;
    if (m_spec->algorithm == "a2a") return algorithms::galaxy_algorithm::a2a;
    return algorithms::galaxy_algorithm::sfata;
  }

  hw::router_params::attached_port router_attachment() const override {
    hw::router_params::attached_port a;
    a.present = true;
    a.label = "galaxy engine";
    a.in_vc_buffer_bytes = m_ctx.s.router.vc_buffer_bytes[network::terminal_class];
    a.credit_bytes = m_ctx.s.router.vc_buffer_bytes[network::terminal_class];
    // The crossbar takes the engine's packets at the port's rate, not at the rate of the
    // output each goes to, so one engine feeds several links at once.
    for (uint32_t r = 0; r < m_ctx.topo.num_routers(); ++r)
      a.input_gib_per_s = std::max(a.input_gib_per_s, port_rate(r));
    a.hook = &m_hook;
    return a;
  }

  void attach(fabric& fab) override;

  void start_engine(uint32_t router, uint32_t context) {
    if (!m_any_started) {
      m_any_started = true;
      m_start = sc_core::sc_time_stamp();
    }
    m_context = context;
    m_engines[router]->start();
  }

  void on_hold(uint32_t router, uint32_t origin, uint32_t from_terminal,
               const sc_core::sc_time& when) override {
    const uint32_t routers = m_view.routers;
    if (++m_held[router] == routers) m_complete[router] = when;
    if (m_view.group_of[origin] == m_view.group_of[router] &&
        ++m_held_own[router] == m_view.members[m_view.group_of[router]].size())
      m_supernode_done[router] = when;
    if (m_settings.arrivals)
      m_arrivals[router].push_back({origin, m_ctx.topo.router_of(from_terminal), when});
    if (origin == router) return;
    const uint32_t m = m_member_of_router[router];
    const uint32_t from = m_member_of_router[origin];
    m_hosts[m]->offload_data(m_context, uint64_t{from} * m_spec->bytes, m_spec->bytes);
  }

  void count_packets(uint64_t& injected, uint64_t& delivered) const override {
    for (const auto& e : m_engines) {
      injected += e->packets_out.value;
      delivered += e->packets_in.value;
    }
  }
  bool idle() const override {
    for (const auto& e : m_engines) {
      if (!e->idle()) return false;
    }
    return true;
  }
  uint32_t describe_stall(std::ostream& os, uint32_t max) const override {
    uint32_t shown = 0;
    for (const auto& e : m_engines) {
      if (shown >= max) break;
      if (e->describe_stall(os)) ++shown;
    }
    return shown;
  }
  uint64_t packet_hops() const override {
    uint64_t hops = 0;
    for (const auto& l : m_links) hops += l->packets.value;
    return hops;
  }

  nlohmann::json report() const override;
  nlohmann::json transfer_trace() const;
  void add_block_stats(nlohmann::json& blocks) const override {
    for (const auto& e : m_engines) {
      nlohmann::json& b = blocks[e->basename()];
      for (const tlm_net::stat_info& st : e->stats().stats()) b[st.name] = st.c->value;
    }
  }
  void list_statistics(
      const std::function<void(const char*, const tlm_net::stat_group&)>& show) const override {
    if (!m_engines.empty()) show("engine", m_engines.front()->stats());
  }
  bool trace(const tlm_net::trace_window&, const std::string&) override { return false; }
  std::string traceable() const override { return {}; }

 private:
  double port_rate(uint32_t router) const;

  offload_context m_ctx;
  settings m_settings;
  uint32_t m_instance = 0;
  const algorithms::collective_spec* m_spec = nullptr;
  std::vector<uint32_t> m_member_of_router;  // [router] communicator member
  algorithms::galaxy_view m_view;
  algorithms::galaxy_plan m_plan;
  std::vector<uint32_t> m_first_terminal;  // [router]
  hw::galaxy::router_hook m_hook;
  const fabric* m_fabric = nullptr;
  std::vector<hw::host*> m_hosts;  // [member]
  std::vector<std::unique_ptr<agent>> m_agents;
  std::vector<std::unique_ptr<hw::galaxy::engine>> m_engines;  // [router]
  std::vector<std::unique_ptr<tlm_net::link>> m_links;         // the engines' ports
  bool m_any_started = false;
  sc_core::sc_time m_start;
  uint32_t m_context = 0;
  std::vector<sc_core::sc_time> m_complete;        // [router] holds every origin
  std::vector<sc_core::sc_time> m_supernode_done;  // [router] holds its supernode's origins
  std::vector<uint32_t> m_held, m_held_own;        // [router]
  struct arrival {
    uint32_t origin;
    uint32_t from;  // the router whose transfer brought it first (the router itself: its own)
    sc_core::sc_time when;
  };
  std::vector<std::vector<arrival>> m_arrivals;  // [router]
};

void agent::call(uint32_t index, const algorithms::op& o) {
  m_inst.start_engine(m_router, o.context);
  m_host.finish_call(index, sc_core::sc_time_stamp());
}

// The engine reaches its router's crossbar at the rate of all the router's network links
// together, so only the links limit what it sends (galaxy.port_bandwidth_gib_per_s = 0).
double instance::port_rate(uint32_t router) const {
  if (m_settings.port_gib_per_s > 0) return m_settings.port_gib_per_s;
  double sum = 0;
  for (uint32_t p = 0; p < m_ctx.topo.radix(router); ++p) {
    const network::port_info& pi = m_ctx.topo.port(router, p);
    if (pi.peer_kind == network::port_info::kind::router)
      sum += m_ctx.s.links[pi.cls].bandwidth_gib_per_s;
  }
  return sum > 0 ? sum : m_ctx.s.links[network::terminal_class].bandwidth_gib_per_s;
}

void instance::attach(fabric& fab) {
  m_fabric = &fab;
  const algorithms::instance_info& inst = m_ctx.prog.instances[m_instance];
  const uint32_t routers = m_ctx.topo.num_routers();
  hw::galaxy::engine_params ep;
  ep.packet_bytes = static_cast<uint32_t>(m_spec->bytes);
  ep.engine_ns = m_settings.engine_ns;
  ep.vcs = m_ctx.s.router.vcs;
  ep.credit_bytes = m_ctx.s.router.vc_buffer_bytes[network::terminal_class];
  ep.input_buffer_bytes = m_ctx.s.router.vc_buffer_bytes[network::terminal_class];
  m_engines.reserve(routers);
  for (uint32_t r = 0; r < routers; ++r) {
    const std::string id = std::to_string(r);
    m_engines.push_back(std::make_unique<hw::galaxy::engine>(("engine_" + id).c_str(), r, m_plan,
                                                             ep, fab.pool, m_first_terminal,
                                                             inst.first_context + 1, *this));
    hw::galaxy::engine& e = *m_engines.back();
    hw::router& rt = *fab.routers[r];
    tlm_net::link_params lp;
    lp.cls = network::terminal_class;
    lp.bandwidth_gib_per_s = port_rate(r);
    lp.latency_ns = m_settings.port_latency_ns;
    lp.flit_bytes = m_ctx.s.links[network::terminal_class].flit_bytes;
    const std::string prefix = std::string(fab.name()) + ".";
    m_links.push_back(std::make_unique<tlm_net::link>(prefix + "link_r" + id + "_engine", lp));
    m_links.back()->connect(rt.out[rt.attached_port()], e.in);
    m_links.push_back(std::make_unique<tlm_net::link>(prefix + "link_engine_" + id, lp));
    m_links.back()->connect(e.out, rt.in[rt.attached_port()]);
  }
  m_hosts.resize(inst.ranks.size(), nullptr);
  for (uint32_t m = 0; m < inst.ranks.size(); ++m) {
    hw::host& h = *fab.hosts[inst.ranks[m]];
    m_hosts[m] = &h;
    const uint32_t router = m_ctx.topo.router_of(m_ctx.place.terminal_of(inst.ranks[m]));
    m_agents.push_back(std::make_unique<agent>(*this, h, router));
    h.set_offload_agent(m_agents.back().get());
  }
}

nlohmann::json instance::report() const {
  const uint32_t routers = m_view.routers;
  const auto ns = [this](const sc_core::sc_time& t) { return (t - m_start).to_seconds() * 1e9; };
  double sum = 0, hi = 0, lo = std::numeric_limits<double>::infinity(), own_sum = 0;
  uint32_t complete = 0;
  uint64_t redundant = 0, sent = 0;
  nlohmann::json per_router = nlohmann::json::array();
  for (uint32_t r = 0; r < routers; ++r) {
    const hw::galaxy::engine& e = *m_engines[r];
    redundant += e.redundant.value;
    sent += e.packets_out.value;
    const bool done = m_held[r] == routers;
    const bool own_done = m_held_own[r] == m_view.members[m_view.group_of[r]].size();
    nlohmann::json row = {
        {"router", r},
        {"supernode", m_view.group_of[r]},
        {"held", m_held[r]},
        {"received", e.packets_in.value},
        {"redundant", e.redundant.value},
        {"complete_ns", done ? nlohmann::json(ns(m_complete[r])) : nlohmann::json()},
        {"router_time_ns", own_done ? nlohmann::json(ns(m_supernode_done[r])) : nlohmann::json()}};
    if (m_settings.arrivals) {
      nlohmann::json a = nlohmann::json::array();
      for (const arrival& x : m_arrivals[r]) a.push_back({x.origin, ns(x.when), x.from});
      row["arrivals"] = std::move(a);
    }
    per_router.push_back(std::move(row));
    if (own_done) own_sum += ns(m_supernode_done[r]);
    if (!done) continue;
    ++complete;
    sum += ns(m_complete[r]);
    hi = std::max(hi, ns(m_complete[r]));
    lo = std::min(lo, ns(m_complete[r]));
  }
  // AvgChannel: the time the engines' packets keep the router-to-router channels busy (one
  // link each, the one the router takes to the neighbour), over the channels, over MaxTime.
  // Other traffic in the run (background, other collectives) is not the algorithm's.
  double busy = 0;
  uint32_t channels = 0;
  std::map<std::pair<uint32_t, uint32_t>, const tlm_net::link*> link_of;  // (router, port)
  for (size_t i = 0; i < m_fabric->links.size(); ++i) {
    const auto& [from, to] = m_fabric->link_ends[i];
    if (from.terminal || to.terminal) continue;
    link_of[{from.id, from.port}] = m_fabric->links[i].get();
    ++channels;
  }
  for (const algorithms::galaxy_transfer& t : m_plan.transfers) {
    const auto it = link_of.find({t.from, m_fabric->routers[t.from]->port_to(t.to)});
    if (it != link_of.end())
      busy += t.count *
              it->second->serialisation(static_cast<uint32_t>(m_spec->bytes)).to_seconds() * 1e9;
  }
  const double n = routers;
  nlohmann::json out = {
      {"algorithm", m_spec->algorithm},
      {"routers", routers},
      {"supernodes", m_view.members.size()},
      {"root_supernode", m_plan.root_group},
      {"packet_bytes", m_spec->bytes},
      {"avg_time_ns", complete ? sum / complete : 0.0},
      {"max_time_ns", complete ? hi : 0.0},
      {"min_time_ns", complete ? lo : 0.0},
      {"avg_redundant_packets", static_cast<double>(redundant) / n},
      {"router_time_ns", own_sum / n},
      {"avg_channel_utilization", channels && hi > 0 ? busy / channels / hi : 0.0},
      {"success_rate", complete / n},
      {"failure_rate", (n - complete) / n},
      {"transfers", m_plan.transfers.size()},
      {"packets_sent", sent},
      {"redundant_packets", redundant},
      {"plan_redundant_packets", m_plan.redundant_total()},
      {"channels", channels},
      {"per_router", std::move(per_router)}};
  if (m_settings.transfers) out["transfer_trace"] = transfer_trace();
  return out;
}

// Every transfer of the plan in plan order: its ends, its origins and when its sender's engine
// fired it (null if never), for tracing a run's critical path
// (experiments/galaxyfly/critical_path.py).
nlohmann::json instance::transfer_trace() const {
  nlohmann::json list = nlohmann::json::array();
  std::vector<uint32_t> own(m_view.routers, 0);  // [router] its transfers so far
  for (const algorithms::galaxy_transfer& t : m_plan.transfers) {
    const sc_core::sc_time& fired = m_engines[t.from]->fired(own[t.from]++);
    const auto first = m_plan.origins.begin() + t.first;
    list.push_back({{"from", t.from},
                    {"to", t.to},
                    {"origins", std::vector<uint32_t>(first, first + t.count)},
                    {"after_all", t.after_all},
                    {"fired_ns", fired == sc_core::sc_max_time()
                                     ? nlohmann::json()
                                     : nlohmann::json((fired - m_start).to_seconds() * 1e9)}});
  }
  return list;
}

std::unique_ptr<offload_instance> create(const offload_context& ctx) {
  return std::make_unique<instance>(ctx);
}

void summary(const nlohmann::json& r, const summary_row& row) {
  const auto ns = [&r](const char* key) { return format_ns(r[key].get<double>()); };
  row("galaxy") << r["algorithm"].get<std::string>() << " over " << r["routers"] << " routers ("
                << r["supernodes"] << " supernodes, root supernode " << r["root_supernode"]
                << "): MaxTime " << ns("max_time_ns") << ", AvgTime " << ns("avg_time_ns")
                << ", MinTime " << ns("min_time_ns") << ", RouterTime " << ns("router_time_ns")
                << "\n";
  row("galaxy packets") << "AvgPacket " << r["avg_redundant_packets"].get<double>()
                        << " redundant per router, AvgChannel "
                        << 100 * r["avg_channel_utilization"].get<double>() << " %, SuccessRate "
                        << 100 * r["success_rate"].get<double>() << " %\n";
}

// The plan of galaxy instance `inst` over the view of `topo` (filled in `v`).
algorithms::galaxy_plan plan_of(const scenario& s, const network::topology& topo,
                                const network::placement& place,
                                const algorithms::instance_info& inst, algorithms::galaxy_view& v) {
  const algorithms::collective_spec& c = s.collectives[inst.collective];
  const uint32_t root = root_router(c, inst, topo, place);
  algorithms::galaxy_algorithm a = algorithms::galaxy_algorithm::sfata;
  if (c.algorithm == "rfata") a = algorithms::galaxy_algorithm::rfata;
  if (c.algorithm == "a2a") a = algorithms::galaxy_algorithm::a2a;
  try {
    v = algorithms::galaxy_view::of(topo);
    return algorithms::make_galaxy_plan(a, v, v.group_of[root]);
  } catch (const std::invalid_argument& e) {
    const std::string key = s.collective_keys[inst.collective] + ".algorithm";
    throw config_error(key, key + " = " + c.algorithm + ": " + e.what());
  }
}

// `bcastsim analyze`: every instance's forwards, one packet per origin over each transfer's
// cable (the engines' own links to their routers are not network links).
void hardware_messages(const scenario& s, const network::topology& topo,
                       const network::placement& place, const algorithms::program& prog,
                       const hardware_sink& sink) {
  for (const algorithms::instance_info& inst : prog.instances) {
    if (inst.algorithm->offload != "galaxy") continue;
    algorithms::galaxy_view v;
    const algorithms::galaxy_plan plan = plan_of(s, topo, place, inst, v);
    for (const algorithms::galaxy_transfer& t : plan.transfers)
      sink.between_routers(t.from, t.to, t.count);
  }
}

// `bcastsim analyze`: the plan's logical account, without SystemC.
nlohmann::json analyze(const scenario& s, const network::topology& topo,
                       const network::placement& place, const algorithms::program& prog) {
  for (const algorithms::instance_info& inst : prog.instances) {
    if (inst.algorithm->offload != "galaxy") continue;
    const algorithms::collective_spec& c = s.collectives[inst.collective];
    algorithms::galaxy_view v;
    const algorithms::galaxy_plan plan = plan_of(s, topo, place, inst, v);
    uint64_t packets = 0, local = 0;
    for (const algorithms::galaxy_transfer& t : plan.transfers) {
      packets += t.count;
      if (v.group_of[t.from] == v.group_of[t.to]) local += t.count;
    }
    return {{"algorithm", c.algorithm},
            {"routers", plan.routers},
            {"supernodes", v.members.size()},
            {"root_supernode", plan.root_group},
            {"transfers", plan.transfers.size()},
            {"packets", packets},
            {"local_packets", local},
            {"global_packets", packets - local},
            {"redundant_packets", plan.redundant_total()},
            {"avg_redundant_packets", static_cast<double>(plan.redundant_total()) / plan.routers},
            {"complete_routers", plan.complete_routers},
            {"every_router_receives_every_origin", plan.complete_routers == plan.routers},
            // SFATA's Theorem 5 and A2A: true; RFATA's resends make it false.
            {"every_origin_received_once",
             plan.complete_routers == plan.routers && plan.redundant_total() == 0}};
  }
  return {};
}

std::vector<params::decl> declarations() {
  return {
      params::real_key("galaxy.engine_ns", 0, 0, 1e9,
                       "engine: from a packet's tail to its origin being held and forwarded"),
      params::real_key("galaxy.port_bandwidth_gib_per_s", 0, 0, 1e6,
                       "engine <-> router port; 0: the router's network links' rates summed"),
      params::real_key("galaxy.port_latency_ns", 0, 0, 1e6, "engine <-> router port latency"),
      params::choice_key(
          "galaxy.report_arrivals", "off", {"off", "on"},
          "on: result.json lists every router's arrivals (origin, time, the router that "
          "first brought it)"),
      params::choice_key("galaxy.report_transfers", "off", {"off", "on"},
                         "on: result.json lists the plan's transfers (from, to, origins) and "
                         "when each fired (its sender held its origins and queued them)"),
  };
}

}  // namespace

offload_family family() {
  offload_family f;
  f.name = "galaxy";
  f.description =
      "per-router collective engines running router-level all-to-all broadcasts (SFATA, RFATA, "
      "A2A)";
  f.params = declarations();
  f.check = check;
  f.create = create;
  f.summary = summary;
  f.analyze = analyze;
  f.hardware_messages = hardware_messages;
  f.sweep_columns = {"galaxy.avg_time_ns",    "galaxy.max_time_ns",
                     "galaxy.min_time_ns",    "galaxy.avg_redundant_packets",
                     "galaxy.router_time_ns", "galaxy.avg_channel_utilization",
                     "galaxy.success_rate",   "galaxy.failure_rate"};
  return f;
}

}  // namespace bcastsim::tb::galaxy
