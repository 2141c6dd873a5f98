#include "tb/sweep/table.h"

#include "network/topology_kind.h"
#include "tb/offload_family.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace bcastsim::tb::sweep {

namespace {

const std::vector<std::string> run_columns = {"collective.completion_ns",
                                              "sim_time_ns",
                                              "collective.messages",
                                              "packets.injected",
                                              "packets.delivered",
                                              "packets.hops_avg",
                                              "packets.latency_ns_avg",
                                              "packets.latency_ns_max",
                                              "TRAVERSALS",
                                              "perf.packet_hops"};
const std::vector<std::string> traffic_columns = {
    "traffic.offered_load",       "traffic.accepted_load",     "traffic.latency_ns.avg",
    "traffic.latency_ns.p99",     "traffic.dropped_at_source", "traffic.codes_latency_ns",
    "traffic.codes_accepted_load"};
// Added when some point holds several collectives (or repetitions): the spread over them.
const std::vector<std::string> several_columns = {
    "collective.collectives", "collective.completion_ns_min", "collective.completion_ns_mean",
    "collective.completion_ns_max", "collective.rank_completion_ns_avg"};
// Added when some point has every rank broadcasting: each broadcast from its own start
// (tb/broadcast_figures.h), the headline of such runs.
const std::vector<std::string> broadcast_columns = {
    "collective.broadcasts.count", "collective.broadcasts.data_completion_ns.mean",
    "collective.broadcasts.data_completion_ns.min", "collective.broadcasts.data_completion_ns.max",
    "collective.broadcasts.rank_average_ns.mean"};
const std::vector<std::string> analyze_columns = {"collective.makespan_links",
                                                  "collective.messages", "hops_avg", "TRAVERSALS"};

// The link classes of the results' topology, in the order its kind declares them (dragonfly:
// terminal, local, global), then any a topology brought itself (a graph file's), by name.
std::vector<std::string> link_classes(const std::vector<nlohmann::json>& docs) {
  std::string kind = network::topology_kinds().front().name;
  for (const auto& d : docs) {
    if (d.contains("/config/topology/kind"_json_pointer)) {
      kind = d["config"]["topology"]["kind"].get<std::string>();
      break;
    }
  }
  std::vector<std::string> classes;
  for (const network::link_class_decl& c : network::find_topology_kind(kind).classes) {
    classes.push_back(c.name);
  }
  for (const auto& d : docs) {
    if (!d.contains("traversals") || !d["traversals"].is_object()) continue;
    for (const auto& [name, v] : d["traversals"].items()) {
      if (std::find(classes.begin(), classes.end(), name) == classes.end()) classes.push_back(name);
    }
  }
  return classes;
}

const nlohmann::json* dig(const nlohmann::json& doc, const std::string& path) {
  const nlohmann::json* at = &doc;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t dot = std::min(path.find('.', start), path.size());
    const std::string key = path.substr(start, dot - start);
    if (at->is_array()) {  // a list's element by its index: collectives.1.completion_ns
      const bool digits = !key.empty() && key.size() <= 9 &&
                          key.find_first_not_of("0123456789") == std::string::npos &&
                          (key == "0" || key[0] != '0');
      if (!digits || std::stoul(key) >= at->size()) return nullptr;
      at = &(*at)[std::stoul(key)];
      start = dot + 1;
      continue;
    }
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
    start = dot + 1;
  }
  return at;
}

std::string cell(const nlohmann::json* v) {
  if (!v || v->is_null()) return {};
  if (v->is_string()) return v->get<std::string>();
  return v->dump();  // numbers: shortest text that reads back the same
}

void add(std::vector<std::string>& cols, const std::vector<std::string>& more) {
  for (const std::string& c : more) {
    if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
  }
}

bool any_has_path(const std::vector<nlohmann::json>& docs, const std::string& path) {
  return std::any_of(docs.begin(), docs.end(),
                     [&](const nlohmann::json& d) { return dig(d, path) != nullptr; });
}

bool among(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The leading columns of both CSVs: the point, then its fields.
std::string row_head(const study& s, const point& p) {
  std::string out = std::to_string(p.index);
  for (const std::string& f : row_fields(s, p)) out += "," + csv_field(f);
  return out;
}

std::string header_head(const study& s) {
  std::string out = "point";
  for (const std::string& p : s.parameters()) {
    if (p != "seed") out += "," + csv_field(p);
  }
  if (s.replicates > 1) out += ",replicate";
  return out + ",seed";
}

}  // namespace

std::vector<std::string> row_fields(const study& s, const point& p) {
  std::vector<std::string> f;
  for (const auto& [k, v] : p.values) {
    if (k != "seed") f.push_back(v);  // a varied seed is the seed column
  }
  if (s.replicates > 1) f.push_back(std::to_string(p.replicate));
  f.push_back(std::to_string(p.seed));
  return f;
}

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string q = "\"";
  for (const char c : v) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::vector<std::string> result_columns(const study& s,
                                        const std::vector<std::optional<point_outcome>>& outcomes) {
  std::vector<nlohmann::json> docs;
  for (const auto& o : outcomes) {
    if (!o || !o->ok) continue;
    auto doc = nlohmann::json::parse(o->result, nullptr, false);
    if (doc.is_object()) docs.push_back(std::move(doc));
  }
  const auto any_has = [&docs](const std::string& section) {
    return std::any_of(docs.begin(), docs.end(),
                       [&](const nlohmann::json& d) { return d.contains(section); });
  };
  std::vector<std::string> cols;
  for (const std::string& c : s.command == "run" ? run_columns : analyze_columns) {
    if (c != "TRAVERSALS") {
      cols.push_back(c);
      continue;
    }
    const std::vector<std::string> classes = link_classes(docs);
    for (const char* what : {".messages", ".packets"}) {
      for (const std::string& cls : classes) cols.push_back("traversals." + cls + what);
    }
  }
  for (const offload_family& f : offload_families()) {
    if (any_has(f.name)) add(cols, f.sweep_columns);
  }
  if (any_has("traffic")) add(cols, traffic_columns);
  const bool several = std::any_of(docs.begin(), docs.end(), [](const nlohmann::json& d) {
    const nlohmann::json* n = dig(d, "collective.collectives");
    return n && n->is_number() && n->get<double>() > 1;
  });
  if (s.command == "run" && several) add(cols, several_columns);
  if (s.command == "run" && any_has_path(docs, "collective.broadcasts"))
    add(cols, broadcast_columns);
  for (const std::string& c : s.columns) {
    if (deterministic_column(c)) add(cols, {c});
  }
  return cols;
}

bool deterministic_column(const std::string& path) {
  return path.rfind("perf.", 0) != 0 || path == "perf.packet_hops" ||
         path == "perf.pool_packets_peak";
}

bool possible_column(const study& s, const std::string& name) {
  const std::vector<std::string> own = {"point", "seed", "status", "exit_code", "error"};
  if (among(own, name) || (name == "replicate" && s.replicates > 1)) return true;
  if (among(s.parameters(), name) || among(result_columns(s, {}), name)) return true;
  if (!deterministic_column(name)) return false;  // in perf.csv, never results.csv
  if (among(s.columns, name)) return true;
  for (const offload_family& f : offload_families()) {
    if (among(f.sweep_columns, name)) return true;
  }
  if (s.command == "run" && (among(traffic_columns, name) || among(several_columns, name) ||
                             among(broadcast_columns, name)))
    return true;
  // A graph topology brings its own link classes: traversals.<class>.messages|packets.
  const size_t last = name.rfind('.');
  return name.rfind("traversals.", 0) == 0 && last > 11 &&
         (name.substr(last) == ".messages" || name.substr(last) == ".packets");
}

std::string make_perf_csv(const study& s, const std::vector<point>& points,
                          const std::vector<std::optional<point_outcome>>& outcomes) {
  std::vector<std::string> cols;
  for (const std::string& c : s.columns) {
    if (!deterministic_column(c)) cols.push_back(c);
  }
  if (cols.empty()) return {};
  std::string out = header_head(s) + ",status,wall_s,host";
  for (const std::string& c : cols) out += "," + csv_field(c);
  out += "\n";
  for (const point& p : points) {
    const auto& o = outcomes[p.index];
    out += row_head(s, p) + (!o ? ",pending,," : o->ok ? ",ok," : ",failed,");
    if (o) out += (o->carried ? "" : nlohmann::json(o->wall_s).dump()) + "," + csv_field(o->host);
    nlohmann::json doc;
    if (o && o->ok) doc = nlohmann::json::parse(o->result, nullptr, false);
    for (const std::string& c : cols) out += "," + csv_field(cell(dig(doc, c)));
    out += "\n";
  }
  return out;
}

std::string make_csv(const study& s, const std::vector<point>& points,
                     const std::vector<std::optional<point_outcome>>& outcomes) {
  const std::vector<std::string> cols = result_columns(s, outcomes);
  std::string out = header_head(s) + ",status,exit_code";
  for (const std::string& c : cols) out += "," + csv_field(c);
  out += ",error\n";
  for (const point& p : points) {
    out += row_head(s, p);
    const auto& o = outcomes[p.index];
    out += !o ? ",pending," : o->ok ? ",ok,0" : ",failed," + std::to_string(o->exit_code);
    nlohmann::json doc;
    if (o && o->ok) doc = nlohmann::json::parse(o->result, nullptr, false);
    for (const std::string& c : cols) out += "," + csv_field(cell(dig(doc, c)));
    out += "," + csv_field(o && !o->ok ? o->error : "") + "\n";
  }
  return out;
}

}  // namespace bcastsim::tb::sweep
