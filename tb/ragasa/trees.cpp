#include "tb/ragasa/trees.h"

#include "tb/config.h"

#include <algorithm>
#include <string>

namespace bcastsim::tb::ragasa {

void check_mini_packet(const hw::ragasa::manager_params& mp, uint32_t packet_bytes,
                       network::router_id r, size_t children) {
  if (mp.mini_packet_header_bytes > packet_bytes) {
    throw config_error(
        "ragasa.mini_packet_header_bytes",
        "ragasa.mini_packet_header_bytes = " + std::to_string(mp.mini_packet_header_bytes) +
            " exceeds one packet; allowed: at most network.packet_bytes = " +
            std::to_string(packet_bytes));
  }
  if (hw::ragasa::mini_packet_bytes(mp, children) <= packet_bytes) return;
  throw config_error(
      "ragasa.mini_packet_child_bytes",
      "the Mini Packet of router " + std::to_string(r) + " (" + std::to_string(children) +
          " children) exceeds one packet (network.packet_bytes = " + std::to_string(packet_bytes) +
          "); allowed: ragasa.mini_packet_header_bytes + children * "
          "ragasa.mini_packet_child_bytes <= network.packet_bytes");
}

namespace {

// The member of `inst` rooting its k-th context.
uint32_t root_member(const algorithms::instance_info& inst, uint32_t k) {
  if (inst.all_roots) return k;
  return static_cast<uint32_t>(std::find(inst.ranks.begin(), inst.ranks.end(), inst.root) -
                               inst.ranks.begin());
}

// The routers taking part in either tree, each with its Mini Packet's size.
template <class Tree>
void add_routers(const Tree& tree, const hw::ragasa::manager_params& mp, uint32_t packet_bytes,
                 unit_broadcast& b) {
  for (const network::router_id r : tree.participating_routers()) {
    const size_t children = tree.children[r].size();
    check_mini_packet(mp, packet_bytes, r, children);
    b.routers.push_back(r);
    b.mini_packet_bytes.push_back(hw::ragasa::mini_packet_bytes(mp, children));
    b.children.push_back(static_cast<uint32_t>(children));
  }
}

}  // namespace

unit_broadcasts plan_broadcasts(const network::topology& topo, const network::placement& place,
                                const algorithms::program& prog, algorithms::ragasa_relay relay,
                                const hw::ragasa::manager_params& mp, uint32_t packet_bytes) {
  unit_broadcasts out;
  out.sources.resize(topo.num_routers());
  for (network::router_id r = 0; r < topo.num_routers(); ++r) {
    if (!topo.terminals_of(r).empty()) continue;
    // A graph file can change that; on a built-in kind (a Myrinet Clos's spines) only the
    // algorithm can.
    const std::string key = topo.kind() == "graph" ? "topology.file" : "collective.algorithm";
    throw config_error(key, key + ": router " + std::to_string(r) + " of " + topo.describe() +
                                " has no terminal: a Bcast Unit is reached by routing toward a "
                                "terminal of its router, so Ragasa needs one on every router; "
                                "allowed: a host-based algorithm, or a terminal on every router");
  }
  // [context]: the job ranks offloading in it, and the packets each offloads (as its NIC
  // cuts them: a zero-byte message is one packet).
  std::vector<std::vector<uint32_t>> offloaders(prog.context_instance.size());
  std::vector<std::vector<uint64_t>> offloaded(prog.context_instance.size());
  for (uint32_t rank = 0; rank < prog.sched.ranks.size(); ++rank) {
    for (const algorithms::op& o : prog.sched.ranks[rank].ops) {
      if (o.kind != algorithms::op_kind::offload_bcast) continue;
      std::vector<uint32_t>& v = offloaders[o.context];
      if (v.empty() || v.back() != rank) {
        v.push_back(rank);
        offloaded[o.context].push_back(0);
      }
      offloaded[o.context].back() += o.bytes == 0 ? 1 : (o.bytes + packet_bytes - 1) / packet_bytes;
    }
  }
  std::vector<uint64_t> router_packets(topo.num_routers(), 0);
  for (const algorithms::instance_info& inst : prog.instances) {
    if (inst.algorithm->offload != "ragasa") continue;
    std::vector<network::terminal_id> terminals;
    for (const uint32_t rank : inst.ranks) terminals.push_back(place.terminal_of(rank));
    const network::placement sub(topo, std::move(terminals));
    for (uint32_t k = 0; k < inst.contexts; ++k) {
      unit_broadcast b;
      b.context = inst.first_context + k;
      const uint32_t id = b.context + 1;
      const uint32_t root = root_member(inst, k);
      b.root_terminal = sub.terminal_of(root);
      if (relay == algorithms::ragasa_relay::node) {
        const algorithms::ragasa_relays rl = algorithms::make_ragasa_relays(topo, sub, root);
        add_routers(rl, mp, packet_bytes, b);
        hw::ragasa::fill_membership(rl, id, out.sources);
      } else {
        const algorithms::ragasa_tree t = algorithms::make_ragasa_tree(topo, sub, root);
        add_routers(t, mp, packet_bytes, b);
        hw::ragasa::fill_membership(topo, t, id, out.sources);
      }
      b.offloading_ranks = offloaders[b.context];
      // What each unit receives: its own ranks' offloads, or (units relaying) everything.
      uint64_t all = 0;
      for (size_t j = 0; j < b.offloading_ranks.size(); ++j) {
        const uint64_t n = offloaded[b.context][j];
        router_packets[topo.router_of(place.terminal_of(b.offloading_ranks[j]))] += n;
        all += n;
      }
      for (const network::router_id r : b.routers) {
        const uint64_t n = relay == algorithms::ragasa_relay::node ? router_packets[r] : all;
        b.packets.push_back(n);
        out.sources[r].set(id, *out.sources[r].find(id), n);
      }
      for (const uint32_t rank : b.offloading_ranks)
        router_packets[topo.router_of(place.terminal_of(rank))] = 0;
      out.list.push_back(std::move(b));
    }
  }
  return out;
}

}  // namespace bcastsim::tb::ragasa
