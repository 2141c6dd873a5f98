// tlm/timed_queue: a block's agenda drained by one SC_METHOD. Entries come out by time,
// equal times in insertion order; the method wakes once per distinct time; pushing an entry
// earlier than the armed one re-arms the wake-up.
#include "tlm/timed_queue.h"

#include <boost/test/unit_test.hpp>
#include <systemc>

#include <functional>
#include <vector>

using namespace bcastsim;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

// The pattern every block uses: one event, one method that drains what is due and re-arms.
class drain final : public sc_core::sc_module {
 public:
  sc_core::sc_event wakeup;
  tlm_net::timed_queue<int> queue{wakeup};
  std::function<void(drain&)> script;  // optional driver thread

  struct entry {
    sc_time at;
    int item;
  };
  std::vector<entry> log;
  uint32_t wakeups = 0;

  explicit drain(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
    SC_METHOD(on_wakeup);
    sensitive << wakeup;
    dont_initialize();
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(drain);

 private:
  void on_wakeup() {
    ++wakeups;
    const sc_time now = sc_core::sc_time_stamp();
    while (queue.due(now)) log.push_back(entry{now, queue.pop()});
    queue.arm();
  }
  void run() {
    if (script) script(*this);
  }
};

sc_time ns(double v) {
  return sc_time(v, SC_NS);
}

}  // namespace

BOOST_AUTO_TEST_CASE(timed_queue_orders_by_time_then_insertion) {
  drain d("drain");
  // Pushed during elaboration, out of order; three items share 10 ns and two share 20 ns.
  d.queue.push(ns(30), 0);
  d.queue.push(ns(10), 1);
  d.queue.push(ns(20), 2);
  d.queue.push(ns(10), 3);
  d.queue.push(ns(10), 4);
  d.queue.push(ns(20), 5);
  // Many more at one time, interleaved with later ones, so the heap must reorder them.
  for (int i = 0; i < 40; ++i) {
    d.queue.push(ns(40), 100 + i);
    d.queue.push(ns(50 + i), 200 + i);
  }
  BOOST_TEST(d.queue.size() == 86u);
  BOOST_TEST(!d.queue.empty());
  BOOST_TEST((d.queue.next_time() == ns(10)));
  BOOST_TEST(d.queue.due(ns(10)));
  BOOST_TEST(!d.queue.due(ns(10) - sc_time::from_value(1)));

  sc_core::sc_start();

  std::vector<int> items;
  std::vector<uint64_t> times;
  for (const drain::entry& e : d.log) {
    items.push_back(e.item);
    times.push_back(e.at.value());
  }
  std::vector<int> want_items = {1, 3, 4, 2, 5, 0};
  std::vector<uint64_t> want_times = {10000, 10000, 10000, 20000, 20000, 30000};
  for (int i = 0; i < 40; ++i) want_items.push_back(100 + i), want_times.push_back(40000);
  for (int i = 0; i < 40; ++i)
    want_items.push_back(200 + i), want_times.push_back(50000 + 1000 * i);
  BOOST_TEST(items == want_items, boost::test_tools::per_element());
  BOOST_TEST(times == want_times, boost::test_tools::per_element());
  // One wake-up per distinct time: 10, 20, 30, 40 and 50..89 ns.
  BOOST_TEST(d.wakeups == 4u + 40u);
  BOOST_TEST(d.queue.empty());
}

BOOST_AUTO_TEST_CASE(timed_queue_earlier_push_rearms) {
  drain d("drain");
  d.queue.push(ns(100), 1);
  d.script = [](drain& self) {
    sc_core::wait(ns(10));
    self.queue.push(ns(50), 2);   // earlier than the armed 100 ns: must wake at 50 ns
    sc_core::wait(ns(50));        // now 60 ns
    self.queue.push(ns(200), 3);  // later than the earliest (100 ns): waits its turn
    sc_core::wait(ns(60));        // now 120 ns; earliest is 200 ns
    self.queue.push(ns(120), 4);  // due now: drained in this time step
  };
  sc_core::sc_start();

  BOOST_TEST_REQUIRE(d.log.size() == 4u);
  const int want_items[] = {2, 1, 4, 3};
  const uint64_t want_times[] = {50000, 100000, 120000, 200000};
  for (size_t i = 0; i < 4; ++i) {
    BOOST_TEST(d.log[i].item == want_items[i]);
    BOOST_TEST(d.log[i].at.value() == want_times[i]);
  }
  BOOST_TEST(d.wakeups == 4u);
}

BOOST_AUTO_TEST_CASE(timed_queue_arm_on_empty_queue_does_nothing) {
  drain d("drain");
  d.script = [](drain& self) {
    self.queue.arm();  // nothing queued: no wake-up
    sc_core::wait(ns(5));
    self.queue.push(ns(7), 9);
    self.queue.arm();  // arming twice for the same entry still wakes once
  };
  sc_core::sc_start();

  BOOST_TEST_REQUIRE(d.log.size() == 1u);
  BOOST_TEST(d.log[0].item == 9);
  BOOST_TEST(d.log[0].at.value() == 7000u);
  BOOST_TEST(d.wakeups == 1u);
  BOOST_TEST(sc_core::sc_time_stamp().value() == 7000u);
}
