#include "tb/cosim/replay_fields.h"

#include "network/params.h"

namespace bcastsim::tb::cosim {

namespace {

using nlohmann::json;

// What a value is, for "... = VALUE is a string".
std::string kind_of(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_integer:
      return "a negative integer";
    default:
      return "a number with a fraction or an exponent";
  }
}

// Appends `v` as JSON to `out`, stopping once `out` holds max_chars: so it recurses at most
// max_chars deep, where dump() would recurse as deep as the value nests (10^6 '[' on a line).
void show(const json& v, std::string& out, size_t max_chars) {
  if (out.size() > max_chars) return;
  if (!v.is_structured()) {
    out += v.dump(-1, ' ', false, json::error_handler_t::replace);
    return;
  }
  out += v.is_array() ? '[' : '{';
  bool first = true;
  for (auto it = v.begin(); it != v.end() && out.size() <= max_chars; ++it, first = false) {
    if (!first) out += ',';
    if (v.is_object())
      out += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ':';
    show(*it, out, max_chars);
  }
  out += v.is_array() ? ']' : '}';
}

// The value as JSON, cut short: a field may hold megabytes, or nest a million deep.
std::string shown(const json& v) {
  constexpr size_t max_chars = 80;
  std::string text;
  show(v, text, max_chars);
  if (text.size() > max_chars) text = text.substr(0, max_chars) + "...";
  return text;
}

}  // namespace

void refuse(const std::string& field, const json& value, const std::string& why,
            const std::string& allowed) {
  throw bad_field(field + " = " + shown(value) + " is " + why + "; allowed: " + allowed);
}

json parse_line(const std::string& text, const std::string& allowed) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann's text without its "[json.exception.parse_error.101] " tag.
    std::string why = e.what();
    const size_t tag = why.find("] ");
    if (tag != std::string::npos) why = why.substr(tag + 2);
    throw bad_field("the line is not JSON (" + why + "); allowed: " + allowed);
  }
  if (!j.is_object()) refuse("the line", j, kind_of(j), allowed);
  return j;
}

const json& replay_fields::at(const char* key, const std::string& allowed) const {
  const auto it = m_j.find(key);
  if (it == m_j.end()) throw bad_field(name(key) + " is missing; allowed: " + allowed);
  return *it;
}

uint64_t replay_fields::uint(const char* key, uint64_t lo, uint64_t hi) const {
  const std::string allowed = "integers " + std::to_string(lo) + " to " + std::to_string(hi);
  const json& v = at(key, allowed);
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u < lo || u > hi) refuse(name(key), v, "out of range", allowed);
    return u;
  }
  if (v.is_number_integer()) refuse(name(key), v, "out of range", allowed);
  refuse(name(key), v, v.is_number() ? "not an integer" : kind_of(v), allowed);
}

double replay_fields::real(const char* key, double lo, double hi) const {
  const std::string allowed = params::format_real(lo) + " to " + params::format_real(hi);
  const json& v = at(key, "numbers " + allowed);
  if (!v.is_number()) refuse(name(key), v, kind_of(v), "numbers " + allowed);
  const auto d = v.get<double>();
  if (!(d >= lo && d <= hi)) refuse(name(key), v, "out of range", allowed);
  return d;
}

bool replay_fields::boolean(const char* key) const {
  const json& v = at(key, "true, false");
  if (!v.is_boolean()) refuse(name(key), v, kind_of(v), "true, false");
  return v.get<bool>();
}

std::string replay_fields::text(const char* key, size_t max_chars) const {
  const std::string allowed =
      "a non-empty string of at most " + std::to_string(max_chars) + " characters";
  const json& v = at(key, allowed);
  if (!v.is_string()) refuse(name(key), v, kind_of(v), allowed);
  const auto& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > max_chars) {
    refuse(name(key), v, s.empty() ? "empty" : "too long", allowed);
  }
  return s;
}

std::string replay_fields::choice(const char* key, const std::vector<std::string>& allowed) const {
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  const json& v = at(key, list);
  if (!v.is_string()) refuse(name(key), v, kind_of(v), list);
  const auto& s = v.get_ref<const std::string&>();
  for (const std::string& a : allowed) {
    if (s == a) return s;
  }
  refuse(name(key), v, "not allowed", list);
}

replay_fields replay_fields::object(const char* key, const std::string& allowed) const {
  const json& v = at(key, allowed);
  if (!v.is_object()) refuse(name(key), v, kind_of(v), allowed);
  return replay_fields(v, name(key) + ".");
}

const json& replay_fields::array(const char* key, const std::string& allowed) const {
  const json& v = at(key, allowed);
  if (!v.is_array()) refuse(name(key), v, kind_of(v), allowed);
  return v;
}

}  // namespace bcastsim::tb::cosim
