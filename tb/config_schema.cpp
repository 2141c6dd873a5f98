// The schema's tables: every key a scenario may set, in the order `bcastsim list` shows them,
// gathered from the topology kinds, the blocks' own declarations (router, host, traffic,
// offload families) and the testbench's general keys. tb/config.cpp reads scenarios with it.
#include "tb/config.h"

#include "network/routing.h"
#include "network/topology_kind.h"
#include "tb/collective_keys.h"
#include "tb/offload_family.h"

#include <string>
#include <vector>

namespace bcastsim::tb {

namespace {
key_info u(const char* key, uint64_t def, double lo, double hi, const char* desc) {
  return params::uint_key(key, def, lo, hi, desc);
}
key_info r(const char* key, const char* def, double lo, double hi, const char* desc) {
  key_info k = params::real_key(key, 0, lo, hi, desc);
  k.default_value = def;
  return k;
}
key_info c(const char* key, const char* def, std::vector<std::string> allowed, const char* desc) {
  return params::choice_key(key, def, std::move(allowed), desc);
}
key_info t(const char* key, const char* def, const char* desc) {
  return params::text_key(key, def, desc);
}

// The keys a kind declares: its own (topology.*, routing.kind), then per declared link
// class its link rate, latency and VC buffer, owned by the kind.
void add_kind_keys(std::vector<key_info>& keys, const network::topology_kind& kind) {
  for (key_info k : kind.params) {
    k.owner = kind.name;
    keys.push_back(std::move(k));
  }
  for (const network::link_class_decl& c : kind.classes) {
    const std::string what = c.description.empty() ? c.name + " links" : c.description;
    for (key_info k :
         {params::real_key("link." + c.name + ".bandwidth_gib_per_s", c.bandwidth_gib_per_s, 1e-6,
                           1e6, what + ": bandwidth, GiB/s"),
          params::real_key("link." + c.name + ".latency_ns", c.latency_ns, 0, 1e9,
                           what + ": latency (also of credits)"),
          params::real_key("link." + c.name + ".flit_overhead_ns", 0, 0, 1e6,
                           what + ": time each flit adds to a packet's serialisation (CODES: "
                                  "0.505 ns per 32-B chunk on average)")}) {
      k.owner = kind.name;
      keys.push_back(std::move(k));
    }
  }
}

void add_buffer_keys(std::vector<key_info>& keys, const network::topology_kind& kind) {
  for (const network::link_class_decl& c : kind.classes) {
    key_info k = params::uint_key(
        "router.vc_buffer_bytes." + c.name, c.vc_buffer_bytes, 1, 1u << 30,
        c.name == "terminal" ? "input VC buffer of terminal ports (and the NIC's receive "
                               "buffer)"
                             : "input VC buffer of " + c.name + " ports");
    k.owner = kind.name;
    keys.push_back(std::move(k));
  }
}

// nic.kind's values: host, and every family whose NIC can stand in for the host NIC.
std::vector<std::string> nic_kinds() {
  std::vector<std::string> kinds = {"host"};
  for (const offload_family& f : offload_families()) {
    if (f.nic_kind) kinds.push_back(f.name);
  }
  return kinds;
}

std::vector<key_info> general_keys() {
  return {
      u("job.ranks", 0, 0, 1e8,
        "ranks of the job; 0 = every terminal (or every terminal from "
        "job.first_terminal)"),
      c("job.placement", "all", {"all", "contiguous", "random"},
        "ranks on terminals: all (rank i on terminal i), contiguous, random (seeded)"),
      u("job.first_terminal", 0, 0, 1e8, "first terminal of a contiguous placement"),
      u("job.seed", 0, 0, 1.8e19, "seed of a random placement; 0 = use seed"),
      u("job.ranks_per_node", 0, 0, 64,
        "ranks only on the first N terminals of every node (router), 0 = on all; 1 = one "
        "process per node, its other NICs free (Tofu2: a rank's TNIs)"),
      t("collective.algorithm", "binomial",
        "broadcast or allgather algorithm (see `bcastsim list`); none = no collective, only "
        "with traffic.kind uniform or adversarial. The collective.* keys describe one "
        "collective; several: the list collectives: of mappings of these keys without "
        "'collective.' (--set collectives.N.KEY=...), where a key an entry does not give takes "
        "collective.KEY's value (given or default), except name and after"),
      u("collective.root", 0, 0, 1e8,
        "root: a rank of the communicator (an index into collective.ranks; with all, a job "
        "rank); unused with collective.roots = all and by an allgather"),
      c("collective.random_root", "off", {"off", "on"},
        "on: the root is drawn from the seed among the communicator's ranks (collective.root "
        "ignored); each entry of collectives: draws its own"),
      u("collective.bytes", 16384, 0, 1ull << 36,
        "bytes broadcast; with collective.roots = all and for an allgather: bytes of each "
        "rank"),
      c("collective.roots", "one", {"one", "all"},
        "one: one broadcast from collective.root; all: every rank of the communicator "
        "broadcasts collective.bytes at once (any broadcast algorithm); an allgather has no "
        "root and takes either"),
      t("collective.ranks", "all",
        "the communicator: all = every rank of the job, or job ranks and inclusive ranges, "
        "comma-separated, in communicator order (0-35,40,42-47), each rank once"),
      u("collective.start_ns", 0, 0, 1e15, "no rank enters the collective before this time"),
      t("collective.after", "",
        "only in an entry of collectives: the index or name of an earlier entry; each rank "
        "enters this one once its own part of that one is done; empty = no such wait"),
      u("collective.repeat", 1, 1, 1e6, "repetitions, one after the other on each rank"),
      u("collective.compute_ns", 0, 0, 1e15,
        "computation per repetition: after the collective (collective.mode = blocking) or "
        "beside it (overlap)"),
      c("collective.mode", "blocking", {"blocking", "overlap"},
        "blocking: the collective, then collective.compute_ns of computation, per repetition; "
        "overlap: start the collective, compute meanwhile, wait for both (MPI_Ibcast + "
        "compute + MPI_Wait)"),
      t("collective.name", "",
        "label in results: letters, digits, - _ ., beginning with a letter, unique; empty = "
        "collective (collectives.N for an entry of collectives:)"),
      u("network.packet_bytes", 512, 1, 1 << 20,
        "largest packet; messages are split into packets of this size"),
      u("network.flit_bytes", 64, 1, 1 << 20,
        "flit size: a router may forward a packet once its head flit is in (cut-through)"),
      r("nic.flit_gap_ns", "0", 0, 1e6,
        "the host NIC's idle time after each flit it injects (CODES's terminal draws a second "
        "U[0,1) ns per 32-B chunk: 0.5 ns on average)"),
      r("nic.codes_issue_ns", "0", 0, 1e9,
        "CODES's model-net scheduler, for traffic.codes_latency_ns only: it hands the host NIC "
        "one packet this often while the NIC holds less than twice the terminal VC buffer, and "
        "CODES's latency counts from then (91.33 for CODES's 512-B packets on 5.25 GiB/s "
        "links: 0.005 + 16 x 5.6766 + 0.5 ns); 0: from the message's creation"),
      c("nic.kind", "host", nic_kinds(),
        "the NIC of every terminal: host (the plain host NIC), or an offload family's "
        "programmable NIC, which host-based collectives then run over too (lanai: GM on a "
        "LANai Myrinet NIC)"),
      // (here: the router's, the offload families' and the host's keys, see schema())
      // (here: the traffic generators' keys, see schema())
      r("fault.drop_rate", "0", 0, 1,
        "fraction of packets every network link loses, drawn per link and packet from the run's "
        "seed; only with NICs that resend: nic.kind = lanai (GM, and the NIC-based "
        "collectives' NACKs)"),
      t("fault.drop_packet", "",
        "packets to lose: LINK:N[,LINK:N...], the N-th packet (from 1) crossing the link named "
        "LINK (link_nic_T: terminal T into its router; link_rR_P: out of router R's port P)"),
      r("sim.max_time_ns", "1e10", 0, 1e16,
        "simulated-time limit; reaching it stops the run as stalled (exit 1); 0 = none"),
      r("sim.max_memory_gib", "0", 0, 1e6,
        "memory a run or analysis may need, estimated from the topology's size before "
        "building it; a larger estimate is refused (exit 2); 0 = 3/4 of physical memory"),
      t("trace.vcd", "", "VCD file to write (empty = no waveforms); --vcd sets it"),
      t("trace.blocks", "router_0,nic_0",
        "blocks to trace, comma-separated: router_N, nic_N, unit_N (Bcast Units, with ragasa)"),
      r("trace.start_ns", "0", 0, 1e18, "waveform window start"),
      r("trace.end_ns", "0", 0, 1e18, "waveform window end; 0 = end of simulation"),
      c("output.block_stats", "off", {"off", "on"},
        "on: result.json gets every block's declared statistics under 'blocks'"),
      c("output.link_traffic", "off", {"off", "on"},
        "on: result.json gets 'link_traffic': the dragonfly's shape, the ranks' terminals and "
        "the messages and packets of every link that carried data, by its routers or "
        "terminal (scripts/plot_sweep.py draws it)"),
  };
}

}  // namespace

const std::vector<key_info>& schema() {
  static const std::vector<key_info> keys = [] {
    std::vector<std::string> kinds;
    for (const network::topology_kind& k : network::topology_kinds()) kinds.push_back(k.name);
    std::vector<key_info> all = {
        u("seed", 1, 0, 1.8e19, "seed of the run: random placement and any other random draw"),
        c("topology.kind", kinds.front().c_str(), kinds,
          "network topology (`bcastsim list` shows each kind's keys)")};
    for (const network::topology_kind& k : network::topology_kinds()) add_kind_keys(all, k);
    // The testbench's keys, and in their place those declared beside the blocks: the
    // router's (with each kind's VC buffers after router.vcs), the offload families', the
    // host's, the traffic generators'.
    for (key_info& k : general_keys()) {
      if (k.key == "sim.max_time_ns") {
        for (const key_info& tk : params::declarations_of<traffic_config>()) all.push_back(tk);
      }
      all.push_back(std::move(k));
      if (all.back().key == "network.flit_bytes") {
        for (key_info& rk : params::declarations_of<hw::router_params>()) {
          all.push_back(std::move(rk));
          if (all.back().key != "router.vcs") continue;
          for (const network::topology_kind& kind : network::topology_kinds()) {
            add_buffer_keys(all, kind);
          }
        }
        for (const offload_family& f : offload_families()) {
          for (const key_info& fk : f.params) all.push_back(fk);
        }
        for (const key_info& hk : params::declarations_of<hw::host_params>()) all.push_back(hk);
      }
    }
    return all;
  }();
  return keys;
}

const key_info* find_key(const std::string& key, const std::string& kind) {
  if (is_collective_entry_key(key)) return collective_entry_declaration(key);
  for (const key_info& k : schema()) {
    if (k.key == key && (k.owner.empty() || k.owner == kind)) return &k;
  }
  return nullptr;
}

std::vector<const key_info*> keys_of_kind(const std::string& kind) {
  std::vector<const key_info*> keys;
  for (const key_info& k : schema()) {
    if (k.owner.empty() || k.owner == kind) keys.push_back(&k);
  }
  return keys;
}

}  // namespace bcastsim::tb
