#include "algorithms/galaxy_a2a.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace bcastsim::algorithms {

const char* to_string(galaxy_algorithm a) {
  switch (a) {
    case galaxy_algorithm::sfata:
      return "sfata";
    case galaxy_algorithm::rfata:
      return "rfata";
    case galaxy_algorithm::a2a:
      return "a2a";
  }
  return "?";
}

uint64_t galaxy_plan::redundant_total() const {
  uint64_t sum = 0;
  for (uint32_t r : redundant) sum += r;
  return sum;
}

galaxy_view galaxy_view::of(const network::topology& topo) {
  using network::port_info;
  galaxy_view v;
  v.routers = topo.num_routers();
  v.group_of.resize(v.routers);
  v.members.resize(topo.num_groups());
  v.neighbours.resize(topo.num_groups());
  for (uint32_t r = 0; r < v.routers; ++r) {
    v.group_of[r] = topo.group_of(r);
    v.members[v.group_of[r]].push_back(r);
  }
  std::vector<uint32_t> local(v.routers, 0);  // [router] distinct neighbours in its own group
  std::vector<uint32_t> seen(v.routers, network::invalid_id);  // [peer] last router counting it
  for (uint32_t r = 0; r < v.routers; ++r) {
    const uint32_t g = v.group_of[r];
    std::vector<gateway>& nb = v.neighbours[g];
    for (uint32_t p = 0; p < topo.radix(r); ++p) {
      const port_info& pi = topo.port(r, p);
      if (pi.peer_kind != port_info::kind::router) continue;
      const uint32_t h = v.group_of[pi.peer];
      if (h == g) {
        if (seen[pi.peer] != r && pi.peer != r) ++local[r];  // parallel links count once
        seen[pi.peer] = r;
        continue;
      }
      // Routers and ports are visited in order: the first link found is the lowest.
      const auto it =
          std::find_if(nb.begin(), nb.end(), [h](const gateway& x) { return x.group == h; });
      if (it == nb.end()) nb.push_back({h, r, pi.peer});
    }
  }
  for (uint32_t g = 0; g < v.members.size(); ++g) {
    if (v.members[g].empty())
      throw std::invalid_argument("supernode (group) " + std::to_string(g) + " has no router");
    for (uint32_t r : v.members[g]) {
      if (local[r] + 1 < v.members[g].size())
        throw std::invalid_argument("the routers of supernode (group) " + std::to_string(g) +
                                    " are not fully connected; router-level all-to-all "
                                    "broadcasts need fully connected supernodes");
    }
    std::sort(v.neighbours[g].begin(), v.neighbours[g].end(),
              [](const gateway& a, const gateway& b) { return a.group < b.group; });
  }
  return v;
}

const galaxy_view::gateway* galaxy_view::find(uint32_t from_group, uint32_t to_group) const {
  const std::vector<gateway>& nb = neighbours[from_group];
  const auto it = std::lower_bound(nb.begin(), nb.end(), to_group,
                                   [](const gateway& x, uint32_t g) { return x.group < g; });
  return it != nb.end() && it->group == to_group ? &*it : nullptr;
}

galaxy_bfs galaxy_bfs_tree(const galaxy_view& view, uint32_t root) {
  const uint32_t groups = static_cast<uint32_t>(view.members.size());
  galaxy_bfs t;
  t.parent.assign(groups, 0xffffffffu);
  t.depth.assign(groups, 0xffffffffu);
  t.parent[root] = root;
  t.depth[root] = 0;
  t.order.push_back(root);
  for (size_t i = 0; i < t.order.size(); ++i) {
    const uint32_t x = t.order[i];
    for (const galaxy_view::gateway& gw : view.neighbours[x]) {
      if (t.depth[gw.group] != 0xffffffffu) continue;
      t.parent[gw.group] = x;
      t.depth[gw.group] = t.depth[x] + 1;
      t.order.push_back(gw.group);
    }
  }
  return t;
}

namespace {

void rpc_edges(const std::vector<uint32_t>& set, uint32_t m,
               std::vector<std::pair<uint32_t, uint32_t>>& out) {
  std::vector<uint32_t> before, after;
  for (uint32_t r : set) {
    if (r < m) before.push_back(r);
    if (r > m) after.push_back(r);
  }
  for (const std::vector<uint32_t>* part : {&before, &after}) {
    if (part->empty()) continue;
    const uint32_t b = (*part)[part->size() / 2];
    rpc_edges(*part, b, out);
    out.emplace_back(b, m);
  }
}

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> galaxy_rpc_edges(const std::vector<uint32_t>& routers,
                                                            uint32_t m) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  rpc_edges(routers, m, out);
  return out;
}

namespace {

// A set of origins (router ids) as bits.
class origin_set {
 public:
  origin_set() = default;
  explicit origin_set(uint32_t n) : m_words((n + 63) / 64, 0) {}
  bool has(uint32_t o) const { return (m_words[o / 64] >> (o % 64)) & 1u; }
  void add(uint32_t o) { m_words[o / 64] |= uint64_t{1} << (o % 64); }
  void unite(const origin_set& s) {
    for (size_t i = 0; i < m_words.size(); ++i) m_words[i] |= s.m_words[i];
  }
  const std::vector<uint64_t>& words() const { return m_words; }
  std::vector<uint64_t>& words() { return m_words; }

 private:
  std::vector<uint64_t> m_words;
};

// The logical execution: what every router holds, what pairs have exchanged, the plan.
class executor {
 public:
  executor(galaxy_algorithm a, const galaxy_view& v, uint32_t root) : m_view(v) {
    m_plan.algorithm = a;
    m_plan.routers = v.routers;
    m_plan.root_group = root;
    m_plan.received.assign(v.routers, 0);
    m_plan.redundant.assign(v.routers, 0);
    m_hold.assign(v.routers, origin_set(v.routers));
    for (uint32_t r = 0; r < v.routers; ++r) m_hold[r].add(r);
  }

  const origin_set& hold(uint32_t r) const { return m_hold[r]; }
  // From now on a transfer carries only what its receiver lacks (SFATA's SPD, galaxy_a2a.h).
  void send_only_lacking() { m_lacking = true; }
  origin_set group_set(uint32_t g) const {
    origin_set s(m_view.routers);
    for (uint32_t r : m_view.members[g]) s.add(r);
    return s;
  }
  origin_set all() const {
    origin_set s(m_view.routers);
    for (uint32_t r = 0; r < m_view.routers; ++r) s.add(r);
    return s;
  }

  // `from` sends the origins of `set` it holds, less what the pair has exchanged, or (in
  // lacking mode, SFATA's SPD) less what `to` already holds.
  void send(uint32_t from, uint32_t to, const origin_set& set, bool after_all = false) {
    const origin_set& known = m_lacking ? m_hold[to] : exchanged(from, to);
    galaxy_transfer t;
    t.from = from;
    t.to = to;
    t.after_all = after_all;
    t.first = static_cast<uint32_t>(m_plan.origins.size());
    const std::vector<uint64_t>& h = m_hold[from].words();
    for (size_t w = 0; w < h.size(); ++w) {
      uint64_t bits = h[w] & set.words()[w] & ~known.words()[w];
      while (bits != 0) {
        const uint32_t o =
            static_cast<uint32_t>(w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits)));
        bits &= bits - 1;
        m_plan.origins.push_back(o);
      }
    }
    t.count = static_cast<uint32_t>(m_plan.origins.size()) - t.first;
    if (t.count == 0) return;
    origin_set& k = exchanged(from, to);
    for (uint32_t i = t.first; i < t.first + t.count; ++i) {
      const uint32_t o = m_plan.origins[i];
      ++m_plan.received[to];
      if (m_hold[to].has(o)) ++m_plan.redundant[to];
      m_hold[to].add(o);
      k.add(o);
    }
    m_plan.transfers.push_back(t);
  }

  void rpc(uint32_t group, uint32_t m) {
    for (const auto& [child, parent] : galaxy_rpc_edges(m_view.members[group], m))
      send(child, parent, all());
  }
  void rpd(uint32_t group, uint32_t m, const origin_set& set) {
    const auto edges = galaxy_rpc_edges(m_view.members[group], m);
    for (auto it = edges.rbegin(); it != edges.rend(); ++it) send(it->second, it->first, set);
  }

  galaxy_plan finish() {
    const origin_set everything = all();
    for (uint32_t r = 0; r < m_view.routers; ++r) {
      if (m_hold[r].words() == everything.words()) ++m_plan.complete_routers;
    }
    return std::move(m_plan);
  }

 private:
  origin_set& exchanged(uint32_t a, uint32_t b) {
    const uint64_t key = uint64_t{std::min(a, b)} * m_view.routers + std::max(a, b);
    auto it = m_known.find(key);
    if (it == m_known.end()) it = m_known.emplace(key, origin_set(m_view.routers)).first;
    return it->second;
  }

  const galaxy_view& m_view;
  galaxy_plan m_plan;
  std::vector<origin_set> m_hold;                    // [router]
  std::unordered_map<uint64_t, origin_set> m_known;  // [pair] origins exchanged
  bool m_lacking = false;
};

// gw(X, Y) for a tree edge; the BFS tree only follows links, so it exists.
const galaxy_view::gateway& link(const galaxy_view& v, uint32_t x, uint32_t y) {
  return *v.find(x, y);
}

// Deepest first: SPC's order; the BFS order: SPD's.
std::vector<uint32_t> deepest_first(const galaxy_bfs& t) {
  std::vector<uint32_t> order(t.order.rbegin(), t.order.rend());
  std::stable_sort(order.begin(), order.end(),
                   [&t](uint32_t a, uint32_t b) { return t.depth[a] > t.depth[b]; });
  return order;
}

// SPD, parents before children. Router-first (rfata): gw(X, P) distributes by RPD and
// gw(X, C) forwards to a child C once that RPD reaches it. Supernode-first (sfata): gw(X, P)
// first sends the set straight to gw(X, C) for every child C, then the RPD in parallel.
void spd(executor& ex, const galaxy_view& v, const galaxy_bfs& t, bool supernode_first) {
  const uint32_t root = t.order.front();
  for (uint32_t x : t.order) {
    if (x == root) continue;
    const galaxy_view::gateway& up = link(v, x, t.parent[x]);  // router: gw(X,P); peer: gw(P,X)
    ex.send(up.peer, up.router, ex.all(), t.parent[x] == root);
    if (supernode_first) {
      for (const galaxy_view::gateway& nb : v.neighbours[x]) {
        if (nb.group == root || t.parent[nb.group] != x) continue;
        const uint32_t out = link(v, nb.group, x).peer;  // the router of X that feeds C
        if (out != up.router) ex.send(up.router, out, ex.all());
      }
    }
    ex.rpd(x, up.router, ex.all());
  }
}

// SFATA's SPC for one supernode's packets `set`, from supernode x (where they are spread over
// its routers, or have arrived at one router) up the BFS tree: in every supernode RPC toward
// the gateway to the parent, carrying `set` only (only the routers holding it send: the
// arrival's path up X's RPC tree), then over the link; in A, RPD from the entry router.
void sfata_up(executor& ex, const galaxy_view& v, const galaxy_bfs& t, uint32_t x,
              const origin_set& set) {
  const uint32_t root = t.order.front();
  while (x != root) {
    const galaxy_view::gateway& up = link(v, x, t.parent[x]);
    for (const auto& [child, parent] : galaxy_rpc_edges(v.members[x], up.router))
      ex.send(child, parent, set);
    ex.send(up.router, up.peer, set);
    x = t.parent[x];
    // The paper: "execute RPD to send the packets from the routers connected with S5, S7, S9
    // and S12 to other routers in S8".
    if (x == root) ex.rpd(root, up.peer, set);
  }
}

void sfata(executor& ex, const galaxy_view& v, const galaxy_bfs& t) {
  const uint32_t root = t.order.front();
  const uint32_t r0 = v.members[root].front();
  ex.rpc(root, r0);  // A's own packets, before anything arrives (galaxy_a2a.h: why)
  ex.rpd(root, r0, ex.group_set(root));
  // Every supernode's packets go up on their own: X's RPC does not wait for its children's,
  // and each arrival is collected again and sent on at once (supernode-first).
  for (uint32_t x : deepest_first(t)) {
    if (x != root) sfata_up(ex, v, t, x, ex.group_set(x));
  }
  ex.send_only_lacking();  // Theorem 5: no router receives a redundant packet
  spd(ex, v, t, true);
}

void rfata(executor& ex, const galaxy_view& v, const galaxy_bfs& t) {
  const uint32_t root = t.order.front();
  for (uint32_t x : t.order) {
    const uint32_t m = x == root ? v.members[root].front() : link(v, x, t.parent[x]).router;
    ex.rpc(x, m);
    ex.rpd(x, m, ex.group_set(x));
  }
  std::vector<origin_set> subtree;  // [group] origins of its BFS subtree
  subtree.reserve(v.members.size());
  for (uint32_t g = 0; g < v.members.size(); ++g) subtree.push_back(ex.group_set(g));
  for (uint32_t x : deepest_first(t)) {
    if (x == root) continue;
    const uint32_t p = t.parent[x];
    const galaxy_view::gateway& up = link(v, x, p);
    ex.send(up.router, up.peer, subtree[x]);
    ex.rpd(p, up.peer, subtree[x]);  // router-first: at once to the parent's routers
    subtree[p].unite(subtree[x]);
  }
  spd(ex, v, t, false);
}

void a2a(executor& ex, const galaxy_view& v) {
  const uint32_t groups = static_cast<uint32_t>(v.members.size());
  for (uint32_t g = 0; g < groups; ++g) {
    if (v.neighbours[g].size() + 1 != groups)
      throw std::invalid_argument(
          "it needs every pair of groups joined by a link (a "
          "dragonfly); group " +
          std::to_string(g) + " reaches " + std::to_string(v.neighbours[g].size()) +
          " of the other " + std::to_string(groups - 1));
  }
  for (uint32_t g = 0; g < groups; ++g) {
    const uint32_t c = v.members[g].front();
    for (uint32_t r : v.members[g]) {
      if (r != c) ex.send(r, c, ex.all());
    }
    const origin_set mine = ex.group_set(g);
    for (uint32_t r : v.members[g]) {
      if (r != c) ex.send(c, r, mine);
    }
  }
  for (uint32_t g = 0; g < groups; ++g) {
    for (const galaxy_view::gateway& gw : v.neighbours[g])
      ex.send(gw.router, gw.peer, ex.group_set(g));
  }
  // What each router received over its global links: group h's packets land at the other
  // end of h's gateway link to g (which need not be g's own gateway to h).
  std::vector<origin_set> foreign(v.routers, origin_set(v.routers));
  for (uint32_t h = 0; h < groups; ++h) {
    for (const galaxy_view::gateway& gw : v.neighbours[h]) foreign[gw.peer].unite(ex.group_set(h));
  }
  for (uint32_t g = 0; g < groups; ++g) {
    for (uint32_t r : v.members[g]) {
      for (uint32_t s : v.members[g]) {
        if (s != r) ex.send(r, s, foreign[r]);
      }
    }
  }
}

// A plan that leaves a router without some origin is refused (a topology whose gateways the
// algorithm's reading does not fit, e.g. a graph file).
galaxy_plan checked(galaxy_plan plan) {
  if (plan.complete_routers != plan.routers)
    throw std::invalid_argument(std::to_string(plan.routers - plan.complete_routers) + " of " +
                                std::to_string(plan.routers) +
                                " routers would not receive every origin on this topology");
  return plan;
}

}  // namespace

galaxy_plan make_galaxy_plan(galaxy_algorithm a, const galaxy_view& view, uint32_t root_group) {
  const uint32_t groups = static_cast<uint32_t>(view.members.size());
  if (root_group >= groups)
    throw std::invalid_argument("root supernode " + std::to_string(root_group) +
                                " does not exist; allowed: 0 .. " + std::to_string(groups - 1));
  executor ex(a, view, root_group);
  if (a == galaxy_algorithm::a2a) {
    a2a(ex, view);
    return checked(ex.finish());
  }
  const galaxy_bfs t = galaxy_bfs_tree(view, root_group);
  if (t.order.size() != groups)
    throw std::invalid_argument(
        "the supernode graph is not connected: " + std::to_string(groups - t.order.size()) +
        " supernode(s) unreachable from the root");
  if (a == galaxy_algorithm::sfata) {
    sfata(ex, view, t);
  } else {
    rfata(ex, view, t);
  }
  return checked(ex.finish());
}

schedule galaxy_schedule(const network::topology& topo, const network::placement& place,
                         uint64_t bytes) {
  const uint32_t ranks = place.num_ranks();
  for (uint32_t r = 0; r < topo.num_routers(); ++r) {
    if (topo.terminals_of(r).empty())
      throw std::invalid_argument(
          "a router-level all-to-all broadcast needs one rank on every router, and router " +
          std::to_string(r) +
          " has no terminal (a Myrinet Clos's spines have none: there only "
          "a single crossbar, topology.nodes <= topology.switch_ports, can run it)");
  }
  if (ranks != topo.num_routers())
    throw std::invalid_argument(
        "a router-level all-to-all broadcast needs one rank on every "
        "router: " +
        std::to_string(topo.num_routers()) + " routers, " + std::to_string(ranks) +
        " ranks (set job.ranks_per_node: 1 and job.ranks: 0)");
  std::vector<bool> taken(topo.num_routers(), false);
  for (uint32_t r = 0; r < ranks; ++r) {
    const uint32_t router = topo.router_of(place.terminal_of(r));
    if (taken[router])
      throw std::invalid_argument(
          "a router-level all-to-all broadcast needs one rank on every "
          "router; router " +
          std::to_string(router) + " has two (set job.ranks_per_node: 1)");
    taken[router] = true;
  }
  schedule s(ranks);
  s.bytes = bytes * ranks;
  s.own.resize(ranks);
  s.hardware_receives.assign(ranks, ranks - 1);
  for (uint32_t r = 0; r < ranks; ++r) {
    s.own[r] = {r * bytes, (r + 1) * bytes};
    op o;
    o.kind = op_kind::offload_start;
    o.peer = r;
    s.ranks[r].then(o);
  }
  return s;
}

}  // namespace bcastsim::algorithms
