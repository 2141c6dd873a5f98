// Statistics combined over many blocks as each declares (tlm/statistics.h): sums, high- and
// low-water marks, merged accumulators.
#include "tlm/statistics.h"

#include <boost/test/unit_test.hpp>

#include <stdexcept>

using namespace bcastsim::tlm_net;

namespace {

struct block {
  counter packets, peak, low;
  accumulator latency;
  stat_group g;
  block(uint64_t p, uint64_t k, uint64_t l, std::initializer_list<double> samples) {
    packets.value = p;
    peak.value = k;
    low.value = l;
    for (double s : samples) latency.sample(s);
    g.declare("packets", "packets", "", packets);
    g.declare("peak", "bytes", "", peak, combine::max);
    g.declare("low", "bytes", "", low, combine::min);
    g.declare("latency", "ps", "", latency);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(totals_combine_as_declared) {
  const block a(3, 10, 7, {1, 5});
  const block b(4, 30, 2, {9});
  const block c(5, 20, 4, {});
  stat_totals t;
  t.add(a.g);
  t.add(b.g);
  t.add(c.g);
  BOOST_TEST(t.blocks() == 3u);
  BOOST_TEST(t.value("packets") == 12u);  // summed
  BOOST_TEST(t.value("peak") == 30u);     // high-water mark, not 60
  BOOST_TEST(t.value("low") == 2u);       // low-water mark, not 0 (no block is 0)
  const accumulator& l = t.merged("latency");
  BOOST_TEST(l.count == 3u);
  BOOST_TEST(l.sum == 15.0);
  BOOST_TEST(l.min == 1.0);
  BOOST_TEST(l.max == 9.0);
  BOOST_CHECK_THROW(t.value("nosuch"), std::out_of_range);
  BOOST_TEST(std::string(to_string(combine::max)) == "max");
}

BOOST_AUTO_TEST_CASE(blocks_of_another_kind_are_refused) {
  const block a(1, 1, 1, {});
  stat_group other;
  counter x;
  other.declare("x", "", "", x);
  stat_totals t;
  t.add(a.g);
  BOOST_CHECK_THROW(t.add(other), std::logic_error);
}
