#include "tb/sweep/study.h"

#include "algorithms/registry.h"
#include "network/hash.h"
#include "network/routing.h"
#include "tb/collective_keys.h"
#include "tb/config.h"
#include "tb/sweep/plots.h"
#include "tb/yaml_input.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace bcastsim::tb::sweep {

namespace {

constexpr size_t max_points = 1000000;  // a typo in a range, not a study

[[noreturn]] void fail(const std::string& key, const std::string& file, const std::string& what) {
  throw config_error(key, "study " + file + ": " + key + ": " + what);
}

bool known_key(const std::string& key) {
  for (const key_info& k : schema()) {
    if (k.key == key) return true;
  }
  return false;
}

// Shortest text that reads back as the same double (as result.json writes numbers).
std::string number_text(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9.007199254740992e15) {
    return std::to_string(static_cast<long long>(v));
  }
  return nlohmann::json(v).dump();
}

double number(const YAML::Node& n, const std::string& key, const std::string& file) {
  if (!n || !n.IsScalar()) fail(key, file, "expected a number");
  const std::string t = n.Scalar();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !std::isfinite(v))
    fail(key, file, "'" + t + "' is not a number");
  return v;
}

// A whole number in [lo, hi] written as digits: -1 must not wrap, 1.5 or 1e300 not round.
uint64_t integer(const YAML::Node& n, const std::string& key, const std::string& file, uint64_t lo,
                 uint64_t hi) {
  const std::string allowed =
      "allowed: an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!n || !n.IsScalar()) fail(key, file, "expected a single value; " + allowed);
  const std::string t = n.Scalar();
  const bool digits = !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const uint64_t v = digits ? std::strtoull(t.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE || v < lo || v > hi) {
    fail(key, file, "'" + t + "' is not valid; " + allowed);
  }
  return v;
}

// A single value (a scalar), not a list or a mapping: its text.
std::string single(const YAML::Node& n, const std::string& key, const std::string& file) {
  if (!n.IsScalar()) fail(key, file, "expected a single value, not a list, a mapping or empty");
  return n.Scalar();
}

// `{from, to, step}` (arithmetic) or `{from, to, times}` (geometric), both ends included.
std::vector<std::string> range_values(const YAML::Node& n, const std::string& key,
                                      const std::string& file) {
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (k != "from" && k != "to" && k != "step" && k != "times") {
      fail(key, file, "unknown range key '" + k + "'; allowed: from, to, step | times");
    }
  }
  if (!n["from"] || !n["to"]) fail(key, file, "a range needs from and to, and step or times");
  if (static_cast<bool>(n["step"]) == static_cast<bool>(n["times"])) {
    fail(key, file, "a range needs exactly one of step (arithmetic) or times (geometric)");
  }
  const double from = number(n["from"], key + ".from", file);
  const double to = number(n["to"], key + ".to", file);
  if (to < from) fail(key, file, "range to (" + number_text(to) + ") is below from");
  std::vector<std::string> out;
  if (n["step"]) {
    const double step = number(n["step"], key + ".step", file);
    if (!(step > 0)) fail(key, file, "range step must be > 0");
    const double count = std::floor((to - from) / step + 1e-9) + 1;
    if (count > max_points) fail(key, file, "range has more than 1,000,000 values");
    for (size_t i = 0; i < static_cast<size_t>(count); ++i)
      out.push_back(number_text(from + i * step));
  } else {
    const double times = number(n["times"], key + ".times", file);
    if (!(times > 1)) fail(key, file, "range times must be > 1");
    if (!(from > 0)) fail(key, file, "a geometric range needs from > 0");
    double v = from;
    for (size_t i = 0; v <= to * (1 + 1e-12); ++i, v = from * std::pow(times, i)) {
      if (out.size() == max_points) fail(key, file, "range has more than 1,000,000 values");
      out.push_back(number_text(v));
    }
  }
  return out;
}

std::vector<std::string> values_of(const YAML::Node& n, const std::string& key,
                                   const std::string& file) {
  std::vector<std::string> out;
  if (n.IsSequence()) {
    for (const auto& v : n) {
      if (!v.IsScalar()) fail(key, file, "every value must be a single value");
      out.push_back(v.Scalar());
    }
  } else if (n.IsMap()) {
    out = range_values(n, key, file);
  } else {
    fail(key, file, "expected a list of values or a range {from, to, step | times}");
  }
  if (out.empty()) fail(key, file, "no values");
  return out;
}

void flatten_set(const YAML::Node& n, const std::string& prefix, study& s) {
  for (const auto& kv : n) {
    const std::string key = (prefix.empty() ? "" : prefix + ".") + kv.first.as<std::string>();
    if (kv.second.IsMap()) {
      flatten_set(kv.second, key, s);
    } else if (kv.second.IsScalar()) {
      s.fixed.emplace_back(key, kv.second.Scalar());
    } else {
      fail("set." + key, s.file, "must be a single value");
    }
  }
}

void check_key(const std::string& key, const std::string& where, const std::string& file) {
  if (is_collective_entry_key(key)) {  // the list's own message: the index form, its range
    try {
      checked_collective_entry_declaration(key, "");
    } catch (const config_error& e) {
      fail(where, file, e.what());
    }
    return;
  }
  if (!known_key(key)) {
    fail(where, file, "'" + key + "' is not a scenario key (see `bcastsim list`)");
  }
}

// collective.algorithm is free text in the schema (the registry knows the names): check it
// here, so a typo stops the study before it runs rather than failing its points one by one.
void check_algorithm(const std::string& value, const std::string& where, const std::string& file) {
  std::string names = "none";
  for (const auto& a : algorithms::algorithms()) {
    if (value == a.name) return;
    for (const auto& alias : a.aliases) {
      if (value == alias) return;
    }
    names += ", " + a.name;
  }
  if (value == "none") return;
  fail(where, file, "'" + value + "' is not an algorithm; allowed: " + names);
}

// collective.algorithm, or an entry's collectives.N.algorithm.
bool names_algorithm(const std::string& key) {
  if (key == "collective.algorithm") return true;
  const key_info* k = is_collective_entry_key(key) ? collective_entry_declaration(key) : nullptr;
  return k != nullptr && k->key == "collective.algorithm";
}

// YAML -> JSON through the emitter's JSON-compatible flow style is lossy for types; plots are
// small, so convert node by node.
nlohmann::json plots_json(const YAML::Node& n) {
  if (n.IsMap()) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& e : n) o[e.first.as<std::string>()] = plots_json(e.second);
    return o;
  }
  if (n.IsSequence()) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& e : n) a.push_back(plots_json(e));
    return a;
  }
  if (!n.IsScalar()) return nlohmann::json();
  const std::string t = n.Scalar();
  if (n.Tag() != "!" && (t == "true" || t == "false")) return nlohmann::json(t == "true");
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (n.Tag() != "!" && !t.empty() && *end == '\0') return nlohmann::json(d);
  return nlohmann::json(t);
}

YAML::Node load_study_yaml(const std::string& text, const std::string& file) {
  const YAML::Node root = load_yaml(text, "study " + file, "STUDY");
  if (!root.IsMap()) throw config_error("", "study " + file + " must be a YAML mapping");
  return root;
}

// `cross:`: one dimension per key.
void read_cross(const YAML::Node& v, const std::string& file, study& s) {
  if (!v.IsMap()) fail("cross", file, "expected a mapping: key -> list of values or range");
  for (const auto& p : v) {
    const std::string k = p.first.as<std::string>();
    dimension d;
    d.keys = {k};
    for (std::string& x : values_of(p.second, "cross." + k, file)) d.values.push_back({x});
    s.dimensions.push_back(std::move(d));
  }
}

// `zip:`: one dimension per group, its keys' values taken together step by step.
void read_zip(const YAML::Node& v, const std::string& file, study& s) {
  if (!v.IsSequence()) fail("zip", file, "expected a list of groups, each a mapping key -> values");
  for (size_t g = 0; g < v.size(); ++g) {
    const std::string where = "zip[" + std::to_string(g) + "]";
    if (!v[g].IsMap() || v[g].size() == 0) fail(where, file, "expected a mapping key -> values");
    dimension d;
    std::vector<std::vector<std::string>> columns;
    for (const auto& p : v[g]) {
      const std::string k = p.first.as<std::string>();
      d.keys.push_back(k);
      columns.push_back(values_of(p.second, where + "." + k, file));
      if (columns.back().size() != columns.front().size()) {
        fail(where + "." + k, file,
             "has " + std::to_string(columns.back().size()) + " values but " + d.keys.front() +
                 " has " + std::to_string(columns.front().size()) +
                 "; zipped keys advance together and need the same number of values");
      }
    }
    for (size_t i = 0; i < columns.front().size(); ++i) {
      std::vector<std::string> step;
      for (const auto& c : columns) step.push_back(c[i]);
      d.values.push_back(std::move(step));
    }
    s.dimensions.push_back(std::move(d));
  }
}

// `columns:`: result.json paths, each a plain text (a list or mapping would be an empty column).
void read_columns(const YAML::Node& v, const std::string& file, study& s) {
  if (!v.IsSequence()) fail("columns", file, "expected a list of result.json paths (a.b.c)");
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string where = "columns[" + std::to_string(i) + "]";
    if (!v[i].IsScalar() || v[i].Scalar().empty()) {
      fail(where, file,
           "expected a result.json path such as packets.hops_avg, not a list or mapping");
    }
    s.columns.push_back(v[i].Scalar());
  }
}

// One top-level key of the study file into s; `dir` is the study file's directory.
void read_study_key(const std::string& key, const YAML::Node& v, const std::filesystem::path& dir,
                    study& s) {
  const std::string& file = s.file;
  if (key == "name") {
    s.name = single(v, key, file);  // check_name() checks it once the file is read
  } else if (key == "scenario") {
    const std::filesystem::path p = single(v, key, file);
    s.scenario = (p.is_absolute() ? p : dir / p).lexically_normal().string();
  } else if (key == "command") {
    s.command = single(v, key, file);
    if (s.command != "run" && s.command != "analyze") fail(key, file, "allowed: run, analyze");
  } else if (key == "seed") {
    s.seed = integer(v, key, file, 0, UINT64_MAX);
  } else if (key == "replicates") {
    s.replicates = static_cast<uint32_t>(integer(v, key, file, 1, 100000));
  } else if (key == "random_draws") {
    const std::string d = single(v, key, file);
    if (d == "common") {
      s.draws = random_draws::common;
    } else if (d == "per_point") {
      s.draws = random_draws::per_point;
    } else {
      fail(key, file, "'" + d + "' is not allowed; allowed: common, per_point");
    }
  } else if (key == "set") {
    if (!v.IsMap()) fail(key, file, "expected a mapping of scenario keys to values");
    flatten_set(v, "", s);
  } else if (key == "cross") {
    read_cross(v, file, s);
  } else if (key == "zip") {
    read_zip(v, file, s);
  } else if (key == "columns") {
    read_columns(v, file, s);
  } else if (key == "plots") {
    if (!v.IsSequence()) fail(key, file, "expected a list of plots (see scripts/plot_sweep.py)");
    s.plots = plots_json(v);
  } else {
    fail(key, file,
         "unknown study key; allowed: name, scenario, command, seed, replicates, random_draws, "
         "set, cross, zip, columns, plots");
  }
}

// The name is the default output folder, results/<name>: `..`, `.`, a path or a control
// character would write elsewhere or make a folder no shell can name.
void check_name(const study& s, const std::string& file) {
  bool plain = !s.name.empty() && s.name != "." && s.name != "..";
  for (const unsigned char c : s.name) plain = plain && c >= 0x20 && c != 0x7f && c != '/';
  plain = plain && invalid_utf8_at(s.name) == std::string::npos;  // study.json is UTF-8
  if (!plain) {
    fail("name", file,
         "'" + s.name +
             "' is not a plain folder name (results/<name> holds the study's output); allowed: a "
             "non-empty name other than . and .., UTF-8, without '/' or control characters (set "
             "name: "
             "when the file's name is not one)");
  }
}

// At most max_points points; the product is checked step by step, since four keys of 65,536
// values each make 2^64, which wraps to 0.
void check_point_count(const study& s, const std::string& file) {
  if (s.num_points() <= max_points) return;
  std::string keys, product;
  double count = s.replicates;
  for (const dimension& d : s.dimensions) {
    const std::string name =
        d.keys.size() == 1 ? d.keys.front() : "zip(" + d.keys.front() + ", ...)";
    keys += (keys.empty() ? "" : ", ") + name;
    product += (product.empty() ? "" : " x ") + std::to_string(d.size());
    count *= static_cast<double>(d.size());
  }
  if (s.replicates > 1) product += " x " + std::to_string(s.replicates) + " replicates";
  char total[32];
  std::snprintf(total, sizeof total, "%.4g", count);
  fail(s.dimensions.size() == 1 && s.dimensions.front().keys.size() > 1 ? "zip" : "cross", file,
       "the study has " + product + " = " + total + " points (" + keys +
           "); at most 1,000,000 points per study: split it into several studies");
}

// Keys: scenario keys, each varied once, never both fixed and varied.
void check_study_keys(const study& s, const std::string& file) {
  std::set<std::string> varied;
  for (const dimension& d : s.dimensions) {
    for (const std::string& k : d.keys) {
      check_key(k, k, file);
      if (!varied.insert(k).second) fail(k, file, "is varied twice");
    }
  }
  for (const auto& [k, v] : s.fixed) {
    check_key(k, "set." + k, file);
    if (varied.count(k)) fail("set." + k, file, "is both fixed (set) and varied");
  }
  if (varied.count("seed") && s.replicates > 1) {
    fail("replicates", file, "the study varies seed itself; replicates must be 1");
  }
  check_point_count(s, file);
}

// Values: every one must be valid for its key, before anything runs.
void check_study_values(const study& s, const std::string& file) {
  config base;
  try {
    if (!s.scenario.empty()) base = config::from_yaml_file(s.scenario);
  } catch (const config_error& e) {
    fail("scenario", file, e.what());
  }
  for (const auto& [k, v] : s.fixed) {
    try {
      base.set(k, v);
    } catch (const config_error& e) {
      fail("set." + k, file, e.what());
    }
    if (names_algorithm(k)) check_algorithm(v, "set." + k, file);
  }
  for (const dimension& d : s.dimensions) {
    for (const auto& step : d.values) {
      for (size_t i = 0; i < d.keys.size(); ++i) {
        config c = base;
        try {
          c.set(d.keys[i], step[i]);
        } catch (const config_error& e) {
          fail(d.keys[i], file, e.what());
        }
        if (names_algorithm(d.keys[i])) check_algorithm(step[i], d.keys[i], file);
      }
    }
  }
}

}  // namespace

std::vector<std::string> study::parameters() const {
  std::vector<std::string> keys;
  for (const dimension& d : dimensions) keys.insert(keys.end(), d.keys.begin(), d.keys.end());
  return keys;
}

size_t study::num_points() const {
  size_t n = replicates;
  for (const dimension& d : dimensions) {
    if (d.size() != 0 && n > SIZE_MAX / d.size()) return SIZE_MAX;  // saturates, never wraps
    n *= d.size();
  }
  return n;
}

study parse_study_text(const std::string& text, const std::string& file) {
  study s;
  s.file = file;
  s.name = std::filesystem::path(file).stem().string();
  const YAML::Node root = load_study_yaml(text, file);
  const std::filesystem::path dir = std::filesystem::path(file).parent_path();
  for (const auto& kv : root) read_study_key(kv.first.as<std::string>(), kv.second, dir, s);
  check_name(s, file);
  check_study_keys(s, file);
  check_study_values(s, file);
  check_plots(s);
  return s;
}

study load_study(const std::string& file) {
  return parse_study_text(read_input_file(file, "STUDY", "study file"), file);
}

uint64_t derive_seed(uint64_t study_seed,
                     const std::vector<std::pair<std::string, std::string>>& values,
                     uint32_t replicate, random_draws draws) {
  std::map<std::string, std::string> sorted(values.begin(), values.end());
  const auto seed = sorted.find("seed");
  if (seed != sorted.end()) return std::stoull(seed->second);
  std::string canonical;
  if (draws == random_draws::per_point) {
    for (const auto& [k, v] : sorted) canonical += k + "=" + v + ";";
  }
  canonical += "#" + std::to_string(replicate);
  uint64_t x = network::splitmix64(study_seed ^ network::splitmix64(network::fnv1a(canonical)));
  x &= (uint64_t{1} << 53) - 1;
  return x == 0 ? 1 : x;
}

const char* to_string(random_draws draws) {
  return draws == random_draws::common ? "common" : "per_point";
}

std::vector<point> expand(const study& s) {
  std::vector<point> points;
  const size_t n = s.num_points();
  points.reserve(n);
  const int width = std::max<int>(4, static_cast<int>(std::to_string(n - 1).size()));
  for (size_t index = 0; index < n; ++index) {
    point p;
    p.index = index;
    size_t rest = index;
    p.replicate = static_cast<uint32_t>(rest % s.replicates);
    rest /= s.replicates;
    std::vector<size_t> step(s.dimensions.size());
    for (size_t d = s.dimensions.size(); d-- > 0;) {
      step[d] = rest % s.dimensions[d].size();
      rest /= s.dimensions[d].size();
    }
    for (size_t d = 0; d < s.dimensions.size(); ++d) {
      const dimension& dim = s.dimensions[d];
      for (size_t k = 0; k < dim.keys.size(); ++k) {
        p.values.emplace_back(dim.keys[k], dim.values[step[d]][k]);
      }
    }
    p.seed = derive_seed(s.seed, p.values, p.replicate, s.draws);
    char dir[64];
    std::snprintf(dir, sizeof dir, "points/%0*zu", std::min(width, 20), index);
    p.dir = dir;
    points.push_back(std::move(p));
  }
  return points;
}

bool selection::contains(const point& p) const {
  for (const auto& [key, wanted] : keys) {
    const auto v = std::find_if(p.values.begin(), p.values.end(),
                                [&key = key](const auto& kv) { return kv.first == key; });
    if (v == p.values.end() || std::find(wanted.begin(), wanted.end(), v->second) == wanted.end()) {
      return false;
    }
  }
  return true;
}

namespace {

// The study's values of `key`, in study order, each once; none if the study does not vary it.
std::vector<std::string> values_of(const study& s, const std::string& key) {
  std::vector<std::string> values;
  for (const dimension& d : s.dimensions) {
    for (size_t k = 0; k < d.keys.size(); ++k) {
      if (d.keys[k] != key) continue;
      for (const auto& step : d.values) {
        if (std::find(values.begin(), values.end(), step[k]) == values.end()) {
          values.push_back(step[k]);
        }
      }
    }
  }
  return values;
}

// "a, b, c"; quoted if a value has a comma in it ("'0-15,40-55', 'all'"), to read unambiguously.
std::string listed(const std::vector<std::string>& items) {
  const bool quote = std::any_of(items.begin(), items.end(),
                                 [](const std::string& i) { return i.find(',') != i.npos; });
  std::string text;
  for (const std::string& i : items) {
    text += (text.empty() ? "" : ", ") + (quote ? "'" + i + "'" : i);
  }
  return text;
}

// "a,b" -> {a, b}, empty pieces kept (the caller refuses them); the whole text is one value
// when the study has it as one (collective.ranks: "0-15,40-55").
std::vector<std::string> split_values(const std::string& text,
                                      const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) return {text};
  std::vector<std::string> pieces;
  for (size_t from = 0;;) {
    const size_t comma = text.find(',', from);
    pieces.push_back(text.substr(from, comma == text.npos ? text.npos : comma - from));
    if (comma == text.npos) return pieces;
    from = comma + 1;
  }
}

}  // namespace

selection parse_selection(const study& s, const std::vector<std::string>& args) {
  selection sel;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size()) {
      throw config_error("--only", "--only: '" + arg + "' is not KEY=VALUE[,VALUE...]");
    }
    const std::string key = arg.substr(0, eq);
    const std::vector<std::string> allowed = values_of(s, key);
    if (allowed.empty()) {
      throw config_error("--only", s.dimensions.empty()
                                       ? "--only: the study varies no key"
                                       : "--only: '" + key + "' is not a key the study varies; " +
                                             "allowed: " + listed(s.parameters()));
    }
    auto entry = std::find_if(sel.keys.begin(), sel.keys.end(),
                              [&key](const auto& e) { return e.first == key; });
    if (entry == sel.keys.end()) entry = sel.keys.insert(sel.keys.end(), {key, {}});
    for (const std::string& v : split_values(arg.substr(eq + 1), allowed)) {
      if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
        throw config_error("--only", "--only " + key + ": '" + v +
                                         "' is not one of the study's values (as the study writes "
                                         "them); allowed: " +
                                         listed(allowed));
      }
      entry->second.push_back(v);  // a key named twice: either's values
    }
  }
  return sel;
}

}  // namespace bcastsim::tb::sweep
