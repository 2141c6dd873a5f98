#include "tb/lanai/family.h"

#include "algorithms/lanai_gossip.h"
#include "hw/lanai/nic.h"
#include "tb/config.h"
#include "tb/fabric.h"
#include "tb/format.h"
#include "tb/simulation.h"

#include <memory>
#include <ostream>

namespace bcastsim::tb::lanai {

namespace {

bool is_lanai(const std::string& algorithm) {
  const offload_family* f = family_of_algorithm(algorithm);
  return f != nullptr && f->name == "lanai";
}

hw::lanai::nic_params read_params(const config& cfg) {
  hw::lanai::nic_params p = params::load<hw::lanai::nic_params>(cfg);
  try {
    hw::lanai::pci_bus::check(p.pci);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    throw config_error(what.substr(0, what.find(' ')), what);
  }
  return p;
}

// One NIC-based all-to-all broadcast per run, not repeated: the NICs' collective engines run
// one group's operation (a second would need a second group set up).
void check(const config& cfg, const scenario& s) {
  if (family_of_scenario(s) == nullptr || family_of_scenario(s)->name != "lanai") return;
  read_params(cfg);
  uint32_t found = 0;
  for (size_t i = 0; i < s.collectives.size(); ++i) {
    const algorithms::collective_spec& c = s.collectives[i];
    if (!is_lanai(c.algorithm)) continue;
    const std::string& key = s.collective_keys[i];
    if (++found > 1)
      throw config_error(key + ".algorithm",
                         key + ".algorithm = " + c.algorithm +
                             ": a run holds one NIC-based all-to-all broadcast (the NICs set up "
                             "one group); allowed: one collective of nic-cb, nic-rd");
    if (c.repeat != 1)
      throw config_error(key + ".repeat", key + ".repeat = " + std::to_string(c.repeat) + " for " +
                                              c.algorithm + "; allowed: 1");
  }
}

// A rank's gm_gossip calls: offload_start costs the host a send call's CPU, then the request
// goes to its NIC; the NIC's completion event costs a receive's CPU and hands the host every
// other member's block (written into its memory by then).
class agent final : public hw::offload_agent, public hw::lanai::gossip_client {
 public:
  agent(hw::host& host, hw::lanai::nic& nic, const scenario& s, uint32_t member, uint32_t members,
        uint64_t block_bytes)
      : m_host(host),
        m_nic(nic),
        m_s(s),
        m_member(member),
        m_members(members),
        m_block(block_bytes) {}

  void call(uint32_t index, const algorithms::op& o) override {
    m_context = o.context;
    m_host.finish_call(index, m_host.spend_cpu(m_s.host.send_overhead_ns));
  }
  void returned(uint32_t, const algorithms::op&) override { m_nic.gossip_start(); }
  void on_gossip_done(uint32_t) override {
    m_host.spend_cpu(m_s.host.recv_overhead_ns);
    for (uint32_t m = 0; m < m_members; ++m) {
      if (m != m_member) m_host.offload_data(m_context, uint64_t{m} * m_block, m_block);
    }
  }

 private:
  hw::host& m_host;
  hw::lanai::nic& m_nic;
  const scenario& m_s;
  uint32_t m_member, m_members;
  uint64_t m_block;
  uint32_t m_context = 0;
};

class instance final : public offload_instance {
 public:
  explicit instance(const offload_context& ctx) : m_ctx(ctx), m_params(read_params(ctx.s.cfg)) {}

  std::string name() const override { return "lanai"; }

  std::unique_ptr<hw::nic> make_nic(const char* name, network::terminal_id t,
                                    tlm_net::packet_pool& pool) override {
    m_nics.resize(m_ctx.topo.num_terminals(), nullptr);
    auto n = std::make_unique<hw::lanai::nic>(
        name, t, m_params, pool, m_ctx.routing, m_ctx.s.router.vcs,
        m_ctx.s.router.vc_buffer_bytes[network::terminal_class], m_ctx.s.seed);
    m_nics[t] = n.get();
    return n;
  }

  void attach(fabric& fab) override {
    for (const algorithms::instance_info& inst : m_ctx.prog.instances) {
      if (inst.algorithm->offload != "lanai") continue;
      const algorithms::collective_spec& c = m_ctx.s.collectives[inst.collective];
      hw::lanai::gossip_request r;
      r.recursive_doubling = c.algorithm == "nic-rd";
      r.block_bytes = c.bytes;
      r.context = inst.first_context;
      for (const uint32_t rank : inst.ranks) r.members.push_back(m_ctx.place.terminal_of(rank));
      const uint32_t n = static_cast<uint32_t>(inst.ranks.size());
      for (uint32_t m = 0; m < n; ++m) {
        hw::host& h = *fab.hosts[inst.ranks[m]];
        hw::lanai::nic& nic = *m_nics[r.members[m]];
        m_agents.push_back(std::make_unique<agent>(h, nic, m_ctx.s, m, n, c.bytes));
        r.member = m;
        nic.gossip_init(r, *m_agents.back());
        h.set_offload_agent(m_agents.back().get());
      }
    }
  }

  void count_packets(uint64_t&, uint64_t&) const override {}  // the NICs count their own
  bool idle() const override { return true; }                 // the fabric asks the NICs
  uint32_t describe_stall(std::ostream&, uint32_t) const override { return 0; }
  uint64_t packet_hops() const override { return 0; }

  nlohmann::json report() const override;
  void add_block_stats(nlohmann::json& blocks) const override {
    for (const hw::lanai::nic* n : m_nics) {
      if (!n) continue;
      nlohmann::json& b = blocks[std::string(n->basename()) + ".pci"];
      for (const tlm_net::stat_info& st : n->pci().stats().stats()) b[st.name] = st.c->value;
    }
  }
  void list_statistics(
      const std::function<void(const char*, const tlm_net::stat_group&)>& show) const override {
    for (const hw::lanai::nic* n : m_nics) {
      if (!n) continue;
      show("lanai nic", n->stats());
      show("lanai pci", n->pci().stats());
      return;
    }
  }
  bool trace(const tlm_net::trace_window&, const std::string&) override { return false; }
  std::string traceable() const override { return {}; }

 private:
  offload_context m_ctx;
  hw::lanai::nic_params m_params;
  std::vector<hw::lanai::nic*> m_nics;  // [terminal]
  std::vector<std::unique_ptr<agent>> m_agents;
};

nlohmann::json instance::report() const {
  uint64_t retransmissions = 0, timeouts = 0, nacks = 0, acks = 0, duplicates = 0, forwards = 0;
  uint64_t to_nic = 0, to_host = 0, lanai_ps = 0, pci_ps = 0, token_waits = 0, token_drops = 0;
  for (const hw::lanai::nic* n : m_nics) {
    if (!n) continue;
    retransmissions += n->retransmissions.value;
    timeouts += n->timeouts.value;
    nacks += n->nacks.value;
    acks += n->acks.value;
    duplicates += n->duplicates.value;
    forwards += n->forwards.value;
    token_waits += n->send_token_waits.value;
    token_drops += n->recv_token_drops.value;
    to_nic += n->pci().bytes_to_nic.value;
    to_host += n->pci().bytes_to_host.value;
    lanai_ps += n->cpu_busy_ps.value;
    pci_ps += n->pci().busy_ps.value;
  }
  return {{"retransmissions", retransmissions},
          {"timeouts", timeouts},
          {"nacks", nacks},
          {"acks", acks},
          {"duplicates", duplicates},
          {"forwards", forwards},
          {"send_token_waits", token_waits},
          {"recv_token_drops", token_drops},
          {"pci_bytes_to_nic", to_nic},
          {"pci_bytes_to_host", to_host},
          {"lanai_busy_ns", lanai_ps / 1e3},
          {"pci_busy_ns", pci_ps / 1e3}};
}

std::unique_ptr<offload_instance> create(const offload_context& ctx) {
  return std::make_unique<instance>(ctx);
}

void summary(const nlohmann::json& r, const summary_row& row) {
  row("lanai") << "PCI " << r["pci_bytes_to_nic"] << " B to the NICs, " << r["pci_bytes_to_host"]
               << " B to the hosts\n";
  row("lanai recovery") << r["retransmissions"] << " retransmissions, " << r["timeouts"]
                        << " timeouts, " << r["nacks"] << " NACKs, " << r["duplicates"]
                        << " duplicates dropped\n";
}

// `bcastsim analyze`: the algorithm's logical account, without SystemC: the packets every
// operation or step moves (NIC-CB's forwards among them) and the peers a NIC keeps.
nlohmann::json analyze(const scenario& s, const network::topology&, const network::placement&,
                       const algorithms::program& prog) {
  namespace lg = algorithms::lanai;
  const hw::lanai::nic_params p = read_params(s.cfg);
  for (const algorithms::instance_info& inst : prog.instances) {
    if (inst.algorithm->offload != "lanai") continue;
    const algorithms::collective_spec& c = s.collectives[inst.collective];
    const uint32_t n = static_cast<uint32_t>(inst.ranks.size());
    if (c.algorithm == "nic-rd") {
      uint64_t per_nic = 0, staged = 0;
      const std::vector<lg::rd_step> steps =
          lg::rd_steps(0, n, c.bytes, p.mtu_bytes, p.staging_bytes);
      for (const lg::rd_step& st : steps) {
        per_nic += st.packets;
        staged += st.staged_in_host ? 1 : 0;
      }
      return {{"algorithm", c.algorithm},
              {"ranks", n},
              {"steps", steps.size()},
              {"packets", per_nic * n},
              {"steps_staged_in_host", staged}};
    }
    const uint64_t ops = c.bytes == 0 ? 1 : (c.bytes + p.mtu_bytes - 1) / p.mtu_bytes;
    const uint64_t own = lg::cb_sends(0, 0, n).size();  // the root's children, any origin
    const uint64_t packets = uint64_t{n} * (n - 1) * ops;
    return {{"algorithm", c.algorithm},
            {"ranks", n},
            {"operations", ops},
            {"packets", packets},
            {"forwards", packets - uint64_t{n} * own * ops},
            {"peers_per_nic", lg::cb_peers(0, n).size()}};
  }
  return nlohmann::json::object();
}

// `bcastsim analyze`: what the NICs send by themselves: NIC-CB's hops (a one-packet message
// each, per operation of at most lanai.mtu_bytes), NIC-RD's steps (a message of the step's
// packets each); NACKs and resends aside (no loss is modelled).
void hardware_messages(const scenario& s, const network::topology&, const network::placement& place,
                       const algorithms::program& prog, const hardware_sink& sink) {
  namespace lg = algorithms::lanai;
  const hw::lanai::nic_params p = read_params(s.cfg);
  for (const algorithms::instance_info& inst : prog.instances) {
    if (inst.algorithm->offload != "lanai") continue;
    const uint64_t bytes = s.collectives[inst.collective].bytes;
    const auto n = static_cast<uint32_t>(inst.ranks.size());
    auto terminal = [&](uint32_t member) { return place.terminal_of(inst.ranks[member]); };
    if (inst.algorithm->name == "nic-rd") {
      for (uint32_t r = 0; r < n; ++r) {
        for (const lg::rd_step& st : lg::rd_steps(r, n, bytes, p.mtu_bytes, p.staging_bytes)) {
          sink.between_terminals(terminal(r), terminal(st.peer), st.packets);  // one message
        }
      }
      continue;
    }
    const uint64_t ops = bytes == 0 ? 1 : (bytes + p.mtu_bytes - 1) / p.mtu_bytes;
    for (uint32_t origin = 0; origin < n; ++origin) {
      for (uint32_t r = 0; r < n; ++r) {
        for (const lg::hop& h : lg::cb_sends(r, origin, n)) {
          for (uint64_t k = 0; k < ops; ++k) sink.between_terminals(terminal(r), terminal(h.to), 1);
        }
      }
    }
  }
}

}  // namespace

offload_family family() {
  offload_family f;
  f.name = "lanai";
  f.description =
      "LANai NICs running GM on Myrinet (Yu, Panda, Buntinas): NIC-based all-to-all broadcast "
      "(nic-cb, nic-rd), and with nic.kind: lanai every host collective over GM";
  f.nic_kind = true;
  f.params = params::declarations_of<hw::lanai::nic_params>();
  f.check = check;
  f.create = create;
  f.summary = summary;
  f.analyze = analyze;
  f.hardware_messages = hardware_messages;
  // GM cuts every message, the hosts' too, into packets of at most its MTU.
  f.nic_payload_bytes = [](const scenario& s) -> uint64_t { return read_params(s.cfg).mtu_bytes; };
  f.sweep_columns = {"lanai.retransmissions", "lanai.nacks", "lanai.timeouts",
                     "lanai.pci_bytes_to_nic", "lanai.pci_bytes_to_host"};
  return f;
}

}  // namespace bcastsim::tb::lanai
