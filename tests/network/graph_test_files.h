// Helpers shared by the graph topology and routing tests: a scratch directory for graph
// files, and loading a topology written out as a graph file.
#pragma once

#include "network/graph_topology.h"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace bcastsim::network::graph_test_files {

// A fresh directory (mkdtemp), removed with everything in it at the end of the test.
class scratch_dir {
 public:
  scratch_dir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "bcastsim_graph_XXXXXX").string();
    BOOST_REQUIRE(mkdtemp(pattern.data()) != nullptr);
    m_path = pattern;
  }
  ~scratch_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

  // Writes `text` to NAME in the directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (m_path / name).string();
    std::ofstream out(path, std::ios::binary);
    out << text;
    BOOST_REQUIRE(out.good());
    return path;
  }

 private:
  std::filesystem::path m_path;
};

inline std::string yaml_of(const topology& topo, const std::vector<double>& cost = {},
                           const std::vector<link_class_rates>& rates = {}) {
  std::ostringstream os;
  write_graph_yaml(topo, os, cost, rates);
  return os.str();
}

inline std::string edge_list_of(const topology& topo, const std::vector<double>& cost = {},
                                const std::vector<link_class_rates>& rates = {}) {
  std::ostringstream os;
  write_graph_edge_list(topo, os, cost, rates);
  return os.str();
}

}  // namespace bcastsim::network::graph_test_files
