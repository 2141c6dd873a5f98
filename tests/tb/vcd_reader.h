// Test helper: reads a VCD written by bcastsim (SystemC's VCD writer, or Verilator's) into the
// signal names, how often and when each last changes after time 0, and its last time stamp.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace bcastsim::test {

// Reads a VCD's header: id -> full dotted name (scopes joined by '.', then the variable with
// its [msb:lsb] when it has one, as GTKWave names it), and counts each id's value changes
// after time 0.
struct vcd_summary {
  std::map<std::string, std::string> names;     // id -> name
  std::map<std::string, int> changes;           // name -> changes after #0
  std::map<std::string, uint64_t> last_change;  // name -> time of its last change after #0
  uint64_t last_time = 0;                       // the last time stamp
};

inline vcd_summary read_vcd(const std::string& path) {
  std::ifstream in(path);
  BOOST_REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  vcd_summary v;
  std::vector<std::string> scope;
  std::string line;
  bool header_done = false;
  while (!header_done && std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tok;
    ls >> tok;
    if (tok == "$scope") {
      std::string kind, name;
      ls >> kind >> name;
      scope.push_back(name);
    } else if (tok == "$upscope") {
      scope.pop_back();
    } else if (tok == "$var") {
      std::string kind, width, id, name, range;
      ls >> kind >> width >> id >> name >> range;
      std::string full;
      for (const std::string& s : scope) full += s + ".";
      v.names[id] = full + name + (range != "$end" ? range : "");
    } else if (tok == "$enddefinitions") {
      header_done = true;
    }
  }
  BOOST_REQUIRE(header_done);
  bool after_zero = false;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      after_zero = line != "#0";
      v.last_time = std::stoull(line.substr(1));
      continue;
    }
    if (!after_zero) continue;
    std::string id;
    if (line[0] == 'b') {
      id = line.substr(line.find(' ') + 1);
    } else if (line[0] == '0' || line[0] == '1') {
      id = line.substr(1);
    }
    const auto it = v.names.find(id);
    if (it != v.names.end()) {
      ++v.changes[it->second];
      v.last_change[it->second] = v.last_time;
    }
  }
  return v;
}

}  // namespace bcastsim::test
