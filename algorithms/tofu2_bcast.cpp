#include "algorithms/tofu2_bcast.h"

#include "network/torus.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>
#include <string>

namespace bcastsim::algorithms {

const char* to_string(tofu2_algorithm a) {
  switch (a) {
    case tofu2_algorithm::pipeline:
      return "tofu2-pipeline";
    case tofu2_algorithm::trinary:
      return "tofu2-trinary";
    case tofu2_algorithm::trinaryx3:
      return "tofu2-trinaryx3";
  }
  return "?";
}

const char* to_string(queue_mode m) {
  return m == queue_mode::normal ? "normal" : "session";
}

uint64_t tofu2_plan::total_puts() const {
  uint64_t n = 0;
  for (const tofu2_rank_plan& r : ranks) {
    for (const toq_queue& q : r.queues) n += q.commands.size();
  }
  return n;
}

std::vector<uint32_t> tofu2_snake_order(const network::topology& topo,
                                        const network::placement& place, uint32_t rotate) {
  const uint32_t n = place.num_ranks();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  const auto* t = dynamic_cast<const network::torus*>(&topo);
  if (t == nullptr || n == 0) {
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return place.terminal_of(a) < place.terminal_of(b); });
    return order;
  }
  std::vector<network::torus_coords> coords(n);
  for (uint32_t r = 0; r < n; ++r) coords[r] = t->coords(topo.router_of(place.terminal_of(r)));
  std::vector<uint32_t> dims;  // the dimensions that differ, fastest first
  for (uint32_t d = 0; d < network::torus_num_dims; ++d) {
    for (uint32_t r = 1; r < n; ++r) {
      if (coords[r][d] != coords[0][d]) {
        dims.push_back(d);
        break;
      }
    }
  }
  if (!dims.empty()) std::rotate(dims.begin(), dims.begin() + rotate % dims.size(), dims.end());
  // The snake returns next to its start only when its slowest dimension has an even size
  // (then the last row runs back to the first column): put an even one last if one is not.
  if (dims.size() > 2 && t->size(dims.back()) % 2 == 1) {
    for (size_t i = dims.size() - 1; i-- > 1;) {
      if (t->size(dims[i]) % 2 == 0) {
        std::swap(dims[i], dims.back());
        break;
      }
    }
  }
  // Reflected mixed-radix (boustrophedon) order: a digit runs backwards when the number the
  // digits above it form is odd, so consecutive positions differ by one step in one
  // dimension.
  std::vector<std::array<uint32_t, network::torus_num_dims + 1>> key(n);
  for (uint32_t r = 0; r < n; ++r) {
    uint32_t above_odd = 0;
    size_t i = 0;
    for (auto d = dims.rbegin(); d != dims.rend(); ++d, ++i) {
      uint32_t v = coords[r][*d];
      if (above_odd == 1) v = t->size(*d) - 1 - v;
      key[r][i] = v;
      above_odd = (above_odd * t->size(*d) + v) % 2;
    }
    for (; i < network::torus_num_dims; ++i) key[r][i] = 0;
    key[r][network::torus_num_dims] = place.terminal_of(r);
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
  return order;
}

namespace {

// `order` rotated to start at the root.
std::vector<uint32_t> from_root(std::vector<uint32_t> order, uint32_t root) {
  std::rotate(order.begin(), std::find(order.begin(), order.end(), root), order.end());
  return order;
}

void chain(const std::vector<uint32_t>& ranks, uint32_t from, std::vector<uint32_t>& parent) {
  for (const uint32_t r : ranks) {
    parent[r] = from;
    from = r;
  }
}

// parent[rank] of one fragment's tree (see the header for the shapes).
std::vector<uint32_t> make_tree(tofu2_algorithm a, const std::vector<uint32_t>& seq) {
  const uint32_t n = static_cast<uint32_t>(seq.size());
  std::vector<uint32_t> parent(n);
  parent[seq[0]] = seq[0];
  if (a == tofu2_algorithm::pipeline) {
    chain({seq.begin() + 1, seq.end()}, seq[0], parent);
    return parent;
  }
  const uint32_t others = n - 1;
  std::array<uint32_t, 3> size{};
  for (uint32_t k = 0; k < 3; ++k) size[k] = others / 3 + (k < others % 3 ? 1 : 0);
  const auto first = seq.begin() + 1;
  chain({first, first + size[0]}, seq[0], parent);
  chain({first + size[0], first + size[0] + size[1]}, seq[0], parent);
  std::vector<uint32_t> last(first + size[0] + size[1], seq.end());
  std::reverse(last.begin(), last.end());
  chain(last, seq[0], parent);
  return parent;
}

// The children of every rank in path order: the root's in path order (first, middle, last),
// which is the order of `seq` for the first two and its end for the last.
std::vector<std::vector<uint32_t>> children_of(const std::vector<uint32_t>& parent,
                                               const std::vector<uint32_t>& seq) {
  std::vector<std::vector<uint32_t>> children(parent.size());
  for (size_t i = 1; i < seq.size(); ++i) {
    const uint32_t r = seq[i];
    if (parent[r] == seq[0]) continue;
    children[parent[r]].push_back(r);
  }
  // The root's children: heads of the paths, in path order (first part, middle, last).
  std::vector<uint32_t>& root = children[seq[0]];
  for (size_t i = 1; i < seq.size(); ++i) {
    if (parent[seq[i]] == seq[0]) root.push_back(seq[i]);
  }
  return children;
}

// Puts of one fragment [begin, end) on TNI `fragment` down its tree.
void compile_fragment(tofu2_plan& plan, uint32_t fragment, uint64_t begin, uint64_t end) {
  const uint64_t len = end - begin;
  const uint64_t segs = std::max<uint64_t>(1, std::min<uint64_t>(plan.segments, len));
  const auto& children = plan.children[fragment];
  for (uint32_t r = 0; r < plan.num_ranks; ++r) {
    toq_queue& q = plan.ranks[r].queues[fragment];
    q.tni = fragment;
    q.mode = r == plan.root ? queue_mode::normal : queue_mode::session;
    if (r != plan.root) plan.ranks[r].puts_received += static_cast<uint32_t>(segs);
    uint64_t offset = begin;
    for (uint64_t k = 0; k < segs; ++k) {
      const uint64_t bytes = len / segs + (k < len % segs ? 1 : 0);
      for (const uint32_t c : children[r]) {
        toq_descriptor d;
        d.remote_rank = c;
        d.remote_tni = fragment;
        d.remote_queue = children[c].empty() ? toq_no_queue : fragment;
        d.local_offset = d.remote_offset = offset;
        d.length = bytes;
        d.sps = static_cast<uint32_t>(children[c].size());
        q.commands.push_back(d);
      }
      offset += bytes;
    }
  }
}

}  // namespace

tofu2_plan make_tofu2_plan(tofu2_algorithm a, const network::topology& topo,
                           const network::placement& place, uint32_t root, uint64_t bytes,
                           uint32_t segments) {
  const uint32_t n = place.num_ranks();
  if (n == 0) throw std::invalid_argument("a Tofu2 broadcast needs at least one rank");
  if (root >= n) {
    throw std::invalid_argument("root " + std::to_string(root) + " is not a rank (0.." +
                                std::to_string(n - 1) + ")");
  }
  if (segments == 0 || segments > max_tofu2_segments) {
    throw std::invalid_argument("segments must be in [1, " + std::to_string(max_tofu2_segments) +
                                "], not " + std::to_string(segments));
  }
  tofu2_plan plan;
  plan.algorithm = a;
  plan.num_ranks = n;
  plan.root = root;
  plan.bytes = bytes;
  plan.segments = segments;
  plan.fragments = a == tofu2_algorithm::trinaryx3 ? 3 : 1;
  plan.ranks.resize(n);
  for (tofu2_rank_plan& r : plan.ranks) r.queues.resize(plan.fragments);
  uint64_t begin = 0;
  for (uint32_t f = 0; f < plan.fragments; ++f) {
    const std::vector<uint32_t> seq = from_root(tofu2_snake_order(topo, place, f), root);
    plan.parent.push_back(make_tree(a, seq));
    plan.children.push_back(children_of(plan.parent.back(), seq));
    const uint64_t end = begin + bytes / plan.fragments + (f < bytes % plan.fragments ? 1 : 0);
    compile_fragment(plan, f, begin, end);
    begin = end;
  }
  return plan;
}

schedule tofu2_host_schedule(const tofu2_plan& plan) {
  schedule s(plan.num_ranks);
  s.root = plan.root;
  s.bytes = plan.bytes;
  for (uint32_t r = 0; r < plan.num_ranks; ++r) {
    rank_program& prog = s.ranks[r];
    for (uint32_t f = 0; f < plan.fragments; ++f) {
      const std::vector<toq_descriptor>& puts = plan.ranks[r].queues[f].commands;
      const size_t fan = plan.children[f][r].size();
      if (r == plan.root) {
        for (const toq_descriptor& d : puts) {
          op send = make_send(d.remote_rank, d.local_offset, d.length, f);
          send.lane = static_cast<uint8_t>(f);  // on TNI f, as the offload's fragment f
          prog.add(send, {});
        }
        continue;
      }
      // Segment k as the parent sends it, then this rank's puts of segment k: its queue
      // holds `fan` puts per segment, segment by segment (compile_fragment).
      const uint32_t parent = plan.parent[f][r];
      size_t k = 0;
      for (const toq_descriptor& in : plan.ranks[parent].queues[f].commands) {
        if (in.remote_rank != r) continue;
        const uint32_t recv = prog.add(make_recv(parent, in.remote_offset, in.length, f), {});
        for (size_t i = k * fan; i < (k + 1) * fan; ++i) {
          const toq_descriptor& d = puts[i];
          op send = make_send(d.remote_rank, d.local_offset, d.length, f);
          send.lane = static_cast<uint8_t>(f);
          prog.add(send, {recv});
        }
        ++k;
      }
    }
  }
  return s;
}

}  // namespace bcastsim::algorithms
