// Ragasa broadcast tree: steps 1 (other groups), 2 (same group), 3 (same router) in order,
// or a pruned breadth-first tree instead of steps 1-2 where those would not be links.
#include "algorithms/ragasa_tree.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace bcastsim::algorithms {

using network::group_id;
using network::router_id;
using network::terminal_id;

bool operator==(const bcast_child& a, const bcast_child& b) {
  return a.kind == b.kind && a.id == b.id;
}

std::vector<router_id> ragasa_tree::participating_routers() const {
  std::vector<router_id> order;
  if (root_router == network::invalid_id) return order;
  order.push_back(root_router);
  for (size_t i = 0; i < order.size(); ++i) {
    for (const bcast_child& c : children[order[i]]) {
      if (c.kind == child_kind::router) order.push_back(c.id);
    }
  }
  return order;
}

uint32_t ragasa_tree::depth() const {
  if (root_router == network::invalid_id) return 0;
  uint32_t deepest = 0;
  std::vector<std::pair<router_id, uint32_t>> frontier{{root_router, 0}};
  while (!frontier.empty()) {
    const auto [r, d] = frontier.back();
    frontier.pop_back();
    for (const bcast_child& c : children[r]) {
      deepest = std::max(deepest, d + 1);
      if (c.kind == child_kind::router) frontier.emplace_back(c.id, d + 1);
    }
  }
  return deepest;
}

namespace {

// Routers and groups holding ranks of the job.
struct job_routers {
  std::vector<bool> router_has_rank;  // [router]
  std::vector<bool> group_has_rank;   // [group]
};

job_routers find_job_routers(const network::topology& topo, const network::placement& place) {
  job_routers job;
  job.router_has_rank.assign(topo.num_routers(), false);
  job.group_has_rank.assign(topo.num_groups(), false);
  for (const terminal_id term : place.terminals()) {
    const router_id r = topo.router_of(term);
    job.router_has_rank[r] = true;
    job.group_has_rank[topo.group_of(r)] = true;
  }
  return job;
}

// The first router port of `from` whose peer is `to`; nullptr when they are not neighbours.
const network::port_info* link_to(const network::topology& topo, router_id from, router_id to) {
  for (network::port_id p = 0; p < topo.radix(from); ++p) {
    const network::port_info& info = topo.port(from, p);
    if (info.peer_kind == network::port_info::kind::router && info.peer == to) return &info;
  }
  return nullptr;
}

void add_router_child(ragasa_tree& t, std::vector<bool>& reached, router_id parent,
                      router_id child) {
  t.children[parent].push_back({child_kind::router, child});
  reached[child] = true;
}

// Steps 1 and 2 of the paper. Returns false, leaving t's edges partial, as soon as one of
// its edges would not be a physical link (never on a dragonfly).
bool add_paper_edges(const network::topology& topo, const job_routers& job, ragasa_tree& t) {
  const group_id root_group = topo.group_of(t.root_router);
  std::vector<bool> reached(topo.num_routers(), false);
  reached[t.root_router] = true;
  // The router of each group that received the data in step 1.
  std::vector<router_id> group_entry(topo.num_groups(), network::invalid_id);
  group_entry[root_group] = t.root_router;

  // Step 1: priority 1, other groups, through the root group's gateways.
  for (group_id g = 0; g < topo.num_groups(); ++g) {
    if (g == root_group || !job.group_has_rank[g]) continue;
    const auto links = topo.links_between_groups(root_group, g);
    if (links.empty()) return false;
    const router_id gateway = links.front().first;
    const router_id entry = links.front().second;
    if (gateway != t.root_router && !reached[gateway]) {
      if (link_to(topo, t.root_router, gateway) == nullptr) return false;
      add_router_child(t, reached, t.root_router, gateway);
    }
    add_router_child(t, reached, gateway, entry);
    group_entry[g] = entry;
  }

  // Step 2: priority 2, the other routers of each group, from its entry router.
  for (router_id r = 0; r < topo.num_routers(); ++r) {
    if (!job.router_has_rank[r] || reached[r]) continue;
    const router_id entry = group_entry[topo.group_of(r)];
    if (link_to(topo, entry, r) == nullptr) return false;
    add_router_child(t, reached, entry, r);
  }
  return true;
}

// Instead of steps 1 and 2 where the paper's edges are not links: a breadth-first spanning
// tree from R0 over router ports in port order, pruned to the routers whose subtree holds a
// rank.
void add_shortest_path_edges(const network::topology& topo, const job_routers& job,
                             ragasa_tree& t) {
  const uint32_t num_routers = topo.num_routers();
  std::vector<router_id> parent(num_routers, network::invalid_id);
  std::vector<router_id> order{t.root_router};  // breadth-first visiting order
  parent[t.root_router] = t.root_router;
  for (size_t i = 0; i < order.size(); ++i) {
    const router_id r = order[i];
    for (network::port_id p = 0; p < topo.radix(r); ++p) {
      const network::port_info& info = topo.port(r, p);
      if (info.peer_kind != network::port_info::kind::router) continue;
      if (parent[info.peer] != network::invalid_id) continue;
      parent[info.peer] = r;
      order.push_back(info.peer);
    }
  }
  for (router_id r = 0; r < num_routers; ++r) {
    if (job.router_has_rank[r] && parent[r] == network::invalid_id) {
      throw std::invalid_argument("ragasa tree: router " + std::to_string(r) + " of " +
                                  topo.describe() + " holds ranks but cannot be reached from " +
                                  "the root's router " + std::to_string(t.root_router));
    }
  }
  // A child follows its parent in `order`, so one backward pass marks every subtree.
  std::vector<bool> keep(num_routers, false);
  for (size_t i = order.size() - 1; i > 0; --i) {
    const router_id r = order[i];
    if (job.router_has_rank[r]) keep[r] = true;
    if (keep[r]) keep[parent[r]] = true;
  }
  // A parent's children were visited consecutively, in its port order.
  for (size_t i = 1; i < order.size(); ++i) {
    if (keep[order[i]]) t.children[parent[order[i]]].push_back({child_kind::router, order[i]});
  }
}

// Step 3: priority 3, the terminals of every router holding ranks.
void add_terminal_edges(const network::topology& topo, const network::placement& place,
                        const job_routers& job, ragasa_tree& t) {
  for (router_id r = 0; r < topo.num_routers(); ++r) {
    if (!job.router_has_rank[r]) continue;
    for (const terminal_id term : topo.terminals_of(r)) {
      if (term != t.root_terminal && place.rank_of(term) != network::invalid_id) {
        t.children[r].push_back({child_kind::terminal, term});
      }
    }
  }
}

}  // namespace

ragasa_tree make_ragasa_tree(const network::topology& topo, const network::placement& place,
                             uint32_t root_rank) {
  if (root_rank >= place.num_ranks()) {
    throw std::invalid_argument("ragasa tree: root " + std::to_string(root_rank) +
                                " is not below the number of ranks " +
                                std::to_string(place.num_ranks()));
  }
  ragasa_tree t;
  t.root_terminal = place.terminal_of(root_rank);
  t.root_router = topo.router_of(t.root_terminal);
  t.children.assign(topo.num_routers(), {});
  const job_routers job = find_job_routers(topo, place);
  if (!add_paper_edges(topo, job, t)) {
    t.rule = tree_rule::shortest_path;
    t.children.assign(topo.num_routers(), {});
    add_shortest_path_edges(topo, job, t);
  }
  add_terminal_edges(topo, place, job, t);
  return t;
}

namespace {

// Builds ragasa_relays from the unit tree `t` (see ragasa_tree.h).
class relay_builder {
 public:
  relay_builder(const network::topology& topo, const network::placement& place,
                const ragasa_tree& t)
      : m_topo(topo), m_place(place), m_tree(t), m_job(find_job_routers(topo, place)) {
    m_r.root_terminal = t.root_terminal;
    m_r.root_router = t.root_router;
    m_r.relay.assign(topo.num_routers(), network::invalid_id);
    m_r.children.assign(topo.num_routers(), {});
    m_r.parent.assign(topo.num_terminals(), network::invalid_id);
    m_r.relay[t.root_router] = t.root_terminal;
  }

  ragasa_relays build() {
    if (m_tree.rule == tree_rule::paper) {
      add_paper_levels();
    } else {
      add_nearest_levels();
    }
    // The last level: every relay's unit to the other ranks on its router.
    for (router_id r = 0; r < m_topo.num_routers(); ++r) {
      if (m_r.relay[r] == network::invalid_id) continue;
      for (const terminal_id t : m_topo.terminals_of(r)) {
        if (t != m_r.relay[r] && m_place.rank_of(t) != network::invalid_id) send(r, t);
      }
    }
    return std::move(m_r);
  }

 private:
  // The first rank's terminal on router r (port order); r holds ranks.
  terminal_id node_of(router_id r) const {
    for (const terminal_id t : m_topo.terminals_of(r)) {
      if (m_place.rank_of(t) != network::invalid_id) return t;
    }
    return network::invalid_id;
  }

  // Router `from`'s unit sends to terminal `to`; a node on another router relays there.
  void send(router_id from, terminal_id to) {
    m_r.children[from].push_back(to);
    m_r.parent[to] = m_r.relay[from];
    const router_id r = m_topo.router_of(to);
    if (m_r.relay[r] == network::invalid_id) m_r.relay[r] = to;
  }

  void add_paper_levels() {
    const router_id r0 = m_tree.root_router;
    const group_id g0 = m_topo.group_of(r0);
    std::vector<router_id> group_router(m_topo.num_groups(), network::invalid_id);
    group_router[g0] = r0;
    // Level 1: a node in every other group, on the router the unit tree enters it by.
    for (group_id g = 0; g < m_topo.num_groups(); ++g) {
      if (g == g0 || !m_job.group_has_rank[g]) continue;
      router_id r = m_topo.links_between_groups(g0, g).front().second;  // paper tree: exists
      if (!m_job.router_has_rank[r]) {
        for (r = 0; m_topo.group_of(r) != g || !m_job.router_has_rank[r]; ++r) {
        }
      }
      group_router[g] = r;
      send(r0, node_of(r));
    }
    // Level 2: from each group's node, a node on every other router of the group.
    for (router_id r = 0; r < m_topo.num_routers(); ++r) {
      const router_id from = group_router[m_topo.group_of(r)];
      if (m_job.router_has_rank[r] && r != from) send(from, node_of(r));
    }
  }

  // Breadth-first tree: each relay sends to the nodes of the nearest routers holding ranks
  // below its router; routers holding none only pass the data on.
  void add_nearest_levels() {
    for (const router_id r : m_tree.participating_routers()) {
      if (m_r.relay[r] == network::invalid_id) continue;  // passes data on, holds no rank
      std::vector<router_id> below{r};
      for (size_t i = 0; i < below.size(); ++i) {
        for (const bcast_child& c : m_tree.children[below[i]]) {
          if (c.kind != child_kind::router) continue;
          if (m_job.router_has_rank[c.id]) {
            send(r, node_of(c.id));
          } else {
            below.push_back(c.id);
          }
        }
      }
    }
  }

  const network::topology& m_topo;
  const network::placement& m_place;
  const ragasa_tree& m_tree;
  const job_routers m_job;
  ragasa_relays m_r;
};

}  // namespace

std::vector<router_id> ragasa_relays::participating_routers() const {
  std::vector<router_id> out;
  if (root_router == network::invalid_id) return out;
  out.push_back(root_router);
  for (router_id r = 0; r < children.size(); ++r) {
    if (r != root_router && !children[r].empty()) out.push_back(r);
  }
  return out;
}

ragasa_relays make_ragasa_relays(const network::topology& topo, const network::placement& place,
                                 uint32_t root_rank) {
  const ragasa_tree t = make_ragasa_tree(topo, place, root_rank);
  return relay_builder(topo, place, t).build();
}

network::link_class link_class_between(const network::topology& topo, router_id from,
                                       router_id to) {
  if (const network::port_info* info = link_to(topo, from, to)) return info->cls;
  throw std::invalid_argument("ragasa tree: routers " + std::to_string(from) + " and " +
                              std::to_string(to) + " of " + topo.describe() +
                              " are not neighbours");
}

}  // namespace bcastsim::algorithms
