// The YAML graph file format -> graph_file::spec. Only the shape of the file is checked
// here (known keys, each given once, numbers that parse, lists of the right arity); what
// the values mean is checked by graph_topology, for both formats alike.
#include "network/graph_spec.h"

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

namespace bcastsim::network::graph_file {

namespace {

const char* const k_top_keys =
    "routers, terminals_per_router, terminals, ports, classes, terminal_link, groups, links";
const char* const k_class_keys = "name, bandwidth_gib_per_s, latency_ns, vc_buffer_bytes, cost";

class yaml_reader {
 public:
  explicit yaml_reader(const std::string& file) : m_file(file) {}

  spec read(const std::string& text);

 private:
  // yaml-cpp lines are 0-based; a node without a position reports at `fallback`.
  static int line_of(const YAML::Node& n, int fallback) {
    const YAML::Mark m = n.Mark();
    return m.is_null() || m.line < 0 ? fallback : m.line + 1;
  }
  const std::string& scalar(const YAML::Node& n, int line, const std::string& key) const;
  number whole(const YAML::Node& n, int line, const std::string& key) const;
  real decimal(const YAML::Node& n, int line, const std::string& key) const;
  void read_per_router(const YAML::Node& n, int line, const std::string& key,
                       per_router& out) const;
  void read_classes(const YAML::Node& n, int line, spec& s) const;
  class_spec read_class(const YAML::Node& n, int line) const;
  void read_terminal_link(const YAML::Node& n, int line, spec& s) const;
  void read_links(const YAML::Node& n, int line, spec& s) const;

  std::string m_file;
};

const std::string& yaml_reader::scalar(const YAML::Node& n, int line,
                                       const std::string& key) const {
  if (n.IsNull()) fail(m_file, line, key + " has no value");
  if (!n.IsScalar()) fail(m_file, line, key + " must be a single value, not a list or a map");
  return n.Scalar();
}

number yaml_reader::whole(const YAML::Node& n, int line, const std::string& key) const {
  const int at = line_of(n, line);
  return {parse_whole(m_file, at, key, scalar(n, at, key)), at};
}

real yaml_reader::decimal(const YAML::Node& n, int line, const std::string& key) const {
  const int at = line_of(n, line);
  return {parse_real(m_file, at, key, scalar(n, at, key)), at};
}

// A scalar (one value for every router) or a list of one value per router.
void yaml_reader::read_per_router(const YAML::Node& n, int line, const std::string& key,
                                  per_router& out) const {
  if (!n.IsSequence()) {
    out.all = whole(n, line, key);
    return;
  }
  out.list_line = line;
  out.list_size = n.size();
  uint64_t router = 0;
  for (const YAML::Node& item : n) {
    const number v = whole(item, line, key);
    out.each.push_back({router++, v.value, v.line});
  }
}

void yaml_reader::read_classes(const YAML::Node& n, int line, spec& s) const {
  if (n.IsNull()) return;
  if (!n.IsSequence()) {
    fail(m_file, line, "classes must be a list, e.g. - {name: local, cost: 1}");
  }
  for (const YAML::Node& item : n) s.classes.push_back(read_class(item, line_of(item, line)));
}

// {name: local, bandwidth_gib_per_s: 5.25, latency_ns: 10, vc_buffer_bytes: 16384, cost: 1}
// or just the name.
class_spec yaml_reader::read_class(const YAML::Node& n, int line) const {
  class_spec c;
  c.line = line;
  if (n.IsScalar()) {
    c.name = n.Scalar();
    return c;
  }
  if (!n.IsMap()) fail(m_file, line, std::string("a class is a map with keys ") + k_class_keys);
  std::map<std::string, int> seen;
  for (const auto& kv : n) {
    const std::string key = kv.first.Scalar();
    const int at = line_of(kv.first, line);
    if (!seen.emplace(key, at).second) {
      fail(m_file, at,
           "class key " + key + " is given twice (lines " + std::to_string(seen[key]) + " and " +
               std::to_string(at) + ")");
    }
    if (key == "name") {
      c.name = scalar(kv.second, at, "name");
    } else if (key == "bandwidth_gib_per_s") {
      c.bandwidth_gib_per_s = decimal(kv.second, at, key);
    } else if (key == "latency_ns") {
      c.latency_ns = decimal(kv.second, at, key);
    } else if (key == "vc_buffer_bytes") {
      c.vc_buffer_bytes = whole(kv.second, at, key);
    } else if (key == "cost") {
      c.cost = whole(kv.second, at, key);
    } else {
      fail(m_file, at, "unknown class key '" + key + "'; allowed: " + k_class_keys);
    }
  }
  if (seen.count("name") == 0) fail(m_file, line, "this class has no name");
  return c;
}

// {bandwidth_gib_per_s: 0.23, latency_ns: 10, vc_buffer_bytes: 8192}: a class's rates.
void yaml_reader::read_terminal_link(const YAML::Node& n, int line, spec& s) const {
  const char* what =
      "terminal_link is a map with keys bandwidth_gib_per_s, latency_ns, vc_buffer_bytes";
  if (!n.IsMap()) fail(m_file, line, what);
  for (const auto& kv : n) {
    const std::string key = kv.first.Scalar();
    if (key == "name" || key == "cost") fail(m_file, line_of(kv.first, line), what);
  }
  YAML::Node named = YAML::Clone(n);
  named["name"] = "terminal";
  s.terminal_link = read_class(named, line);
}

// [router, port, router, port, class] or [router, router, class].
void yaml_reader::read_links(const YAML::Node& n, int line, spec& s) const {
  if (n.IsNull()) return;
  if (!n.IsSequence())
    fail(m_file, line, "links must be a list of [router, port, router, port, class]");
  s.links.reserve(n.size());
  for (const YAML::Node& item : n) {
    link_spec l;
    l.line = line_of(item, line);
    if (!item.IsSequence() || (item.size() != 5 && item.size() != 3)) {
      fail(m_file, l.line,
           "a link is [router, port, router, port, class] or [router, router, class]" +
               std::string(item.IsSequence()
                               ? "; this one has " + std::to_string(item.size()) + " entries"
                               : ""));
    }
    l.explicit_ports = item.size() == 5;
    const size_t step = l.explicit_ports ? 2 : 1;
    for (size_t end = 0; end < 2; ++end) {
      l.router[end] = whole(item[end * step], l.line, "router").value;
      if (l.explicit_ports) l.port[end] = whole(item[end * step + 1], l.line, "port").value;
    }
    l.cls = scalar(item[item.size() - 1], l.line, "class");
    s.links.push_back(std::move(l));
  }
}

spec yaml_reader::read(const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(m_file, e.mark.is_null() ? 1 : e.mark.line + 1, "not valid YAML: " + e.msg);
  }
  if (root.IsNull())
    fail(m_file, 1, std::string("the file is empty; expected the keys ") + k_top_keys);
  if (!root.IsMap())
    fail(m_file, line_of(root, 1), std::string("expected a map with the keys ") + k_top_keys);
  spec s;
  s.file = m_file;
  s.whole_file_line = line_of(root, 1);
  std::map<std::string, int> seen;
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    const int at = line_of(kv.first, s.whole_file_line);
    if (!seen.emplace(key, at).second) {
      fail(m_file, at,
           key + " is given twice (lines " + std::to_string(seen[key]) + " and " +
               std::to_string(at) + ")");
    }
    const YAML::Node& v = kv.second;
    if (key == "routers") {
      s.routers = whole(v, at, key);
    } else if (key == "terminals_per_router") {
      s.terminals.all = whole(v, at, key);
    } else if (key == "terminals") {
      if (!v.IsSequence())
        fail(m_file, at,
             "terminals is a list of one count per router (or use terminals_per_router)");
      read_per_router(v, at, key, s.terminals);
    } else if (key == "ports") {
      read_per_router(v, at, key, s.ports);
    } else if (key == "groups") {
      if (!v.IsSequence()) fail(m_file, at, "groups is a list of one group per router");
      read_per_router(v, at, key, s.groups);
    } else if (key == "classes") {
      read_classes(v, at, s);
    } else if (key == "terminal_link") {
      read_terminal_link(v, at, s);
    } else if (key == "links") {
      read_links(v, at, s);
    } else {
      fail(m_file, at, "unknown key '" + key + "'; allowed: " + k_top_keys);
    }
  }
  if (seen.count("terminals_per_router") != 0 && seen.count("terminals") != 0) {
    fail(m_file, seen["terminals"],
         "give terminals_per_router or terminals, not both (line " +
             std::to_string(seen["terminals_per_router"]) + ")");
  }
  return s;
}

}  // namespace

spec read_yaml(const std::string& file, const std::string& text) {
  return yaml_reader(file).read(text);
}

}  // namespace bcastsim::network::graph_file
