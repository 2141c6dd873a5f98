#include "network/galaxy_graph.h"

#include "network/topology.h"

#include <algorithm>
#include <cassert>
#include <string>
#include <tuple>

namespace bcastsim::network {

namespace {

// An element's base-p digits, [i] = coefficient of x^i.
std::vector<uint32_t> digits_of(uint32_t a, uint32_t p, uint32_t k) {
  std::vector<uint32_t> d(k);
  for (uint32_t i = 0; i < k; ++i, a /= p) d[i] = a % p;
  return d;
}

uint32_t from_digits(const std::vector<uint32_t>& d, uint32_t p) {
  uint32_t a = 0;
  for (size_t i = d.size(); i-- > 0;) a = a * p + d[i];
  return a;
}

// Whether monic g (coefficients low to high, g.back() = 1) divides f (same form) over F_p.
bool divides(const std::vector<uint32_t>& g, std::vector<uint32_t> f, uint32_t p) {
  const size_t dg = g.size() - 1;
  for (size_t top = f.size() - 1; top >= dg; --top) {
    const uint32_t c = f[top];
    if (c != 0) {
      for (size_t i = 0; i <= dg; ++i) {
        f[top - dg + i] = (f[top - dg + i] + (p - c) * g[i]) % p;
      }
    }
    if (top == dg) break;
  }
  return std::all_of(f.begin(), f.begin() + dg, [](uint32_t c) { return c == 0; });
}

// Whether x^k + (the polynomial whose digits are m) is irreducible over F_p: no monic factor
// of degree 1..k/2.
bool irreducible(uint32_t m, uint32_t p, uint32_t k) {
  std::vector<uint32_t> f = digits_of(m, p, k);
  f.push_back(1);
  for (uint32_t d = 1; d <= k / 2; ++d) {
    uint32_t count = 1;
    for (uint32_t i = 0; i < d; ++i) count *= p;
    for (uint32_t low = 0; low < count; ++low) {
      std::vector<uint32_t> g = digits_of(low, p, d);
      g.push_back(1);
      if (divides(g, f, p)) return false;
    }
  }
  return true;
}

// q itself, or a valid field order standing in for q = 1 (no field needed); throws
// topology_error naming the key for a q or n no Galaxy graph has.
uint32_t checked_field_order(uint32_t n, uint32_t q) {
  if (n == 0) {
    throw topology_error("topology.n",
                         "topology.n = 0 is out of range: a Galaxy graph needs at "
                         "least 1 cluster, so it must be >= 1");
  }
  if (q == 0) {
    throw topology_error("topology.q",
                         "topology.q = 0 is out of range: a cluster needs at least "
                         "1 supernode, so it must be >= 1");
  }
  if (q == 1) return 2;
  if (finite_field::prime_power(q).first == 0) {
    throw topology_error("topology.q", "topology.q = " + std::to_string(q) +
                                           " is not a prime power: the Galaxy graph is built "
                                           "over the finite field F_q, which exists only for "
                                           "q = p^k (or q = 1, one supernode per cluster)");
  }
  if (q % 4 == 2) {
    throw topology_error("topology.q",
                         "topology.q = " + std::to_string(q) +
                             " is 2 mod 4: the Galaxy graph's generator set X "
                             "(Lei et al., ICS'16, eq. 1) exists for q = 4l-1, 4l or 4l+1 "
                             "only");
  }
  return q;
}

}  // namespace

std::pair<uint32_t, uint32_t> finite_field::prime_power(uint32_t q) {
  if (q < 2) return {0, 0};
  uint32_t p = 2;
  while (uint64_t{p} * p <= q && q % p != 0) ++p;
  if (q % p != 0) p = q;  // q is prime
  uint32_t k = 0;
  uint32_t rest = q;
  while (rest % p == 0) {
    rest /= p;
    ++k;
  }
  return rest == 1 ? std::pair<uint32_t, uint32_t>{p, k} : std::pair<uint32_t, uint32_t>{0, 0};
}

finite_field::finite_field(uint32_t q) : m_q(q) {
  std::tie(m_p, m_k) = prime_power(q);
  if (m_p == 0) {
    throw topology_error("topology.q", "topology.q = " + std::to_string(q) +
                                           " is not a prime power, so F_q does not exist");
  }
  if (m_k > 1) {
    m_modulus = 0;
    while (!irreducible(m_modulus, m_p, m_k)) ++m_modulus;  // one exists for every degree
  }
  // The smallest element whose powers run through all of F_q^*.
  m_exp.assign(q - 1, 0);
  m_log.assign(q, 0);
  for (uint32_t g = 1; g < q; ++g) {
    uint32_t x = 1;
    uint32_t order = 0;
    do {
      x = slow_mul(x, g);
      ++order;
    } while (x != 1);
    if (order != q - 1) continue;
    m_primitive = g;
    break;
  }
  uint32_t x = 1;
  for (uint32_t e = 0; e < q - 1; ++e) {
    m_exp[e] = x;
    m_log[x] = e;
    x = slow_mul(x, m_primitive);
  }
}

uint32_t finite_field::slow_mul(uint32_t a, uint32_t b) const {
  if (m_k == 1) return static_cast<uint32_t>(uint64_t{a} * b % m_p);
  const std::vector<uint32_t> da = digits_of(a, m_p, m_k);
  const std::vector<uint32_t> db = digits_of(b, m_p, m_k);
  std::vector<uint32_t> prod(2 * m_k - 1, 0);
  for (uint32_t i = 0; i < m_k; ++i) {
    for (uint32_t j = 0; j < m_k; ++j) prod[i + j] = (prod[i + j] + da[i] * db[j]) % m_p;
  }
  // x^k = -(modulus's lower terms): fold the high coefficients down.
  const std::vector<uint32_t> m = digits_of(m_modulus, m_p, m_k);
  for (uint32_t top = 2 * m_k - 2; top >= m_k; --top) {
    const uint32_t c = prod[top];
    prod[top] = 0;
    for (uint32_t i = 0; i < m_k; ++i) {
      prod[top - m_k + i] = (prod[top - m_k + i] + (m_p - c) * m[i]) % m_p;
    }
  }
  prod.resize(m_k);
  return from_digits(prod, m_p);
}

uint32_t finite_field::add(uint32_t a, uint32_t b) const {
  if (m_k == 1) return (a + b) % m_p;
  if (m_p == 2) return a ^ b;
  uint32_t sum = 0;
  uint32_t place = 1;
  for (uint32_t i = 0; i < m_k; ++i, a /= m_p, b /= m_p, place *= m_p) {
    sum += (a % m_p + b % m_p) % m_p * place;
  }
  return sum;
}

uint32_t finite_field::neg(uint32_t a) const {
  if (m_k == 1) return (m_p - a) % m_p;
  if (m_p == 2) return a;
  uint32_t out = 0;
  uint32_t place = 1;
  for (uint32_t i = 0; i < m_k; ++i, a /= m_p, place *= m_p) out += (m_p - a % m_p) % m_p * place;
  return out;
}

uint32_t finite_field::mul(uint32_t a, uint32_t b) const {
  if (a == 0 || b == 0) return 0;
  return m_exp[(m_log[a] + m_log[b]) % (m_q - 1)];
}

uint32_t galaxy_graph::degree_of(uint32_t n, uint32_t q) {
  checked_field_order(n, q);
  const uint32_t r = q % 4;
  const uint32_t half = r == 1 ? (q - 1) / 2 : r == 0 ? q / 2 : (q + 1) / 2;  // (q - delta)/2
  return (n - 1) + half;
}

galaxy_graph::galaxy_graph(uint32_t n, uint32_t q)
    : m_n(n), m_q(q), m_field(checked_field_order(n, q)) {
  if (q > 1) m_xi = m_field.primitive();
  make_generator_sets();
  m_degree = degree_of(n, q);
  assert(m_x.size() == m_degree - (m_n - 1));
  m_adj.assign(size(), {});
  for (auto& a : m_adj) a.reserve(m_degree);
  wire_intra_cluster();
  wire_inter_cluster();
  for (auto& a : m_adj) {
    std::sort(a.begin(), a.end());
    assert(a.size() == m_degree);
  }
}

// FACTS §6 eq. 1 and 2, as exponents of xi.
void galaxy_graph::make_generator_sets() {
  const uint32_t r = m_q % 4;
  m_delta = r == 1 ? 1 : r == 0 ? 0 : -1;
  m_ell = static_cast<uint32_t>((static_cast<int64_t>(m_q) - m_delta) / 4);
  if (m_q == 1) return;  // F_1: both sets empty
  const uint32_t l = m_ell;
  std::vector<uint32_t> x_exp;
  std::vector<uint32_t> xp_exp;
  auto range = [](std::vector<uint32_t>& out, uint32_t from, uint32_t to) {
    for (uint32_t e = from; e <= to; e += 2) out.push_back(e);
  };
  if (m_delta == 1) {  // {1, xi^2, ..., xi^(q-3)}, {xi, xi^3, ..., xi^(q-2)}
    range(x_exp, 0, m_q - 3);
    range(xp_exp, 1, m_q - 2);
  } else if (m_delta == 0) {  // {1, xi^2, ..., xi^(4l-2)}, {xi, xi^3, ..., xi^(4l-1)}
    range(x_exp, 0, 4 * l - 2);
    range(xp_exp, 1, 4 * l - 1);
  } else {  // {1, ..., xi^(2l-2), xi^(2l-1), xi^(2l+1), ..., xi^(4l-3)}
    range(x_exp, 0, 2 * l - 2);
    range(x_exp, 2 * l - 1, 4 * l - 3);
    range(xp_exp, 1, 2 * l - 1);  // {xi, ..., xi^(2l-1), xi^(2l), xi^(2l+2), ..., xi^(4l-2)}
    range(xp_exp, 2 * l, 4 * l - 2);
  }
  for (uint32_t e : x_exp) m_x.push_back(m_field.power_of_primitive(e));
  for (uint32_t e : xp_exp) m_xprime.push_back(m_field.power_of_primitive(e));
  std::sort(m_x.begin(), m_x.end());
  std::sort(m_xprime.begin(), m_xprime.end());
}

uint32_t galaxy_graph::H(uint32_t u) const {
  return m_q == 1 ? u : m_field.mul(m_xi, u);
}

std::vector<std::vector<uint32_t>> galaxy_graph::M(uint32_t k) const {
  std::vector<std::vector<uint32_t>> m(m_q, std::vector<uint32_t>(m_n));
  for (uint32_t v = 0; v < m_q; ++v) {
    for (uint32_t i = 0; i < m_n; ++i) m[v][i] = coordinate(k, v, i);
  }
  return m;
}

// Step 5: v_i ~ v_j (i < j) in cluster k iff M_k[j][k] - M_k[i][k] is in X.
void galaxy_graph::wire_intra_cluster() {
  if (m_q == 1) return;
  std::vector<bool> in_x(m_q, false);
  for (uint32_t x : m_x) in_x[x] = true;
  for (uint32_t k = 0; k < m_n; ++k) {
    for (uint32_t i = 0; i < m_q; ++i) {
      for (uint32_t j = i + 1; j < m_q; ++j) {
        if (!in_x[m_field.sub(coordinate(k, j, k), coordinate(k, i, k))]) continue;
        m_adj[k * m_q + i].push_back(k * m_q + j);
        m_adj[k * m_q + j].push_back(k * m_q + i);
      }
    }
  }
}

// Step 6: v_r^i ~ v_s^j iff M_i[r][j] = M_j[s][i]; column i of M_j is a permutation of F_q,
// so every r finds exactly one s.
void galaxy_graph::wire_inter_cluster() {
  std::vector<uint32_t> s_with(m_q);  // [M_j[s][i]] = s
  for (uint32_t i = 0; i < m_n; ++i) {
    for (uint32_t j = i + 1; j < m_n; ++j) {
      for (uint32_t s = 0; s < m_q; ++s) s_with[coordinate(j, s, i)] = s;
      for (uint32_t r = 0; r < m_q; ++r) {
        const uint32_t s = s_with[coordinate(i, r, j)];
        m_adj[i * m_q + r].push_back(j * m_q + s);
        m_adj[j * m_q + s].push_back(i * m_q + r);
      }
    }
  }
}

bool galaxy_graph::adjacent(uint32_t s, uint32_t u) const {
  return std::binary_search(m_adj[s].begin(), m_adj[s].end(), u);
}

uint32_t galaxy_graph::neighbour_index(uint32_t s, uint32_t u) const {
  const auto& a = m_adj[s];
  const auto it = std::lower_bound(a.begin(), a.end(), u);
  return it != a.end() && *it == u ? static_cast<uint32_t>(it - a.begin()) : invalid_id;
}

}  // namespace bcastsim::network
