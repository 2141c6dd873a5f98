#include "tb/sweep/inputs.h"

#include "network/hash.h"
#include "tb/config.h"
#include "tb/format.h"
#include "tb/yaml_input.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

namespace bcastsim::tb::sweep {

namespace fs = std::filesystem;

namespace {

// The whole file, as the run will read it; config_error(key) naming the path and why not.
// No size bound: the run reads a graph file of any size, so the sweep must accept it too.
std::string whole_file(const std::string& key, const std::string& path, const std::string& from) {
  auto refuse = [&](const std::string& why) {
    throw config_error(key, key + ": cannot read '" + path + "' (" + from + "): " + why +
                                "; allowed: a readable regular file");
  };
  std::error_code ec;
  const auto type = fs::status(path, ec).type();
  if (type == fs::file_type::not_found) refuse("no such file");
  if (ec) refuse(ec.message());
  if (type == fs::file_type::directory) refuse("it is a directory");
  if (type != fs::file_type::regular) refuse("not a regular file (a device, pipe or socket)");
  const std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) refuse(std::strerror(errno));
  std::string text;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f.get())) > 0;) text.append(buf, n);
  if (std::ferror(f.get())) refuse(std::strerror(errno));
  return text;
}

// Inode, size and modification time: a file whose stamp is unchanged is taken as unchanged
// (an editor that writes a new file and renames it changes the inode).
std::string stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + "@" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

point_inputs::point_inputs(const study& s, const std::vector<point>& points)
    : m_folder(fs::path(s.file).parent_path().string()) {
  if (!s.scenario.empty()) {  // read and checked by load_study already
    const config base = config::from_yaml_file(s.scenario);
    for (const auto& [k, v] : base.given()) {
      if (is_input_file_key(k) && !v.empty()) m_fixed.emplace_back(k, v);
    }
  }
  for (const auto& [k, v] : s.fixed) {
    if (!is_input_file_key(k)) continue;
    m_fixed.erase(std::remove_if(m_fixed.begin(), m_fixed.end(),
                                 [&k = k](const auto& f) { return f.first == k; }),
                  m_fixed.end());
    if (!v.empty()) m_fixed.emplace_back(k, argument(k, v));
  }
  for (const std::string& k : s.parameters()) {
    if (is_input_file_key(k)) m_varied.push_back(k);
  }
  const std::string scenario_named = "named in " + s.scenario + ", relative to its folder";
  const std::string study_named = "named in " + s.file + ", relative to its folder";
  for (const auto& [k, path] : m_fixed) {
    const bool set_here = std::any_of(s.fixed.begin(), s.fixed.end(),
                                      [&k = k](const auto& f) { return f.first == k; });
    read(k, path, set_here ? study_named : scenario_named);
  }
  if (m_varied.empty()) return;
  for (const point& p : points) {
    for (const auto& [k, path] : files_of(p)) read(k, path, study_named);
  }
}

std::string point_inputs::argument(const std::string& key, const std::string& value) const {
  return is_input_file_key(key) ? resolve_input_path(value, m_folder) : value;
}

std::vector<std::pair<std::string, std::string>> point_inputs::files_of(const point& p) const {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [k, path] : m_fixed) {
    if (std::find(m_varied.begin(), m_varied.end(), k) == m_varied.end()) {
      files.emplace_back(k, path);
    }
  }
  for (const auto& [k, v] : p.values) {
    if (!v.empty() && std::find(m_varied.begin(), m_varied.end(), k) != m_varied.end()) {
      files.emplace_back(k, argument(k, v));
    }
  }
  return files;
}

void point_inputs::read(const std::string& key, const std::string& path, const std::string& from) {
  if (m_hash.count(path)) return;
  m_stamp[path] = stamp_of(path);  // before reading: an edit while it is read shows later
  m_hash[path] = hex64(network::fnv1a(whole_file(key, path, from)));
}

nlohmann::json point_inputs::hashes(const point& p) const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, path] : files_of(p)) j[k] = m_hash.at(path);
  return j;
}

bool point_inputs::unchanged(const point& p) const {
  for (const auto& [k, path] : files_of(p)) {
    const std::string stamp = stamp_of(path);
    if (!stamp.empty() && stamp == m_stamp.at(path)) continue;
    try {
      if (hex64(network::fnv1a(whole_file(k, path, ""))) != m_hash.at(path)) return false;
    } catch (const config_error&) {
      return false;  // gone or unreadable now
    }
  }
  return true;
}

}  // namespace bcastsim::tb::sweep
