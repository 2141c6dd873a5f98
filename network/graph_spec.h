// A graph file as read, before it is checked: what the YAML and the edge-list readers
// produce and graph_topology builds from. Every value keeps the line it came from, so the
// builder's checks can name it. Internal to network/graph_*.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bcastsim::network::graph_file {

// Line numbers are 1-based; 0 means "not in the file".
struct number {
  uint64_t value = 0;
  int line = 0;
};
struct real {
  double value = 0;
  int line = 0;
};
struct router_value {
  uint64_t router = 0;
  uint64_t value = 0;
  int line = 0;
};

// A count or id given per router: one value for all, per-router values, or both (the
// per-router ones win).
struct per_router {
  number all;
  std::vector<router_value> each;
  // YAML list form ("terminals: [2, 2, 1]"): it must hold exactly one value per router.
  int list_line = 0;
  uint64_t list_size = 0;
};

struct class_spec {
  std::string name;
  int line = 0;
  real bandwidth_gib_per_s;
  real latency_ns;
  number vc_buffer_bytes;
  number cost;
};

struct link_spec {
  uint64_t router[2] = {0, 0};
  uint64_t port[2] = {0, 0};
  bool explicit_ports = false;  // false: "[0, 1, local]", ports assigned in file order
  std::string cls;
  int line = 0;
};

struct spec {
  std::string file;
  // Where problems of the file as a whole (a missing key, a disconnected graph) are
  // reported: the top-level map in YAML, the last line of an edge list.
  int whole_file_line = 1;
  number routers;
  per_router terminals;
  per_router ports;
  per_router groups;
  std::vector<class_spec> classes;
  // The terminal links' rates (terminal_link); line 0: not in the file (the scenario's
  // link.terminal.* and router.vc_buffer_bytes.terminal apply).
  class_spec terminal_link;
  std::vector<link_spec> links;
};

// Throws topology_error("topology.file", "FILE:LINE: problem").
[[noreturn]] void fail(const std::string& file, int line, const std::string& problem);

// Strict parsers: the whole text must be the number (no sign for whole numbers).
uint64_t parse_whole(const std::string& file, int line, const std::string& key,
                     const std::string& text);
double parse_real(const std::string& file, int line, const std::string& key,
                  const std::string& text);

// true for names ending in .yaml / .yml: the format is chosen by extension.
bool is_yaml_path(const std::string& path);

spec read_yaml(const std::string& file, const std::string& text);
spec read_edge_list(const std::string& file, const std::string& text);

}  // namespace bcastsim::network::graph_file
