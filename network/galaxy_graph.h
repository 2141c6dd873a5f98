// The Galaxy graph (Lei, Dong, Liao, Su, Li, ICS'16; FACTS §6): n clusters of q supernodes,
// diameter 2, built over the finite field F_q. Supernode id = cluster * q + vertex; papers
// number them S_{id+1}. Pure C++17.
//
// Construction (FACTS §6 steps 1-6):
//   1. xi = the smallest primitive element of F_q (by its integer encoding, below);
//   2. q = 4l + delta, delta in {-1, 0, 1}; generator sets X (eq. 1) and X' (eq. 2), powers
//      of xi; |X| = |X'| = (q - delta)/2, X u X' = F_q \ {0}, X = -X, X' = xi*X;
//   3. H(u) = xi*u maps the generator graph G(X) onto G(X');
//   4. cluster k's coordinate matrix M_k (q x n): column i is [0..q-1] if i >= k, else
//      H([0..q-1]);
//   5. inside cluster k: v_i ~ v_j iff M_k[j][k] - M_k[i][k] is in X (X = -X, so the
//      relation is symmetric; every cluster is G(X));
//   6. between clusters i != j: v_r^i ~ v_s^j iff M_i[r][j] = M_j[s][i] (q edges per pair;
//      for i < j: r = xi*s).
// X and X' are disjoint only for q = 4l+1; for q = 4l they share 1, for q = 4l-1 they
// share 1 and -1 (both sets have (q - delta)/2 elements, more than half of F_q^*).
//
// q = 1 is the trivial case: one supernode per cluster, X empty, the complete graph K_n (a
// Galaxyfly over it is a dragonfly). q = 2 (mod 4) is refused: eq. 1 has no case for it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace bcastsim::network {

// F_q for a prime power q = p^k. An element is an integer in [0, q): its base-p digits are
// its coefficients as a polynomial in x (digit i = coefficient of x^i), reduced modulo the
// smallest monic irreducible polynomial of degree k (smallest by the integer whose base-p
// digits are its coefficients below x^k). For k = 1 this is arithmetic modulo p.
class finite_field {
 public:
  // Throws topology_error on topology.q when q is not a prime power (q >= 2).
  explicit finite_field(uint32_t q);

  uint32_t order() const { return m_q; }
  uint32_t characteristic() const { return m_p; }
  uint32_t degree() const { return m_k; }
  // The reduction polynomial's coefficients below x^k, as an element's digits (k = 1: 0).
  uint32_t modulus() const { return m_modulus; }
  // The smallest primitive element (generator of F_q^*).
  uint32_t primitive() const { return m_primitive; }

  uint32_t add(uint32_t a, uint32_t b) const;
  uint32_t neg(uint32_t a) const;
  uint32_t sub(uint32_t a, uint32_t b) const { return add(a, neg(b)); }
  uint32_t mul(uint32_t a, uint32_t b) const;
  // primitive()^e, any e >= 0.
  uint32_t power_of_primitive(uint64_t e) const { return m_exp[e % (m_q - 1)]; }

  // q's prime p and exponent k (q = p^k), or {0, 0} when q is not a prime power.
  static std::pair<uint32_t, uint32_t> prime_power(uint32_t q);

 private:
  uint32_t slow_mul(uint32_t a, uint32_t b) const;  // polynomial product mod the modulus

  uint32_t m_q = 0;
  uint32_t m_p = 0;
  uint32_t m_k = 0;
  uint32_t m_modulus = 0;
  uint32_t m_primitive = 0;
  std::vector<uint32_t> m_exp;  // [e] = primitive^e, e < q-1
  std::vector<uint32_t> m_log;  // [a] = e with primitive^e = a (a != 0)
};

class galaxy_graph {
 public:
  // Throws topology_error on topology.q (not a prime power, or 2 mod 4) or topology.n (0).
  galaxy_graph(uint32_t n, uint32_t q);

  uint32_t n() const { return m_n; }
  uint32_t q() const { return m_q; }
  int delta() const { return m_delta; }
  uint32_t ell() const { return m_ell; }  // q = 4*ell + delta
  // The primitive element; 0 when q = 1 (F_1 has none).
  uint32_t xi() const { return m_xi; }
  // Generator sets, ascending by element.
  const std::vector<uint32_t>& X() const { return m_x; }
  const std::vector<uint32_t>& Xprime() const { return m_xprime; }
  // The field (q >= 3 only).
  const finite_field& field() const { return m_field; }

  // H(u) = xi*u (identity when q = 1).
  uint32_t H(uint32_t u) const;
  // M_k[v][i]: supernode v of cluster k's coordinate for cluster i.
  uint32_t coordinate(uint32_t k, uint32_t v, uint32_t i) const { return i >= k ? v : H(v); }
  // The whole matrix M_k, [row v][column i].
  std::vector<std::vector<uint32_t>> M(uint32_t k) const;

  // (n-1) + (q - delta)/2, the degree galaxy_graph(n, q) will have, without building it.
  // Throws as the constructor does for an n or q no Galaxy graph has.
  static uint32_t degree_of(uint32_t n, uint32_t q);

  uint32_t size() const { return m_n * m_q; }
  uint32_t cluster_of(uint32_t s) const { return s / m_q; }
  // Every supernode's degree: (n-1) + (q - delta)/2.
  uint32_t degree() const { return m_degree; }
  // Neighbours of supernode s, ascending.
  const std::vector<uint32_t>& neighbours(uint32_t s) const { return m_adj[s]; }
  bool adjacent(uint32_t s, uint32_t u) const;
  // Position of u in neighbours(s), or 0xffffffff when not adjacent.
  uint32_t neighbour_index(uint32_t s, uint32_t u) const;

 private:
  void make_generator_sets();
  void wire_intra_cluster();
  void wire_inter_cluster();

  uint32_t m_n = 0;
  uint32_t m_q = 0;
  int m_delta = 1;
  uint32_t m_ell = 0;
  uint32_t m_xi = 0;
  uint32_t m_degree = 0;
  finite_field m_field;
  std::vector<uint32_t> m_x;
  std::vector<uint32_t> m_xprime;
  std::vector<std::vector<uint32_t>> m_adj;  // [supernode] ascending
};

}  // namespace bcastsim::network
