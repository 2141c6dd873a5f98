// The finite fields and the Galaxy graph of Galaxyfly (FACTS §6): the paper's worked example,
// the Figure 4 neighbours, generator sets, the isomorphism, clusters, diameter 2 and degree.
#include "galaxy_checks.h"
#include "network/galaxy_graph.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <set>
#include <vector>

using namespace bcastsim::network;
using namespace bcastsim::network::galaxy_checks;

namespace {

using set = std::set<uint32_t>;

// Prime powers q != 2 (mod 4) up to 32, and the cases of eq. 1 each stands for.
const uint32_t k_field_orders[] = {3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27, 29, 31, 32};

uint32_t graph_diameter(const galaxy_graph& g) {
  uint32_t diameter = 0;
  for (uint32_t s = 0; s < g.size(); ++s) {
    for (uint32_t d : graph_distances(g, s)) diameter = std::max(diameter, d);
  }
  return diameter;
}

set powers(const finite_field& f, std::initializer_list<uint32_t> exps) {
  set out;
  for (uint32_t e : exps) out.insert(f.power_of_primitive(e));
  return out;
}

set as_set(const std::vector<uint32_t>& v) {
  return set(v.begin(), v.end());
}

}  // namespace

BOOST_AUTO_TEST_CASE(finite_field_prime_powers_moduli_and_primitive_elements) {
  BOOST_TEST((finite_field::prime_power(125) == std::pair<uint32_t, uint32_t>{5, 3}));
  BOOST_TEST((finite_field::prime_power(2) == std::pair<uint32_t, uint32_t>{2, 1}));
  BOOST_TEST((finite_field::prime_power(97) == std::pair<uint32_t, uint32_t>{97, 1}));
  BOOST_TEST((finite_field::prime_power(256) == std::pair<uint32_t, uint32_t>{2, 8}));
  for (uint32_t q : {0u, 1u, 6u, 10u, 12u, 100u, 1000u}) {
    BOOST_TEST((finite_field::prime_power(q) == std::pair<uint32_t, uint32_t>{0, 0}), q);
  }
  // Smallest monic irreducible polynomials, worked by hand: x^2+x+1, x^3+x+1, x^2+1 (-1 is
  // not a square mod 3), x^4+x+1, x^2+2 (3 is not a square mod 5), x^3+2x+1 (the first
  // x^3 + c1 x + c0 with no root in F_3).
  const std::map<uint32_t, uint32_t> modulus = {{4, 1 + 2},  {8, 1 + 2}, {9, 1},
                                                {16, 1 + 2}, {25, 2},    {27, 1 + 2 * 3}};
  for (const auto& [q, m] : modulus) BOOST_TEST(finite_field(q).modulus() == m, q);
  // Smallest primitive elements: 2 mod 5, 3 mod 7, x in F_4, 1+x in F_9 (x has order 4).
  const std::map<uint32_t, uint32_t> primitive = {{5, 2}, {7, 3}, {13, 2}, {4, 2}, {9, 4}};
  for (const auto& [q, xi] : primitive) BOOST_TEST(finite_field(q).primitive() == xi, q);
}

BOOST_AUTO_TEST_CASE(finite_field_axioms_hold_and_the_primitive_is_the_smallest) {
  for (uint32_t q : {2u, 3u, 4u, 5u, 8u, 9u, 16u, 25u, 27u, 49u, 64u, 81u, 128u, 256u}) {
    const finite_field f(q);
    BOOST_TEST_CONTEXT("q = " << q) {
      uint32_t bad = 0;
      for (uint32_t a = 0; a < q; ++a) {
        bad += f.add(a, 0) != a || f.mul(a, 1) != a || f.add(a, f.neg(a)) != 0;
        uint32_t inverses = 0;
        for (uint32_t b = 0; b < q; ++b) {
          bad += f.add(a, b) != f.add(b, a) || f.mul(a, b) != f.mul(b, a);
          bad += a != 0 && b != 0 && f.mul(a, b) == 0;  // no zero divisors
          inverses += f.mul(a, b) == 1;
          if (q <= 27) {
            for (uint32_t c = 0; c < q; ++c) {
              bad += f.mul(a, f.add(b, c)) != f.add(f.mul(a, b), f.mul(a, c));
              bad += f.mul(a, f.mul(b, c)) != f.mul(f.mul(a, b), c);
              bad += f.add(a, f.add(b, c)) != f.add(f.add(a, b), c);
            }
          }
        }
        bad += inverses != (a == 0 ? 0u : 1u);
      }
      BOOST_TEST(bad == 0u);
      // primitive^e runs through F_q^* once; no smaller element does.
      set seen;
      for (uint32_t e = 0; e + 1 < q; ++e) seen.insert(f.power_of_primitive(e));
      BOOST_TEST(seen.size() == q - 1);
      BOOST_TEST(!seen.count(0));
      for (uint32_t g = 1; g < f.primitive(); ++g) {
        uint32_t x = g;
        uint32_t order = 1;
        while (x != 1) {
          x = f.mul(x, g);
          ++order;
        }
        BOOST_TEST(order < q - 1, g);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(galaxy_graph_reproduces_the_papers_worked_example) {
  const galaxy_graph g(3, 5);
  BOOST_TEST(g.delta() == 1);
  BOOST_TEST(g.ell() == 1u);
  BOOST_TEST(g.xi() == 2u);
  BOOST_TEST(g.X() == (std::vector<uint32_t>{1, 4}), boost::test_tools::per_element());
  BOOST_TEST(g.Xprime() == (std::vector<uint32_t>{2, 3}), boost::test_tools::per_element());
  const std::vector<std::vector<uint32_t>> m1 = {
      {0, 0, 0}, {2, 1, 1}, {4, 2, 2}, {1, 3, 3}, {3, 4, 4}};
  BOOST_TEST(g.M(1) == m1);
  BOOST_TEST(g.size() == 15u);
  BOOST_TEST(g.degree() == 4u);
}

BOOST_AUTO_TEST_CASE(galaxy_graph_has_the_papers_figure_4_neighbours) {
  // Mathematics 11:2459 §3.2, Figure 4 (S_i = supernode i-1): S8's neighbours are S5, S7,
  // S9, S12; SPC then finds S5's other neighbours S1, S4, S13; S7's S3, S6, S14; S9's S2,
  // S10, S15; and S11 as S12's neighbour not yet taken (S12's are S3, S8, S11, S13).
  const galaxy_graph g(3, 5);
  BOOST_TEST(g.neighbours(7) == (std::vector<uint32_t>{4, 6, 8, 11}),
             boost::test_tools::per_element());
  BOOST_TEST(g.neighbours(4) == (std::vector<uint32_t>{0, 3, 7, 12}),
             boost::test_tools::per_element());
  BOOST_TEST(g.neighbours(6) == (std::vector<uint32_t>{2, 5, 7, 13}),
             boost::test_tools::per_element());
  BOOST_TEST(g.neighbours(8) == (std::vector<uint32_t>{1, 7, 9, 14}),
             boost::test_tools::per_element());
  BOOST_TEST(g.neighbours(11) == (std::vector<uint32_t>{2, 7, 10, 12}),
             boost::test_tools::per_element());
  // §4 lists the supernodes at distance 2 from S8 as S1, S2, S3, S4, S6, S9, S10, S11,
  // S13, S14, S15: S9 is a slip (it is adjacent, as §3.2 says), and without it the list is
  // exactly ours.
  const std::vector<uint32_t> dist = graph_distances(g, 7);
  set at_two;
  for (uint32_t s = 0; s < g.size(); ++s) {
    if (dist[s] == 2) at_two.insert(s);
  }
  BOOST_TEST(at_two == (set{0, 1, 2, 3, 5, 9, 10, 12, 13, 14}));
}

BOOST_AUTO_TEST_CASE(galaxy_generator_sets_follow_eq_1_and_2) {
  for (uint32_t q : k_field_orders) {
    const galaxy_graph g(2, q);
    const finite_field& f = g.field();
    BOOST_TEST_CONTEXT("q = " << q) {
      const int delta = q % 4 == 1 ? 1 : q % 4 == 0 ? 0 : -1;
      BOOST_TEST(g.delta() == delta);
      BOOST_TEST(static_cast<int>(4 * g.ell()) + delta == static_cast<int>(q));
      BOOST_TEST(g.xi() == f.primitive());
      const uint32_t half = static_cast<uint32_t>((static_cast<int>(q) - delta) / 2);
      BOOST_TEST(g.X().size() == half);
      BOOST_TEST(g.Xprime().size() == half);
      const set x = as_set(g.X());
      const set xp = as_set(g.Xprime());
      set all = x;
      all.insert(xp.begin(), xp.end());
      BOOST_TEST(all.size() == q - 1);  // X u X' = F_q^*
      BOOST_TEST(!all.count(0));
      // Disjoint only for q = 4l+1; q = 4l shares 1, q = 4l-1 shares 1 and -1.
      set both;
      for (uint32_t e : x) {
        if (xp.count(e)) both.insert(e);
      }
      const set expect_both = delta == 1 ? set{} : delta == 0 ? set{1} : set{1, f.neg(1)};
      BOOST_TEST(both == expect_both);
      // X = -X (the generator graph is undirected), X' = xi X.
      set neg_x;
      set xi_x;
      for (uint32_t e : x) {
        neg_x.insert(f.neg(e));
        xi_x.insert(f.mul(g.xi(), e));
      }
      BOOST_TEST(neg_x == x);
      BOOST_TEST(xi_x == xp);
      // Eq. 1 and 2 by their exponents, one q = 4l-1 and one q = 4l worked by hand: q = 7
      // (l = 2, xi = 3): X = {1, xi^2, xi^3, xi^5}, X' = {xi, xi^3, xi^4, xi^6}; q = 4
      // (l = 1, xi = x): X = {1, xi^2 = x+1}, X' = {xi, xi^3 = 1}.
      if (q == 7) {
        BOOST_TEST(x == powers(f, {0, 2, 3, 5}));
        BOOST_TEST(x == (set{1, 2, 5, 6}));
        BOOST_TEST(xp == (set{1, 3, 4, 6}));
      }
      if (q == 4) {
        BOOST_TEST(x == (set{1, 3}));
        BOOST_TEST(xp == (set{1, 2}));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(galaxy_h_maps_g_x_onto_g_x_prime) {
  for (uint32_t q : k_field_orders) {
    const galaxy_graph g(2, q);
    const finite_field& f = g.field();
    const set x = as_set(g.X());
    const set xp = as_set(g.Xprime());
    uint32_t bad = 0;
    set image;
    for (uint32_t i = 0; i < q; ++i) {
      image.insert(g.H(i));
      for (uint32_t j = 0; j < q; ++j) {
        bad += x.count(f.sub(i, j)) != xp.count(f.sub(g.H(i), g.H(j)));
      }
    }
    BOOST_TEST(bad == 0u, "q = " << q);
    BOOST_TEST(image.size() == q, "q = " << q);  // one to one
  }
}

BOOST_AUTO_TEST_CASE(galaxy_clusters_are_g_x_and_cluster_pairs_join_by_q_edges) {
  for (const auto& [n, q] :
       std::vector<std::pair<uint32_t, uint32_t>>{{3, 5}, {4, 7}, {4, 4}, {3, 9}, {3, 8}, {2, 3}}) {
    const galaxy_graph g(n, q);
    const finite_field& f = g.field();
    const set x = as_set(g.X());
    BOOST_TEST_CONTEXT("n = " << n << ", q = " << q) {
      uint32_t bad = 0;
      for (uint32_t k = 0; k < n; ++k) {
        // M_k: column i is the identity for i >= k, H below.
        const auto m = g.M(k);
        for (uint32_t v = 0; v < q; ++v) {
          for (uint32_t i = 0; i < n; ++i) bad += m[v][i] != (i >= k ? v : f.mul(g.xi(), v));
        }
        for (uint32_t i = 0; i < q; ++i) {
          for (uint32_t j = 0; j < q; ++j) {
            bad += g.adjacent(k * q + i, k * q + j) != (x.count(f.sub(i, j)) == 1);
          }
        }
      }
      for (uint32_t ci = 0; ci < n; ++ci) {
        for (uint32_t cj = ci + 1; cj < n; ++cj) {
          uint32_t edges = 0;
          for (uint32_t r = 0; r < q; ++r) {
            for (uint32_t s = 0; s < q; ++s) {
              const bool joined = g.adjacent(ci * q + r, cj * q + s);
              edges += joined;
              bad += joined != (r == f.mul(g.xi(), s));  // FACTS §6 step 6 closed form
              bad += joined != g.adjacent(cj * q + s, ci * q + r);
            }
          }
          bad += edges != q;
        }
      }
      BOOST_TEST(bad == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(galaxy_graphs_are_regular_with_diameter_2) {
  // FACTS §6's verification list (prime q), then prime powers with a few n.
  std::vector<std::pair<uint32_t, uint32_t>> cases = {{3, 5},   {5, 5},   {4, 7}, {7, 7}, {6, 13},
                                                      {13, 13}, {11, 11}, {8, 5}, {12, 7}};
  for (uint32_t q : {4u, 8u, 9u, 16u, 25u, 27u}) {
    for (uint32_t n : {1u, 2u, 5u, q}) cases.push_back({n, q});
  }
  for (uint32_t q : {3u, 11u, 17u, 19u, 23u, 29u, 31u, 32u, 49u, 64u}) cases.push_back({3, q});
  for (const auto& [n, q] : cases) {
    const galaxy_graph g(n, q);
    BOOST_TEST_CONTEXT("n = " << n << ", q = " << q) {
      const uint32_t degree =
          (n - 1) + static_cast<uint32_t>((static_cast<int>(q) - g.delta()) / 2);
      BOOST_TEST(g.degree() == degree);
      BOOST_TEST(galaxy_graph::degree_of(n, q) == degree);
      uint32_t irregular = 0;
      for (uint32_t s = 0; s < g.size(); ++s) {
        const auto& nb = g.neighbours(s);
        irregular += nb.size() != degree || !std::is_sorted(nb.begin(), nb.end()) ||
                     std::adjacent_find(nb.begin(), nb.end()) != nb.end() ||
                     std::find(nb.begin(), nb.end(), s) != nb.end();
        for (uint32_t u : nb) irregular += !g.adjacent(u, s);
      }
      BOOST_TEST(irregular == 0u);
      BOOST_TEST(graph_diameter(g) == (n == 1 && q == 3 ? 1u : 2u));
    }
  }
}

BOOST_AUTO_TEST_CASE(galaxy_q_1_is_the_complete_graph) {
  const galaxy_graph g(6, 1);
  BOOST_TEST(g.degree() == 5u);
  BOOST_TEST(g.X().empty());
  for (uint32_t s = 0; s < 6; ++s) {
    std::vector<uint32_t> others;
    for (uint32_t u = 0; u < 6; ++u) {
      if (u != s) others.push_back(u);
    }
    BOOST_TEST(g.neighbours(s) == others, boost::test_tools::per_element());
  }
}
