#include "algorithms/link_count.h"

#include "algorithms/ragasa_tree.h"
#include "network/dragonfly.h"

#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace bcastsim::algorithms {

namespace {

// The edges of the Ragasa tree rooted at `rank`, each once: the injection, then every child.
void add_tree_links(link_counts& c, const network::topology& topo, const network::placement& place,
                    uint32_t rank) {
  const ragasa_tree t = make_ragasa_tree(topo, place, rank);
  c.terminal += 1;  // the root's terminal hands the data to its router
  for (network::router_id r = 0; r < t.children.size(); ++r) {
    for (const bcast_child& child : t.children[r]) {
      if (child.kind == child_kind::terminal) {
        c.terminal += 1;
      } else if (link_class_between(topo, r, child.id) == network::dragonfly_classes::global) {
        c.global += 1;
      } else {
        c.local += 1;
      }
    }
  }
}

}  // namespace

link_counts count_minimal_links(const schedule& s, const network::topology& topo,
                                const network::placement& place) {
  link_counts c;
  // First link per (source group, destination group), looked up once.
  std::map<std::pair<network::group_id, network::group_id>, network::topology::router_pair>
      first_link;
  for (uint32_t rank = 0; rank < s.num_ranks; ++rank) {
    const network::router_id src = topo.router_of(place.terminal_of(rank));
    const network::group_id src_group = topo.group_of(src);
    for (const op& o : s.ranks[rank].ops) {
      if (o.kind == op_kind::offload_bcast) {
        add_tree_links(c, topo, place, rank);
        continue;
      }
      if (o.kind != op_kind::send) continue;
      const network::router_id dst = topo.router_of(place.terminal_of(o.peer));
      const network::group_id dst_group = topo.group_of(dst);
      c.terminal += 2;
      if (src == dst) continue;
      if (src_group == dst_group) {
        c.local += 1;
        continue;
      }
      auto it = first_link.find({src_group, dst_group});
      if (it == first_link.end()) {
        const auto links = topo.links_between_groups(src_group, dst_group);
        if (links.empty()) {
          throw std::invalid_argument("count_minimal_links: groups " + std::to_string(src_group) +
                                      " and " + std::to_string(dst_group) + " of " +
                                      topo.describe() + " are not joined by a global link");
        }
        it = first_link.emplace(std::make_pair(src_group, dst_group), links.front()).first;
      }
      const network::topology::router_pair gateway = it->second;
      c.global += 1;
      if (gateway.first != src) c.local += 1;
      if (gateway.second != dst) c.local += 1;
    }
  }
  return c;
}

}  // namespace bcastsim::algorithms
