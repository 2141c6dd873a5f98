#include "tb/sweep/plots.h"

#include "tb/config.h"
#include "tb/sweep/table.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace bcastsim::tb::sweep {

namespace {

// What each kind reads, as scripts/plot_sweep.py documents it; keep the two in step.
struct plot_kind {
  std::vector<std::string> required;  // columns (and baseline) the kind cannot do without
  std::vector<std::string> optional;
};

// In scripts/plot_sweep.py's order.
const std::vector<std::pair<std::string, plot_kind>>& kinds() {
  static const std::vector<std::pair<std::string, plot_kind>> k = {
      {"lines", {{"x", "y"}, {"series", "logx", "logy"}}},
      {"speedup", {{"x", "y", "series", "baseline"}, {"logx"}}},
      {"heatmap", {{"x", "y", "value"}, {"normalize"}}},
      {"links", {{}, {"metric", "x", "series", "logy"}}},
      {"dragonfly", {{}, {"panels", "point"}}},
  };
  return k;
}

const plot_kind& kind_named(const std::string& name) {
  for (const auto& [n, k] : kinds()) {
    if (n == name) return k;
  }
  throw std::logic_error("no plot kind " + name);
}

const std::vector<std::string> common_keys = {"kind", "file", "where", "title", "xlabel", "ylabel"};
const std::vector<std::string> column_keys = {"x", "y", "series", "value", "panels"};

bool among(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

[[noreturn]] void fail(const study& s, const std::string& key, const std::string& what) {
  throw config_error(key, "study " + s.file + ": " + key + ": " + what);
}

void check_column(const study& s, const std::string& where, const nlohmann::json& v) {
  if (!v.is_string()) fail(s, where, "expected a column name of results.csv");
  const std::string c = v.get<std::string>();
  if (!possible_column(s, c)) {
    fail(s, where,
         "'" + c + "' is not a column of results.csv; allowed: the study's parameters (" +
             joined(s.parameters()) +
             "), point, seed, status, exit_code, the command's result "
             "columns (" +
             joined(result_columns(s, {})) + ") and those listed under columns:");
  }
}

void check_choice(const study& s, const std::string& where, const nlohmann::json& v,
                  const std::vector<std::string>& allowed) {
  if (!v.is_string() || !among(allowed, v.get<std::string>())) {
    fail(s, where,
         "'" + (v.is_string() ? v.get<std::string>() : v.dump()) +
             "' is not valid; allowed: " + joined(allowed));
  }
}

// A plot lands in OUT/plots/: a plain name (a path could write anywhere) in a format
// matplotlib writes (it fails only when the plot is drawn, after every point has run).
void check_file_name(const study& s, const std::string& where, const nlohmann::json& v) {
  const std::string allowed = "; allowed: a file name without '/' ending in .png, .pdf or .svg";
  if (!v.is_string()) fail(s, where, "expected a file name such as 01-lines.png" + allowed);
  const std::string name = v.get<std::string>();
  const auto ends_with = [&](const char* ext) {
    const std::string e = ext;
    return name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
  };
  if (name.find('/') != std::string::npos || name == "." || name == ".." ||
      !(ends_with(".png") || ends_with(".pdf") || ends_with(".svg"))) {
    fail(s, where, "'" + name + "' is not valid" + allowed);
  }
}

void check_plot(const study& s, const nlohmann::json& plot, const std::string& at) {
  if (!plot.is_object()) fail(s, at, "expected a mapping with kind, file and the kind's keys");
  std::vector<std::string> names;
  for (const auto& [name, _] : kinds()) names.push_back(name);
  if (!plot.contains("kind")) fail(s, at + ".kind", "missing; allowed: " + joined(names));
  check_choice(s, at + ".kind", plot["kind"], names);
  const plot_kind& kind = kind_named(plot["kind"].get<std::string>());
  for (const std::string& r : kind.required) {
    if (!plot.contains(r))
      fail(
          s, at + "." + r,
          "missing; a " + plot["kind"].get<std::string>() + " plot needs " + joined(kind.required));
  }
  for (const auto& [key, v] : plot.items()) {
    const std::string where = at + "." + key;
    if (!among(common_keys, key) && !among(kind.required, key) && !among(kind.optional, key)) {
      fail(s, where,
           "not a key of a " + plot["kind"].get<std::string>() +
               " plot; allowed: " + joined(common_keys) + ", " + joined(kind.required) +
               (kind.required.empty() ? "" : ", ") + joined(kind.optional));
    }
    if (among(column_keys, key)) check_column(s, where, v);
    if (key == "normalize") check_choice(s, where, v, {"none", "row", "column"});
    if (key == "metric") check_choice(s, where, v, {"messages", "packets"});
    if ((key == "logx" || key == "logy") && !v.is_boolean()) {
      check_choice(s, where, v, {"true", "false", "on", "off", "yes", "no"});
    }
    if (key == "file") check_file_name(s, where, v);
    if (key == "where") {
      if (!v.is_object()) fail(s, where, "expected a mapping column -> value or [values]");
      for (const auto& [c, _] : v.items()) check_column(s, where + "." + c, c);
    }
  }
}

}  // namespace

void check_plots(const study& s) {
  if (!s.plots.is_array()) fail(s, "plots", "expected a list of plots (see scripts/plot_sweep.py)");
  for (size_t i = 0; i < s.plots.size(); ++i) {
    check_plot(s, s.plots[i], "plots[" + std::to_string(i) + "]");
  }
}

}  // namespace bcastsim::tb::sweep
