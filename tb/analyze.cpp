// Code flow: make_scenario -> make_plan (as run) -> link_model executes the schedule as a
// discrete-event loop in link units; each send walks its route once (walk_route) for its
// duration and its link counts, each offload_bcast walks its offload family's
// replication tree once (Ragasa's: make_ragasa_tree) -> analyze.json.
#include "tb/analyze.h"

#include "algorithms/ragasa_tree.h"
#include "tb/format.h"
#include "tb/offload_family.h"
#include "tb/plan.h"
#include "tb/simulation.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace bcastsim::tb {

namespace {

using algorithms::op;
using algorithms::op_kind;

// An empty network: every output port is idle (what an adaptive policy would see).
class idle_network final : public network::port_occupancy_view {
 public:
  uint32_t output_occupancy_bytes(network::port_id) const override { return 0; }
};

struct totals {
  std::array<uint64_t, network::max_link_classes> messages{};
  std::array<uint64_t, network::max_link_classes> packets{};
  uint64_t routers = 0;     // summed over delivered messages
  uint64_t deliveries = 0;  // messages delivered: one per send, one per offload receiver
  uint64_t makespan = 0;
};

// The schedule executed in link units (see analyze.h). Events at one time are handled
// completions and offload deliveries first, then sender dispatch, so a free sender picks
// among every send (or offload_bcast) ready at that time the one first in program order.
class link_model {
 public:
  // `family`: the offload family of the schedule's offload_bcast ops, if it has any.
  // `packet_times`: a send, and an offload receiver's copy, lasts as many units as the
  // message has packets instead of its links: the makespan counts the longest chain of
  // packet injections, each through one terminal link at a time.
  link_model(const scenario& s, const plan& p, const offload_family* family, uint32_t packet_bytes,
             uint64_t seed, bool packet_times = false)
      : m_s(s),
        m_p(p),
        m_family(family),
        m_packet_bytes(packet_bytes),
        m_seed(seed),
        m_packet_times(packet_times) {}

  totals run() {
    index_ops();
    for (uint32_t r = 0; r < m_p.prog.sched.num_ranks; ++r) {
      for (uint32_t i = 0; i < ops(r).size(); ++i) {
        if (m_remaining_deps[id(r, i)] == 0) release(r, i, 0);
      }
    }
    uint64_t completed = 0;
    while (!m_events.empty()) {
      const event e = m_events.top();
      m_events.pop();
      if (e.kind == event_kind::dispatch) {
        dispatch(e.rank, e.time);
      } else if (e.kind == event_kind::deliver) {
        const op& o = ops(e.from)[e.index];
        deliver(e.from, e.rank, o, e.time);
      } else {
        complete(e.rank, e.index, e.time);
        ++completed;
      }
    }
    if (completed != m_remaining_deps.size()) {
      throw simulation_failure("analyze: " + std::to_string(m_remaining_deps.size() - completed) +
                               " schedule ops never completed in the link model");
    }
    return m_totals;
  }

 private:
  // deliver: an offload_bcast's message reaches one receiver (rank), from op `index` of
  // rank `from`.
  enum class event_kind : uint8_t { complete = 0, deliver = 1, dispatch = 2 };
  struct event {
    uint64_t time;
    event_kind kind;
    uint64_t seq;  // insertion order: ties resolve deterministically
    uint32_t rank;
    uint32_t index;  // op index in the rank's program (deliver: in the sender's)
    uint32_t from;   // deliver only: the offloading rank
    bool operator>(const event& o) const {
      if (time != o.time) return time > o.time;
      if (kind != o.kind) return kind > o.kind;
      return seq > o.seq;
    }
  };
  // MPI matching: (source, destination, context, tag), in order.
  struct channel_key {
    uint32_t src, dst, context, tag;
    bool operator==(const channel_key& o) const {
      return src == o.src && dst == o.dst && context == o.context && tag == o.tag;
    }
  };
  struct channel_hash {
    size_t operator()(const channel_key& k) const {
      uint64_t h = (uint64_t{k.src} << 32 | k.dst) ^
                   ((uint64_t{k.context} << 32 | k.tag) * 0x9e3779b97f4a7c15ull);
      h ^= h >> 31;
      h *= 0xbf58476d1ce4e5b9ull;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };

  struct channel {
    uint64_t unmatched_messages = 0;      // delivered, no recv posted yet
    std::vector<uint32_t> waiting_recvs;  // posted, in post order (FIFO from head)
    size_t head = 0;
  };
  struct rank_state {
    bool sending = false;
    uint64_t packets_injected = 0;  // the NIC's entropy counter
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> ready_sends;
  };

  const std::vector<op>& ops(uint32_t rank) const { return m_p.prog.sched.ranks[rank].ops; }
  size_t id(uint32_t rank, uint32_t index) const { return m_base[rank] + index; }
  channel& chan(uint32_t src, uint32_t dst, const op& o) {
    return m_channels[{src, dst, o.context, o.tag}];
  }

  void index_ops() {
    const auto& ranks = m_p.prog.sched.ranks;
    m_base.assign(ranks.size() + 1, 0);
    for (size_t r = 0; r < ranks.size(); ++r) m_base[r + 1] = m_base[r] + ranks[r].ops.size();
    const size_t n = m_base.back();
    m_remaining_deps.assign(n, 0);
    m_dependents_begin.assign(n + 1, 0);
    for (uint32_t r = 0; r < ranks.size(); ++r) {
      for (uint32_t i = 0; i < ops(r).size(); ++i) {
        m_remaining_deps[id(r, i)] = static_cast<uint32_t>(ops(r)[i].deps.size());
        for (uint32_t d : ops(r)[i].deps) ++m_dependents_begin[id(r, d) + 1];
      }
    }
    for (size_t k = 0; k < n; ++k) m_dependents_begin[k + 1] += m_dependents_begin[k];
    m_dependents.resize(m_dependents_begin[n]);
    std::vector<size_t> fill(m_dependents_begin.begin(), m_dependents_begin.end() - 1);
    for (uint32_t r = 0; r < ranks.size(); ++r) {
      for (uint32_t i = 0; i < ops(r).size(); ++i) {
        for (uint32_t d : ops(r)[i].deps) m_dependents[fill[id(r, d)]++] = i;
      }
    }
    m_ranks.resize(ranks.size());
  }

  void push(uint64_t time, event_kind kind, uint32_t rank, uint32_t index, uint32_t from = 0) {
    m_events.push(event{time, kind, m_seq++, rank, index, from});
  }

  // Every dep of the op is done at time t.
  void release(uint32_t rank, uint32_t index, uint64_t t) {
    const op& o = ops(rank)[index];
    if (o.kind == op_kind::send || o.kind == op_kind::offload_bcast) {
      m_ranks[rank].ready_sends.push(index);
      push(t, event_kind::dispatch, rank, 0);
    } else if (o.kind == op_kind::recv) {
      channel& c = chan(o.peer, rank, o);
      if (c.unmatched_messages > 0) {
        --c.unmatched_messages;
        push(t, event_kind::complete, rank, index);
      } else {
        c.waiting_recvs.push_back(index);
      }
    } else {
      push(t, event_kind::complete, rank, index);
    }
  }

  void dispatch(uint32_t rank, uint64_t t) {
    rank_state& rs = m_ranks[rank];
    if (rs.sending || rs.ready_sends.empty()) return;
    const uint32_t index = rs.ready_sends.top();
    rs.ready_sends.pop();
    rs.sending = true;
    const op& o = ops(rank)[index];
    if (o.kind == op_kind::offload_bcast) {
      offload(rank, index, t);
      return;
    }
    const uint64_t packets = o.bytes == 0 ? 1 : (o.bytes + m_packet_bytes - 1) / m_packet_bytes;
    if (m_packet_times) {  // no route to walk: only the sender's injection counts
      push(t + packets, event_kind::complete, rank, index);
      return;
    }
    const network::terminal_id src = m_p.place->terminal_of(rank);
    const route_walk w = walk_route(*m_p.routing, src, m_p.place->terminal_of(o.peer),
                                    network::packet_entropy(m_seed, src, rs.packets_injected));
    rs.packets_injected += packets;
    for (uint32_t k = 0; k < network::max_link_classes; ++k) {
      m_totals.messages[k] += w.links[k];
      m_totals.packets[k] += w.links[k] * packets;
    }
    m_totals.routers += w.routers;
    ++m_totals.deliveries;
    push(t + w.total_links(), event_kind::complete, rank, index);
  }

  // Starts offload_bcast `index` of `rank` at t: the root's terminal injects the data once,
  // the routers replicate it along the Ragasa tree, each edge carrying it once. A receiver
  // has it after the links of its tree path; the sender is busy until the last delivery.
  void offload(uint32_t rank, uint32_t index, uint64_t t) {
    rank_state& rs = m_ranks[rank];
    const op& o = ops(rank)[index];
    if (!m_family || !m_family->replication_tree) {
      throw simulation_failure(
          std::string("analyze: offload_bcast: ") +
          (m_family ? "offload family '" + m_family->name + "' gives analyze no replication tree"
                    : std::string("the algorithm names no offload family")));
    }
    algorithms::ragasa_tree tree;
    try {
      tree = replication_tree(rank, o.context);
    } catch (const std::invalid_argument& e) {
      throw simulation_failure(std::string("analyze: offload_bcast: ") + e.what());
    }
    const uint64_t packets = o.bytes == 0 ? 1 : (o.bytes + m_packet_bytes - 1) / m_packet_bytes;
    rs.packets_injected += packets;
    auto add_edge = [&](network::link_class cls) {
      m_totals.messages[cls] += 1;
      m_totals.packets[cls] += packets;
    };
    add_edge(network::terminal_class);  // injection
    uint64_t last = t + 1;
    // Depth-first from the root router: (router, links from the root's terminal, routers).
    struct visit {
      network::router_id router;
      uint32_t links;
      uint32_t routers;
    };
    std::vector<visit> stack{{tree.root_router, 1, 1}};
    while (!stack.empty()) {
      const visit v = stack.back();
      stack.pop_back();
      for (const algorithms::bcast_child& c : tree.children[v.router]) {
        if (c.kind == algorithms::child_kind::router) {
          add_edge(algorithms::link_class_between(*m_p.topo, v.router, c.id));
          stack.push_back({c.id, v.links + 1, v.routers + 1});
          continue;
        }
        uint32_t links = 1, routers = 0;  // an attached terminal: its ejection link
        if (m_p.topo->router_of(c.id) != v.router) {
          // Routed from the unit's router: the route from the sender's terminal, less its
          // injection (already counted) and the router it starts at.
          const route_walk w = walk_route(
              *m_p.routing, tree.root_terminal, c.id,
              network::packet_entropy(m_seed, tree.root_terminal, rs.packets_injected++));
          for (uint32_t k = 0; k < network::max_link_classes; ++k) {
            const uint64_t n = w.links[k] - (k == network::terminal_class ? 1 : 0);
            m_totals.messages[k] += n;
            m_totals.packets[k] += n * packets;
          }
          links = w.total_links() - 1;
          routers = w.routers - 1;
        } else {
          add_edge(network::terminal_class);  // ejection
        }
        const uint32_t dst = m_p.place->rank_of(c.id);
        const uint64_t at = m_packet_times ? t + packets : t + v.links + links;
        m_totals.routers += v.routers + routers;
        ++m_totals.deliveries;
        last = std::max(last, at);
        push(at, event_kind::deliver, dst, index, rank);
      }
    }
    push(last, event_kind::complete, rank, index);
  }

  // The family's tree for the offload of job rank `rank` in `context`: over the context's
  // communicator, rooted at its root.
  algorithms::ragasa_tree replication_tree(uint32_t rank, uint32_t context) {
    const algorithms::instance_info& inst = m_p.prog.instances[m_p.prog.context_instance[context]];
    std::vector<network::terminal_id> terminals;
    uint32_t sender = 0;
    for (uint32_t m = 0; m < inst.ranks.size(); ++m) {
      terminals.push_back(m_p.place->terminal_of(inst.ranks[m]));
      if (inst.ranks[m] == rank) sender = m;
    }
    uint32_t root = context - inst.first_context;  // roots = all: one context per member
    if (!inst.all_roots) {
      root = static_cast<uint32_t>(std::find(inst.ranks.begin(), inst.ranks.end(), inst.root) -
                                   inst.ranks.begin());
    }
    const network::placement sub(*m_p.topo, std::move(terminals));
    algorithms::ragasa_tree t = m_family->replication_tree(m_s, *m_p.topo, sub, root, sender);
    return t;
  }

  // A message from `src` with `tag` is available to `dst` at t: it completes the first
  // waiting recv of the channel, or waits for one.
  void deliver(uint32_t src, uint32_t dst, const op& o, uint64_t t) {
    channel& c = chan(src, dst, o);
    if (c.head < c.waiting_recvs.size()) {
      push(t, event_kind::complete, dst, c.waiting_recvs[c.head++]);
    } else {
      ++c.unmatched_messages;
    }
  }

  void complete(uint32_t rank, uint32_t index, uint64_t t) {
    const op& o = ops(rank)[index];
    if (o.kind == op_kind::send) {
      // Delivered: the sender is free, the message is available to its receiver.
      m_ranks[rank].sending = false;
      push(t, event_kind::dispatch, rank, 0);
      deliver(rank, o.peer, o, t);
    } else if (o.kind == op_kind::offload_bcast) {
      // Every receiver has it (deliver events): the sender is free.
      m_ranks[rank].sending = false;
      push(t, event_kind::dispatch, rank, 0);
    } else if (o.kind == op_kind::recv) {
      m_totals.makespan = std::max(m_totals.makespan, t);
    }
    const size_t me = id(rank, index);
    for (size_t k = m_dependents_begin[me]; k < m_dependents_begin[me + 1]; ++k) {
      const uint32_t d = m_dependents[k];
      if (--m_remaining_deps[id(rank, d)] == 0) release(rank, d, t);
    }
  }

  const scenario& m_s;
  const plan& m_p;
  const offload_family* m_family;
  uint64_t m_packet_bytes;
  uint64_t m_seed;                         // the run seed, as the NICs use it for routing entropy
  bool m_packet_times;                     // a send lasts its packets, whatever its links
  std::vector<size_t> m_base;              // [rank] first flat op id
  std::vector<uint32_t> m_remaining_deps;  // [op id]
  std::vector<size_t> m_dependents_begin;  // [op id] CSR into m_dependents
  std::vector<uint32_t> m_dependents;      // op indices (same rank)
  std::vector<rank_state> m_ranks;
  std::unordered_map<channel_key, channel, channel_hash> m_channels;
  std::priority_queue<event, std::vector<event>, std::greater<event>> m_events;
  uint64_t m_seq = 0;
  totals m_totals;
};

// The busiest sender: a rank posting k point-to-point sends holds its injection link for
// all k of them, whatever the routing (the lowest such rank when several tie; offloads are
// not counted).
struct busiest {
  uint64_t sends = 0;
  uint32_t rank = 0;
};

busiest busiest_sender(const algorithms::schedule& sched) {
  busiest b;
  for (uint32_t rank = 0; rank < sched.num_ranks; ++rank) {
    const std::vector<op>& ops = sched.ranks[rank].ops;
    const auto sends = static_cast<uint64_t>(
        std::count_if(ops.begin(), ops.end(), [](const op& o) { return o.kind == op_kind::send; }));
    if (sends > b.sends) b = {sends, rank};
  }
  return b;
}

}  // namespace

route_walk walk_route(const network::routing_policy& routing, network::terminal_id src,
                      network::terminal_id dst, uint64_t entropy) {
  static const idle_network idle;
  const network::topology& topo = routing.topo();
  route_walk w;
  w.links[network::terminal_class] = 1;  // injection
  network::route_state state;
  routing.init_state(src, dst, entropy, state);
  network::router_id at = topo.router_of(src);
  for (;;) {
    if (++w.routers > topo.num_routers()) {
      throw simulation_failure(routing.name() + " routing from terminal " + std::to_string(src) +
                               " to " + std::to_string(dst) + " loops");
    }
    const network::route_decision d = routing.route(at, dst, state, &idle);
    const network::port_info& port = topo.port(at, d.port);
    if (port.peer_kind == network::port_info::kind::terminal && port.peer == dst) {
      ++w.links[network::terminal_class];  // ejection
      return w;
    }
    if (port.peer_kind != network::port_info::kind::router) {
      throw simulation_failure(routing.name() + " routing from terminal " + std::to_string(src) +
                               " to " + std::to_string(dst) + " left router " + std::to_string(at) +
                               " by port " + std::to_string(d.port) +
                               ", which does not lead to the destination");
    }
    ++w.links[port.cls];
    at = port.peer;
  }
}

namespace {

// Adds the messages the family's hardware sends by itself to `t` (each routed as a send);
// returns how many there were.
uint64_t add_hardware_messages(const scenario& s, const plan& p, const offload_family& family,
                               totals& t) {
  uint64_t count = 0;
  hardware_sink sink;
  sink.between_terminals = [&](network::terminal_id src, network::terminal_id dst,
                               uint64_t packets) {
    const route_walk w = walk_route(*p.routing, src, dst);
    for (uint32_t k = 0; k < network::max_link_classes; ++k) {
      t.messages[k] += w.links[k];
      t.packets[k] += w.links[k] * packets;
    }
    t.routers += w.routers;
    ++t.deliveries;
    ++count;
  };
  sink.between_routers = [&](network::router_id from, network::router_id to, uint64_t packets) {
    const network::link_class cls = algorithms::link_class_between(*p.topo, from, to);
    t.messages[cls] += packets;
    t.packets[cls] += packets;
    count += packets;
  };
  family.hardware_messages(s, *p.topo, *p.place, p.prog, sink);
  return count;
}

}  // namespace

nlohmann::json analyze_scenario(const config& cfg) {
  const auto wall_start = std::chrono::steady_clock::now();
  scenario s = make_scenario(cfg);
  const plan p = make_plan(s);
  const offload_family* family = family_of_scenario(s);
  // What `run` refuses when it builds the family's hardware, analyze refuses alike.
  if (family && family->check_hardware) family->check_hardware(s, *p.topo, *p.place, p.prog);
  // A packet carries what the NICs of the run put in one (a family's may carry more).
  const uint64_t payload =
      family && family->nic_payload_bytes ? family->nic_payload_bytes(s) : s.nic.packet_bytes;
  totals t = link_model(s, p, family, payload, s.nic.seed).run();
  const uint64_t packet_chain = link_model(s, p, family, payload, s.nic.seed, true).run().makespan;
  const uint64_t hardware =
      family && family->hardware_messages ? add_hardware_messages(s, p, *family, t) : 0;

  nlohmann::json r;
  r["schema"] = analyze_schema;
  r["seed"] = s.seed;
  config effective = s.cfg;  // derived defaults resolved, as run_scenario reports them
  for (const auto& [key, value] : p.topo->effective_params()) effective.set(key, value);
  effective.set("job.ranks", std::to_string(p.place->num_ranks()));
  effective.set("job.seed", std::to_string(s.job.seed));
  r["config"] = config_to_json(effective);
  r["topology"] = p.topo->describe();
  r["job"] = {{"terminals_fnv1a", hex64(p.place->terminals_fnv1a())}};  // as result.json
  const busiest b = busiest_sender(p.prog.sched);
  r["collective"] = {{"algorithm", s.algorithm},
                     {"ranks", p.place->num_ranks()},
                     {"root", s.root},
                     {"bytes", s.bytes},
                     {"messages", p.prog.messages},
                     {"makespan_links", t.makespan},
                     {"makespan_packets", packet_chain},
                     {"sends_max", b.sends},
                     {"sends_max_rank", b.rank},
                     {"collectives", p.prog.instances.size()}};
  if (hardware > 0) {
    // The hardware's own messages are counted, not timed: no makespan stands for the run.
    r["collective"]["makespan_links"] = nullptr;
    r["collective"]["makespan_packets"] = nullptr;
    r["collective"]["makespan_not_modelled"] = "analyze counts the " + std::to_string(hardware) +
                                               " messages " + family->name +
                                               "'s hardware sends by itself but does not time them";
  }
  for (network::link_class k = 0; k < p.topo->num_link_classes(); ++k) {
    r["traversals"][p.topo->class_name(k)] = {{"packets", t.packets[k]},
                                              {"messages", t.messages[k]}};
  }
  if (family && family->analyze) {
    nlohmann::json own = family->analyze(s, *p.topo, *p.place, p.prog);
    if (!own.empty()) r[family->name] = std::move(own);
  }
  r["hops_avg"] =
      t.deliveries ? static_cast<double>(t.routers) / static_cast<double>(t.deliveries) : 0.0;
  r["perf"] = {
      {"wall_s",
       std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count()}};
  return r;
}

}  // namespace bcastsim::tb
