#include "network/params.h"

#include <cstdio>
#include <cstdlib>

namespace bcastsim::params {

decl uint_key(const std::string& key, uint64_t def, double lo, double hi, const std::string& desc) {
  return decl{key, value_type::uint, std::to_string(def), desc, {}, lo, hi, {}};
}

decl real_key(const std::string& key, double def, double lo, double hi, const std::string& desc) {
  return decl{key, value_type::real, format_real(def), desc, {}, lo, hi, {}};
}

decl choice_key(const std::string& key, const std::string& def, std::vector<std::string> allowed,
                const std::string& desc) {
  return decl{key, value_type::choice, def, desc, std::move(allowed), 0, 0, {}};
}

decl text_key(const std::string& key, const std::string& def, const std::string& desc) {
  return decl{key, value_type::text, def, desc, {}, 0, 0, {}};
}

std::string format_real(double v) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

uint64_t values::uint(const std::string& key) const {
  return std::stoull(text(key));
}

double values::real(const std::string& key) const {
  return std::stod(text(key));
}

}  // namespace bcastsim::params
