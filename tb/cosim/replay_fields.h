// The fields of a replay file's JSON lines (replay.cpp: the Bcast Unit's, cq_replay.cpp:
// Tofu2 command queues'), read through one typed reader so that every refusal names the
// field, what was found there and what is allowed, never nlohmann's own text ("type must be
// string, but is number"). The loaders add the file and the line.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace bcastsim::tb::cosim {

// The largest replay file read (both blocks): a recording of a 1 MiB broadcast on the
// 72-terminal dragonfly is 19 MB; /dev/zero and the like stop at the checks before.
inline constexpr uint64_t max_replay_file_bytes = uint64_t{1} << 30;

// A line or field that cannot be read: what() names it, what it holds and what is allowed.
struct bad_field : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "FIELD = VALUE is WHY; allowed: ALLOWED" (a long VALUE cut short).
[[noreturn]] void refuse(const std::string& field, const nlohmann::json& value,
                         const std::string& why, const std::string& allowed);

// One line of text parsed as a JSON object; bad_field when it is not JSON or not an object.
// `allowed` says what a line may be ("a JSON object with a \"type\": unit, ...").
nlohmann::json parse_line(const std::string& text, const std::string& allowed);

// The fields of one JSON object; `prefix` names the object in messages ("params.", "" for
// the line itself). Every getter throws bad_field for a missing field, a value of another
// type or one outside its range.
class replay_fields {
 public:
  replay_fields(const nlohmann::json& j, std::string prefix)
      : m_j(j), m_prefix(std::move(prefix)) {}

  bool has(const char* key) const { return m_j.contains(key); }
  std::string name(const char* key) const { return m_prefix + key; }

  uint64_t uint(const char* key, uint64_t lo, uint64_t hi) const;
  template <class T>
  void get(const char* key, T& member, uint64_t lo, uint64_t hi) const {
    member = static_cast<T>(uint(key, lo, hi));
  }
  double real(const char* key, double lo, double hi) const;
  bool boolean(const char* key) const;
  // A non-empty string of at most max_chars characters (a name).
  std::string text(const char* key, size_t max_chars) const;
  // One of `allowed`.
  std::string choice(const char* key, const std::vector<std::string>& allowed) const;
  // A nested object, or an array; `allowed` describes what it holds.
  replay_fields object(const char* key, const std::string& allowed) const;
  const nlohmann::json& array(const char* key, const std::string& allowed) const;

 private:
  // The field's value; bad_field naming it and `allowed` when it is missing.
  const nlohmann::json& at(const char* key, const std::string& allowed) const;

  const nlohmann::json& m_j;
  std::string m_prefix;
};

}  // namespace bcastsim::tb::cosim
