// Keys a scenario gives but does not read: warned about, not refused (a study may fix a key
// every point carries whatever it varies).
#include "algorithms/registry.h"
#include "tb/config.h"
#include "tb/offload_family.h"

namespace bcastsim::tb {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Why an offload family's key has no effect with `algorithm`; empty: it has.
std::string family_reason(const std::string& key, const std::string& algorithm) {
  const offload_family* used = family_of_algorithm(algorithm);
  for (const offload_family& f : offload_families()) {
    if (!starts_with(key, f.name + ".") || used == &f) continue;
    std::string users;
    for (const algorithms::algorithm_info& a : algorithms::algorithms()) {
      if (a.offload == f.name) users += (users.empty() ? "" : ", ") + a.name;
    }
    return "collective.algorithm = " + algorithm + " does not use the " + f.name +
           " offload; its keys apply to collective.algorithm = " + users;
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
  const std::string placement = cfg.text("job.placement");
  if (key == "job.first_terminal" && placement != "contiguous") {
    return "it applies to job.placement = contiguous only, not " + placement;
  }
  if (key == "job.seed" && placement != "random") {
    return "it applies to job.placement = random only, not " + placement;
  }
  if (key == "collective.root" && cfg.text("collective.random_root") == "on") {
    return "collective.random_root = on draws the root";
  }
  if (starts_with(key, "trace.") && key != "trace.vcd" && cfg.text("trace.vcd").empty()) {
    return "no waveforms are written (trace.vcd is empty; --vcd sets it)";
  }
  return family_reason(key, cfg.text("collective.algorithm"));
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
