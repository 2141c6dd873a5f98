#include "tb/collective_keys.h"

#include "algorithms/registry.h"
#include "network/placement.h"
#include "network/routing.h"
#include "network/topology_kind.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <set>
#include <utility>

namespace bcastsim::tb {

namespace {

const std::string list_prefix = "collectives.";
const std::string single_prefix = "collective.";

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// A decimal index without leading zeros below `limit`; nullopt otherwise.
std::optional<uint32_t> index_of(const std::string& s, uint32_t limit) {
  if (!all_digits(s) || s.size() > 9 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  const uint64_t v = std::stoull(s);
  if (v >= limit) return std::nullopt;
  return static_cast<uint32_t>(v);
}

// collectives.N.X split into N and X; nullopt index for a bad N, empty field for a missing X.
struct entry_key {
  std::optional<uint32_t> index;
  std::string field;
};

entry_key split(const std::string& key) {
  const std::string rest = key.substr(list_prefix.size());
  const size_t dot = rest.find('.');
  entry_key e;
  e.index = index_of(rest.substr(0, dot), max_collective_entries);
  if (dot != std::string::npos) e.field = rest.substr(dot + 1);
  return e;
}

// The collective.* keys without their prefix: what an entry may give.
std::vector<std::string> entry_fields() {
  std::vector<std::string> fields;
  for (const key_info& k : schema()) {
    if (k.key.rfind(single_prefix, 0) == 0) fields.push_back(k.key.substr(single_prefix.size()));
  }
  return fields;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

// The key collective.X's value for `prefix` comes from: prefix.X when given, else
// collective.X (where the entry inherits it from).
std::string source_key(const config& cfg, const std::string& prefix, const std::string& field) {
  const std::string key = prefix + "." + field;
  return cfg.given().count(key) ? key : single_prefix + field;
}

}  // namespace

bool is_collective_entry_key(const std::string& key) {
  return key.rfind(list_prefix, 0) == 0;
}

const key_info* collective_entry_declaration(const std::string& key) {
  if (!is_collective_entry_key(key)) return nullptr;
  const entry_key e = split(key);
  if (!e.index || e.field.empty()) return nullptr;
  return find_key(single_prefix + e.field, "");
}

const key_info& checked_collective_entry_declaration(const std::string& key,
                                                     const std::string& origin) {
  const entry_key e = split(key);
  if (!e.index) {
    const std::string index =
        key.substr(list_prefix.size(), key.find('.', list_prefix.size()) - list_prefix.size());
    throw config_error(key, "'" + key + "'" + origin + ": '" + index +
                                "' is not an entry index; allowed: collectives.N.KEY with N "
                                "in 0 .. " +
                                std::to_string(max_collective_entries - 1) +
                                ", decimal without leading zeros");
  }
  const key_info* k = collective_entry_declaration(key);
  if (!k) {
    throw config_error(key, "unknown key '" + key + "'" + origin +
                                "; allowed keys under 'collective' (each entry of "
                                "collectives: gives them without the prefix): " +
                                join(entry_fields()));
  }
  return *k;
}

uint32_t collective_entries(const config& cfg) {
  std::set<uint32_t> given;
  for (const auto& [key, value] : cfg.given()) {
    if (!is_collective_entry_key(key)) continue;
    const entry_key e = split(key);
    if (e.index) given.insert(*e.index);
  }
  if (given.empty()) return 0;
  const uint32_t last = *given.rbegin();
  for (uint32_t i = 0; i <= last; ++i) {
    if (given.count(i)) continue;
    const std::string missing = "collectives." + std::to_string(i);
    throw config_error(missing, missing +
                                    " is missing: collectives: gives entries up to "
                                    "collectives." +
                                    std::to_string(last) +
                                    "; allowed: entries numbered 0, 1, 2, ... without gaps, "
                                    "each with at least one key");
  }
  return last + 1;
}

std::vector<std::string> collective_entry_keys(const config& cfg) {
  std::vector<std::string> keys;
  const uint32_t n = collective_entries(cfg);
  const std::vector<std::string> fields = entry_fields();
  for (uint32_t i = 0; i < n; ++i) {
    for (const std::string& f : fields) keys.push_back(list_prefix + std::to_string(i) + "." + f);
  }
  return keys;
}

namespace {

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// A rank: digits, at most 4294967295.
std::optional<uint32_t> rank_of(const std::string& s) {
  if (!all_digits(s) || s.size() > 10) return std::nullopt;
  const uint64_t v = std::stoull(s);
  if (v > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(v);
}

}  // namespace

std::vector<uint32_t> parse_ranks(const std::string& key, const std::string& text,
                                  uint32_t job_size) {
  if (text == "all") return {};
  const std::string shown = text.size() > 60 ? text.substr(0, 60) + "..." : text;
  auto fail = [&](const std::string& why) {
    throw config_error(key, key + " = '" + shown + "': " + why +
                                "; allowed: all, or ranks and inclusive ranges, comma-separated, "
                                "such as 0-35,40,42-47: each rank once, at most " +
                                std::to_string(max_communicator_ranks) + " ranks");
  };
  std::vector<std::pair<uint32_t, uint32_t>> ranges;  // inclusive, as written
  uint64_t total = 0;
  for (size_t pos = 0;;) {
    const size_t comma = text.find(',', pos);
    const std::string item =
        trimmed(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    const size_t dash = item.find('-');
    const auto first = rank_of(trimmed(item.substr(0, dash)));
    const auto last = dash == std::string::npos ? first : rank_of(trimmed(item.substr(dash + 1)));
    if (!first || !last) fail("'" + item + "' is not a rank or a range FIRST-LAST");
    if (*last < *first) fail("the range " + item + " is reversed");
    if (job_size > 0 && *last >= job_size) {  // checked before anything is expanded
      throw config_error(key, key + " names rank " + std::to_string(*last) +
                                  ", not a rank of the job; allowed: 0 .. " +
                                  std::to_string(job_size - 1));
    }
    total += uint64_t{*last} - *first + 1;
    if (total > max_communicator_ranks)
      fail("more than " + std::to_string(max_communicator_ranks) + " ranks");
    ranges.emplace_back(*first, *last);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  std::vector<std::pair<uint32_t, uint32_t>> sorted = ranges;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i].first <= sorted[i - 1].second) {
      fail("rank " + std::to_string(sorted[i].first) + " is given twice");
    }
  }
  std::vector<uint32_t> ranks;
  ranks.reserve(total);
  for (const auto& [first, last] : ranges) {
    for (uint64_t r = first; r <= last; ++r) ranks.push_back(static_cast<uint32_t>(r));
  }
  return ranks;
}

namespace {

// The ranks of the job, from its topology and placement; 0 when they do not fit (make_plan
// reports that).
uint32_t job_ranks(const scenario& s) {
  try {
    const auto topo = network::find_topology_kind(s.topology_kind).make(s.cfg);
    return network::placement(*topo, s.job).num_ranks();
  } catch (const std::exception&) {
    return 0;
  }
}

// collective.random_root: a communicator rank drawn from the seed, entry `index` mixed in
// (entry 0 and the single form draw as before entries existed); `fallback` (collective.root)
// when the communicator is empty or the job does not fit.
uint32_t draw_root(const scenario& s, uint32_t communicator, uint32_t index, uint32_t fallback) {
  if (communicator == 0) return fallback;
  network::rng rng(network::splitmix64(s.seed ^ 0x726f6f74ull ^ (uint64_t{index} << 40)));
  return static_cast<uint32_t>(rng.below(communicator));
}

// A name given: plain, beginning with a letter (an index cannot be mistaken for it).
void check_name(const std::string& key, const std::string& name) {
  bool ok =
      !name.empty() && name.size() <= 100 && std::isalpha(static_cast<unsigned char>(name[0]));
  for (const char ch : name) {
    ok =
        ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.');
  }
  if (!ok) {
    throw config_error(key, key + " = '" + name +
                                "' is not a name; allowed: letters, digits, '-', '_' and '.', "
                                "beginning with a letter, at most 100 characters");
  }
}

// Each collective's name: given, or its key prefix; unique.
std::vector<std::string> names_of(const config& cfg, const std::vector<std::string>& prefixes) {
  std::vector<std::string> names;
  for (const std::string& prefix : prefixes) {
    const std::string key = prefix + ".name";
    const auto it = cfg.given().find(key);
    if (it == cfg.given().end()) {
      names.push_back(prefix);
      continue;
    }
    check_name(key, it->second);
    names.push_back(it->second);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (names[i] != names[j]) continue;
      // Name the key given (the later one if both are), and the other collective.
      const bool later = cfg.given().count(prefixes[i] + ".name") > 0;
      const std::string key = prefixes[later ? i : j] + ".name";
      throw config_error(key, key + " = '" + names[i] + "' is also the name of " +
                                  prefixes[later ? j : i] +
                                  "; allowed: a name no other collective has");
    }
  }
  return names;
}

// collectives.i.after: the index of an earlier entry or its name; -1 when empty.
int32_t resolve_after(const config& cfg, uint32_t i, const std::vector<std::string>& names) {
  const std::string key = list_prefix + std::to_string(i) + ".after";
  const std::string value = cfg.text(key);
  if (value.empty()) return -1;
  std::string allowed = "; allowed: empty, or the index or name of an earlier entry";
  for (uint32_t j = 0; j < i; ++j)
    allowed += (j ? ", " : ": ") + std::to_string(j) + " (" + names[j] + ")";
  if (i == 0) allowed += " (collectives.0 has none)";
  auto fail = [&](const std::string& why) {
    throw config_error(key, key + " = '" + value + "' " + why + allowed);
  };
  std::optional<uint32_t> j = index_of(value, UINT32_MAX);
  if (!j) {
    const auto it = std::find(names.begin(), names.end(), value);
    if (it != names.end()) j = static_cast<uint32_t>(it - names.begin());
  }
  if (!j && all_digits(value)) fail("is not an entry index");
  if (!j) fail("names no collective");
  if (*j >= names.size()) fail("is not an entry index");
  if (*j == i) fail("is this entry itself");
  if (*j > i) fail("is not an earlier entry (each entry may only follow one before it)");
  return static_cast<int32_t>(*j);
}

// The spec `prefix` (collective, or collectives.N) describes, without after and root draw.
algorithms::collective_spec read_spec(const config& cfg, const std::string& prefix,
                                      const std::function<uint32_t()>& job_size) {
  auto text = [&](const char* field) -> const std::string& {
    return cfg.text(prefix + "." + field);
  };
  auto uint = [&](const char* field) { return cfg.uint(prefix + "." + field); };
  algorithms::collective_spec spec;
  spec.algorithm = text("algorithm");
  spec.ranks = parse_ranks(source_key(cfg, prefix, "ranks"), text("ranks"),
                           text("ranks") == "all" ? 0 : job_size());
  spec.all_roots = text("roots") == "all";
  spec.root = static_cast<uint32_t>(uint("root"));
  spec.bytes = uint("bytes");
  spec.start_ns = uint("start_ns");
  spec.repeat = static_cast<uint32_t>(uint("repeat"));
  spec.compute_ns = uint("compute_ns");
  spec.mode =
      text("mode") == "overlap" ? algorithms::host_mode::overlap : algorithms::host_mode::blocking;
  return spec;
}

void check_traffic(const scenario& s, bool list) {
  if (!list && s.algorithm == "none" && !s.traffic.synthetic()) {
    throw config_error("collective.algorithm",
                       "collective.algorithm = none (no collective) needs synthetic traffic; "
                       "allowed with it: traffic.kind = uniform or adversarial");
  }
  if (s.traffic.synthetic() && (list || s.algorithm != "none")) {
    throw config_error(
        "traffic.kind",
        "traffic.kind = " + s.traffic.kind + " runs without a collective; allowed with " +
            (list ? std::string("a collectives: list") : "collective.algorithm = " + s.algorithm) +
            ": none, background");
  }
}

}  // namespace

void check_collective_times(const scenario& s) {
  constexpr double max_ns = 1e16;  // below 2^64 ps
  double total = 0;  // every start and computation one after the other: a bound on any chain
  for (size_t i = 0; i < s.collectives.size(); ++i) {
    const algorithms::collective_spec& c = s.collectives[i];
    const std::string& key = s.collective_keys[i];
    if (s.max_time_ns > 0 && static_cast<double>(c.start_ns) >= s.max_time_ns) {
      throw config_error(key + ".start_ns",
                         key + ".start_ns = " + std::to_string(c.start_ns) +
                             " is not before sim.max_time_ns; allowed: below it (or "
                             "sim.max_time_ns = 0, no limit)");
    }
    total += static_cast<double>(c.start_ns) +
             static_cast<double>(c.repeat) * static_cast<double>(c.compute_ns);
    if (total > max_ns) {
      throw config_error(key + ".compute_ns",
                         key + ".start_ns and " + key + ".repeat x " + key +
                             ".compute_ns (with those of the collectives before) exceed 1e16 ns, "
                             "more than simulated time can hold; allowed: in total at most 1e16");
    }
  }
}

void make_collectives(const config& cfg, scenario& s) {
  const uint32_t entries = collective_entries(cfg);
  if (!cfg.text("collective.after").empty()) {
    throw config_error("collective.after",
                       "collective.after = '" + cfg.text("collective.after") +
                           "': only an entry of collectives: follows another; allowed: empty "
                           "here, collectives.N.after in an entry");
  }
  std::vector<std::string> prefixes;
  for (uint32_t i = 0; i < entries; ++i) prefixes.push_back(list_prefix + std::to_string(i));
  if (entries == 0) prefixes.push_back("collective");
  s.algorithm = cfg.text(prefixes[0] + ".algorithm");
  s.root = static_cast<uint32_t>(cfg.uint(prefixes[0] + ".root"));
  s.random_root = cfg.text(prefixes[0] + ".random_root") == "on";
  s.bytes = cfg.uint(prefixes[0] + ".bytes");
  check_traffic(s, entries > 0);
  if (entries == 0 && s.algorithm == "none") return;
  const std::vector<std::string> names = names_of(cfg, prefixes);
  std::optional<uint32_t> ranks;  // of the job, found once for random roots
  for (uint32_t i = 0; i < prefixes.size(); ++i) {
    const std::string& prefix = prefixes[i];
    algorithms::collective_spec spec = read_spec(cfg, prefix, [&] {
      if (!ranks) ranks = job_ranks(s);
      return *ranks;
    });
    if (spec.algorithm == "none") {
      const std::string key = prefix + ".algorithm";
      throw config_error(key, key + " = none" +
                                  (cfg.given().count(key) ? "" : " (from collective.algorithm)") +
                                  " in collectives:; allowed: an algorithm (`bcastsim list`); "
                                  "none only with collective.algorithm alone and synthetic "
                                  "traffic");
    }
    if (entries > 0) spec.after = resolve_after(cfg, i, names);
    if (cfg.text(prefix + ".random_root") == "on") {
      if (spec.ranks.empty() && !ranks) ranks = job_ranks(s);
      const uint32_t size = spec.ranks.empty() ? *ranks : static_cast<uint32_t>(spec.ranks.size());
      spec.root = draw_root(s, size, i, spec.root);
    }
    s.collectives.push_back(std::move(spec));
    s.collective_keys.push_back(prefix);
  }
  s.collective_names = names;
  s.root = s.collectives[0].root;
}

}  // namespace bcastsim::tb
