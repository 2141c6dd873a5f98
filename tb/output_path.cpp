#include "tb/output_path.h"

#include "tb/config.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace bcastsim::tb {

namespace fs = std::filesystem;

namespace {

const char* const k_file_allowed = "allowed: a regular file, or a new file in an existing folder";
const char* const k_dir_allowed = "allowed: a directory (created if missing)";

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void refuse(const std::string& flag, const std::string& what) {
  throw config_error(flag, flag + ": " + what);
}

// The folder a file of `path` goes into: "." for a bare name.
std::string folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

bool matches(const std::string& name, const std::string& pattern) {
  const size_t star = pattern.find('*');
  if (star == std::string::npos) return name == pattern;
  const std::string head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  return name.size() >= head.size() + tail.size() && name.compare(0, head.size(), head) == 0 &&
         name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

// The entries of an existing `dir` a name or pattern of `files` stands for.
void check_files_in(const std::string& dir, const std::string& flag,
                    const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    if (f.find('*') == std::string::npos) {
      check_output_file((fs::path(dir) / f).string(), flag);
      continue;
    }
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (matches(name, f)) check_output_file(it->path().string(), flag);
    }
  }
}

}  // namespace

std::string not_a_regular_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return {};
  return kind_of(st.st_mode);
}

void check_output_file(const std::string& path, const std::string& flag) {
  if (path.empty()) refuse(flag, "empty; allowed: a file name");
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISREG(st.st_mode)) return;
    if (S_ISDIR(st.st_mode)) {
      refuse(flag, "'" + path + "' is a directory; allowed: a file name, such as '" +
                       (fs::path(path) / "NAME").string() + "'");
    }
    refuse(flag, "'" + path + "' is " + kind_of(st.st_mode) +
                     ", not a regular file (writing would replace it); " + k_file_allowed);
  }
  if (errno != ENOENT)
    refuse(flag, "'" + path + "': " + std::strerror(errno) + "; " + k_file_allowed);
  const std::string folder = folder_of(path);
  if (stat(folder.c_str(), &st) != 0) {
    refuse(flag, "the folder '" + folder + "' of '" + path + "' does not exist; " + k_file_allowed);
  }
  if (!S_ISDIR(st.st_mode)) {
    refuse(flag, "'" + folder + "' (the folder of '" + path + "') is " + kind_of(st.st_mode) +
                     "; " + k_file_allowed);
  }
}

void check_output_dir(const std::string& dir, const std::string& flag,
                      const std::vector<std::string>& files) {
  if (dir.empty()) refuse(flag, "empty; allowed: a directory name");
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      refuse(flag, "'" + dir + "' is " +
                       (S_ISREG(st.st_mode) ? std::string("a regular file") : kind_of(st.st_mode)) +
                       "; " + k_dir_allowed);
    }
    check_files_in(dir, flag, files);
    return;
  }
  // To be created: the nearest existing ancestor must be a directory.
  for (fs::path p = fs::path(dir).lexically_normal().parent_path(); !p.empty();
       p = p.parent_path()) {
    if (stat(p.c_str(), &st) != 0) {
      if (p == p.root_path()) break;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      refuse(flag, "'" + dir + "' cannot be created: '" + p.string() + "' is " +
                       (S_ISREG(st.st_mode) ? std::string("a regular file") : kind_of(st.st_mode)) +
                       "; " + k_dir_allowed);
    }
    break;
  }
}

}  // namespace bcastsim::tb
