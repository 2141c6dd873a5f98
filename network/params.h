// Parameters declared once, beside the block or topology kind that reads them: key (units in
// the name), type, default, range or allowed values, description. The scenario schema, its
// validation messages and `bcastsim list` are made from these declarations. Pure C++17, in the
// lowest layer, so every layer can declare its parameters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bcastsim::params {

enum class value_type { uint, real, text, choice };

struct decl {
  std::string key;
  value_type type = value_type::text;
  std::string default_value;
  std::string description;
  std::vector<std::string> allowed;  // choice only
  double min = 0;                    // uint and real
  double max = 0;
  // The topology kind this key belongs to; empty: every kind. A key given for another kind
  // than the scenario's is refused naming the kind it belongs to.
  std::string owner;
};

decl uint_key(const std::string& key, uint64_t def, double lo, double hi, const std::string& desc);
decl real_key(const std::string& key, double def, double lo, double hi, const std::string& desc);
decl choice_key(const std::string& key, const std::string& def, std::vector<std::string> allowed,
                const std::string& desc);
decl text_key(const std::string& key, const std::string& def, const std::string& desc);

// The shortest text that reads back as exactly `v` ("5.25", "1e+10", "11.641532182693481").
std::string format_real(double v);

// Validated values, read by the code that builds what the declarations describe.
class values {
 public:
  virtual ~values() = default;
  virtual const std::string& text(const std::string& key) const = 0;
  uint64_t uint(const std::string& key) const;
  double real(const std::string& key) const;
};

}  // namespace bcastsim::params
