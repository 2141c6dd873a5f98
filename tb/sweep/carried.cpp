#include "tb/sweep/carried.h"

#include "network/topology_kind.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

namespace bcastsim::tb::sweep {

namespace fs = std::filesystem;

namespace {

// Whether study.json describes this study: the same runs, whatever the points' order.
bool same_study(const study& s, const point_store& store) {
  const auto j = nlohmann::json::parse(
      read_text((fs::path(store.out_dir()) / "study.json").string()), nullptr, false);
  nlohmann::json set = nlohmann::json::object();
  for (const auto& [k, v] : s.fixed) set[k] = v;
  // Compared as JSON values (a hostile file's types never throw). Written before this check
  // existed, a study.json has no scenario_fnv1a: its rows are not trusted.
  const nlohmann::json want = {{"schema", "bcastsim.sweep/1"},
                               {"command", s.command},
                               {"set", set},
                               {"scenario_fnv1a", store.scenario_hash()},
                               {"seed", s.seed},
                               {"replicates", s.replicates},
                               {"random_draws", to_string(s.draws)},
                               {"parameters", s.parameters()}};
  if (!j.is_object()) return false;
  for (const auto& [k, v] : want.items()) {
    if (!j.contains(k) || j[k] != v) return false;
  }
  return true;
}

// A cell as result.json held it: JSON text (a number, a list) when it reads back to the same
// text, else a string. Empty: the result did not have it.
nlohmann::json value_of(const std::string& cell) {
  auto v = nlohmann::json::parse(cell, nullptr, false);
  if (v.is_discarded() || v.is_null() || v.dump() != cell) return cell;
  return v;
}

void put(nlohmann::json& doc, const std::string& path, nlohmann::json v) {
  nlohmann::json* at = &doc;
  size_t start = 0;
  for (size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1) {
    at = &(*at)[path.substr(start, dot - start)];
    if (!at->is_null() && !at->is_object()) return;  // inside a whole list already put
  }
  (*at)[path.substr(start)] = std::move(v);
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

// The leading fields of a point's row after its index: values (not a varied seed), replicate
// when there are several, seed.
std::vector<std::string> head_of(const study& s, const point& p) {
  std::vector<std::string> h;
  for (const auto& [k, v] : p.values) {
    if (k != "seed") h.push_back(v);
  }
  if (s.replicates > 1) h.push_back(std::to_string(p.replicate));
  h.push_back(std::to_string(p.seed));
  return h;
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
  for (size_t i = status_at + 2; i + 1 < row.size(); ++i) {
    if (!row[i].empty()) put(doc, header[i], value_of(row[i]));
  }
  o.result = doc.dump();
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

std::vector<std::optional<point_outcome>> carried_outcomes(const study& s,
                                                           const std::vector<point>& points,
                                                           const point_store& store) {
  std::vector<std::optional<point_outcome>> out(points.size());
  if (points.empty() || !same_study(s, store)) return out;
  const auto rows = parse_csv(read_text((fs::path(store.out_dir()) / "results.csv").string()));
  if (rows.empty()) return out;
  const std::vector<std::string>& header = rows.front();
  // point, the head of a row, status, exit_code, the result columns, error.
  const size_t status_at = 1 + head_of(s, points.front()).size();
  if (header.size() < status_at + 3 || header[0] != "point" || header[status_at] != "status" ||
      header[status_at + 1] != "exit_code" || header.back() != "error")
    return out;
  // By what a point is, not its index: values added to the study move the indices.
  std::map<std::vector<std::string>, const std::vector<std::string>*> by_head;
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != header.size()) continue;
    by_head.emplace(std::vector<std::string>(rows[r].begin() + 1, rows[r].begin() + status_at),
                    &rows[r]);
  }
  for (const point& p : points) {
    const auto it = by_head.find(head_of(s, p));
    if (it == by_head.end()) continue;
    out[p.index] = outcome_of(header, *it->second, status_at);
    if (out[p.index]) out[p.index]->index = p.index;
  }
  return out;
}

}  // namespace bcastsim::tb::sweep
