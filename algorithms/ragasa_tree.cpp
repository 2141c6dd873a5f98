// Ragasa broadcast tree: steps 1 (other groups), 2 (same group), 3 (same router) in order.
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

void add_router_child(ragasa_tree& t, std::vector<bool>& reached, router_id parent,
                      router_id child) {
  t.children[parent].push_back({child_kind::router, child});
  reached[child] = true;
}

}  // namespace

ragasa_tree make_ragasa_tree(const network::topology& topo, const network::placement& place,
                             uint32_t root_rank) {
  if (root_rank >= place.num_ranks()) {
    throw std::invalid_argument("ragasa tree: root " + std::to_string(root_rank) +
                                " is not below the number of ranks " +
                                std::to_string(place.num_ranks()));
  }
  const uint32_t num_routers = topo.num_routers();
  const uint32_t num_groups = topo.num_groups();

  ragasa_tree t;
  t.root_terminal = place.terminal_of(root_rank);
  t.root_router = topo.router_of(t.root_terminal);
  t.children.assign(num_routers, {});
  const group_id root_group = topo.group_of(t.root_router);

  // Which routers and groups hold ranks of the job.
  std::vector<bool> router_has_rank(num_routers, false);
  std::vector<bool> group_has_rank(num_groups, false);
  for (const terminal_id term : place.terminals()) {
    const router_id r = topo.router_of(term);
    router_has_rank[r] = true;
    group_has_rank[topo.group_of(r)] = true;
  }

  std::vector<bool> reached(num_routers, false);
  reached[t.root_router] = true;
  // The router of each group that received the data in step 1.
  std::vector<router_id> group_entry(num_groups, network::invalid_id);
  group_entry[root_group] = t.root_router;

  // Step 1: priority 1, other groups, through the root group's gateways.
  for (group_id g = 0; g < num_groups; ++g) {
    if (g == root_group || !group_has_rank[g]) continue;
    const auto links = topo.links_between_groups(root_group, g);
    if (links.empty()) {
      throw std::invalid_argument("ragasa tree: groups " + std::to_string(root_group) + " and " +
                                  std::to_string(g) + " are not joined by a global link");
    }
    const router_id gateway = links.front().first;
    const router_id entry = links.front().second;
    if (gateway != t.root_router && !reached[gateway]) {
      add_router_child(t, reached, t.root_router, gateway);
    }
    add_router_child(t, reached, gateway, entry);
    group_entry[g] = entry;
  }

  // Step 2: priority 2, the other routers of each group, from its entry router.
  for (router_id r = 0; r < num_routers; ++r) {
    if (!router_has_rank[r] || reached[r]) continue;
    add_router_child(t, reached, group_entry[topo.group_of(r)], r);
  }

  // Step 3: priority 3, the terminals of every router holding ranks.
  for (router_id r = 0; r < num_routers; ++r) {
    if (!router_has_rank[r]) continue;
    for (const terminal_id term : topo.terminals_of(r)) {
      if (term != t.root_terminal && place.rank_of(term) != network::invalid_id) {
        t.children[r].push_back({child_kind::terminal, term});
      }
    }
  }
  return t;
}

network::link_class link_class_between(const network::topology& topo, router_id from,
                                       router_id to) {
  for (network::port_id p = 0; p < topo.radix(from); ++p) {
    const network::port_info& info = topo.port(from, p);
    if (info.peer_kind == network::port_info::kind::router && info.peer == to) return info.cls;
  }
  throw std::invalid_argument("ragasa tree: routers " + std::to_string(from) + " and " +
                              std::to_string(to) + " of " + topo.describe() +
                              " are not neighbours");
}

}  // namespace bcastsim::algorithms
