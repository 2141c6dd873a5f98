#include "tb/list_command.h"

#include "algorithms/registry.h"
#include "network/topology_kind.h"
#include "tb/config.h"
#include "tb/format.h"
#include "tb/simulation.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <string>
#include <vector>

namespace bcastsim::tb {

namespace {

// A numeric default as written in the schema ("1e10") without its exponent.
std::string plain_default(const key_info& k) {
  if (k.default_value.empty()) return "\"\"";
  const bool numeric = k.type == value_type::uint || k.type == value_type::real;
  if (!numeric || k.default_value.find_first_of("eE") == std::string::npos) return k.default_value;
  return plain_number(std::stod(k.default_value));
}

std::string allowed_of(const key_info& k) {
  std::string allowed;
  if (k.type == value_type::choice) {
    for (size_t i = 0; i < k.allowed.size(); ++i) allowed += (i ? "|" : "") + k.allowed[i];
  } else if (k.type == value_type::uint || k.type == value_type::real) {
    allowed = plain_number(k.min) + " .. " + plain_number(k.max);
  }
  return allowed;
}

// Keys as a table: key, default, allowed values, description. Columns are as wide as their
// widest cell up to a cap; a longer cell pushes its row's description right.
void key_table(std::ostream& os, const std::vector<const key_info*>& keys, const char* indent) {
  constexpr size_t cap = 30;
  size_t wk = 3, wd = 7, wa = 7;
  for (const key_info* k : keys) {
    wk = std::max(wk, k->key.size());
    wd = std::min(cap, std::max(wd, plain_default(*k).size()));
    wa = std::min(cap, std::max(wa, allowed_of(*k).size()));
  }
  const auto row = [&](const std::string& key, const std::string& def, const std::string& allowed,
                       const std::string& description) {
    os << indent << std::left << std::setw(static_cast<int>(wk)) << key << "  "
       << std::setw(static_cast<int>(wd)) << def << "  " << std::setw(static_cast<int>(wa))
       << allowed << "  " << description << "\n";
  };
  row("key", "default", "allowed", "description");
  for (const key_info* k : keys) row(k->key, plain_default(*k), allowed_of(*k), k->description);
}

// Each topology kind with its routings, link classes and keys, from its declaration.
void list_topologies(std::ostream& os) {
  os << "Topologies (topology.kind), each with its own keys:\n";
  for (const network::topology_kind& kind : network::topology_kinds()) {
    os << "  " << kind.name << ": " << kind.description << "\n    routings (routing.kind): ";
    for (size_t i = 0; i < kind.routings.size(); ++i) {
      os << (i ? ", " : "") << kind.routings[i];
      for (const auto& [alias, name] : kind.routing_aliases) {
        if (name == kind.routings[i]) os << " (alias " << alias << ")";
      }
    }
    os << "\n    link classes: ";
    for (size_t i = 0; i < kind.classes.size(); ++i) os << (i ? ", " : "") << kind.classes[i].name;
    if (kind.classes.size() == 1) os << " (the others from the topology's file)";
    os << "\n";
    std::vector<const key_info*> keys;
    for (const key_info& k : schema()) {
      if (k.owner == kind.name) keys.push_back(&k);
    }
    key_table(os, keys, "    ");
  }
}

void list_algorithms(std::ostream& os) {
  os << "\nAlgorithms (collective.algorithm):\n";
  for (const auto& a : algorithms::algorithms()) {
    std::string names = a.name;
    for (const auto& al : a.aliases) names += ", " + al;
    os << "  " << std::left << std::setw(24) << names << a.description << "\n";
  }
  os << "  " << std::left << std::setw(24) << "none"
     << "no collective: synthetic traffic only (traffic.kind uniform|adversarial)\n";
}

}  // namespace

int list_command(std::ostream& os) {
  list_topologies(os);
  list_algorithms(os);
  os << "\nBlock statistics: each block's own value (result.json 'blocks' with "
        "output.block_stats=on);\n'over blocks' says how the summaries (e.g. ragasa.units) "
        "combine the blocks of a kind:\nsum = summed over the blocks, max = the highest "
        "block's, merge = count/mean/min/max of all samples.\n";
  list_statistics(os);
  os << "\nScenario keys of every topology kind (YAML nesting or --set key=value):\n";
  std::vector<const key_info*> keys;
  for (const key_info& k : schema()) {
    if (k.owner.empty()) keys.push_back(&k);
  }
  key_table(os, keys, "  ");
  return 0;
}

}  // namespace bcastsim::tb
