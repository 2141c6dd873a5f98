// Code flow: make_scenario -> make_plan (as run) -> link_model executes the schedule as a
// discrete-event loop in link units; each send walks its route once (walk_route) for its
// duration and its link counts -> analyze.json.
#include "tb/analyze.h"

#include "tb/plan.h"
#include "tb/simulation.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <queue>
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
  std::array<uint64_t, network::num_link_classes> messages{};
  std::array<uint64_t, network::num_link_classes> packets{};
  uint64_t routers = 0;  // summed over messages
  uint64_t sends = 0;
  uint64_t makespan = 0;
};

// The schedule executed in link units (see analyze.h). Events at one time are handled
// completions first, then sender dispatch, so a free sender picks among every send ready at
// that time the one first in program order.
class link_model {
 public:
  link_model(const plan& p, uint32_t packet_bytes, uint64_t seed)
      : m_p(p), m_packet_bytes(packet_bytes), m_seed(seed) {}

  totals run() {
    index_ops();
    for (uint32_t r = 0; r < m_p.sched.num_ranks; ++r) {
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
  enum class event_kind : uint8_t { complete = 0, dispatch = 1 };
  struct event {
    uint64_t time;
    event_kind kind;
    uint64_t seq;  // insertion order: ties resolve deterministically
    uint32_t rank;
    uint32_t index;  // op index in the rank's program
    bool operator>(const event& o) const {
      if (time != o.time) return time > o.time;
      if (kind != o.kind) return kind > o.kind;
      return seq > o.seq;
    }
  };
  // MPI matching: (source, destination, tag), in order.
  struct channel_key {
    uint32_t src, dst, tag;
    bool operator==(const channel_key& o) const {
      return src == o.src && dst == o.dst && tag == o.tag;
    }
  };
  struct channel_hash {
    size_t operator()(const channel_key& k) const {
      uint64_t h =
          (uint64_t{k.src} << 32 | k.dst) ^ (static_cast<uint64_t>(k.tag) * 0x9e3779b97f4a7c15ull);
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

  const std::vector<op>& ops(uint32_t rank) const { return m_p.sched.ranks[rank].ops; }
  size_t id(uint32_t rank, uint32_t index) const { return m_base[rank] + index; }
  channel& chan(uint32_t src, uint32_t dst, uint32_t tag) { return m_channels[{src, dst, tag}]; }

  void index_ops() {
    const auto& ranks = m_p.sched.ranks;
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

  void push(uint64_t time, event_kind kind, uint32_t rank, uint32_t index) {
    m_events.push(event{time, kind, m_seq++, rank, index});
  }

  // Every dep of the op is done at time t.
  void release(uint32_t rank, uint32_t index, uint64_t t) {
    const op& o = ops(rank)[index];
    if (o.kind == op_kind::send) {
      m_ranks[rank].ready_sends.push(index);
      push(t, event_kind::dispatch, rank, 0);
    } else if (o.kind == op_kind::recv) {
      channel& c = chan(o.peer, rank, o.tag);
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
    const network::terminal_id src = m_p.place->terminal_of(rank);
    const route_walk w = walk_route(*m_p.routing, src, m_p.place->terminal_of(o.peer),
                                    network::packet_entropy(m_seed, src, rs.packets_injected));
    const uint64_t packets = o.bytes == 0 ? 1 : (o.bytes + m_packet_bytes - 1) / m_packet_bytes;
    rs.packets_injected += packets;
    for (int k = 0; k < network::num_link_classes; ++k) {
      m_totals.messages[k] += w.links[k];
      m_totals.packets[k] += w.links[k] * packets;
    }
    m_totals.routers += w.routers;
    ++m_totals.sends;
    push(t + w.total_links(), event_kind::complete, rank, index);
  }

  void complete(uint32_t rank, uint32_t index, uint64_t t) {
    const op& o = ops(rank)[index];
    if (o.kind == op_kind::send) {
      // Delivered: the sender is free, the message is available to its receiver.
      m_ranks[rank].sending = false;
      push(t, event_kind::dispatch, rank, 0);
      channel& c = chan(rank, o.peer, o.tag);
      if (c.head < c.waiting_recvs.size()) {
        push(t, event_kind::complete, o.peer, c.waiting_recvs[c.head++]);
      } else {
        ++c.unmatched_messages;
      }
    } else if (o.kind == op_kind::recv) {
      m_totals.makespan = std::max(m_totals.makespan, t);
    }
    const size_t me = id(rank, index);
    for (size_t k = m_dependents_begin[me]; k < m_dependents_begin[me + 1]; ++k) {
      const uint32_t d = m_dependents[k];
      if (--m_remaining_deps[id(rank, d)] == 0) release(rank, d, t);
    }
  }

  const plan& m_p;
  uint64_t m_packet_bytes;
  uint64_t m_seed;                         // the run seed, as the NICs use it for routing entropy
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

}  // namespace

route_walk walk_route(const network::routing_policy& routing, network::terminal_id src,
                      network::terminal_id dst, uint64_t entropy) {
  static const idle_network idle;
  const network::topology& topo = routing.topo();
  route_walk w;
  w.links[static_cast<int>(network::link_class::terminal)] = 1;  // injection
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
      ++w.links[static_cast<int>(network::link_class::terminal)];  // ejection
      return w;
    }
    if (port.peer_kind != network::port_info::kind::router) {
      throw simulation_failure(routing.name() + " routing from terminal " + std::to_string(src) +
                               " to " + std::to_string(dst) + " left router " + std::to_string(at) +
                               " by port " + std::to_string(d.port) +
                               ", which does not lead to the destination");
    }
    ++w.links[static_cast<int>(port.cls)];
    at = port.peer;
  }
}

nlohmann::json analyze_scenario(const config& cfg) {
  const auto wall_start = std::chrono::steady_clock::now();
  const scenario s = make_scenario(cfg);
  const plan p = make_plan(s);
  const totals t = link_model(p, s.nic.packet_bytes, s.nic.seed).run();

  nlohmann::json r;
  r["schema"] = analyze_schema;
  r["seed"] = s.seed;
  config effective = cfg;  // derived defaults resolved, as run_scenario reports them
  effective.set("topology.g", std::to_string(p.topo->g()));
  effective.set("job.ranks", std::to_string(p.place->num_ranks()));
  effective.set("job.seed", std::to_string(s.job.seed));
  r["config"] = config_to_json(effective);
  r["topology"] = p.topo->describe();
  r["collective"] = {{"algorithm", s.algorithm}, {"ranks", p.place->num_ranks()},
                     {"root", s.root},           {"bytes", s.bytes},
                     {"messages", p.messages},   {"makespan_links", t.makespan}};
  for (int k = 0; k < network::num_link_classes; ++k) {
    r["traversals"][network::to_string(static_cast<network::link_class>(k))] = {
        {"packets", t.packets[k]}, {"messages", t.messages[k]}};
  }
  r["hops_avg"] = t.sends ? static_cast<double>(t.routers) / static_cast<double>(t.sends) : 0.0;
  r["perf"] = {
      {"wall_s",
       std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count()}};
  return r;
}

}  // namespace bcastsim::tb
