#include "tb/yaml_input.h"

#include "tb/config.h"

#include <yaml-cpp/eventhandler.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

namespace bcastsim::tb {

size_t invalid_utf8_at(const std::string& text) {
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned c = b[i];
    size_t len = 0;
    uint32_t lo = 0x80, hi = 0xbf;  // the range of the second byte (RFC 3629 table)
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      if (c == 0xe0) lo = 0xa0;
      if (c == 0xed) hi = 0x9f;  // no surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;  // nothing past U+10FFFF
    } else {
      return i;
    }
    if (i + len > n || b[i + 1] < lo || b[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k) {
      if (b[i + k] < 0x80 || b[i + k] > 0xbf) return i;
    }
    i += len;
  }
  return std::string::npos;
}

void check_utf8(const std::string& text, const std::string& key, const std::string& where) {
  const size_t at = invalid_utf8_at(text);
  if (at == std::string::npos) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[at]));
  throw config_error(key, where + " is not UTF-8 text (byte " + byte + " at position " +
                              std::to_string(at) + "); allowed: UTF-8 text");
}

bool is_input_file_key(const std::string& key) {
  // The only key a run reads a file by (trace.vcd is written, cosim's replay file a flag).
  return key == "topology.file";
}

std::string resolve_input_path(const std::string& value, const std::string& folder) {
  const std::filesystem::path p = value;
  if (value.empty() || p.is_absolute() || folder.empty()) return value;
  return (std::filesystem::path(folder) / p).lexically_normal().string();
}

namespace {

std::string too_large(uint64_t max_bytes) {
  return "larger than " + std::to_string(max_bytes >> 20) + " MiB; allowed: at most " +
         std::to_string(max_bytes) + " bytes";
}

// `path` opened for reading once it is known to be a regular file: a device (/dev/zero), a
// FIFO (which would block the open) or a directory is refused before it is opened, and a
// file stat says is too large (a sparse one too) before it is read. The open does not wait
// and what it opened is checked again, so a FIFO put in the file's place in between is
// refused too.
std::unique_ptr<FILE, int (*)(FILE*)> open_input_file(
    const std::string& path, uint64_t max_bytes,
    const std::function<void(const std::string&)>& refuse) {
  const std::string not_regular =
      "not a regular file (a device, pipe or socket); allowed: a regular file";
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  if (type == std::filesystem::file_type::not_found) refuse("no such file");
  if (ec) refuse(ec.message());
  if (type == std::filesystem::file_type::directory) {
    refuse("it is a directory; allowed: a regular file");
  }
  if (type != std::filesystem::file_type::regular) refuse(not_regular);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) refuse(std::strerror(errno));
  std::unique_ptr<FILE, int (*)(FILE*)> f(::fdopen(fd, "rb"), &std::fclose);
  if (!f) {
    ::close(fd);
    refuse(std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) refuse(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) refuse(not_regular);
  if (static_cast<uint64_t>(st.st_size) > max_bytes) refuse(too_large(max_bytes));
  return f;
}

}  // namespace

std::string read_input_file(const std::string& path, const std::string& key,
                            const std::string& what, uint64_t max_bytes) {
  const std::string name = what + " '" + path + "'";
  auto refuse = [&](const std::string& why) {
    throw config_error(key, "cannot read " + name + ": " + why);
  };
  const auto f = open_input_file(path, max_bytes, refuse);
  // Read at most one byte past the limit: the size stat gives is not trusted (/proc files
  // say 0).
  std::string text;
  char buf[65536];
  size_t n = 0;
  while (text.size() <= max_bytes && (n = std::fread(buf, 1, sizeof buf, f.get())) > 0) {
    text.append(buf, n);
  }
  if (std::ferror(f.get())) refuse(std::strerror(errno));
  if (text.size() > max_bytes) refuse(too_large(max_bytes));
  return text;
}

void read_input_lines(const std::string& path, const std::string& key, const std::string& what,
                      uint64_t max_bytes,
                      const std::function<void(const std::string&, uint64_t)>& line) {
  const std::string name = what + " '" + path + "'";
  auto refuse = [&](const std::string& why) {
    throw config_error(key, "cannot read " + name + ": " + why);
  };
  const auto f = open_input_file(path, max_bytes, refuse);
  std::string text;  // the line being read
  uint64_t bytes = 0, number = 1;
  char buf[65536];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) {
    bytes += n;
    if (bytes > max_bytes) refuse(too_large(max_bytes));
    for (size_t begin = 0; begin < n;) {
      const char* end = static_cast<const char*>(std::memchr(buf + begin, '\n', n - begin));
      if (!end) {
        text.append(buf + begin, n - begin);
        break;
      }
      text.append(buf + begin, static_cast<size_t>(end - buf) - begin);
      line(text, number++);
      text.clear();
      begin = static_cast<size_t>(end - buf) + 1;
    }
  }
  if (std::ferror(f.get())) refuse(std::strerror(errno));
  if (!text.empty()) line(text, number);
}

namespace {

std::string position(const YAML::Mark& m) {
  return "line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1);
}

// Checks the parser's events before the document is built into nodes: what YAML::Load would
// accept silently (duplicate keys, complex keys) or expand without bound (aliases).
class checker final : public YAML::EventHandler {
 public:
  explicit checker(std::string origin) : m_origin(std::move(origin)) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    node(mark, "");
    define(anchor, 1);
    add(1);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    node(mark, "*");
    const auto it = m_anchor_nodes.find(anchor);
    if (it == m_anchor_nodes.end()) {
      fail(mark, "an alias refers to a node that contains it; allowed: aliases of complete nodes");
    }
    add(it->second);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    if (invalid_utf8_at(value) != std::string::npos) {
      try {
        check_utf8(value, "", "a value");
      } catch (const config_error& e) {
        fail(mark, e.what());
      }
    }
    node(mark, value);
    define(anchor, 1);
    add(1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct frame {
    bool map = false;
    bool after_key = false;  // maps: the next node is the value of `key`
    YAML::anchor_t anchor = 0;
    uint64_t nodes_before = 0;
    std::string path;                 // dotted keys from the root, for messages
    std::string key;                  // the key whose value comes next (maps)
    std::map<std::string, int> keys;  // key -> line, for duplicates
  };

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& what) const {
    throw config_error("", m_origin + ": " + position(mark) + ": " + what);
  }

  // A node starts in the current container: a key of a map must be a plain scalar, given once.
  // `text` is the scalar's value; "*" marks an alias, "" a null.
  void node(const YAML::Mark& mark, const std::string& text, bool container = false) {
    if (m_stack.empty() || !m_stack.back().map) return;
    frame& f = m_stack.back();
    f.after_key = !f.after_key;
    if (!f.after_key) return;  // this node is a value
    if (container || text == "*" || text.empty()) {
      fail(mark, "a key must be a plain name, not a list, a mapping, an alias or empty " +
                     std::string("(a YAML complex key '? ...')"));
    }
    const std::string full = f.path.empty() ? text : f.path + "." + text;
    const auto [it, added] = f.keys.emplace(text, mark.line + 1);
    if (!added) {
      fail(mark, full + " is given twice (lines " + std::to_string(it->second) + " and " +
                     std::to_string(mark.line + 1) + "); allowed: each key once");
    }
    f.key = full;
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    node(mark, "", true);
    frame f;
    f.map = map;
    f.anchor = anchor;
    f.nodes_before = m_nodes;
    if (!m_stack.empty()) f.path = m_stack.back().map ? m_stack.back().key : m_stack.back().path;
    m_stack.push_back(std::move(f));
    add(1);
  }

  void close() {
    const frame& f = m_stack.back();
    define(f.anchor, m_nodes - f.nodes_before);
    m_stack.pop_back();
  }

  void define(YAML::anchor_t anchor, uint64_t nodes) {
    if (anchor != 0) m_anchor_nodes[anchor] = nodes;
  }

  void add(uint64_t nodes) {
    m_nodes += nodes;  // each term is at most max_yaml_nodes: no overflow
    if (m_nodes > max_yaml_nodes) {
      throw config_error("", m_origin + " has more than " + std::to_string(max_yaml_nodes) +
                                 " YAML nodes once its aliases are expanded; allowed: at most " +
                                 std::to_string(max_yaml_nodes));
    }
  }

  std::string m_origin;
  std::vector<frame> m_stack;
  std::map<YAML::anchor_t, uint64_t> m_anchor_nodes;  // expanded size of each complete anchor
  uint64_t m_nodes = 0;
};

// Counts the documents after the first; their content is not looked at.
class second_document final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { m_mark = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  YAML::Mark m_mark;
};

}  // namespace

YAML::Node load_yaml(const std::string& text, const std::string& origin, const std::string& key) {
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    checker check(origin);
    parser.HandleNextDocument(check);
    second_document second;
    if (parser.HandleNextDocument(second)) {
      throw config_error(key, origin + ": " + position(second.m_mark) +
                                  ": a second YAML document ('---'); allowed: one document");
    }
    return YAML::Load(text);
  } catch (const config_error& e) {
    throw config_error(key, e.what());
  } catch (const YAML::Exception& e) {
    const std::string where = e.mark.is_null() ? "" : position(e.mark) + ": ";
    throw config_error(key, "cannot parse " + origin + ": " + where + e.msg);
  }
}

}  // namespace bcastsim::tb
