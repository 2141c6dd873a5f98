// GLF, LLF and FOREST as in CODES codes-col-br src/cortex/dfly_bcast.cpp (FACTS §2).
//
// Deviation from the original, deliberately: dfly_bcast() reorders ranks with
// ranks[i] = (i - root) % nprocs, whose element 0 is -root (C remainder) and so is the root
// only when root == 0; the algorithms then treat ranks[0] as the root. We use
// ranks[i] = (i + root) mod n, which is identical for root 0 and makes ranks[0] the requested
// root for every other root (MPICH's relative-rank convention).
#include "algorithms/topology_aware.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace bcastsim::algorithms {

namespace {

using network::group_id;
using network::router_id;
using rank_vector = std::vector<uint32_t>;
using router_map = std::map<router_id, rank_vector>;  // used router -> ranks on it
using group_map = std::map<group_id, router_map>;     // used group -> its routers

struct root_info {
  uint32_t rank = 0;
  router_id router = 0;
  group_id group = 0;
};

// The job as the CODES algorithms see it: the topology map and the root's placement.
struct job_view {
  const network::topology* topo = nullptr;
  const network::placement* place = nullptr;
  group_map groups;
  root_info root;
};

router_id router_of_rank(const job_view& v, uint32_t rank) {
  return v.topo->router_of(v.place->terminal_of(rank));
}

group_id group_of_rank(const job_view& v, uint32_t rank) {
  return v.topo->group_of(router_of_rank(v, rank));
}

// Checks the request and builds the topology map (dfly_build_topology) from the ranks in
// relative order (root, root + 1, ..., root - 1).
job_view make_view(const collective_request& req, const std::string& name) {
  const std::string key = "collective.algorithm = '" + name + "'";
  if (req.topo == nullptr || req.place == nullptr) {
    throw std::invalid_argument(key + " needs the topology and the placement of the job");
  }
  if (req.place->num_ranks() != req.num_ranks) {
    throw std::invalid_argument(key + ": the request has " + std::to_string(req.num_ranks) +
                                " ranks but the placement " +
                                std::to_string(req.place->num_ranks()));
  }
  if (req.num_ranks > 0 && req.root >= req.num_ranks) {
    throw std::invalid_argument(key + ": root " + std::to_string(req.root) +
                                " is not below the number of ranks " +
                                std::to_string(req.num_ranks));
  }
  job_view v;
  v.topo = req.topo;
  v.place = req.place;
  const uint64_t n = req.num_ranks;
  for (uint64_t i = 0; i < n; ++i) {
    const auto rank = static_cast<uint32_t>((i + req.root) % n);
    const router_id r = router_of_rank(v, rank);
    v.groups[v.topo->group_of(r)][r].push_back(rank);
  }
  if (n > 0) {
    v.root.rank = req.root;
    v.root.router = router_of_rank(v, req.root);
    v.root.group = v.topo->group_of(v.root.router);
  }
  return v;
}

schedule empty_schedule(const collective_request& req) {
  schedule s(req.num_ranks);
  s.root = req.root;
  s.bytes = req.bytes;
  return s;
}

// dfly_build_team: the first rank of every used router of g, in router order; the root
// replaces its router's rank and is inserted at the front.
rank_vector build_team(const job_view& v, group_id g) {
  rank_vector team;
  const auto it = v.groups.find(g);
  if (it == v.groups.end()) return team;
  for (const auto& [r, ranks] : it->second) {
    if (r == v.root.router) {
      team.insert(team.begin(), v.root.rank);
    } else {
      team.push_back(ranks[0]);
    }
  }
  return team;
}

// The receiving rank in g1: the first rank on r1 if r1 is used, else (or when r1 is
// invalid_id) the first rank of the first used router of g1.
uint32_t remote_end(const job_view& v, group_id g1, router_id r1) {
  const router_map& routers = v.groups.at(g1);
  const auto it = routers.find(r1);
  return it != routers.end() ? it->second[0] : routers.begin()->second[0];
}

struct couple {
  uint32_t sender;    // in the root group
  uint32_t receiver;  // in a remote group
};

// dfly_build_couples: direct groups first (in group order), then distant groups. A group
// not joined to the root group at all (a torus's non-neighbouring units) is distant too,
// with no r1: its receiver is the first rank of its first used router.
std::vector<couple> build_couples(const job_view& v) {
  std::vector<couple> couples;
  const rank_vector root_team = build_team(v, v.root.group);
  std::set<uint32_t> unused(root_team.begin(), root_team.end());
  const router_map& root_routers = v.groups.at(v.root.group);
  std::vector<std::pair<group_id, router_id>> distant;  // (g1, r1 or invalid_id)
  for (const auto& [g1, routers] : v.groups) {
    if (g1 == v.root.group) continue;
    // The first link between the root group and g1: (r2 in the root group, r1 in g1), as
    // cortex_dfly_get_group_link_list(g1, root group, &r1, &r2).
    const auto links = v.topo->links_between_groups(v.root.group, g1);
    if (links.empty()) {
      distant.emplace_back(g1, network::invalid_id);
      continue;
    }
    const auto [r2, r1] = links.front();
    const auto on_r2 = root_routers.find(r2);
    if (on_r2 == root_routers.end()) {
      distant.emplace_back(g1, r1);
      continue;
    }
    const uint32_t sender = r2 == v.root.router ? v.root.rank : on_r2->second[0];
    couples.push_back({sender, remote_end(v, g1, r1)});
    unused.erase(sender);
  }
  size_t next = 0;  // round robin over the whole root team once `unused` is empty
  for (const auto& [g1, r1] : distant) {
    uint32_t sender;
    if (!unused.empty()) {
      sender = *unused.begin();
      unused.erase(unused.begin());
    } else {
      sender = root_team[next];
      next = (next + 1) % root_team.size();
    }
    couples.push_back({sender, remote_end(v, g1, r1)});
  }
  return couples;
}

// Puts `first` at position 0 by swapping it with the current element 0.
void swap_to_front(rank_vector& ranks, uint32_t first) {
  const auto it = std::find(ranks.begin(), ranks.end(), first);
  if (it == ranks.end()) {
    throw std::logic_error("rank " + std::to_string(first) + " is not in its team");
  }
  std::iter_swap(it, ranks.begin());
}

enum class couple_step : uint8_t { serial_sends, forest };

// LLF and FOREST; they differ only in step 2.
schedule llf_family(const collective_request& req, const std::string& name, couple_step step2) {
  const job_view v = make_view(req, name);
  schedule s = empty_schedule(req);
  if (req.num_ranks == 0) return s;
  const uint64_t bytes = req.bytes;

  std::map<group_id, rank_vector> teams;
  for (const auto& entry : v.groups) teams[entry.first] = build_team(v, entry.first);
  const std::vector<couple> couples = build_couples(v);

  // 1. Root team.
  binomial_over(s, teams.at(v.root.group), 0, bytes, 0);

  // 2. Root group -> one rank per remote group.
  if (step2 == couple_step::serial_sends) {
    for (const couple& c : couples) {
      s.ranks[c.sender].then(make_send(c.receiver, 0, bytes));
      s.ranks[c.receiver].then(make_recv(c.sender, 0, bytes));
    }
  } else {
    std::vector<rank_vector> trees;  // [sender, receivers...], by first appearance
    std::map<uint32_t, size_t> tree_of;
    for (const couple& c : couples) {
      auto [it, added] = tree_of.emplace(c.sender, trees.size());
      if (added) trees.push_back({c.sender});
      trees[it->second].push_back(c.receiver);
    }
    for (const rank_vector& tree : trees) binomial_over(s, tree, 0, bytes, 0);
  }

  // 3. Every remote team, rooted at its couple's receiver.
  for (const couple& c : couples) {
    rank_vector& team = teams.at(group_of_rank(v, c.receiver));
    swap_to_front(team, c.receiver);
    binomial_over(s, team, 0, bytes, 0);
  }

  // 4. Every router.
  for (const auto& [g, routers] : v.groups) {
    for (const auto& [r, ranks] : routers) {
      rank_vector processes = ranks;
      if (r == v.root.router) swap_to_front(processes, v.root.rank);
      binomial_over(s, processes, 0, bytes, 0);
    }
  }
  return s;
}

}  // namespace

void binomial_over(schedule& s, const std::vector<uint32_t>& ranks, uint64_t offset, uint64_t bytes,
                   uint32_t tag) {
  // The loop of dfly_bcast_tree: per element, its sends by decreasing mask; an element's
  // recv is emitted while its parent (a smaller index) is processed, so it comes first.
  const uint64_t n = ranks.size();
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t mask = 1;
    while (mask < n && (i & mask) == 0) mask <<= 1;
    for (mask >>= 1; mask > 0; mask >>= 1) {
      if (i + mask >= n) continue;
      const uint32_t from = ranks[i];
      const uint32_t to = ranks[i + mask];
      s.ranks.at(from).then(make_send(to, offset, bytes, tag));
      s.ranks.at(to).then(make_recv(from, offset, bytes, tag));
    }
  }
}

schedule glf_bcast(const collective_request& req) {
  const job_view v = make_view(req, "glf");
  schedule s = empty_schedule(req);
  if (req.num_ranks == 0) return s;
  const uint64_t bytes = req.bytes;

  // 1. Across groups.
  rank_vector group_ranks{v.root.rank};
  for (const auto& [g, routers] : v.groups) {
    if (g != v.root.group) group_ranks.push_back(routers.begin()->second[0]);
  }
  binomial_over(s, group_ranks, 0, bytes, 0);

  // 2. Across the routers of every group.
  for (const auto& [g, routers] : v.groups) {
    rank_vector router_ranks;
    if (g == v.root.group) router_ranks.push_back(v.root.rank);
    for (const auto& [r, ranks] : routers) {
      if (r != v.root.router) router_ranks.push_back(ranks[0]);
    }
    binomial_over(s, router_ranks, 0, bytes, 0);
  }

  // 3. Across the terminals of every router.
  for (const auto& [g, routers] : v.groups) {
    for (const auto& [r, ranks] : routers) {
      rank_vector terminal_ranks;
      if (r == v.root.router) terminal_ranks.push_back(v.root.rank);
      for (uint32_t rank : ranks) {
        if (rank != v.root.rank) terminal_ranks.push_back(rank);
      }
      binomial_over(s, terminal_ranks, 0, bytes, 0);
    }
  }
  return s;
}

schedule llf_bcast(const collective_request& req) {
  return llf_family(req, "llf", couple_step::serial_sends);
}

schedule forest_bcast(const collective_request& req) {
  return llf_family(req, "forest", couple_step::forest);
}

}  // namespace bcastsim::algorithms
