#include "tb/config.h"

#include "network/routing.h"
#include "network/topology_kind.h"
#include "tb/collective_keys.h"
#include "tb/format.h"
#include "tb/offload_family.h"
#include "tb/yaml_input.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace bcastsim::tb {

namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// The first declaration of `key` of any kind: whether the key exists at all.
const key_info* any_key(const std::string& key) {
  for (const key_info& k : schema()) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

std::string section_of(const std::string& key) {
  const size_t dot = key.rfind('.');
  return dot == std::string::npos ? std::string() : key.substr(0, dot);
}

// A VC buffer must hold one packet (virtual cut-through at packet granularity).
uint32_t checked_buffer(const std::string& key, uint64_t bytes, uint32_t packet) {
  if (bytes < packet) {
    throw config_error(
        key, key + " = " + std::to_string(bytes) +
                 " cannot hold one packet (network.packet_bytes = " + std::to_string(packet) +
                 "); allowed: at least " + std::to_string(packet));
  }
  return static_cast<uint32_t>(bytes);
}

[[noreturn]] void unknown_key(const std::string& key, const std::string& origin) {
  // A section given one value (router: {vc_buffer_bytes: 4096}): name the keys it holds.
  std::vector<std::string> inside;
  for (const key_info& k : schema()) {
    if (k.key.rfind(key + ".", 0) != 0) continue;
    std::string rest = k.key.substr(key.size() + 1);
    rest = rest.substr(0, rest.find('.'));
    if (std::find(inside.begin(), inside.end(), rest) == inside.end()) inside.push_back(rest);
  }
  if (!inside.empty()) {
    throw config_error(
        key, "'" + key + "'" + origin + " is a section, not a value: give its keys (" + key + "." +
                 inside.front() + " and so on); allowed keys under '" + key + "': " + join(inside));
  }
  // Name the keys that could have been meant: the siblings, or the top-level sections.
  std::string prefix = section_of(key);
  std::vector<std::string> near;
  while (true) {
    std::set<std::string> seen;
    for (const key_info& k : schema()) {
      if (!prefix.empty() && k.key.rfind(prefix + ".", 0) != 0) continue;
      std::string rest = prefix.empty() ? k.key : k.key.substr(prefix.size() + 1);
      rest = rest.substr(0, rest.find('.'));
      if (seen.insert(rest).second) near.push_back(rest);
    }
    if (!near.empty() || prefix.empty()) break;
    prefix = section_of(prefix);
  }
  std::string where = prefix.empty() ? "at the top level" : "under '" + prefix + "'";
  throw config_error(
      key, "unknown key '" + key + "'" + origin + "; allowed keys " + where + ": " + join(near));
}

// A byte size: a uint key whose name says bytes (collective.bytes, router.vc_buffer_bytes.*).
bool is_byte_size(const key_info& k) {
  return k.type == value_type::uint && k.key.find("bytes") != std::string::npos;
}

// Byte sizes may carry a binary suffix, exact: 16KiB = 16384. Stored as the plain integer,
// so result.json and point seeds see one spelling; anything else is left to check_value.
std::string plain_bytes(const key_info& k, const std::string& value) {
  if (!is_byte_size(k)) return value;
  static const std::pair<const char*, int> suffixes[] = {
      {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
  for (const auto& [suffix, shift] : suffixes) {
    const size_t n = std::char_traits<char>::length(suffix);
    if (value.size() <= n || value.compare(value.size() - n, n, suffix) != 0) continue;
    const std::string digits = value.substr(0, value.size() - n);
    if (digits.empty() || digits.size() > 12 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      return value;
    }
    const uint64_t count = std::stoull(digits);  // < 10^12
    if (count > (UINT64_MAX >> shift)) return value;
    return std::to_string(count << shift);
  }
  return value;
}

// `key`: k's key, or the entry key collectives.N.X declared by k = collective.X.
void check_value(const key_info& k, const std::string& key, const std::string& value,
                 const std::string& origin) {
  auto fail = [&](const std::string& allowed) {
    throw config_error(key,
                       key + " = '" + value + "'" + origin + " is not valid; allowed: " + allowed);
  };
  // Every digit: "[1, 1e+06]" read as if 1e6 were accepted, and an integer key refuses it.
  const std::string range = "[" + plain_number(k.min) + ", " + plain_number(k.max) + "]";
  switch (k.type) {
    case value_type::uint: {
      const std::string allowed =
          "an integer in " + range +
          (is_byte_size(k) ? " (bytes), or with a binary suffix: 16KiB, 4MiB, 1GiB, 1TiB" : "");
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) {
        fail(allowed);
      }
      errno = 0;
      const double v = std::strtod(value.c_str(), nullptr);
      if (errno || v < k.min || v > k.max) fail(allowed);
      break;
    }
    case value_type::real: {
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end || errno || !std::isfinite(v) || v < k.min || v > k.max) {
        fail("a number in " + range);
      }
      break;
    }
    case value_type::choice:
      for (const std::string& a : k.allowed) {
        if (a == value) return;
      }
      fail(join(k.allowed));
      break;
    case value_type::text:
      break;
  }
}

// The declaration of `key` of any kind (collective.X for an entry key collectives.N.X);
// throws the unknown-key config_error if there is none.
const key_info& declaration(const std::string& key, const std::string& origin) {
  if (is_collective_entry_key(key)) return checked_collective_entry_declaration(key, origin);
  const key_info* k = any_key(key);
  if (!k) unknown_key(key, origin);
  return *k;
}

void flatten(const YAML::Node& node, const std::string& prefix, config& cfg,
             const std::string& origin);

// collectives: a list of mappings; entry i's keys become collectives.i.KEY.
void flatten_collectives(const YAML::Node& list, config& cfg, const std::string& origin) {
  const std::string allowed =
      "; allowed: a list of mappings of collective keys without 'collective.', such as "
      "collectives: [{algorithm: binomial, bytes: 4KiB}, {roots: all, after: 0}]";
  if (!list.IsSequence() || list.size() == 0) {
    throw config_error("collectives",
                       "collectives" + origin + " must be a non-empty list" + allowed);
  }
  if (list.size() > max_collective_entries) {
    throw config_error("collectives",
                       "collectives" + origin + " has " + std::to_string(list.size()) +
                           " entries; allowed: at most " + std::to_string(max_collective_entries));
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string key = "collectives." + std::to_string(i);
    if (!list[i].IsMap() || list[i].size() == 0) {
      throw config_error(key, key + origin + " must be a mapping with at least one key" + allowed);
    }
    flatten(list[i], key, cfg, origin);
  }
}

void flatten(const YAML::Node& node, const std::string& prefix, config& cfg,
             const std::string& origin) {
  for (const auto& kv : node) {
    const std::string name = kv.first.as<std::string>();
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    const YAML::Node& v = kv.second;
    if (key == "collectives") {
      flatten_collectives(v, cfg, origin);
      continue;
    }
    if (v.IsMap()) {
      flatten(v, key, cfg, origin);
      continue;
    }
    const key_info* k = &declaration(key, origin);
    if (cfg.given().count(key)) {  // nested once and dotted once: the loader sees two keys
      throw config_error(key, key + " is given twice" + origin + ", again at line " +
                                  std::to_string(kv.first.Mark().line + 1) +
                                  "; allowed: each key once");
    }
    if (v.IsScalar()) {
      cfg.set(key, v.Scalar());
    } else if (v.IsSequence() && k->type == value_type::text) {
      // A list of names (trace.blocks, topology.mesh) reads as its comma-separated text.
      std::string text;
      for (const YAML::Node& item : v) {
        if (!item.IsScalar()) {
          throw config_error(key, key + origin + " must be a list of single values");
        }
        text += (text.empty() ? "" : ",") + item.Scalar();
      }
      cfg.set(key, text);
    } else {
      throw config_error(key, key + origin + " must be a single value, not a list or empty");
    }
  }
}

// The kinds that declare `key`, for the message refusing it for another kind.
std::string owners_of(const std::string& key) {
  std::vector<std::string> owners;
  for (const key_info& k : schema()) {
    if (k.key == key && !k.owner.empty()) owners.push_back(k.owner);
  }
  return join(owners, " or ");
}

}  // namespace

config config::from_yaml_text(const std::string& text, const std::string& origin) {
  config cfg;
  const YAML::Node root = load_yaml(text, origin, "");
  if (root.IsNull()) return cfg;
  if (!root.IsMap()) throw config_error("", origin + " must be a YAML mapping of keys");
  flatten(root, "", cfg, " (in " + origin + ")");
  return cfg;
}

config config::from_yaml_file(const std::string& path) {
  config cfg = from_yaml_text(read_input_file(path, "", "scenario file"), path);
  // A file the scenario names goes with it: relative to the scenario's folder, not to
  // wherever bcastsim runs (a study or a checkout elsewhere reads the same file).
  const std::string folder = std::filesystem::path(path).parent_path().string();
  for (auto& [key, value] : cfg.m_given) {
    if (is_input_file_key(key)) value = resolve_input_path(value, folder);
  }
  return cfg;
}

void config::set(const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw config_error(assignment, "--set expects key=value, got '" + assignment + "'");
  }
  std::string value = assignment.substr(eq + 1);
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  const std::string key = assignment.substr(0, eq);
  check_utf8(key, "", "--set key");
  declaration(key, " (in --set)");
  check_utf8(value, key, "--set " + key);
  set(key, value);
}

void config::set(const std::string& key, const std::string& value) {
  // Checked against this scenario's kind when it has the key; a key of another kind is
  // checked against its own declaration now and refused by check() if the kind stays.
  const key_info* k = find_key(key, kind());
  if (!k) k = &declaration(key, "");
  const std::string plain = plain_bytes(*k, value);
  check_value(*k, key, plain, "");
  m_given[key] = plain;
}

const std::string& config::kind() const {
  static const std::string default_kind = network::topology_kinds().front().name;
  const auto it = m_given.find("topology.kind");
  return it == m_given.end() ? default_kind : it->second;
}

const std::string& config::text(const std::string& key) const {
  const auto it = m_given.find(key);
  if (it != m_given.end()) return it->second;
  const key_info* k = find_key(key, kind());
  if (!k) throw config_error(key, "internal: no key '" + key + "' for topology.kind " + kind());
  // An entry of collectives: takes collective.X's value, but its name and after are its own.
  if (is_collective_entry_key(key) && k->key != "collective.name" && k->key != "collective.after") {
    return text(k->key);
  }
  return k->default_value;
}

void config::check() const {
  for (const auto& [key, value] : m_given) {
    const key_info* k = find_key(key, kind());
    if (!k) {
      throw config_error(key, key + " belongs to topology.kind " + owners_of(key) +
                                  ", not to this scenario's topology.kind " + kind() +
                                  " (`bcastsim list` shows each kind's keys)");
    }
    check_value(*k, key, value, "");
  }
}

std::map<std::string, std::string> config::values() const {
  std::map<std::string, std::string> v;
  for (const key_info* k : keys_of_kind(kind())) v[k->key] = text(k->key);
  for (const std::string& key : collective_entry_keys(*this)) v[key] = text(key);
  return v;
}

scenario make_scenario(const config& cfg) {
  cfg.check();
  scenario s;
  s.cfg = cfg;
  s.seed = cfg.uint("seed");
  s.topology_kind = cfg.kind();
  s.routing = cfg.text("routing.kind");
  const std::string& pl = cfg.text("job.placement");
  s.job.kind = pl == "random"       ? network::placement_kind::random
               : pl == "contiguous" ? network::placement_kind::contiguous
                                    : network::placement_kind::all;
  s.job.ranks = static_cast<uint32_t>(cfg.uint("job.ranks"));
  s.job.first_terminal = static_cast<uint32_t>(cfg.uint("job.first_terminal"));
  s.job.seed = cfg.uint("job.seed") ? cfg.uint("job.seed") : s.seed;
  s.job.per_router = static_cast<uint32_t>(cfg.uint("job.ranks_per_node"));
  s.traffic = params::load<traffic_config>(cfg);
  make_collectives(cfg, s);

  const uint32_t packet = static_cast<uint32_t>(cfg.uint("network.packet_bytes"));
  const uint32_t flit = static_cast<uint32_t>(cfg.uint("network.flit_bytes"));
  s.router = params::load<hw::router_params>(cfg);
  // The classes the kind declares; make_plan adds those its topology brings.
  const network::topology_kind& kind = network::find_topology_kind(s.topology_kind);
  s.links.clear();
  s.router.vc_buffer_bytes.clear();
  for (const network::link_class_decl& c : kind.classes) {
    tlm_net::link_params lp;
    lp.cls = static_cast<network::link_class>(s.links.size());
    lp.bandwidth_gib_per_s = cfg.real("link." + c.name + ".bandwidth_gib_per_s");
    lp.latency_ns = cfg.real("link." + c.name + ".latency_ns");
    lp.flit_bytes = flit;
    lp.flit_overhead_ns = cfg.real("link." + c.name + ".flit_overhead_ns");
    s.links.push_back(lp);
    const std::string buf_key = "router.vc_buffer_bytes." + c.name;
    s.router.vc_buffer_bytes.push_back(checked_buffer(buf_key, cfg.uint(buf_key), packet));
  }
  s.nic.packet_bytes = packet;
  s.nic.vcs = s.router.vcs;
  s.nic.seed = s.seed;
  s.nic.flit_bytes = flit;
  s.nic.flit_gap_ns = cfg.real("nic.flit_gap_ns");
  s.nic.codes_issue_ns = cfg.real("nic.codes_issue_ns");
  s.nic.inject_buffer_bytes = s.router.vc_buffer_bytes[0];
  s.nic.codes_issue_window_bytes = 2 * s.router.vc_buffer_bytes[0];  // CODES: 2 x cn_vc_size
  s.nic.eject_buffer_bytes = s.router.vc_buffer_bytes[0];
  // One offload family per run: the one nic.kind names, else the first the collectives name.
  s.nic_kind = cfg.text("nic.kind");
  const offload_family* first_family = nullptr;
  for (const offload_family& f : offload_families()) {
    if (f.nic_kind && f.name == s.nic_kind) first_family = &f;
  }
  for (size_t i = 0; i < s.collectives.size(); ++i) {
    const offload_family* f = family_of_algorithm(s.collectives[i].algorithm);
    if (f == nullptr || f == first_family) continue;
    if (first_family == nullptr) {
      first_family = f;
      continue;
    }
    const std::string key = s.collective_keys[i] + ".algorithm";
    throw config_error(key, key + " = " + s.collectives[i].algorithm + " needs the " + f->name +
                                " hardware, but the run already uses " + first_family->name +
                                "'s; a run holds one offload family; allowed: an algorithm of " +
                                first_family->name + " or one the hosts run");
  }
  for (const offload_family& f : offload_families()) {
    if (f.check) f.check(cfg, s);
  }
  s.host = params::load<hw::host_params>(cfg);
  s.max_time_ns = cfg.real("sim.max_time_ns");
  s.fault_drop_rate = cfg.real("fault.drop_rate");
  s.fault_drop_packet = cfg.text("fault.drop_packet");
  // A lost packet is gone for good unless the NICs resend: only a family NIC chosen by
  // nic.kind (lanai: GM, the collectives' NACKs) does. Anything else would stall, and with
  // background traffic not even stop until sim.max_time_ns.
  if (s.faults() && !(first_family && first_family->nic_kind)) {
    const std::string key = s.fault_drop_rate > 0 ? "fault.drop_rate" : "fault.drop_packet";
    throw config_error(key, key +
                                " loses packets, and only NICs that resend recover them: "
                                "allowed with nic.kind = lanai (GM's resends, the NIC-based "
                                "collectives' NACKs); the host NIC, Ragasa's, Tofu2's and the "
                                "Galaxyfly engines' hardware would stall");
  }
  check_collective_times(s);
  s.vcd_file = cfg.text("trace.vcd");
  std::stringstream blocks(cfg.text("trace.blocks"));
  for (std::string b; std::getline(blocks, b, ',');) {
    if (!b.empty()) s.trace_blocks.push_back(b);
  }
  s.trace_start_ns = cfg.real("trace.start_ns");
  s.trace_end_ns = cfg.real("trace.end_ns");
  s.block_stats = cfg.text("output.block_stats") == "on";
  s.link_traffic = cfg.text("output.link_traffic") == "on";
  if (s.trace_end_ns != 0 && s.trace_end_ns < s.trace_start_ns) {
    throw config_error("trace.end_ns", "trace.end_ns must be 0 or not before trace.start_ns");
  }
  return s;
}

}  // namespace bcastsim::tb
