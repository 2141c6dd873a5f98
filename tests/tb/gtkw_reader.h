// Test helper: reads a GTKWave save file as bcastsim writes it (tb/gtkwave_save_file.h):
// its header, its groups and the rows GTKWave shows, each with the VCD signal behind it.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace bcastsim::test {

struct gtkw_row {
  std::string group;   // the header comment of the group it is in ("" outside any)
  std::string shown;   // the alias GTKWave shows ("" for a bare name, which it cuts to the leaf)
  std::string signal;  // the VCD name it looks up: "SystemC.router_0.packets[63:0]"
};

struct gtkw_summary {
  std::string dumpfile, savefile;
  uint64_t timestart = 0;
  double zoom = 0;
  int width = 0, sst_width = 0, signals_width = 0;
  std::vector<std::string> groups;  // header comments, in order
  std::vector<gtkw_row> rows;
  int unclosed_groups = 0;
};

inline std::string quoted(const std::string& rest) {
  const size_t a = rest.find('"'), b = rest.rfind('"');
  return a == std::string::npos || b <= a ? rest : rest.substr(a + 1, b - a - 1);
}

inline gtkw_summary read_gtkw(const std::string& path) {
  std::ifstream in(path);
  BOOST_REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  gtkw_summary g;
  std::string line, flags, group;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("[*]", 0) == 0) continue;
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "[dumpfile]") {
      g.dumpfile = quoted(line.substr(key.size()));
    } else if (key == "[savefile]") {
      g.savefile = quoted(line.substr(key.size()));
    } else if (key == "[timestart]") {
      ls >> g.timestart;
    } else if (key == "[size]") {
      ls >> g.width;
    } else if (key == "[sst_width]") {
      ls >> g.sst_width;
    } else if (key == "[signals_width]") {
      ls >> g.signals_width;
    } else if (line[0] == '*') {
      g.zoom = std::stod(line.substr(1));
    } else if (line[0] == '@') {
      flags = line.substr(1);
    } else if (line[0] == '-') {
      const uint64_t f = std::stoull(flags, nullptr, 16);
      if (f & 0x800000) {  // TR_GRP_BEGIN
        group = line.substr(1);
        g.groups.push_back(group);
        ++g.unclosed_groups;
      } else if (f & 0x1000000) {  // TR_GRP_END
        BOOST_TEST(line.substr(1) == group);
        group.clear();
        --g.unclosed_groups;
      }
    } else if (line[0] == '+') {
      const size_t close = line.find("} ");
      BOOST_REQUIRE_MESSAGE(line.size() > 2 && line[1] == '{' && close != std::string::npos, line);
      g.rows.push_back(gtkw_row{group, line.substr(2, close - 2), line.substr(close + 2)});
    } else if (line[0] != '[') {
      g.rows.push_back(gtkw_row{group, "", line});
    }
  }
  return g;
}

// How many pixels the save file's zoom gives `span_ps` (GTKWave: 2^-zoom time units in 200
// pixels; the VCD's unit is 1 ps).
inline double gtkw_pixels(const gtkw_summary& g, double span_ps) {
  return span_ps * 200.0 / std::exp2(-g.zoom);
}

}  // namespace bcastsim::test
