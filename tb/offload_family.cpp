#include "tb/offload_family.h"

#include "algorithms/registry.h"
#include "tb/config.h"
#include "tb/galaxy/family.h"
#include "tb/lanai/family.h"
#include "tb/ragasa/family.h"
#include "tb/tofu2/family.h"

#include <stdexcept>

namespace bcastsim::tb {

const std::vector<offload_family>& offload_families() {
  // One line per family.
  static const std::vector<offload_family> families = {
      ragasa::family(),
      tofu2::family(),
      galaxy::family(),
      lanai::family(),
  };
  return families;
}

const offload_family* family_of_algorithm(const std::string& algorithm) {
  const algorithms::algorithm_info* info = nullptr;
  try {
    info = &algorithms::find_algorithm(algorithm);
  } catch (const std::invalid_argument&) {
    return nullptr;  // "none", or a name make_plan refuses
  }
  for (const offload_family& f : offload_families()) {
    if (f.name == info->offload) return &f;
  }
  return nullptr;
}

const offload_family* family_of_scenario(const scenario& s) {
  for (const offload_family& f : offload_families()) {
    if (f.nic_kind && f.name == s.nic_kind) return &f;
  }
  for (const algorithms::collective_spec& c : s.collectives) {
    if (const offload_family* f = family_of_algorithm(c.algorithm)) return f;
  }
  return nullptr;
}

void check_records_unit_inputs(const offload_family* f, const std::string& algorithm) {
  if (f && f->records_unit_inputs) return;
  std::string allowed;
  for (const algorithms::algorithm_info& a : algorithms::algorithms()) {
    const offload_family* of = family_of_algorithm(a.name);
    if (of && of->records_unit_inputs) allowed += (allowed.empty() ? "" : ", ") + a.name;
  }
  throw config_error(
      "--record-unit-inputs",
      "--record-unit-inputs needs a Ragasa run or a Tofu2 one: it records what "
      "enters the units of the families that record (allowed: "
      "collective.algorithm = " +
          allowed + "); collective.algorithm = " + algorithm +
          (f ? " uses family " + f->name + ", which records nothing" : " uses no offload unit"));
}

}  // namespace bcastsim::tb
