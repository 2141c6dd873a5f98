#include "tb/ragasa/family.h"

#include "algorithms/ragasa_tree.h"
#include "hw/ragasa/router_hook.h"
#include "tb/config.h"
#include "tb/cosim/recorder.h"
#include "tb/fabric.h"
#include "tb/format.h"
#include "tb/ragasa/report.h"
#include "tb/ragasa/trees.h"
#include "tb/simulation.h"
#ifdef BCASTSIM_WITH_VERILATOR
#include "hw/ragasa/bcast_unit_rtl.h"
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ostream>

namespace bcastsim::tb::ragasa {

namespace {

uint32_t parse_management_terminal(const config& cfg) {
  const std::string m = cfg.text("ragasa.management_terminal");
  if (m == "root") return network::invalid_id;
  errno = 0;
  const unsigned long long v = std::strtoull(m.c_str(), nullptr, 10);
  if (m.empty() || m.find_first_not_of("0123456789") != std::string::npos || errno != 0 ||
      v >= network::invalid_id) {
    throw config_error("ragasa.management_terminal",
                       "ragasa.management_terminal = '" + m +
                           "' is not valid; allowed: root or a terminal number");
  }
  return static_cast<uint32_t>(v);
}

void check_model(const config& cfg, const settings& st) {
  if (!hw::ragasa::unit_model_available(st.model)) {
    throw config_error("ragasa.model", "ragasa.model = " + cfg.text("ragasa.model") +
                                           " needs a build with Verilator (install the Debian "
                                           "package verilator and rebuild); allowed here: systemc");
  }
#ifdef BCASTSIM_WITH_VERILATOR
  if (st.model != hw::ragasa::unit_model::systemc) {
    const std::string err = hw::ragasa::rtl_params_error(st.unit);
    if (!err.empty()) throw config_error(err.substr(0, err.find(' ')), err);
  }
#endif
}

void check_management_terminal(const settings& st, const network::topology& topo) {
  const uint32_t t = st.management_terminal;
  if (t == network::invalid_id || t < topo.num_terminals()) return;
  throw config_error("ragasa.management_terminal",
                     "ragasa.management_terminal = " + std::to_string(t) +
                         " is not a terminal; allowed: root or 0 .. " +
                         std::to_string(topo.num_terminals() - 1));
}

// The RTL core holds 1 .. rtl_max_children() children per Membership entry.
void check_rtl_fanout(const settings& st, const unit_broadcasts& bs) {
#ifdef BCASTSIM_WITH_VERILATOR
  if (st.model == hw::ragasa::unit_model::systemc) return;
  const uint32_t most = hw::ragasa::rtl_max_children();
  for (const unit_broadcast& b : bs.list) {
    for (size_t i = 0; i < b.routers.size(); ++i) {
      if (b.children[i] >= 1 && b.children[i] <= most) continue;
      throw config_error("ragasa.model",
                         "ragasa.model = rtl: the unit of router " + std::to_string(b.routers[i]) +
                             " has " + std::to_string(b.children[i]) +
                             " children in the broadcast of collective id " +
                             std::to_string(b.context + 1) + ", and the RTL core holds 1 to " +
                             std::to_string(most) + " per entry; allowed here: systemc");
    }
  }
#else
  (void)st;
  (void)bs;
#endif
}

}  // namespace

settings read_settings(const config& cfg, const scenario& s, bool used) {
  settings st;
  st.unit = params::load<hw::ragasa::bcast_unit_params>(cfg);
  const uint32_t packet = s.nic.packet_bytes;
  st.unit.packet_bytes = packet;
  st.unit.vcs = s.router.vcs;
  st.unit.output_buffer_bytes = s.router.vc_buffer_bytes[network::terminal_class];
  st.unit.seed = s.seed;
  // Only a run whose algorithm uses the units has them: others ignore their sizes.
  for (const char* key : {"ragasa.ri_buffer_bytes", "ragasa.working_memory_bytes"}) {
    if (used && cfg.uint(key) < packet) {
      throw config_error(
          key, std::string(key) + " = " + cfg.text(key) +
                   " cannot hold one packet (network.packet_bytes = " + std::to_string(packet) +
                   "); allowed: at least " + std::to_string(packet));
    }
  }
  // A chunk closes once descriptor_threshold_bytes are in (or its message is complete),
  // never early: Working Memory must hold the packets of a whole chunk, or it never closes.
  const uint64_t threshold = st.unit.descriptor_threshold_bytes;
  const uint64_t chunk = std::max<uint64_t>(1, (threshold + packet - 1) / packet) * packet;
  if (used && st.unit.working_memory_bytes < chunk) {
    throw config_error("ragasa.working_memory_bytes",
                       "ragasa.working_memory_bytes = " + cfg.text("ragasa.working_memory_bytes") +
                           " cannot hold a chunk (ragasa.descriptor_threshold_bytes = " +
                           std::to_string(threshold) + " in packets of " + std::to_string(packet) +
                           " B: " + std::to_string(chunk) +
                           " B), which then never closes; allowed: at least " +
                           std::to_string(chunk) + ", or a smaller threshold");
  }
  // A credit return is a packet like any other: no larger than the network's.
  if (used && st.unit.credit_packet_bytes > packet) {
    throw config_error("ragasa.credit_packet_bytes",
                       "ragasa.credit_packet_bytes = " + cfg.text("ragasa.credit_packet_bytes") +
                           " is larger than a packet (network.packet_bytes = " +
                           std::to_string(packet) + "); allowed: 1 to " + std::to_string(packet));
  }
  // The unit port carries three message classes on VCs 0-2 (hw/ragasa/README.md).
  if (used && s.router.vcs < 3) {
    throw config_error("router.vcs",
                       "router.vcs = " + std::to_string(s.router.vcs) +
                           " is too few for Ragasa's Bcast Unit, whose port carries hand-off "
                           "data, relayed data and control on VCs of their own (no deadlock "
                           "otherwise: hw/ragasa/README.md); allowed: at least 3");
  }
  st.port.cls = network::terminal_class;
  st.port.bandwidth_gib_per_s = cfg.real("ragasa.port_bandwidth_gib_per_s");
  st.port.latency_ns = cfg.real("ragasa.port_latency_ns");
  st.port.flit_bytes = s.links[network::terminal_class].flit_bytes;
  st.manager = params::load<hw::ragasa::manager_params>(cfg);
  hw::ragasa::parse_unit_model(cfg.text("ragasa.model"), st.model);
  if (used) check_model(cfg, st);
  st.management_terminal = parse_management_terminal(cfg);
  st.relay = cfg.text("ragasa.relay") == "unit" ? algorithms::ragasa_relay::unit
                                                : algorithms::ragasa_relay::node;
  return st;
}

namespace {

class instance final : public offload_instance {
 public:
  explicit instance(const offload_context& ctx)
      : m_ctx(ctx),
        m_settings(read_settings(ctx.s.cfg, ctx.s)),
        m_broadcasts(plan_broadcasts(ctx.topo, ctx.place, ctx.prog, m_settings.relay,
                                     m_settings.manager, ctx.s.nic.packet_bytes)) {
    check_management_terminal(m_settings, ctx.topo);
    check_rtl_fanout(m_settings, m_broadcasts);
  }

  ~instance() override {
    // Teardown newest first (see fabric::~fabric).
    m_manager.reset();
    while (!m_taps.empty()) m_taps.pop_back();
    while (!m_links.empty()) m_links.pop_back();
    while (!m_units.empty()) m_units.pop_back();
  }

  std::string name() const override { return "ragasa"; }

  hw::router_params::attached_port router_attachment() const override {
    hw::router_params::attached_port a;
    a.present = true;
    a.label = "bcast unit";
    a.in_vc_buffer_bytes = m_settings.unit.output_buffer_bytes;
    a.credit_bytes = m_settings.unit.input_buffer_bytes;
    a.input_gib_per_s = m_settings.port.bandwidth_gib_per_s;
    a.hook = &m_hook;
    return a;
  }

  void attach(fabric& fab) override;
  void finish() override;

  void count_packets(uint64_t& injected, uint64_t& delivered) const override {
    for (const auto& u : m_units) {
      injected += u->packets_out.value + u->credit_returns.value;  // copies and credit returns
      delivered += u->packets_in.value;
    }
  }
  bool idle() const override {
    for (const auto& u : m_units) {
      if (!u->idle()) return false;
    }
    return !m_manager || m_manager->setup_done();
  }
  uint32_t describe_stall(std::ostream& os, uint32_t max) const override;
  uint64_t packet_hops() const override {
    uint64_t hops = 0;
    for (const auto& l : m_links) hops += l->packets.value + l->control_packets.value;
    return hops;
  }

  nlohmann::json report() const override {
    nlohmann::json r = ragasa_report(*m_fabric, m_units, *m_manager);
    r["broadcasts"] = broadcasts_report(
        m_broadcasts, *m_manager, broadcasts_of(m_ctx.prog, m_ctx.progress), m_ctx.s.block_stats);
    return r;
  }
  void add_block_stats(nlohmann::json& blocks) const override;
  void list_statistics(
      const std::function<void(const char*, const tlm_net::stat_group&)>& show) const override {
    show("unit", m_units.front()->stats());
    show("manager", m_manager->stats());
  }
  bool trace(const tlm_net::trace_window& window, const std::string& name) override {
    for (auto& u : m_units) {
      if (name == u->basename()) {
        u->trace(window, name);
        return true;
      }
    }
    return false;
  }
  std::string traceable() const override {
    return m_units.empty() ? std::string() : "unit_0 .. unit_" + std::to_string(m_units.size() - 1);
  }

 private:
  void make_unit(fabric& fab, network::router_id r);

  offload_context m_ctx;
  settings m_settings;
  hw::ragasa::router_hook m_hook;
  unit_broadcasts m_broadcasts;  // their Membership lists are the units' sources
  const fabric* m_fabric = nullptr;
  std::vector<std::unique_ptr<hw::ragasa::bcast_unit_base>> m_units;  // [router]
  std::vector<std::unique_ptr<tlm_net::link>> m_links;                // the units' router ports
  // Recording of the units' inputs (--record-unit-inputs), else empty: a tap per unit.
  std::unique_ptr<cosim::unit_input_recorder> m_recorder;
  std::vector<std::unique_ptr<cosim::unit_input_tap>> m_taps;
  std::unique_ptr<hw::ragasa::manager> m_manager;
};

void instance::make_unit(fabric& fab, network::router_id r) {
  const std::string id = std::to_string(r);
  const network::terminal_id terminal = m_ctx.topo.terminals_of(r).front();
  // The unit draws routing entropy as a NIC of its router would.
  m_units.push_back(hw::ragasa::make_bcast_unit(m_settings.model, ("unit_" + id).c_str(), terminal,
                                                m_settings.unit, fab.pool, m_broadcasts.sources[r],
                                                &m_ctx.routing));
  hw::ragasa::bcast_unit_base& u = *m_units.back();
  hw::router& rt = *fab.routers[r];
  const std::string prefix = std::string(fab.name()) + ".";
  m_links.push_back(
      std::make_unique<tlm_net::link>(prefix + "link_r" + id + "_unit", m_settings.port));
  if (m_recorder) {  // a tap records what enters the unit
    m_recorder->add_unit(u.basename(), r, terminal, u.params(), m_settings.port, m_ctx.s.router);
    m_taps.push_back(std::make_unique<cosim::unit_input_tap>(
        ("tap_unit_" + id).c_str(), *m_recorder, u.basename(), m_broadcasts.sources[r]));
    m_links.back()->connect(rt.out[rt.attached_port()], m_taps.back()->in);
    m_taps.back()->out.bind(u.in);
  } else {
    m_links.back()->connect(rt.out[rt.attached_port()], u.in);
  }
  m_links.push_back(std::make_unique<tlm_net::link>(prefix + "link_unit_" + id, m_settings.port));
  m_links.back()->connect(u.out, rt.in[rt.attached_port()]);
}

void instance::attach(fabric& fab) {
  m_fabric = &fab;
  if (!m_ctx.record_inputs.empty()) {  // throws config_error naming the flag
    m_recorder = std::make_unique<cosim::unit_input_recorder>(m_ctx.record_inputs);
  }
  const uint32_t nr = m_ctx.topo.num_routers();
  m_units.reserve(nr);
  for (uint32_t r = 0; r < nr; ++r) make_unit(fab, r);
  // "root": the root of the run's first Ragasa broadcast.
  const uint32_t mgmt = m_settings.management_terminal != network::invalid_id
                            ? m_settings.management_terminal
                        : m_broadcasts.list.empty() ? m_ctx.place.terminal_of(m_ctx.sched.root)
                                                    : m_broadcasts.list.front().root_terminal;
  std::vector<hw::ragasa::managed_collective> managed;
  std::vector<bool> offloads(fab.hosts.size(), false);
  for (const unit_broadcast& b : m_broadcasts.list) {
    hw::ragasa::managed_collective c;
    c.collective_id = b.context + 1;
    c.context = b.context;
    c.routers = b.routers;
    c.mini_packet_bytes = b.mini_packet_bytes;
    for (const uint64_t n : b.packets)
      c.reserve_bytes.push_back(hw::ragasa::reservation_bytes(m_settings.unit, n));
    for (const uint32_t rank : b.offloading_ranks) {
      c.gated.push_back(fab.hosts[rank].get());
      offloads[rank] = true;
    }
    managed.push_back(std::move(c));
  }
  for (uint32_t rank = 0; rank < fab.hosts.size(); ++rank) {
    if (!offloads[rank]) continue;
    const network::router_id r = m_ctx.topo.router_of(m_ctx.place.terminal_of(rank));
    fab.hosts[rank]->enable_offload(hw::ragasa::to_unit(r));
  }
  m_manager = std::make_unique<hw::ragasa::manager>(
      "manager", m_ctx.topo, *fab.nics[mgmt], std::move(managed), m_settings.manager,
      m_settings.unit.membership_entries, m_settings.unit.working_memory_bytes);
  for (auto& u : m_units) u->set_listener(m_manager.get());
}

void instance::finish() {
  if (m_recorder) m_recorder->finish();  // throws config_error naming the flag
}

uint32_t instance::describe_stall(std::ostream& os, uint32_t max) const {
  uint32_t shown = 0;
  for (const auto& u : m_units) {
    if (shown >= max) break;
    if (u->describe_stall(os)) ++shown;
  }
  if (m_manager && !m_manager->setup_done()) {
    os << "  " << m_manager->name() << ": " << m_manager->mini_packets_parsed.value << " of "
       << m_manager->expected_mini_packets() << " Mini Packets parsed; set-up incomplete for "
       << "collective";
    const std::vector<uint32_t> ids = m_manager->incomplete(9);
    for (size_t k = 0; k < ids.size() && k < 8; ++k) os << " " << ids[k];
    os << (ids.size() > 8 ? " ...\n" : "\n");
    network::router_id busiest = 0;
    if (const size_t held = m_manager->held_mini_packets(&busiest)) {
      os << "    " << held << " Mini Packets are held until units free Membership Table "
         << "entries and Working Memory reservations, which they do when broadcasts' data have "
         << "left them (most for router " << busiest
         << "; ragasa.membership_entries = " << m_settings.unit.membership_entries
         << ", ragasa.working_memory_bytes = " << m_settings.unit.working_memory_bytes << ")\n";
    }
  }
  return shown;
}

void instance::add_block_stats(nlohmann::json& blocks) const {
  for (const auto& u : m_units) blocks[u->name()] = stats_to_json(u->stats());
  for (const auto& l : m_links) blocks[l->name()] = stats_to_json(l->stats());
  blocks[m_manager->name()] = stats_to_json(m_manager->stats());
}

std::unique_ptr<offload_instance> create(const offload_context& ctx) {
  return std::make_unique<instance>(ctx);
}

void check(const config& cfg, const scenario& s) {
  const offload_family* f = family_of_scenario(s);
  read_settings(cfg, s, f != nullptr && f->name == "ragasa");
}

void summary(const nlohmann::json& r, const summary_row& row) {
  const auto& su = r["setup"];
  const auto& u = r["units"];
  row("ragasa set-up") << format_ns(su["setup_ns"].get<double>()) << ", " << su["mini_packets"]
                       << " Mini Packets (" << su["mini_packet_bytes"] << " B), not in the "
                       << "traversals above\n";
  row("ragasa membership") << "peak " << u["membership_peak_entries"] << " of "
                           << u["membership_entries"] << " entries (highest unit), "
                           << u["membership_freed"] << " freed; " << su["mini_packets_held"]
                           << " Mini Packets held for a free entry and its Working Memory ("
                           << format_ns(su["mini_packet_wait_ns"].get<double>()) << " summed)\n";
  const uint64_t mini = su["mini_packets"].get<uint64_t>();
  const uint64_t credits = u["credit_returns"].get<uint64_t>();  // each taken in by a parent
  row("ragasa units") << u["replicating"] << " of " << u["count"] << " replicating; took in "
                      << u["packets_in"] << " packets (" << mini << " Mini Packets, "
                      << (credits ? std::to_string(credits) + " credit returns, " : "")
                      << u["packets_in"].get<uint64_t>() - mini - credits << " data), made "
                      << u["packets_out"] << " copies (" << u["bytes_replicated"] << " B), busiest "
                      << u["busiest"].get<std::string>() << " (" << u["busiest_packets_out"]
                      << ")\n";
  const auto& b = r["broadcasts"];
  const auto mean = [&b](const char* what) { return format_ns(b[what]["mean"].get<double>()); };
  row("ragasa broadcasts") << b["count"] << ": set-up (time 0 to its last Mini Packet) mean "
                           << mean("setup_ns") << ", max "
                           << format_ns(b["setup_ns"]["max"].get<double>())
                           << "; data from its own start mean " << mean("data_completion_ns")
                           << ", max " << format_ns(b["data_completion_ns"]["max"].get<double>())
                           << "; rank average mean " << mean("rank_average_ns") << "\n";
  row("ragasa memory") << "peak " << u["working_memory_peak_bytes"] << " of "
                       << u["working_memory_bytes"] << " B (highest unit)\n";
  row("ragasa stalls") << "summed over " << u["count"] << " units: memory "
                       << format_ns(u["memory_stall_ns"].get<double>()) << ", Rx HOL "
                       << format_ns(u["rx_hol_blocked_ns"].get<double>()) << "; worst unit: memory "
                       << format_ns(u["memory_stall_ns_unit_max"].get<double>()) << ", Rx HOL "
                       << format_ns(u["rx_hol_blocked_ns_unit_max"].get<double>()) << "\n";
}

std::vector<params::decl> declarations() {
  std::vector<params::decl> d = {params::choice_key(
      "ragasa.model", "systemc", hw::ragasa::unit_model_names(),
      "the Bcast Unit's model: the SystemC model, or its verilated RTL (rtl/; rtl-fault-* "
      "have a deliberate fault, for the co-simulation regression)")};
  for (params::decl& k : params::declarations_of<hw::ragasa::bcast_unit_params>()) d.push_back(k);
  // The unit's port rate. Ragasa gives none. No published in-switch engine we found gives
  // the rate of an engine on its own router port against a port's rate (sources in
  // experiments/ragasa/README.md): IB multicast and NVSwitch multicast replicate in the
  // crossbar, each copy at its output port's rate, with no engine port; SHARP's streaming
  // aggregation (Graham et al., ISC 2020) reduces at about point-to-point bandwidth, one port's
  // rate. So the port runs at a router port's own rate: bcastsim's terminal link, 5.25 GiB/s.
  // Until issue 40 it was 21 (4x a terminal link), chosen with no source.
  d.push_back(params::real_key("ragasa.port_bandwidth_gib_per_s", 5.25, 1e-6, 1e6,
                               "bandwidth of the unit's router port, each direction, GiB/s; the "
                               "unit's copies cross the crossbar at this rate (default: a router "
                               "port's own rate, bcastsim's 5.25 GiB/s terminal link; no source "
                               "gives an engine on its own port more)"));
  d.push_back(
      params::real_key("ragasa.port_latency_ns", 1, 0, 1e9, "latency of the unit's router port"));
  for (params::decl& k : params::declarations_of<hw::ragasa::manager_params>()) d.push_back(k);
  d.push_back(params::text_key("ragasa.management_terminal", "root",
                               "terminal of the management node that sends the Mini Packets: "
                               "root (the terminal of the first Ragasa broadcast's root) or a "
                               "terminal number"));
  d.push_back(params::choice_key(
      "ragasa.relay", "node", {"node", "unit"},
      "how the data goes from one level of the tree to the next: node (the paper's reading: "
      "nodes that received it hand it, through host and NIC, to their router's unit) or unit "
      "(units send straight to the next level's units)"));
  return d;
}

}  // namespace

offload_family family() {
  offload_family f;
  f.name = "ragasa";
  f.records_unit_inputs = true;
  f.description = "Ragasa in-router broadcast offload: a Bcast Unit on every router";
  f.params = declarations();
  f.check = check;
  f.create = create;
  f.sweep_columns = {"ragasa.setup.setup_ns",
                     "ragasa.broadcasts.setup_ns.mean",
                     "ragasa.broadcasts.setup_ns.max",
                     "ragasa.units.memory_stall_ns",
                     "ragasa.units.rx_hol_blocked_ns",
                     "ragasa.units.ri_blocked_ns",
                     "ragasa.units.working_memory_peak_bytes",
                     "ragasa.units.bytes_replicated",
                     "ragasa.units.packets_out"};
  f.summary = summary;
  f.replication_tree = [](const scenario& s, const network::topology& topo,
                          const network::placement& place, uint32_t root, uint32_t sender) {
    if (read_settings(s.cfg, s).relay == algorithms::ragasa_relay::unit)
      return algorithms::make_ragasa_tree(topo, place, root);
    // Nodes relaying: the sender's unit sends to terminals only.
    const algorithms::ragasa_relays rl = algorithms::make_ragasa_relays(topo, place, root);
    algorithms::ragasa_tree t;
    t.root_terminal = place.terminal_of(sender);
    t.root_router = topo.router_of(t.root_terminal);
    t.children.assign(topo.num_routers(), {});
    for (const network::terminal_id c : rl.children[t.root_router])
      t.children[t.root_router].push_back({algorithms::child_kind::terminal, c});
    return t;
  };
  f.check_hardware = [](const scenario& s, const network::topology& topo,
                        const network::placement& place, const algorithms::program& prog) {
    const settings st = read_settings(s.cfg, s);
    const unit_broadcasts bs =
        plan_broadcasts(topo, place, prog, st.relay, st.manager, s.nic.packet_bytes);
    check_management_terminal(st, topo);
    check_rtl_fanout(st, bs);
  };
  return f;
}

}  // namespace bcastsim::tb::ragasa
