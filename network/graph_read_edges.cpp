// The edge-list graph file format -> graph_file::spec: one directive a line, words
// separated by blanks, '#' starts a comment (network/GRAPH_FILES.md):
//   routers N
//   terminals_per_router N          terminals ROUTER N      (the second overrides the first)
//   ports N                         ports ROUTER N          (radix; optional)
//   group ROUTER GROUP                                      (optional; default 0)
//   class NAME [BANDWIDTH_GIB_PER_S LATENCY_NS VC_BUFFER_BYTES [COST]]
//   terminal_link BANDWIDTH_GIB_PER_S LATENCY_NS VC_BUFFER_BYTES          (optional)
//   link ROUTER PORT ROUTER PORT CLASS    or    link ROUTER ROUTER CLASS
// Directives may come in any order. Only the shape of each line is checked here; what the
// values mean is checked by graph_topology, for both formats alike.
#include "network/graph_spec.h"

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace bcastsim::network::graph_file {

namespace {

const char* const k_directives =
    "routers, terminals_per_router, terminals, ports, group, class, terminal_link, link";

class edge_list_reader {
 public:
  explicit edge_list_reader(const std::string& file) : m_file(file) {}
  spec read(const std::string& text);

 private:
  void directive(const std::vector<std::string>& w, int line);
  number whole(const std::string& text, int line, const std::string& key) const {
    return {parse_whole(m_file, line, key, text), line};
  }
  // Refuses a line whose word count is not one of `counts`, showing its usage.
  void expect(const std::vector<std::string>& w, int line, std::vector<size_t> counts,
              const std::string& usage) const;
  // A directive that sets the whole file's value may appear once.
  void once(const std::string& key, int line);
  void read_class(const std::vector<std::string>& w, int line);
  void read_link(const std::vector<std::string>& w, int line);

  std::string m_file;
  spec m_spec;
  std::map<std::string, int> m_seen;  // directive given once -> its line
};

void edge_list_reader::expect(const std::vector<std::string>& w, int line,
                              std::vector<size_t> counts, const std::string& usage) const {
  for (const size_t c : counts) {
    if (w.size() == c) return;
  }
  fail(m_file, line,
       "'" + w[0] + "' takes " + usage + "; this line has " + std::to_string(w.size() - 1) +
           " value" + (w.size() == 2 ? "" : "s"));
}

void edge_list_reader::once(const std::string& key, int line) {
  const auto [it, fresh] = m_seen.emplace(key, line);
  if (!fresh) {
    fail(m_file, line,
         key + " is given twice (lines " + std::to_string(it->second) + " and " +
             std::to_string(line) + ")");
  }
}

void edge_list_reader::read_class(const std::vector<std::string>& w, int line) {
  expect(w, line, {2, 5, 6}, "NAME, or NAME BANDWIDTH_GIB_PER_S LATENCY_NS VC_BUFFER_BYTES [COST]");
  class_spec c;
  c.name = w[1];
  c.line = line;
  if (w.size() >= 5) {
    c.bandwidth_gib_per_s = {parse_real(m_file, line, "bandwidth_gib_per_s", w[2]), line};
    c.latency_ns = {parse_real(m_file, line, "latency_ns", w[3]), line};
    c.vc_buffer_bytes = whole(w[4], line, "vc_buffer_bytes");
  }
  if (w.size() == 6) c.cost = whole(w[5], line, "cost");
  m_spec.classes.push_back(std::move(c));
}

void edge_list_reader::read_link(const std::vector<std::string>& w, int line) {
  expect(w, line, {4, 6}, "ROUTER PORT ROUTER PORT CLASS or ROUTER ROUTER CLASS");
  link_spec l;
  l.line = line;
  l.explicit_ports = w.size() == 6;
  const size_t step = l.explicit_ports ? 2 : 1;
  for (size_t end = 0; end < 2; ++end) {
    l.router[end] = whole(w[1 + end * step], line, "router").value;
    if (l.explicit_ports) l.port[end] = whole(w[2 + end * step], line, "port").value;
  }
  l.cls = w.back();
  m_spec.links.push_back(std::move(l));
}

void edge_list_reader::directive(const std::vector<std::string>& w, int line) {
  const std::string& d = w[0];
  if (d == "routers") {
    expect(w, line, {2}, "N");
    once(d, line);
    m_spec.routers = whole(w[1], line, d);
  } else if (d == "terminals_per_router") {
    expect(w, line, {2}, "N");
    once(d, line);
    m_spec.terminals.all = whole(w[1], line, d);
  } else if (d == "ports" && w.size() == 2) {
    once(d, line);
    m_spec.ports.all = whole(w[1], line, d);
  } else if (d == "terminals" || d == "ports" || d == "group") {
    expect(w, line, {3},
           d == "terminals" ? "ROUTER N (every router: terminals_per_router N)"
           : d == "ports"   ? "N (every router) or ROUTER N"
                            : "ROUTER GROUP");
    per_router& target = d == "terminals" ? m_spec.terminals
                         : d == "ports"   ? m_spec.ports
                                          : m_spec.groups;
    target.each.push_back({whole(w[1], line, "router").value, whole(w[2], line, d).value, line});
  } else if (d == "class") {
    read_class(w, line);
  } else if (d == "terminal_link") {
    expect(w, line, {4}, "BANDWIDTH_GIB_PER_S LATENCY_NS VC_BUFFER_BYTES");
    once(d, line);
    class_spec& c = m_spec.terminal_link;
    c.name = "terminal";
    c.line = line;
    c.bandwidth_gib_per_s = {parse_real(m_file, line, "bandwidth_gib_per_s", w[1]), line};
    c.latency_ns = {parse_real(m_file, line, "latency_ns", w[2]), line};
    c.vc_buffer_bytes = whole(w[3], line, "vc_buffer_bytes");
  } else if (d == "link") {
    read_link(w, line);
  } else {
    fail(m_file, line, "unknown directive '" + d + "'; allowed: " + k_directives);
  }
}

spec edge_list_reader::read(const std::string& text) {
  m_spec.file = m_file;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  std::vector<std::string> words;
  while (std::getline(in, raw)) {
    ++line;
    const size_t hash = raw.find('#');
    std::istringstream fields(hash == std::string::npos ? raw : raw.substr(0, hash));
    words.clear();
    for (std::string w; fields >> w;) words.push_back(std::move(w));
    if (!words.empty()) directive(words, line);
  }
  m_spec.whole_file_line = line == 0 ? 1 : line;
  if (line == 0)
    fail(m_file, 1, std::string("the file is empty; expected the directives ") + k_directives);
  return m_spec;
}

}  // namespace

spec read_edge_list(const std::string& file, const std::string& text) {
  return edge_list_reader(file).read(text);
}

}  // namespace bcastsim::network::graph_file
