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

// A parameter struct declares its keys once, beside its block, as
//   template <class V> void visit(V& v) { v.field("router.vcs", vcs, 1, 64, "..."); ... }
// with the default being the member's initial value. `declarer` turns the declarations into
// schema entries (default = the member's value in a default-constructed struct); `loader`
// fills a struct from validated values.
class declarer {
 public:
  void field(const char* key, uint32_t& m, double lo, double hi, const char* desc) {
    out.push_back(uint_key(key, m, lo, hi, desc));
  }
  void field(const char* key, uint64_t& m, double lo, double hi, const char* desc) {
    out.push_back(uint_key(key, m, lo, hi, desc));
  }
  void field(const char* key, double& m, double lo, double hi, const char* desc) {
    out.push_back(real_key(key, m, lo, hi, desc));
  }
  void choice(const char* key, std::string& m, std::vector<std::string> allowed,
              const char* desc) {
    out.push_back(choice_key(key, m, std::move(allowed), desc));
  }
  std::vector<decl> out;
};

class loader {
 public:
  explicit loader(const values& v) : m_values(v) {}
  void field(const char* key, uint32_t& m, double, double, const char*) {
    m = static_cast<uint32_t>(m_values.uint(key));
  }
  void field(const char* key, uint64_t& m, double, double, const char*) { m = m_values.uint(key); }
  void field(const char* key, double& m, double, double, const char*) { m = m_values.real(key); }
  void choice(const char* key, std::string& m, const std::vector<std::string>&, const char*) {
    m = m_values.text(key);
  }

 private:
  const values& m_values;
};

// The declarations of parameter struct P.
template <class P>
std::vector<decl> declarations_of() {
  P p;
  declarer d;
  p.visit(d);
  return d.out;
}

// P with every declared member read from `v` (the others keep their defaults).
template <class P>
P load(const values& v) {
  P p;
  loader l(v);
  p.visit(l);
  return p;
}

}  // namespace bcastsim::params
