#include "tb/sweep/carried.h"

#include "network/topology_kind.h"
#include "tb/sweep/table.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

namespace bcastsim::tb::sweep {

namespace fs = std::filesystem;

namespace {

// Why study.json does not describe this study (the same runs, whatever the points' order):
// the first key that differs, or "" when none does.
std::string study_differs(const study& s, const point_store& store, const nlohmann::json& j) {
  if (!j.is_object()) return "study.json cannot be read";
  nlohmann::json set = nlohmann::json::object();
  for (const auto& [k, v] : s.fixed) set[k] = v;
  // Compared as JSON values (a hostile file's types never throw). Written before this check
  // existed, a study.json has no scenario_fnv1a: its rows are not trusted.
  const std::vector<std::pair<const char*, nlohmann::json>> want = {
      {"schema", "bcastsim.sweep/1"},
      {"command", s.command},
      {"set", set},
      {"scenario_fnv1a", store.scenario_hash()},
      {"seed", s.seed},
      {"replicates", s.replicates},
      {"random_draws", to_string(s.draws)},
      {"parameters", s.parameters()}};
  for (const auto& [k, v] : want) {
    if (!j.contains(k)) return std::string("study.json has no ") + k + " (an older bcastsim's)";
    if (j[k] != v) {
      return std::string("study.json's ") + k + " is another" +
             (k == std::string("scenario_fnv1a") ? " (the base scenario's file changed)" : "");
    }
  }
  return {};
}

// What a point is in study.json's list of points, its index left out (values added to the
// study move the indices).
std::string point_key(const nlohmann::json& values, const nlohmann::json& replicate) {
  return values.dump() + "#" + replicate.dump();
}

// The hashes of the files each point of study.json read, by point_key; a point that read
// none (or that an older bcastsim wrote) is not there.
std::map<std::string, nlohmann::json> recorded_inputs(const nlohmann::json& j) {
  std::map<std::string, nlohmann::json> by_point;
  const auto points = j.find("points");
  if (points == j.end() || !points->is_array()) return by_point;
  for (const auto& e : *points) {
    if (!e.is_object() || !e.contains("inputs_fnv1a")) continue;
    if (!e.contains("values") || !e.contains("replicate")) continue;
    by_point[point_key(e["values"], e["replicate"])] = e["inputs_fnv1a"];
  }
  return by_point;
}

// Whether the files the point reads now are those its row ran on (study.json's record of
// them): a graph file edited since runs the point again.
bool same_inputs(const point& p, const point_store& store,
                 const std::map<std::string, nlohmann::json>& recorded) {
  const nlohmann::json now = store.input_hashes(p);
  if (now.empty()) return true;  // it reads no file: nothing to compare, as before
  nlohmann::json values = nlohmann::json::object();
  for (const auto& [k, v] : p.values) values[k] = v;
  const auto it = recorded.find(point_key(values, p.replicate));
  return it != recorded.end() && it->second == now;
}

// A cell as result.json held it: JSON text (a number, a list) when it reads back to the same
// text, else a string. Empty: the result did not have it.
nlohmann::json value_of(const std::string& cell) {
  // Deeply nested text stays text: nlohmann's dump recurses.
  size_t depth = 0, deepest = 0;
  for (const char c : cell) {
    depth += c == '[' || c == '{';
    deepest = std::max(deepest, depth);
    depth -= depth > 0 && (c == ']' || c == '}');
  }
  if (deepest > 64) return cell;
  auto v = nlohmann::json::parse(cell, nullptr, false);
  if (v.is_discarded() || v.is_null() || v.dump() != cell) return cell;
  return v;
}

// Puts `v` at the dotted path; an empty cell makes only the sections above it, as the result
// had them (a section's presence adds its columns: result_columns).
void put(nlohmann::json& doc, const std::string& path, const std::string& cell) {
  nlohmann::json* at = &doc;
  size_t start = 0;
  for (size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1) {
    at = &(*at)[path.substr(start, dot - start)];
    if (!at->is_object()) {
      if (!at->is_null()) return;  // inside a whole list already put
      *at = nlohmann::json::object();
    }
  }
  if (!cell.empty()) (*at)[path.substr(start)] = value_of(cell);
}

// The topology kind that orders these link classes (traversals.<class>.* in header order): its
// declared classes come first. The longest such declaration; "" when none fits.
std::string kind_of(const std::vector<std::string>& header) {
  std::vector<std::string> classes;
  for (const std::string& c : header) {
    const size_t last = c.rfind('.');
    if (c.rfind("traversals.", 0) != 0 || last <= 11 || c.substr(last) != ".messages") continue;
    classes.push_back(c.substr(11, last - 11));
  }
  std::string best;
  size_t best_size = 0;
  for (const network::topology_kind& k : network::topology_kinds()) {
    bool prefix = k.classes.size() <= classes.size() && k.classes.size() > best_size;
    for (size_t i = 0; prefix && i < k.classes.size(); ++i)
      prefix = k.classes[i].name == classes[i];
    if (prefix) best = k.name, best_size = k.classes.size();
  }
  return best;
}

std::optional<point_outcome> outcome_of(const std::vector<std::string>& header,
                                        const std::vector<std::string>& row, size_t status_at) {
  point_outcome o;
  o.carried = true;
  const std::string& status = row[status_at];
  if (status == "failed") {
    try {
      o.exit_code = std::stoi(row[status_at + 1]);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    o.error = row.back();
    return o;
  }
  if (status != "ok") return std::nullopt;  // pending: still to run
  o.ok = true;
  nlohmann::json doc = nlohmann::json::object();
  if (const std::string kind = kind_of(header); !kind.empty())
    doc["config"]["topology"]["kind"] = kind;  // orders the traversal columns as before
  for (size_t i = status_at + 2; i + 1 < row.size(); ++i) put(doc, header[i], row[i]);
  try {
    o.result = doc.dump();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // not UTF-8: the point runs again
  }
  return o;
}

}  // namespace

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"', ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = any = true;
    } else if (c == ',') {
      row.push_back(std::move(field)), field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(std::move(field)), field.clear();
      rows.push_back(std::move(row)), row.clear();
      any = false;
    } else {
      field += c, any = true;
    }
  }
  if (any || !field.empty() || !row.empty()) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

carried_rows carried_outcomes(const study& s, const std::vector<point>& points,
                              const point_store& store) {
  carried_rows out;
  out.outcomes.resize(points.size());
  const auto rows = parse_csv(read_text((fs::path(store.out_dir()) / "results.csv").string()));
  if (points.empty() || rows.empty()) return out;
  const std::vector<std::string>& header = rows.front();
  const auto status_column = std::find(header.begin(), header.end(), "status");
  const bool finished_rows = std::any_of(rows.begin() + 1, rows.end(), [&](const auto& r) {
    const auto at = static_cast<size_t>(status_column - header.begin());
    return at < r.size() && (r[at] == "ok" || r[at] == "failed");
  });
  if (!finished_rows) return out;  // nothing to lose
  // point, the head of a row, status, exit_code, the result columns, error.
  const size_t status_at = 1 + row_fields(s, points.front()).size();
  if (header.size() < status_at + 3 || header[0] != "point" || header[status_at] != "status" ||
      header[status_at + 1] != "exit_code" || header.back() != "error") {
    out.refused = "its header is not this study's (the varied keys changed)";
    return out;
  }
  const auto j = nlohmann::json::parse(
      read_text((fs::path(store.out_dir()) / "study.json").string()), nullptr, false);
  if (out.refused = study_differs(s, store, j); !out.refused.empty()) return out;
  for (const std::string& c : s.columns) {
    if (deterministic_column(c) && std::find(header.begin(), header.end(), c) == header.end()) {
      out.refused = "it has no column " + c + " (added to the study's columns)";
      return out;
    }
  }
  // By what a point is, not its index: values added to the study move the indices.
  std::map<std::vector<std::string>, const std::vector<std::string>*> by_head;
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != header.size()) continue;
    by_head.emplace(std::vector<std::string>(rows[r].begin() + 1, rows[r].begin() + status_at),
                    &rows[r]);
  }
  const auto recorded = recorded_inputs(j);
  for (const point& p : points) {
    const auto it = by_head.find(row_fields(s, p));
    if (it == by_head.end()) continue;
    if (!same_inputs(p, store, recorded)) {
      out.changed_inputs += 1;
      continue;
    }
    auto& o = out.outcomes[p.index] = outcome_of(header, *it->second, status_at);
    if (o) o->index = p.index;
  }
  return out;
}

}  // namespace bcastsim::tb::sweep
