// Keys a scenario gives but does not read: warned about, not refused (a study may fix a key
// every point carries whatever it varies).
#include "algorithms/registry.h"
#include "tb/collective_keys.h"
#include "tb/config.h"
#include "tb/offload_family.h"

namespace bcastsim::tb {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// The algorithms of the scenario's collectives: collective.algorithm, or each entry's.
std::vector<std::string> algorithms_of(const config& cfg, uint32_t entries) {
  if (entries == 0) return {cfg.text("collective.algorithm")};
  std::vector<std::string> out;
  for (uint32_t i = 0; i < entries; ++i) {
    out.push_back(cfg.text("collectives." + std::to_string(i) + ".algorithm"));
  }
  return out;
}

// Why an offload family's key has no effect with `algorithms`; empty: it has.
std::string family_reason(const std::string& key, const std::vector<std::string>& algorithms,
                          bool list, const std::string& nic_kind) {
  for (const offload_family& f : offload_families()) {
    bool used = f.nic_kind && f.name == nic_kind;  // nic.kind puts its NIC on every terminal
    for (const std::string& a : algorithms) used = used || family_of_algorithm(a) == &f;
    if (!starts_with(key, f.name + ".") || used) continue;
    std::string users;
    for (const algorithms::algorithm_info& a : algorithms::algorithms()) {
      if (a.offload == f.name) users += (users.empty() ? "" : ", ") + a.name;
    }
    const std::string which = list ? "no entry of collectives: uses"
                                   : "collective.algorithm = " + algorithms[0] + " does not use";
    return which + " the " + f.name +
           " offload; its keys apply to collective.algorithm = " + users +
           (f.nic_kind ? ", or with nic.kind = " + f.name : "");
  }
  return "";
}

bool is_allgather(const std::string& algorithm) {
  try {
    const algorithms::algorithm_info& info = algorithms::find_algorithm(algorithm);
    return info.kind == algorithms::collective_kind::allgather && !info.allgather_has_root;
  } catch (const std::exception&) {
    return false;  // an unknown algorithm is refused later
  }
}

// Why a collective key (collective.X, or collectives.N.X of one of `entries`) has no effect;
// empty: it has.
std::string collective_reason(const config& cfg, const std::string& key, uint32_t entries) {
  const bool entry = is_collective_entry_key(key);
  if (!entry && !starts_with(key, "collective.")) return "";
  const size_t dot = key.rfind('.');
  const std::string prefix = key.substr(0, dot) + ".";
  const std::string field = key.substr(dot + 1);
  if (!entry && entries > 0) {  // the value entries inherit
    if (field == "name") return "each entry of collectives: has its own name";
    for (uint32_t i = 0; i < entries; ++i) {
      if (!cfg.given().count("collectives." + std::to_string(i) + "." + field)) return "";
    }
    return "every entry of collectives: gives its own " + field;
  }
  const auto value = [&](const char* f) { return cfg.text(prefix + f); };
  const bool root_key = field == "root" || field == "random_root";
  if (root_key && value("roots") == "all") {
    return prefix + "roots = all: every rank of the communicator is a root";
  }
  if (root_key && is_allgather(value("algorithm"))) {
    return prefix + "algorithm = " + value("algorithm") + " is an allgather: it has no root";
  }
  if (field == "root" && value("random_root") == "on") {
    return prefix + "random_root = on draws the root";
  }
  return "";
}

// Why key `key` has no effect in `cfg` (traffic, placement, root, waveform keys); empty: it
// has.
std::string reason(const config& cfg, const std::string& key) {
  const std::string traffic = cfg.text("traffic.kind");
  const bool synthetic = traffic == "uniform" || traffic == "adversarial";
  if (starts_with(key, "traffic.") && key != "traffic.kind" && traffic == "none") {
    return "traffic.kind = none";
  }
  if (key == "traffic.mean_interarrival_ns" && traffic != "background") {
    return "it applies to traffic.kind = background only, not " + traffic;
  }
  if ((key == "traffic.load" || key == "traffic.warmup_ns" || key == "traffic.measure_ns") &&
      !synthetic) {
    return "it applies to traffic.kind = uniform or adversarial only, not " + traffic;
  }
  if ((key == "nic.flit_gap_ns" || key == "nic.codes_issue_ns") && cfg.text("nic.kind") != "host") {
    return "it applies to the host NIC (nic.kind = host) only, not nic.kind = " +
           cfg.text("nic.kind");
  }
  if ((key == "router.internal_speedup" || key == "router.alloc_iterations") &&
      cfg.text("router.model") != "input_queued") {
    return "it applies to router.model = input_queued only, not " + cfg.text("router.model");
  }
  if (key == "router.vc_order" && cfg.text("router.model") != "output_queued") {
    return "it applies to router.model = output_queued only, not " + cfg.text("router.model");
  }
  const std::string placement = cfg.text("job.placement");
  if (key == "job.first_terminal" && placement != "contiguous") {
    return "it applies to job.placement = contiguous only, not " + placement;
  }
  if (key == "job.seed" && placement != "random") {
    return "it applies to job.placement = random only, not " + placement;
  }
  if (starts_with(key, "trace.") && key != "trace.vcd" && cfg.text("trace.vcd").empty()) {
    return "no waveforms are written (trace.vcd is empty; --vcd sets it)";
  }
  uint32_t entries = 0;
  try {
    entries = collective_entries(cfg);
  } catch (const config_error&) {
    return "";  // refused by make_scenario
  }
  const std::string why = collective_reason(cfg, key, entries);
  if (!why.empty()) return why;
  return family_reason(key, algorithms_of(cfg, entries), entries > 0, cfg.text("nic.kind"));
}

}  // namespace

std::vector<std::string> ineffective_keys(const config& cfg) {
  std::vector<std::string> out;
  for (const auto& [key, value] : cfg.given()) {
    const std::string why = reason(cfg, key);
    if (!why.empty()) out.push_back(key + " = " + value + " has no effect: " + why);
  }
  return out;
}

}  // namespace bcastsim::tb
