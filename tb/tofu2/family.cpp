#include "tb/tofu2/family.h"

#include "hw/tofu2/command_queue.h"
#include "hw/tofu2/frames.h"
#include "tb/atomic_file.h"
#include "tb/config.h"
#include "tb/cosim/cq_replay.h"
#include "tb/fabric.h"
#include "tb/format.h"
#include "tb/simulation.h"

#include <algorithm>
#include <map>
#include <memory>
#include <ostream>

namespace bcastsim::tb::tofu2 {

settings read_settings(const config& cfg, const scenario& s) {
  settings st;
  st.options.offload = cfg.text("tofu2.mode") == "offload";
  st.options.segments = static_cast<uint32_t>(cfg.uint("tofu2.segments"));
  st.options.build_ns_per_descriptor = cfg.real("tofu2.build_ns_per_descriptor");
  st.tni.toq_entries = cfg.uint("tofu2.toq_entries");
  if (!hw::tofu2::valid_toq_entries(st.tni.toq_entries)) {
    throw config_error("tofu2.toq_entries",
                       "tofu2.toq_entries = " + cfg.text("tofu2.toq_entries") +
                           " is not a TOQ size; allowed: 2048, 8192, 32768, 131072, 524288, "
                           "2097152 (2^(2s+11), s = 0..5)");
  }
  st.tni.queues = static_cast<uint32_t>(cfg.uint("tofu2.queues_per_tni"));
  st.tni.descriptor_ns = cfg.uint("tofu2.descriptor_ns");
  st.tni.receive_ns = cfg.uint("tofu2.receive_ns");
  st.tni.inject_buffer_bytes = s.router.vc_buffer_bytes[network::terminal_class];
  st.tni.eject_buffer_bytes = s.router.vc_buffer_bytes[network::terminal_class];
  st.tni.vcs = s.router.vcs;
  st.tni.seed = s.seed;
  st.driver.call_ns = cfg.real("tofu2.call_ns");
  st.driver.register_ns = cfg.real("tofu2.register_ns");
  st.driver.build_ns_per_descriptor = st.options.build_ns_per_descriptor;
  st.driver.enqueue_ns_per_descriptor = cfg.real("tofu2.enqueue_ns_per_descriptor");
  st.driver.poll_ns = cfg.real("tofu2.poll_ns");
  return st;
}

namespace {

// The rank's TNI k: its own terminal's k-th successor on the node, so a rank's TNI 0 is its
// own NIC (its host's messages go through it) and one rank per node has them all.
network::terminal_id tni_terminal(const network::topology& topo, network::terminal_id t,
                                  uint32_t k) {
  const std::vector<network::terminal_id> at = topo.terminals_of(topo.router_of(t));
  if (k >= at.size()) return network::invalid_id;
  const auto own = static_cast<size_t>(std::find(at.begin(), at.end(), t) - at.begin());
  return at[(own + k) % at.size()];
}

algorithms::tofu2_algorithm algorithm_of(const algorithms::algorithm_info& info) {
  for (const auto c : {algorithms::tofu2_algorithm::pipeline, algorithms::tofu2_algorithm::trinary,
                       algorithms::tofu2_algorithm::trinaryx3}) {
    if (info.name == algorithms::to_string(c)) return c;
  }
  return algorithms::tofu2_algorithm::pipeline;
}

// The plan of instance `first` (every repetition of its collective shares it).
algorithms::tofu2_plan plan_of(const network::topology& topo, const network::placement& place,
                               const algorithms::instance_info& first, uint32_t segments) {
  std::vector<network::terminal_id> terminals;
  for (const uint32_t r : first.ranks) terminals.push_back(place.terminal_of(r));
  const network::placement sub(topo, terminals);
  uint32_t root = 0;
  for (uint32_t m = 0; m < first.ranks.size(); ++m) {
    if (first.ranks[m] == first.root) root = m;
  }
  return algorithms::make_tofu2_plan(algorithm_of(*first.algorithm), topo, sub, root,
                                     first.buffer_bytes, segments);
}

// The first instance of every Tofu2 collective (its repetitions share its plan and queues).
std::vector<uint32_t> first_instances(const algorithms::program& prog) {
  std::vector<uint32_t> firsts;
  std::vector<bool> seen(prog.instances.size(), false);
  for (uint32_t i = 0; i < prog.instances.size(); ++i) {
    if (seen[i] || prog.instances[i].algorithm->offload != "tofu2") continue;
    for (uint32_t k = i; k < prog.instances.size(); ++k) {
      if (prog.instances[k].collective == prog.instances[i].collective) seen[k] = true;
    }
    firsts.push_back(i);
  }
  return firsts;
}

// The key that sets a node's (router's) terminals, its TNIs, in a topology kind.
std::string terminals_key(const std::string& kind) {
  if (kind == "torus") return "topology.terminals_per_node";
  if (kind == "dragonfly" || kind == "galaxyfly") return "topology.p";
  if (kind == "myrinet") return "topology.nodes";
  if (kind == "graph") return "topology.file";
  return "topology.kind";  // a kind added later: the message names it
}

// What MPI_Bcast_init needs of the TNIs, checked without SystemC so `analyze` refuses what
// `run` refuses, with the same message: every member's node has a TNI per fragment, no TNI
// serves two ranks (its queues' notices go to one driver), and no TNI opens more queues than
// tofu2.queues_per_tni. Throws config_error.
void check_tnis(const scenario& s, const network::topology& topo, const network::placement& place,
                const algorithms::program& prog) {
  const settings st = read_settings(s.cfg, s);
  std::vector<uint32_t> owner(topo.num_terminals(), network::invalid_id);
  std::vector<uint32_t> queues(topo.num_terminals(), 0);
  for (uint32_t r = 0; r < place.num_ranks(); ++r) owner[place.terminal_of(r)] = r;
  for (const uint32_t i : first_instances(prog)) {
    const algorithms::instance_info& first = prog.instances[i];
    const algorithms::tofu2_plan plan = plan_of(topo, place, first, st.options.segments);
    const char* name = algorithms::to_string(plan.algorithm);
    for (uint32_t m = 0; m < plan.num_ranks; ++m) {
      const uint32_t rank = first.ranks[m];
      for (uint32_t f = 0; f < plan.fragments; ++f) {
        const network::terminal_id t = tni_terminal(topo, place.terminal_of(rank), f);
        if (t == network::invalid_id) {
          const std::string key = terminals_key(s.topology_kind);
          throw config_error(key, std::string(name) + " needs " + std::to_string(plan.fragments) +
                                      " TNIs per node (router): " + key +
                                      " must give every node at least that many terminals "
                                      "(topology.kind = " +
                                      s.topology_kind + ")");
        }
        if (owner[t] != network::invalid_id && owner[t] != rank) {
          throw config_error("job.ranks_per_node",
                             std::string(name) + ": ranks " + std::to_string(owner[t]) + " and " +
                                 std::to_string(rank) + " share a node and would both drive TNI " +
                                 "nic_" + std::to_string(t) +
                                 "; set job.ranks_per_node so each rank has its own TNIs " +
                                 "(1 = one rank per node, every TNI its own)");
        }
        owner[t] = rank;
        if (++queues[t] > st.tni.queues) {
          throw config_error("tofu2.queues_per_tni",
                             "tofu2.queues_per_tni = " + std::to_string(st.tni.queues) +
                                 " is too few: nic_" + std::to_string(t) +
                                 " needs a queue for every Tofu2 collective (and fragment) " +
                                 "its rank is in; raise it (at most 254)");
        }
      }
    }
  }
}

// `bcastsim analyze`: every put of every Tofu2 collective's repetitions in offload mode, from
// the queue's TNI to the receiver's, in frames (the hosts' set-up messages are schedule sends).
void hardware_messages(const scenario& s, const network::topology& topo,
                       const network::placement& place, const algorithms::program& prog,
                       const hardware_sink& sink) {
  const settings st = read_settings(s.cfg, s);
  if (!st.options.offload) return;  // host mode: every put is a send of the schedule
  const hw::tofu2::frame_format frames;
  for (const uint32_t i : first_instances(prog)) {
    const algorithms::instance_info& first = prog.instances[i];
    const auto repetitions = static_cast<uint32_t>(
        std::count_if(prog.instances.begin(), prog.instances.end(),
                      [&](const auto& inst) { return inst.collective == first.collective; }));
    const algorithms::tofu2_plan plan = plan_of(topo, place, first, st.options.segments);
    for (uint32_t m = 0; m < plan.num_ranks; ++m) {
      const network::terminal_id own = place.terminal_of(first.ranks[m]);
      for (uint32_t f = 0; f < plan.fragments; ++f) {  // queue f is on TNI f, as attach()
        const network::terminal_id src = tni_terminal(topo, own, f);
        for (const algorithms::toq_descriptor& d : plan.ranks[m].queues[f].commands) {
          if (d.command != algorithms::toq_command::put) continue;
          const network::terminal_id dst =
              tni_terminal(topo, place.terminal_of(first.ranks[d.remote_rank]), d.remote_tni);
          for (uint32_t k = 0; k < repetitions; ++k)
            sink.between_terminals(src, dst, frames.frames(d.length));
        }
      }
    }
  }
}

class instance final : public offload_instance {
 public:
  explicit instance(const offload_context& ctx)
      : m_ctx(ctx), m_settings(read_settings(ctx.s.cfg, ctx.s)) {}

  std::string name() const override { return "tofu2"; }

  std::unique_ptr<hw::nic> make_nic(const char* name, network::terminal_id t,
                                    tlm_net::packet_pool& pool) override {
    hw::tofu2::tni_params p = m_settings.tni;
    const std::vector<network::terminal_id> at = m_ctx.topo.terminals_of(m_ctx.topo.router_of(t));
    for (uint32_t k = 0; k < at.size(); ++k) {
      if (at[k] == t) p.index = k;
    }
    m_tnis.resize(m_ctx.topo.num_terminals(), nullptr);
    auto n = std::make_unique<hw::tofu2::tni>(name, t, p, pool, m_ctx.routing);
    m_tnis[t] = n.get();
    return n;
  }

  void attach(fabric& fab) override;
  void finish() override;
  bool uses_terminal(network::terminal_id t) const override {
    return t < m_owner.size() && m_owner[t] != network::invalid_id;
  }
  void count_packets(uint64_t&, uint64_t&) const override {}  // the TNIs are the NICs
  bool idle() const override {
    for (const auto& d : m_drivers) {
      if (d && !d->idle()) return false;
    }
    return true;
  }
  uint32_t describe_stall(std::ostream&, uint32_t) const override { return 0; }
  uint64_t packet_hops() const override { return 0; }

  nlohmann::json report() const override;
  nlohmann::json offload_figures() const;  // [collective] with its repetitions
  nlohmann::json host_figures() const;
  static nlohmann::json repetition(double start_ns, double wait_ns, double completion_ns,
                                   uint64_t bytes);
  void add_block_stats(nlohmann::json&) const override {}
  void list_statistics(
      const std::function<void(const char*, const tlm_net::stat_group&)>& show) const override {
    for (const hw::tofu2::tni* t : m_tnis) {
      if (t) {
        show("tni", t->stats());
        return;
      }
    }
  }
  bool trace(const tlm_net::trace_window&, const std::string&) override { return false; }
  std::string traceable() const override { return {}; }

 private:
  offload_context m_ctx;
  settings m_settings;
  std::vector<hw::tofu2::tni*> m_tnis;                     // [terminal]
  std::vector<uint32_t> m_owner;                           // [terminal] rank driving it
  std::vector<std::vector<network::terminal_id>> m_lanes;  // [rank] its TNIs 1, 2, ...
  std::unique_ptr<atomic_file> m_recording;  // --record-unit-inputs: every queue's requests
  std::vector<std::unique_ptr<hw::tofu2::driver>> m_drivers;  // [rank]
};

void instance::attach(fabric& fab) {
  const algorithms::program& prog = m_ctx.prog;
  check_tnis(m_ctx.s, m_ctx.topo, m_ctx.place, prog);  // what follows cannot fail
  const uint32_t ranks = static_cast<uint32_t>(fab.hosts.size());
  m_owner.assign(m_ctx.topo.num_terminals(), network::invalid_id);
  for (uint32_t r = 0; r < ranks; ++r) m_owner[m_ctx.place.terminal_of(r)] = r;
  std::vector<std::vector<hw::tofu2::driver_request>> requests(ranks);
  for (const uint32_t i : first_instances(prog)) {
    const algorithms::instance_info& first = prog.instances[i];
    // The collective's repetitions share one plan and one set of queues.
    std::vector<uint32_t> contexts;
    for (uint32_t k = i; k < prog.instances.size(); ++k) {
      if (prog.instances[k].collective == first.collective)
        contexts.push_back(prog.instances[k].first_context);
    }
    std::vector<network::terminal_id> terminals;
    for (const uint32_t r : first.ranks) terminals.push_back(m_ctx.place.terminal_of(r));
    const algorithms::tofu2_plan plan =
        plan_of(m_ctx.topo, m_ctx.place, first, m_settings.options.segments);
    // Every member opens its queues first: a put names the receiver's queue number.
    std::vector<std::vector<uint32_t>> number(plan.num_ranks);
    for (uint32_t m = 0; m < plan.num_ranks; ++m) {
      for (uint32_t f = 0; f < plan.fragments; ++f) {
        const network::terminal_id t = tni_terminal(m_ctx.topo, terminals[m], f);
        m_owner[t] = first.ranks[m];
        number[m].push_back(m_tnis[t]->open_queue(plan.ranks[m].queues[f].mode));
      }
    }
    for (uint32_t m = 0; m < plan.num_ranks; ++m) {
      hw::tofu2::driver_request req;
      req.collective = first.collective;
      req.contexts = contexts;
      req.puts_received = plan.ranks[m].puts_received;
      req.root = m == plan.root;
      for (uint32_t f = 0; f < plan.fragments; ++f) {
        hw::tofu2::driver_request::queue q;
        q.engine = m_tnis[tni_terminal(m_ctx.topo, terminals[m], f)];
        q.number = number[m][f];
        q.mode = plan.ranks[m].queues[f].mode;
        for (algorithms::toq_descriptor d : plan.ranks[m].queues[f].commands) {
          d.remote_terminal = tni_terminal(m_ctx.topo, terminals[d.remote_rank], d.remote_tni);
          if (d.remote_queue != algorithms::toq_no_queue)
            d.remote_queue = number[d.remote_rank][d.remote_queue];
          q.commands.push_back(d);
        }
        req.queues.push_back(std::move(q));
      }
      requests[first.ranks[m]].push_back(std::move(req));
    }
  }
  if (!m_ctx.record_inputs.empty() && !m_settings.options.offload) {
    throw config_error("--record-unit-inputs",
                       "--record-unit-inputs records the TNIs' command queues, which "
                       "tofu2.mode = host does not use; record an offload run (tofu2.mode = "
                       "offload)");
  }
  if (!m_ctx.record_inputs.empty()) {
    // Opened here, written by finish(): a run that fails leaves no half-written recording.
    m_recording = std::make_unique<atomic_file>(m_ctx.record_inputs, "--record-unit-inputs");
    for (hw::tofu2::tni* t : m_tnis) {
      if (t) t->record_queues();
    }
  }
  // Every rank's TNIs beyond its own, so a host-progressed fragment f lands on TNI f.
  m_lanes.assign(ranks, {});
  for (uint32_t r = 0; r < ranks; ++r) {
    const network::terminal_id own = m_ctx.place.terminal_of(r);
    for (uint32_t f = 1;; ++f) {
      const network::terminal_id k = tni_terminal(m_ctx.topo, own, f);
      if (k == network::invalid_id || k == own || m_owner[k] != r) break;
      m_lanes[r].push_back(k);
    }
  }
  m_drivers.resize(ranks);
  const auto contexts = static_cast<uint32_t>(prog.context_instance.size());
  for (uint32_t r = 0; r < ranks; ++r) {
    if (requests[r].empty()) continue;
    hw::host& h = *fab.hosts[r];
    m_drivers[r] =
        std::make_unique<hw::tofu2::driver>(h, m_settings.driver, std::move(requests[r]), contexts);
    h.set_offload_agent(m_drivers[r].get());
    // The rank's TNIs, its own first: their queues' notices go to its driver, and its
    // host-progressed sends of fragment f leave from TNI f (op::lane).
    std::vector<hw::nic*> lanes;
    for (const network::terminal_id k : m_lanes[r]) lanes.push_back(m_tnis[k]);
    h.add_lanes(lanes, &m_owner, &m_lanes);
    for (network::terminal_id k = 0; k < m_owner.size(); ++k) {
      if (m_owner[k] == r) m_tnis[k]->set_queue_client(m_drivers[r].get());
    }
  }
}

// One JSON line per queue asked anything (tb/cosim/cq_replay.h), for `bcastsim cosim --block
// tofu2-cq`.
void instance::finish() {
  if (!m_recording) return;
  for (const hw::tofu2::tni* t : m_tnis) {
    if (!t) continue;
    for (uint32_t q = 0; q < t->open_queues(); ++q) {
      if (t->recorded(q).empty()) continue;  // a leaf's queue: nothing asked of it
      cosim::cq_stimulus s;
      s.name = std::string(t->basename()) + ".cq" + std::to_string(q);
      s.mode = t->queue(q).mode();
      s.entries = m_settings.tni.toq_entries;
      s.cycles = t->recorded(q);
      cosim::write_cq_stimulus(m_recording->stream(), s);
    }
  }
  m_recording->commit();  // throws config_error naming the flag
}

// Per collective and repetition. Offload mode, from the ranks' call times (ps -> ns):
//   init_ns        the root's first MPI_Start call - the earliest MPI_Bcast_init call (the
//                  local set-up and the readiness reports; the address exchange precedes it)
//   start_ns       the root's MPI_Start, call to return
//   wait_ns        MPI_Wait, from when the CPU could wait (after overlapped computation) to
//                  its return, averaged over the ranks
//   completion_ns  the root's MPI_Start call -> the last rank's last put in
//   bandwidth_gb_per_s  buffer bytes / completion_ns
// Host mode has no persistent calls: every repetition pays the address exchange and the
// sequence generation again, so init_ns, start_ns and wait_ns are 0 and completion_ns runs
// from the repetition's first send call (its address exchange) to the last rank holding
// every byte. Each collective's means over its repetitions; the section's top-level values
// are the first Tofu2 collective's means.
nlohmann::json instance::report() const {
  nlohmann::json j;
  uint64_t refused = 0;
  uint64_t messages = 0;
  for (const hw::tofu2::tni* t : m_tnis) {
    if (!t) continue;
    refused += t->enqueue_refused.value;
    messages += t->messages_sent.value;
  }
  j["mode"] = m_settings.options.offload ? "offload" : "host";
  j["segments"] = m_settings.options.segments;
  j["messages"] = messages;
  j["enqueue_refused"] = refused;
  nlohmann::json list = m_settings.options.offload ? offload_figures() : host_figures();
  for (nlohmann::json& col : list) {
    double start = 0, wait = 0, completion = 0, bandwidth = 0;
    for (const nlohmann::json& r : col["repetitions"]) {
      start += r["start_ns"].get<double>();
      wait += r["wait_ns"].get<double>();
      completion += r["completion_ns"].get<double>();
      bandwidth += r["bandwidth_gb_per_s"].get<double>();
    }
    const auto n = static_cast<double>(col["repetitions"].size());
    col["start_ns"] = start / n;
    col["wait_ns"] = wait / n;
    col["completion_ns"] = completion / n;
    col["bandwidth_gb_per_s"] = bandwidth / n;
  }
  for (const char* key : {"init_ns", "start_ns", "wait_ns", "completion_ns", "bandwidth_gb_per_s"})
    j[key] = list.empty() ? 0.0 : list.front()[key].get<double>();
  j["collectives"] = list;
  return j;
}

nlohmann::json instance::repetition(double start_ns, double wait_ns, double completion_ns,
                                    uint64_t bytes) {
  return {
      {"start_ns", start_ns},
      {"wait_ns", wait_ns},
      {"completion_ns", completion_ns},
      {"bandwidth_gb_per_s", completion_ns > 0 ? static_cast<double>(bytes) / completion_ns : 0.0}};
}

nlohmann::json instance::offload_figures() const {
  struct sums {
    std::vector<hw::tofu2::call_times> root;  // [repetition]
    uint64_t first_init = UINT64_MAX;
    std::vector<uint64_t> last_in;  // [repetition]
    std::vector<double> wait_sum;   // [repetition]
    uint32_t ranks = 0;
  };
  std::map<uint32_t, sums> by;  // collective -> its sums
  for (const auto& d : m_drivers) {
    if (!d) continue;
    for (size_t q = 0; q < d->requests().size(); ++q) {
      const hw::tofu2::driver_request& req = d->requests()[q];
      sums& s = by[req.collective];
      const size_t n = req.contexts.size();
      s.root.resize(n);
      s.last_in.resize(n, 0);
      s.wait_sum.resize(n, 0);
      ++s.ranks;
      for (size_t k = 0; k < n; ++k) {
        const hw::tofu2::call_times& t = d->times()[q][k];
        if (req.root) s.root[k] = t;
        if (k == 0) s.first_init = std::min(s.first_init, t.init_called);
        s.last_in[k] = std::max(s.last_in[k], t.data_in);
        s.wait_sum[k] += static_cast<double>(t.wait_returned - t.wait_called);
      }
    }
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [c, s] : by) {
    nlohmann::json col;
    col["collective"] = m_ctx.s.collective_keys[c];
    nlohmann::json reps = nlohmann::json::array();
    for (size_t k = 0; k < s.root.size(); ++k) {
      const hw::tofu2::call_times& root = s.root[k];
      reps.push_back(repetition(static_cast<double>(root.start_returned - root.start_called) / 1e3,
                                s.wait_sum[k] / s.ranks / 1e3,
                                static_cast<double>(s.last_in[k] - root.start_called) / 1e3,
                                m_ctx.s.collectives[c].bytes));
    }
    col["init_ns"] = static_cast<double>(s.root.front().start_called - s.first_init) / 1e3;
    col["repetitions"] = reps;
    list.push_back(col);
  }
  return list;
}

nlohmann::json instance::host_figures() const {
  std::map<uint32_t, nlohmann::json> by;  // collective -> its repetitions
  for (size_t i = 0; i < m_ctx.prog.instances.size(); ++i) {
    const algorithms::instance_info& inst = m_ctx.prog.instances[i];
    if (inst.algorithm->offload != "tofu2") continue;
    const hw::instance_progress& ip = m_ctx.progress.instances[i];
    double last = 0;
    for (size_t m = 0; m < inst.ranks.size(); ++m) {
      if (!inst.holds_at_start(m)) last = std::max(last, ip.rank_done[m].to_seconds() * 1e9);
    }
    const double done =
        ip.members_done == inst.ranks.size() && last > 0 ? last - ip.start.to_seconds() * 1e9 : 0.0;
    by[inst.collective].push_back(
        repetition(0, 0, done, m_ctx.s.collectives[inst.collective].bytes));
  }
  nlohmann::json list = nlohmann::json::array();
  for (auto& [c, reps] : by) {
    list.push_back(
        {{"collective", m_ctx.s.collective_keys[c]}, {"init_ns", 0.0}, {"repetitions", reps}});
  }
  return list;
}

std::unique_ptr<offload_instance> create(const offload_context& ctx) {
  return std::make_unique<instance>(ctx);
}

void check(const config& cfg, const scenario& s) {
  read_settings(cfg, s);
}

void summary(const nlohmann::json& r, const summary_row& row) {
  const auto ns = [&r](const char* key) { return format_ns(r[key].get<double>()); };
  if (r["mode"] == "offload") {
    row("tofu2 offload") << "MPI_Bcast_init " << ns("init_ns") << "; per repetition (mean): "
                         << "MPI_Start " << ns("start_ns") << ", MPI_Wait " << ns("wait_ns")
                         << ", start to last put in " << ns("completion_ns") << "\n";
  } else {
    row("tofu2 host") << "per repetition (mean): call to last rank done " << ns("completion_ns")
                      << " (no persistent calls)\n";
  }
  row("tofu2 TNIs") << r["segments"] << " segments per fragment, "
                    << r["bandwidth_gb_per_s"].get<double>() << " GB/s effective, " << r["messages"]
                    << " messages, " << r["enqueue_refused"]
                    << " descriptors refused by a full TOQ\n";
}

std::vector<params::decl> declarations() {
  return {
      params::choice_key("tofu2.mode", "offload", {"offload", "host"},
                         "offload: MPI-4 persistent broadcast, the TNIs' session-mode queues "
                         "forward each segment as it arrives; host: the non-blocking baseline, "
                         "the hosts progress the same plan and build it on every call"),
      params::uint_key("tofu2.segments", 4, 1, algorithms::max_tofu2_segments,
                       "segments per fragment (each a put per tree edge)"),
      params::uint_key(
          "tofu2.toq_entries", 2048, 2048, 2097152,
          "descriptors per TOQ: the hardware's sizes, 2^(2s+11) for s = 0..5 (tof_icc.h)"),
      params::uint_key(
          "tofu2.queues_per_tni", 12, 1, 254,
          "command queues per TNI (TofuD has 12, tof_icc.h; Tofu2's count is not published)"),
      params::uint_key("tofu2.descriptor_ns", 300, 0, 1000000,
                       "TNI: fetching a descriptor and starting its DMA read, per put"),
      params::uint_key("tofu2.receive_ns", 300, 0, 1000000,
                       "TNI: DMA write and notice after a put's last byte, before its SPS"),
      params::real_key("tofu2.call_ns", 200, 0, 1e9, "host: any persistent call's own cost"),
      params::real_key("tofu2.register_ns", 20000, 0, 1e12,
                       "host: registering the buffer with the TNIs (MPI_Bcast_init)"),
      params::real_key("tofu2.build_ns_per_descriptor", 50, 0, 1e9,
                       "host: generating one TOQ descriptor (init; host mode: every call)"),
      params::real_key("tofu2.enqueue_ns_per_descriptor", 100, 0, 1e9,
                       "host: writing one 32-B descriptor into a TOQ"),
      params::real_key("tofu2.poll_ns", 100, 0, 1e9, "host: reading the completion queues"),
  };
}

}  // namespace

offload_family family() {
  offload_family f;
  f.name = "tofu2";
  f.records_unit_inputs = true;
  f.description = "Tofu2 TNIs with session-mode command queues in place of the host NICs";
  f.params = declarations();
  f.check = check;
  f.check_hardware = check_tnis;
  f.hardware_messages = hardware_messages;
  // A TNI cuts every message, the hosts' too, into Tofu frames.
  f.nic_payload_bytes = [](const scenario&) -> uint64_t {
    return hw::tofu2::frame_format{}.max_payload_bytes();
  };
  f.create = create;
  f.summary = summary;
  f.sweep_columns = {"tofu2.init_ns",       "tofu2.start_ns",           "tofu2.wait_ns",
                     "tofu2.completion_ns", "tofu2.bandwidth_gb_per_s", "tofu2.enqueue_refused"};
  return f;
}

}  // namespace bcastsim::tb::tofu2
