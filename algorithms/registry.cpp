#include "algorithms/registry.h"

#include "algorithms/allgather.h"
#include "algorithms/galaxy_a2a.h"
#include "algorithms/lanai_gossip.h"
#include "algorithms/mpich_bcast.h"
#include "algorithms/topology_aware.h"

#include <stdexcept>

namespace bcastsim::algorithms {

namespace {

std::vector<algorithm_info> build_registry() {
  std::vector<algorithm_info> all;
  all.push_back({"binomial",
                 {"tree"},
                 "MPICH binomial tree broadcast (MPICH bcast_intra_binomial.c)",
                 [](const collective_request& req) {
                   return binomial_bcast(req.num_ranks, req.root, req.bytes);
                 },
                 delivery::exactly_once,
                 {}});
  all.push_back({"glf",
                 {},
                 "global-links-first topology-aware broadcast (Dorier et al. Cluster 2016 "
                 "III-C; CODES dfly_bcast.cpp); needs a grouped topology",
                 glf_bcast,
                 delivery::exactly_once,
                 {}});
  all.push_back({"llf",
                 {},
                 "local-links-first topology-aware broadcast (Dorier et al. Cluster 2016 "
                 "III-B; CODES dfly_bcast.cpp); needs a grouped topology",
                 llf_bcast,
                 delivery::exactly_once,
                 {}});
  all.push_back({"forest",
                 {},
                 "FOREST: LLF with one binomial tree per root-group sender (Dorier et al. "
                 "Cluster 2016 III-D; CODES dfly_bcast.cpp); needs a grouped topology",
                 forest_bcast,
                 delivery::exactly_once,
                 {}});
  // MPICH's allgather re-sends blocks a rank already holds after the scatter (and blocks
  // back to the root), so its broadcasts deliver each byte at least once, not exactly once
  // (mpich-auto too: its binomial choice meets the weaker contract as well).
  all.push_back({"scatter-rd-allgather",
                 {},
                 "MPICH binomial scatter + recursive-doubling allgather (MPICH "
                 "bcast_intra_scatter_recursive_doubling_allgather.c); needs a power-of-two "
                 "number of ranks",
                 [](const collective_request& req) {
                   return scatter_rd_allgather_bcast(req.num_ranks, req.root, req.bytes);
                 },
                 delivery::at_least_once,
                 {}});
  all.push_back({"scatter-ring-allgather",
                 {},
                 "MPICH binomial scatter + ring allgather (MPICH "
                 "bcast_intra_scatter_ring_allgather.c)",
                 [](const collective_request& req) {
                   return scatter_ring_allgather_bcast(req.num_ranks, req.root, req.bytes);
                 },
                 delivery::at_least_once,
                 {}});
  all.push_back({"mpich-auto",
                 {},
                 "MPICH MPIR_Bcast_intra_auto: binomial below 12288 B or 8 ranks, else "
                 "scatter + recursive doubling below 524288 B on a power of two, else "
                 "scatter + ring (MPICH src/mpi/coll/bcast/bcast.c)",
                 [](const collective_request& req) {
                   return mpich_auto_bcast(req.num_ranks, req.root, req.bytes);
                 },
                 delivery::at_least_once,
                 {}});
  all.push_back({"ragasa",
                 {},
                 "Ragasa in-router broadcast offload (Ma et al.): the root hands the buffer "
                 "once to its router's Bcast Unit; the units replicate it along the "
                 "contention-free tree, level by level through the nodes that received it "
                 "(ragasa.relay: node) or unit to unit (unit); the fabric adds a unit to "
                 "every router",
                 [](const collective_request& req) {
                   if (req.relay == ragasa_relay::unit || req.num_ranks < 2)
                     return ragasa_bcast(req.num_ranks, req.root, req.bytes);
                   if (!req.topo || !req.place)
                     throw std::invalid_argument("ragasa with nodes relaying needs the topology");
                   return ragasa_relay_bcast(*req.topo, *req.place, req.root, req.bytes);
                 },
                 delivery::exactly_once,
                 "ragasa"});
  // Tofu2's pipelined broadcasts (algorithms/tofu2_bcast.h), persistent and offloaded to the
  // TNIs' command queues or progressed by the hosts (tofu2.mode).
  for (const tofu2_algorithm a :
       {tofu2_algorithm::pipeline, tofu2_algorithm::trinary, tofu2_algorithm::trinaryx3}) {
    static const char* const what[] = {
        "one pipeline path through the ranks in snake order over the torus",
        "three pipeline paths from the root (the paper's Trinary)",
        "the buffer in three fragments, each a Trinary broadcast on its own TNI along its own "
        "snake (the paper's Trinaryx3)"};
    all.push_back({to_string(a),
                   {},
                   std::string("Tofu2 pipelined broadcast (Morie et al.): ") +
                       what[static_cast<int>(a)] +
                       "; tofu2.mode offload: MPI-4 persistent, the TNIs' session-mode command "
                       "queues forward each segment as it arrives; host: the hosts progress it",
                   [a](const collective_request& req) { return tofu2_bcast(a, req); },
                   delivery::hardware,
                   "tofu2"});
  }
  // Allgathers: the request's bytes are per rank (registry.h). Each delivers every block a
  // rank lacks exactly once and never its own block (ring: each block travels once around
  // the ring; recursive doubling: disjoint partner subtrees; Bruck: tmp blocks 1 ... p - 1
  // once each), so all four promise exactly_once (allgather.h).
  all.push_back(
      {"allgather-ring",
       {},
       "MPICH ring allgather (MPICH allgather_intra_ring.c)",
       [](const collective_request& req) { return ring_allgather(req.num_ranks, req.bytes); },
       delivery::exactly_once,
       {},
       collective_kind::allgather});
  all.push_back(
      {"allgather-rd",
       {},
       "MPICH recursive-doubling allgather (MPICH "
       "allgather_intra_recursive_doubling.c); needs a power-of-two number of ranks",
       [](const collective_request& req) { return rd_allgather(req.num_ranks, req.bytes); },
       delivery::exactly_once,
       {},
       collective_kind::allgather});
  all.push_back(
      {"allgather-bruck",
       {},
       "MPICH Bruck allgather, ceil(log2 p) steps for any p (MPICH "
       "allgather_intra_brucks.c)",
       [](const collective_request& req) { return bruck_allgather(req.num_ranks, req.bytes); },
       delivery::exactly_once,
       {},
       collective_kind::allgather});
  all.push_back(
      {"allgather-mpich",
       {},
       "MPICH automatic allgather choice: recursive doubling below 524288 total "
       "bytes on a power of two, else Bruck below 81920, else ring (MPICH "
       "allgather.c MPIR_Allgather_intra_auto; 4.x maint/tuning/coll/mpir/"
       "generic.json)",
       [](const collective_request& req) { return mpich_auto_allgather(req.num_ranks, req.bytes); },
       delivery::exactly_once,
       {},
       collective_kind::allgather});
  // Router-level all-to-all broadcasts (algorithms/galaxy_a2a.h): the routers' engines move
  // one packet of `bytes` per router; the hosts only start them and receive the blocks.
  for (const galaxy_algorithm a :
       {galaxy_algorithm::sfata, galaxy_algorithm::rfata, galaxy_algorithm::a2a}) {
    static const char* const what[] = {
        "supernode-first all-to-all broadcast among the routers (Zhuang et al., SFATA)",
        "router-first all-to-all broadcast among the routers (Zhuang et al., RFATA)",
        "dragonfly all-to-all broadcast among the routers (Xiang and Ju, A2A)"};
    all.push_back({to_string(a),
                   {},
                   std::string(what[static_cast<int>(a)]) +
                       "; the routers' collective engines forward; one rank per router" +
                       (a == galaxy_algorithm::a2a ? "" : ", the root's supernode collects"),
                   [](const collective_request& req) {
                     if (!req.topo || !req.place)
                       throw std::invalid_argument(
                           "a router-level all-to-all broadcast needs "
                           "the topology");
                     return galaxy_schedule(*req.topo, *req.place, req.bytes);
                   },
                   delivery::hardware,
                   "galaxy",
                   collective_kind::allgather,
                   a != galaxy_algorithm::a2a});
  }
  // NIC-based all-to-all broadcasts on LANai NICs (algorithms/lanai_gossip.h): the hosts
  // post one gm_gossip request each; the NICs' control programs move the data.
  for (const bool rd : {false, true}) {
    all.push_back({rd ? "nic-rd" : "nic-cb",
                   {},
                   rd ? "NIC-based all-to-all broadcast, recursive doubling, small messages combined "
                        "(Yu, Panda, Buntinas; LANai NICs)"
                      : "NIC-based all-to-all broadcast, concurrent broadcasting with hopping "
                        "packets (Yu, Panda, Buntinas; LANai NICs)",
                   [rd](const collective_request& req) {
                     return lanai::gossip_schedule(req.num_ranks, req.bytes, rd);
                   },
                   delivery::hardware,
                   "lanai",
                   collective_kind::allgather});
  }
  return all;
}

}  // namespace

schedule ragasa_bcast(uint32_t num_ranks, uint32_t root, uint64_t bytes) {
  schedule s(num_ranks);
  s.root = root;
  s.bytes = bytes;
  for (uint32_t rank = 0; rank < num_ranks; ++rank) {
    s.ranks[rank].then(rank == root ? make_offload_bcast(root, 0, bytes, 0)
                                    : make_recv(root, 0, bytes, 0));
  }
  return s;
}

schedule ragasa_relay_bcast(const network::topology& topo, const network::placement& place,
                            uint32_t root, uint64_t bytes) {
  const ragasa_relays rl = make_ragasa_relays(topo, place, root);
  const uint32_t n = place.num_ranks();
  schedule s(n);
  s.root = root;
  s.bytes = bytes;
  for (uint32_t rank = 0; rank < n; ++rank) {
    if (rank == root) {
      s.ranks[rank].then(make_offload_bcast(root, 0, bytes, 0));
      continue;
    }
    const network::terminal_id t = place.terminal_of(rank);
    s.ranks[rank].then(make_recv(place.rank_of(rl.parent[t]), 0, bytes, 0));
    const network::router_id r = topo.router_of(t);
    if (rl.relay[r] == t && !rl.children[r].empty())
      s.ranks[rank].then(make_offload_bcast(rank, 0, bytes, 0));
  }
  return s;
}

const char* to_string(collective_kind k) {
  return k == collective_kind::broadcast ? "broadcast" : "allgather";
}

const std::vector<algorithm_info>& algorithms() {
  // Function-local static: built once, thread-safe, no static-initialisation-order issues.
  static const std::vector<algorithm_info> registry = build_registry();
  return registry;
}

const algorithm_info& find_algorithm(const std::string& name) {
  for (const algorithm_info& a : algorithms()) {
    if (a.name == name) return a;
    for (const std::string& alias : a.aliases) {
      if (alias == name) return a;
    }
  }
  std::string allowed;
  for (const algorithm_info& a : algorithms()) {
    if (!allowed.empty()) allowed += ", ";
    allowed += a.name;
    if (!a.aliases.empty()) {
      allowed += " (alias ";
      for (size_t i = 0; i < a.aliases.size(); ++i) {
        if (i > 0) allowed += ", ";
        allowed += a.aliases[i];
      }
      allowed += ")";
    }
  }
  throw std::invalid_argument("collective.algorithm = '" + name +
                              "' is not known; allowed: " + allowed);
}

schedule tofu2_bcast(tofu2_algorithm a, const collective_request& req) {
  if (!req.topo || !req.place)
    throw std::invalid_argument(std::string(to_string(a)) + " needs the topology");
  const tofu2_plan plan =
      make_tofu2_plan(a, *req.topo, *req.place, req.root, req.bytes, req.tofu2.segments);
  const tofu2_check_result check = check_tofu2_plan(plan);
  if (!check.ok) {
    throw std::logic_error(std::string(to_string(a)) +
                           " made a broken plan: " + check.errors.front());
  }
  return tofu2_schedule(plan, req.tofu2);
}

}  // namespace bcastsim::algorithms
