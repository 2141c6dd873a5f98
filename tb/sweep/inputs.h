// The files a study's points read (topology.file: tb::is_input_file_key), each by
// content. A point's result stands for them as much as for its values: point.json and
// study.json record their FNV-1a hashes, and a resume trusts a finished point, or a row of
// results.csv, only while the files still hash the same (an edited graph file runs again).
//
// Where a value comes from decides what it is relative to: the base scenario's to the
// scenario file's folder (config::from_yaml_file), the study's own `set:`, `cross:` and
// `zip:` values to the study file's folder. Every file is read before any point runs: one
// that cannot be is refused with config_error naming the key and the path (exit code 2).
#pragma once

#include "tb/sweep/study.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bcastsim::tb::sweep {

class point_inputs {
 public:
  // Reads the base scenario and every file the points name; throws config_error if one
  // cannot be read.
  point_inputs(const study& s, const std::vector<point>& points);

  // The value a child process gets for a study value of `key`: resolved against the study
  // file's folder when `key` names an input file, else `value` unchanged.
  std::string argument(const std::string& key, const std::string& value) const;
  // {key: FNV-1a hex} of the files the point reads; an empty object when it reads none.
  nlohmann::json hashes(const point& p) const;
  // Whether the point's files still hash as they did when the sweep started: a point that ran
  // while one was edited may have read either, so it is not recorded. A file whose inode,
  // size and modification time are unchanged is not read again.
  bool unchanged(const point& p) const;

 private:
  // (key, path as resolved) of each input file the point names.
  std::vector<std::pair<std::string, std::string>> files_of(const point& p) const;
  void read(const std::string& key, const std::string& path, const std::string& from);

  std::string m_folder;                                      // the study file's folder
  std::vector<std::pair<std::string, std::string>> m_fixed;  // base scenario and set:, resolved
  std::vector<std::string> m_varied;                         // varied input-file keys
  std::map<std::string, std::string> m_hash;                 // resolved path -> FNV-1a hex
  std::map<std::string, std::string> m_stamp;                // resolved path -> inode, size, mtime
};

}  // namespace bcastsim::tb::sweep
