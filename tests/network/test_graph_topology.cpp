// Graph-file topologies: round trips of the dragonfly through both formats, port
// assignment, per-router values, every refused file (with its line), and the registry.
#include "graph_test_files.h"
#include "network/dragonfly.h"
#include "network/graph_routing.h"
#include "network/graph_topology.h"
#include "network/topology_kind.h"

#include <boost/test/unit_test.hpp>

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::network;
using namespace bcastsim::network::graph_test_files;

namespace {

const dragonfly_params k_df72{0, 4, 2, 2, global_arrangement::absolute};
const std::vector<double> k_dragonfly_cost{0, 1, 3};  // [terminal] ignored, local, global

// Every port, terminal, group and class name equal; reports the first difference.
void check_same_tables(const topology& a, const topology& b) {
  BOOST_REQUIRE(a.num_routers() == b.num_routers());
  BOOST_REQUIRE(a.num_terminals() == b.num_terminals());
  BOOST_TEST(a.link_classes() == b.link_classes(), boost::test_tools::per_element());
  BOOST_TEST(a.num_groups() == b.num_groups());
  uint32_t differences = 0;
  for (router_id r = 0; r < a.num_routers(); ++r) {
    BOOST_REQUIRE(a.radix(r) == b.radix(r));
    differences += a.group_of(r) != b.group_of(r);
    for (port_id p = 0; p < a.radix(r); ++p) {
      const port_info& x = a.port(r, p);
      const port_info& y = b.port(r, p);
      const bool same = x.peer_kind == y.peer_kind && x.cls == y.cls && x.peer == y.peer &&
                        (x.peer_kind != port_info::kind::router || x.peer_port == y.peer_port);
      if (!same && ++differences <= 5) BOOST_ERROR("router " << r << " port " << p << " differs");
    }
  }
  for (terminal_id t = 0; t < a.num_terminals(); ++t) {
    differences += a.attach(t).router != b.attach(t).router || a.attach(t).port != b.attach(t).port;
  }
  BOOST_TEST(differences == 0u);
}

// The message of the topology_error loading `path` throws ("" if none), with its key.
std::string load_error(const std::string& path, std::string* key = nullptr) {
  try {
    graph_topology g(path);
  } catch (const topology_error& e) {
    if (key != nullptr) *key = e.key;
    return e.what();
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(graph_round_trips_dragonflies_through_both_formats) {
  const scratch_dir dir;
  const dragonfly_params shapes[] = {k_df72,
                                     {5, 4, 2, 2, global_arrangement::absolute},
                                     {6, 4, 2, 2, global_arrangement::relative}};  // unused ports
  for (const dragonfly_params& shape : shapes) {
    const dragonfly df(shape);
    BOOST_TEST_CONTEXT(df.describe()) {
      const graph_topology from_yaml(dir.write("df.yaml", yaml_of(df, k_dragonfly_cost)));
      const graph_topology from_edges(dir.write("df.txt", edge_list_of(df, k_dragonfly_cost)));
      check_same_tables(df, from_yaml);
      check_same_tables(df, from_edges);
      for (const graph_topology* g : {&from_yaml, &from_edges}) {
        BOOST_TEST(g->kind() == "graph");
        BOOST_TEST(g->class_cost(dragonfly_classes::local) == 1u);
        BOOST_TEST(g->class_cost(dragonfly_classes::global) == 3u);
        // The dragonfly gives no rates of its own and none were passed: not given.
        BOOST_TEST(g->class_rates(dragonfly_classes::local) == nullptr);
        BOOST_TEST(g->class_rates(terminal_class) == nullptr);
        BOOST_TEST(g->links_between_groups(0, 1).size() == df.links_between_groups(0, 1).size());
      }
      // Writing what was loaded gives the same file, apart from the description line.
      const std::string again = yaml_of(from_yaml);
      const std::string first = yaml_of(df, k_dragonfly_cost);
      BOOST_TEST(again.substr(again.find('\n')) == first.substr(first.find('\n')));
    }
  }
}

BOOST_AUTO_TEST_CASE(graph_class_rates_and_costs_come_from_the_file) {
  const scratch_dir dir;
  const dragonfly df(k_df72);
  const std::vector<link_class_rates> rates{{}, {5.25, 10, 16384}, {4.7, 100, 32768}};
  for (const std::string name : {"df.yaml", "df.edges"}) {
    const std::string text =
        name == "df.yaml" ? yaml_of(df, {}, rates) : edge_list_of(df, {}, rates);
    const graph_topology g(dir.write(name, text));
    BOOST_TEST_CONTEXT(name) {
      BOOST_REQUIRE(g.class_rates(dragonfly_classes::global) != nullptr);
      BOOST_TEST(g.class_rates(dragonfly_classes::global)->bandwidth_gib_per_s == 4.7);
      BOOST_TEST(g.class_rates(dragonfly_classes::global)->latency_ns == 100);
      BOOST_TEST(g.class_rates(dragonfly_classes::global)->vc_buffer_bytes == 32768u);
      BOOST_TEST(g.class_rates(dragonfly_classes::local)->bandwidth_gib_per_s == 5.25);
      BOOST_TEST(g.class_cost(dragonfly_classes::global) == 1u);  // no class_cost: all 1
      // The loaded graph's own rates are written back when it is written out.
      const graph_topology again(dir.write("again.yaml", yaml_of(g)));
      BOOST_REQUIRE(again.class_rates(dragonfly_classes::local) != nullptr);
      BOOST_TEST(again.class_rates(dragonfly_classes::local)->vc_buffer_bytes == 16384u);
    }
  }
  std::ostringstream sink;
  BOOST_CHECK_THROW(write_graph_yaml(df, sink, {1, 3}), std::invalid_argument);  // not per class
  BOOST_CHECK_THROW(write_graph_yaml(df, sink, {0, 1, 2.5}), std::invalid_argument);
  BOOST_CHECK_THROW(write_graph_yaml(df, sink, {0, 0, 1}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(graph_ports_assigned_in_file_order_after_terminals) {
  const scratch_dir dir;
  // Router 0: 2 terminals, explicit port 4 for the 0-2 link, then 0-1 and 0-3 take 2 and 3.
  const graph_topology g(dir.write("g.yaml", R"(routers: 4
terminals: [2, 1, 0, 1]
classes: [a, b]
groups: [0, 0, 1, 1]
links:
  - [0, 1, a]
  - [0, 4, 2, 1, b]
  - [0, 3, b]
  - [1, 2, a]
  - [2, 3, a]
)"));
  BOOST_TEST(g.num_terminals() == 4u);
  BOOST_TEST(g.radix(0) == 5u);  // terminals + links: ports 0 .. 4
  BOOST_TEST(g.radix(1) == 3u);
  BOOST_TEST(g.radix(2) == 3u);  // port 0 is free: explicit port 1, then auto 2
  BOOST_TEST(g.radix(3) == 3u);
  BOOST_TEST(g.port(0, 2).peer == 1u);
  BOOST_TEST(g.port(0, 2).peer_port == 1u);
  BOOST_TEST(g.port(0, 3).peer == 3u);
  BOOST_TEST(g.port(0, 4).peer == 2u);
  BOOST_TEST(g.port(0, 4).peer_port == 1u);
  BOOST_TEST(g.port(0, 4).cls == 2u);   // b
  BOOST_TEST(g.port(2, 0).peer == 1u);  // no terminals on router 2: auto ports start at 0
  BOOST_TEST(g.port(2, 2).peer == 3u);  // and skip the explicit port 1
  BOOST_TEST(g.router_of(2) == 1u);     // terminals numbered router by router
  BOOST_TEST(g.router_of(3) == 3u);
  BOOST_TEST(g.attach(3).port == 0u);
  BOOST_TEST(g.num_groups() == 2u);
  BOOST_TEST(g.group_of(3) == 1u);
  BOOST_TEST(g.links_between_groups(0, 1).size() == 3u);  // 0-2, 0-3, 1-2
  BOOST_TEST(g.class_name(1) == "a");
  BOOST_TEST(g.class_cost(2) == 1u);
}

BOOST_AUTO_TEST_CASE(graph_edge_list_per_router_values_and_comments) {
  const scratch_dir dir;
  const graph_topology g(dir.write("g.edges", R"(# a line of three routers
routers 3
terminals_per_router 1
terminals 1 0      # router 1 is a switch without terminals
ports 4            # every router ...
ports 2 6          # ... but router 2
class x 1.5 20 4096 2
group 2 1
link 0 1 x
link 1 2 x
)"));
  BOOST_TEST(g.num_terminals() == 2u);
  BOOST_TEST(g.router_of(1) == 2u);
  BOOST_TEST(g.radix(0) == 4u);
  BOOST_TEST(g.radix(2) == 6u);
  BOOST_TEST(g.port(1, 0).peer == 0u);  // no terminals: the first link takes port 0
  BOOST_TEST(g.port(2, 1).peer == 1u);
  BOOST_TEST(g.class_cost(1) == 2u);
  BOOST_TEST(g.class_rates(1)->latency_ns == 20);
  BOOST_TEST(g.num_groups() == 2u);
  const graph_minimal_routing routing(g);
  BOOST_TEST(routing.distance(0, 2) == 4u);
}

namespace {

struct bad_file {
  std::string name;
  std::string text;
  std::vector<std::string> expected;  // substrings of the message
};

// Lines 1..10 of a good 4-router ring; cases change one line or add lines.
const std::vector<std::string> k_yaml_ring = {"routers: 4",
                                              "terminals_per_router: 2",
                                              "classes:",
                                              "  - {name: local, cost: 1}",
                                              "  - {name: global, cost: 3}",
                                              "links:",
                                              "  - [0, 1, local]",
                                              "  - [1, 2, local]",
                                              "  - [2, 3, global]",
                                              "  - [3, 0, global]"};
const std::vector<std::string> k_edge_ring = {"routers 4",           "terminals_per_router 2",
                                              "class local 0 0 0 1", "class global 4.7 100 32768 3",
                                              "link 0 1 local",      "link 1 2 local",
                                              "link 2 3 global",     "link 3 0 global"};

// The ring with line `line` (1-based) replaced by `text` ("" removes it; past the end adds).
std::string with_line(const std::vector<std::string>& base, size_t line, const std::string& text) {
  std::vector<std::string> lines = base;
  if (line > lines.size()) {
    lines.push_back(text);
  } else {
    lines[line - 1] = text;
  }
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The same, on a text already changed once.
std::string with_line(const std::string& text, size_t line, const std::string& replacement) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return with_line(lines, line, replacement);
}

void check_refused(const scratch_dir& dir, const std::vector<bad_file>& cases) {
  for (const bad_file& c : cases) {
    BOOST_TEST_CONTEXT(c.name << ":\n" << c.text) {
      std::string key;
      const std::string message = load_error(dir.write(c.name, c.text), &key);
      BOOST_TEST(key == "topology.file");
      for (const std::string& e : c.expected) {
        BOOST_TEST(message.find(e) != std::string::npos, "'" << e << "' not in: " << message);
      }
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(graph_yaml_problems_are_refused_with_their_line) {
  const scratch_dir dir;
  const auto& r = k_yaml_ring;
  check_refused(
      dir,
      {
          {"bad.yaml",
           with_line(r, 8, "  - [1, 40, local]"),
           {"bad.yaml:8: router 40 is out of range; allowed: 0 .. 3"}},
          {"bad.yaml",
           with_line(r, 11, "  - [1, 3, 3, 3, local]") + "  - [0, 4, 1, 3, global]\n",
           {"bad.yaml:12: port 3 of router 1 is wired twice (lines 11 and 12)"}},
          {"bad.yaml",
           with_line(r, 9, "  - [2, 3, glob]"),
           {"bad.yaml:9: class 'glob' is not declared; allowed: local, global"}},
          {"bad.yaml",
           with_line(r, 5, "  - {name: terminal}"),
           {"bad.yaml:5: class name 'terminal' is reserved"}},
          {"bad.yaml",
           with_line(r, 5, "  - {name: local}"),
           {"bad.yaml:5: class 'local' is declared twice (lines 4 and 5)"}},
          {"bad.yaml", with_line(r, 1, "routers: 5"), {"bad.yaml:1: router 4 has no link"}},
          {"bad.yaml",
           with_line(with_line(r, 8, "  - [0, 1, global]"), 10, "  - [2, 3, local]"),
           {"bad.yaml:1: the graph is not connected: routers 0 and 2 cannot reach each other",
            "2 separate parts"}},
          {"bad.yaml", with_line(r, 1, "# no routers"), {"bad.yaml:2: routers is missing"}},
          {"bad.yaml", with_line(r, 2, ""), {"bad.yaml:1: terminals_per_router (or terminals"}},
          {"bad.yaml",
           with_line(r, 1, "routers: many"),
           {"bad.yaml:1: routers = 'many' is not a whole number"}},
          {"bad.yaml",
           with_line(r, 7, "  - [0, x, local]"),
           {"bad.yaml:7: router = 'x' is not a whole number"}},
          {"bad.yaml",
           with_line(r, 2, "terminals_per_router: -2"),
           {"bad.yaml:2: terminals_per_router = '-2'"}},
          {"bad.yaml",
           with_line(r, 1, "routers: 0"),
           {"bad.yaml:1: routers = 0 is out of range; allowed: 1 .. 16384"}},
          {"bad.yaml",
           with_line(r, 1, "rotuers: 4"),
           {"bad.yaml:1: unknown key 'rotuers'; allowed: routers,"}},
          {"bad.yaml",
           with_line(r, 4, "  - {name: local, cost: 0}"),
           {"bad.yaml:4: cost = 0 of class 'local' is out of range; allowed: 1 .. 65535"}},
          {"bad.yaml",
           with_line(r, 4, "  - {name: local, bandwidth_gib_per_s: 5}"),
           {"bad.yaml:4: class 'local' gives bandwidth_gib_per_s but not latency_ns"}},
          {"bad.yaml",
           with_line(r, 4, "  - {name: local, colour: red}"),
           {"bad.yaml:4: unknown class key 'colour'; allowed: name, bandwidth_gib_per_s"}},
          {"bad.yaml",
           with_line(r, 7, "  - [0, 1, 0, local]"),
           {"bad.yaml:7: a link is [router, port, router, port, class] or [router, router, class]; "
            "this one has 4"}},
          {"bad.yaml",
           with_line(r, 7, "  - [0, 0, local]"),
           {"bad.yaml:7: the link joins router 0 to itself"}},
          {"bad.yaml",
           with_line(r, 7, "  - [0, 1, 1, 2, local]"),
           {"bad.yaml:7: port 1 of router 0 holds a terminal (ports 0 .. 1 do); allowed: 2 .. "
            "65535"}},
          {"bad.yaml",
           with_line(r, 11, "ports: 3"),
           {"bad.yaml:8: router 1 has no free port left for this link; allowed: 2 .. 2, all "
            "wired"}},
          {"bad.yaml",
           with_line(r, 3, "ports: 4\nclasses:") + "  - [0, 4, 2, 2, local]\n",
           {"bad.yaml:12: port 4 of router 0 is out of range; allowed: 2 .. 3"}},
          {"bad.yaml",
           with_line(r, 11, "terminals: [1, 1, 1]"),
           {"bad.yaml:11: give terminals_per_router or terminals, not both"}},
          {"bad.yaml",
           with_line(r, 2, "terminals: [1, 1, 1]"),
           {"bad.yaml:2: terminals lists 3 values; routers = 4 needs one per router"}},
          {"bad.yaml",
           with_line(r, 11, "groups: [0, 0, 2, 2]"),
           {"bad.yaml:11: no router is in group 1; groups must be numbered 0 .. 2 without gaps"}},
          {"bad.yaml",
           with_line(r, 11, "groups: [0, 0, 9, 2]"),
           {"bad.yaml:11: group 9 of router 2 is out of range; allowed: 0 .. 3"}},
          {"bad.yaml",
           with_line(r, 11, "routers: 4"),
           {"bad.yaml:11: routers is given twice (lines 1 and 11)"}},
          {"bad.yaml", with_line(r, 7, "  - [0, 1, local"), {"bad.yaml:", "not valid YAML"}},
          {"bad.yaml", "", {"bad.yaml:1: the file is empty"}},
          {"bad.yaml",
           with_line(r, 2, "terminals_per_router: 0"),
           {"bad.yaml:1: the graph has no terminal"}},
      });
}

BOOST_AUTO_TEST_CASE(graph_edge_list_problems_are_refused_with_their_line) {
  const scratch_dir dir;
  const auto& r = k_edge_ring;
  check_refused(
      dir,
      {
          {"bad.edges",
           with_line(r, 6, "link 1 40 local"),
           {"bad.edges:6: router 40 is out of range; allowed: 0 .. 3"}},
          {"bad.edges",
           with_line(r, 9, "link 1 3 3 3 local") + "link 0 4 1 3 global\n",
           {"bad.edges:10: port 3 of router 1 is wired twice (lines 9 and 10)"}},
          {"bad.edges",
           with_line(r, 7, "link 2 3 glob"),
           {"bad.edges:7: class 'glob' is not declared; allowed: local, global"}},
          {"bad.edges",
           with_line(r, 4, "class terminal"),
           {"bad.edges:4: class name 'terminal' is reserved"}},
          {"bad.edges", with_line(r, 1, "routers 6"), {"bad.edges:1: router 4 has no link"}},
          {"bad.edges",
           with_line(with_line(r, 6, "link 0 1 global"), 8, "link 2 3 local"),
           {"bad.edges:8: the graph is not connected: routers 0 and 2 cannot reach each other"}},
          {"bad.edges", with_line(r, 1, "# nothing"), {"bad.edges:8: routers is missing"}},
          {"bad.edges",
           with_line(r, 9, "terminals 0 2") + "terminals 0 1\n",
           {"bad.edges:10: terminals of router 0 is given twice (lines 9 and 10)"}},
          {"bad.edges", "", {"bad.edges:1: the file is empty"}},
          {"bad.edges", with_line(r, 2, ""), {"bad.edges:8: terminals_per_router (or terminals"}},
          {"bad.edges",
           with_line(r, 1, "routers four"),
           {"bad.edges:1: routers = 'four' is not a whole number"}},
          {"bad.edges",
           with_line(r, 4, "class global fast 100 32768 3"),
           {"bad.edges:4: bandwidth_gib_per_s = 'fast' is not a number"}},
          {"bad.edges",
           with_line(r, 1, "routers 0"),
           {"bad.edges:1: routers = 0 is out of range; allowed: 1 .. 16384"}},
          {"bad.edges",
           with_line(r, 9, "switch 0 1"),
           {"bad.edges:9: unknown directive 'switch'; allowed: routers,"}},
          {"bad.edges",
           with_line(r, 5, "link 0 1"),
           {"bad.edges:5: 'link' takes ROUTER PORT ROUTER PORT CLASS or ROUTER ROUTER CLASS; this "
            "line has 2 values"}},
          {"bad.edges",
           with_line(r, 9, "routers 4"),
           {"bad.edges:9: routers is given twice (lines 1 and 9)"}},
          {"bad.edges",
           with_line(r, 9, "group 7 0"),
           {"bad.edges:9: router 7 is out of range; allowed: 0 .. 3"}},
          {"bad.edges",
           with_line(r, 3, "class local 0 10 0 1"),
           {"bad.edges:3: class 'local' gives latency_ns or vc_buffer_bytes but no "
            "bandwidth_gib_per_s"}},
          {"bad.edges", "# only a comment\n", {"bad.edges:1: routers is missing"}},
      });
  // A file that is not there names itself.
  BOOST_TEST(
      load_error("/nonexistent/graph.edges").find("/nonexistent/graph.edges: cannot be read") ==
      0u);
  // A folder read as an empty file, and /dev/zero without end (fuzz findings).
  BOOST_TEST(load_error("/tmp") ==
             "/tmp: cannot be read: it is a directory; allowed: a regular file");
  BOOST_TEST(load_error("/dev/zero").find("not a regular file") != std::string::npos);
}

namespace {

class map_values final : public params::values {
 public:
  explicit map_values(std::map<std::string, std::string> m) : m_values(std::move(m)) {}
  const std::string& text(const std::string& key) const override { return m_values.at(key); }

 private:
  std::map<std::string, std::string> m_values;
};

}  // namespace

// Issue 39: a graph file can carry the terminal links' rates (terminal_link), in both formats;
// the writers emit them, from the scenario's rates ([0]) or a loaded graph's own; they are
// checked as a class's rates.
BOOST_AUTO_TEST_CASE(graph_terminal_link_rates_are_read_written_and_checked) {
  const scratch_dir dir;
  const dragonfly df(k_df72);
  const std::vector<link_class_rates> rates{{0.25, 12, 8192}, {5.25, 10, 16384}, {4.7, 100, 32768}};
  for (const std::string name : {"df.yaml", "df.edges"}) {
    BOOST_TEST_CONTEXT(name) {
      const std::string text =
          name == "df.yaml" ? yaml_of(df, {}, rates) : edge_list_of(df, {}, rates);
      const graph_topology g(dir.write(name, text));
      BOOST_REQUIRE(g.class_rates(terminal_class) != nullptr);
      BOOST_TEST(g.class_rates(terminal_class)->bandwidth_gib_per_s == 0.25);
      BOOST_TEST(g.class_rates(terminal_class)->latency_ns == 12);
      BOOST_TEST(g.class_rates(terminal_class)->vc_buffer_bytes == 8192u);
      const graph_topology again(
          dir.write("again" + name, name == "df.yaml" ? yaml_of(g) : edge_list_of(g)));
      BOOST_REQUIRE(again.class_rates(terminal_class) != nullptr);
      BOOST_TEST(again.class_rates(terminal_class)->bandwidth_gib_per_s == 0.25);
    }
  }
  // Without it, none: the scenario's link.terminal.* apply.
  const graph_topology plain(dir.write("ring.yaml", with_line(k_yaml_ring, 11, "")));
  BOOST_TEST(plain.class_rates(terminal_class) == nullptr);
  check_refused(dir,
                {
                    {"bad.yaml",
                     with_line(k_yaml_ring, 11, "terminal_link: {bandwidth_gib_per_s: 1, cost: 2}"),
                     {"bad.yaml:11:", "terminal_link is a map with keys bandwidth_gib_per_s"}},
                    {"bad.yaml",
                     with_line(k_yaml_ring, 11, "terminal_link: {bandwidth_gib_per_s: 1}"),
                     {"bad.yaml:11:", "gives bandwidth_gib_per_s but not latency_ns"}},
                    {"bad.edges",
                     with_line(k_edge_ring, 9, "terminal_link 1 10"),
                     {"bad.edges:9:", "BANDWIDTH_GIB_PER_S LATENCY_NS VC_BUFFER_BYTES"}},
                    {"bad.edges",
                     with_line(k_edge_ring, 9, "terminal_link -1 10 8192"),
                     {"bad.edges:9:", "bandwidth_gib_per_s is negative"}},
                });
}

BOOST_AUTO_TEST_CASE(graph_kind_is_registered) {
  const scratch_dir dir;
  const topology_kind& kind = find_topology_kind("graph");
  BOOST_TEST(kind.routings == std::vector<std::string>{"minimal"},
             boost::test_tools::per_element());
  BOOST_REQUIRE(kind.classes.size() == 1u);
  BOOST_TEST(kind.classes[0].name == "terminal");
  const std::string path = dir.write("df.yaml", yaml_of(dragonfly(k_df72), k_dragonfly_cost));
  const std::unique_ptr<topology> topo =
      kind.make(map_values({{"topology.file", path}, {"routing.kind", "minimal"}}));
  BOOST_REQUIRE(topo != nullptr);
  BOOST_TEST(topo->kind() == "graph");
  BOOST_TEST(topo->num_terminals() == 72u);
  const std::unique_ptr<routing_policy> routing = make_routing("minimal", *topo);
  BOOST_TEST(routing->name() == "minimal");
  BOOST_TEST(routing->min_vcs() == 2u);
  BOOST_CHECK_THROW(make_routing("adaptive", *topo), std::invalid_argument);

  std::string key, message;
  try {
    kind.make(map_values({{"topology.file", ""}, {"routing.kind", "minimal"}}));
  } catch (const topology_error& e) {
    key = e.key;
    message = e.what();
  }
  BOOST_TEST(key == "topology.file");
  BOOST_TEST(message == "topology.file must name a graph file (YAML or edge list)");
}
