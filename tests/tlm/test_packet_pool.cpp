// tlm/packet_pool: packets come back in their default state, recycle without growing the
// pool, and in_use / peak / capacity / acquired_total count what happened. No simulation.
#include "tlm/packet_pool.h"

#include <boost/test/unit_test.hpp>
#include <systemc>

#include <set>
#include <vector>

using namespace bcastsim;
using tlm_net::packet;
using tlm_net::packet_pool;

BOOST_AUTO_TEST_CASE(packet_pool_starts_empty_and_grows_by_chunks) {
  packet_pool pool(4);
  BOOST_TEST(pool.capacity() == 0u);
  BOOST_TEST(pool.in_use() == 0u);
  BOOST_TEST(pool.peak_in_use() == 0u);

  std::vector<packet*> held;
  for (int i = 0; i < 4; ++i) held.push_back(pool.acquire());
  BOOST_TEST(pool.capacity() == 4u);  // one chunk
  held.push_back(pool.acquire());
  BOOST_TEST(pool.capacity() == 8u);  // the fifth packet needed a second chunk
  BOOST_TEST(pool.in_use() == 5u);
  BOOST_TEST(pool.peak_in_use() == 5u);
  BOOST_TEST(pool.acquired_total() == 5u);

  // Every packet is a distinct object.
  const std::set<packet*> distinct(held.begin(), held.end());
  BOOST_TEST(distinct.size() == 5u);
  for (packet* p : held) pool.release(p);
  BOOST_TEST(pool.in_use() == 0u);
  BOOST_TEST(pool.peak_in_use() == 5u);  // the peak stays
  BOOST_TEST(pool.capacity() == 8u);
}

BOOST_AUTO_TEST_CASE(packet_pool_recycles_without_growing) {
  packet_pool pool(4);
  std::set<packet*> seen;
  // 1000 rounds of acquire 3, release 3: never more than 3 in use, so one chunk suffices.
  for (int round = 0; round < 1000; ++round) {
    packet* a = pool.acquire();
    packet* b = pool.acquire();
    packet* c = pool.acquire();
    seen.insert(a);
    seen.insert(b);
    seen.insert(c);
    BOOST_TEST_REQUIRE(pool.in_use() == 3u);
    pool.release(b);
    pool.release(a);
    pool.release(c);
  }
  BOOST_TEST(pool.capacity() == 4u);
  BOOST_TEST(pool.peak_in_use() == 3u);
  BOOST_TEST(pool.in_use() == 0u);
  BOOST_TEST(pool.acquired_total() == 3000u);
  BOOST_TEST(seen.size() <= 4u);  // the same storage over and over
}

BOOST_AUTO_TEST_CASE(packet_pool_release_then_acquire_returns_the_same_packet) {
  packet_pool pool(8);
  packet* p = pool.acquire();
  packet* q = pool.acquire();
  pool.release(p);
  BOOST_TEST(pool.acquire() == p);  // free list: the last released comes back first
  pool.release(q);
  BOOST_TEST(pool.acquire() == q);
}

BOOST_AUTO_TEST_CASE(packet_pool_acquire_resets_a_recycled_packet) {
  packet_pool pool(2);
  packet* p = pool.acquire();
  p->src = 3;
  p->dst = 9;
  p->kind = tlm_net::packet_kind::control;
  p->vc = 2;
  p->size_bytes = 512;
  p->msg_id = 77;
  p->tag = 5;
  p->collective_id = 4;
  p->msg_bytes = 4096;
  p->buf_offset = 1024;
  p->index = 3;
  p->count = 8;
  p->route.local_hops = 1;
  p->route.global_hops = 1;
  p->route.choice = 6;
  p->route.aux = 2;
  p->created = sc_core::sc_time(1, sc_core::SC_NS);
  p->injected = sc_core::sc_time(2, sc_core::SC_NS);
  p->tail_time = sc_core::sc_time(3, sc_core::SC_NS);
  p->routers = 4;
  p->next_port = 7;
  p->next_vc = 1;
  p->hop_ready = sc_core::sc_time(4, sc_core::SC_NS);
  pool.release(p);

  packet* r = pool.acquire();
  BOOST_TEST_REQUIRE(r == p);
  BOOST_TEST(r->src == network::invalid_id);
  BOOST_TEST(r->dst == network::invalid_id);
  BOOST_TEST((r->kind == tlm_net::packet_kind::data));
  BOOST_TEST(r->vc == 0u);
  BOOST_TEST(r->size_bytes == 0u);
  BOOST_TEST(r->msg_id == 0u);
  BOOST_TEST(r->tag == 0u);
  BOOST_TEST(r->collective_id == 0u);
  BOOST_TEST(r->msg_bytes == 0u);
  BOOST_TEST(r->buf_offset == 0u);
  BOOST_TEST(r->index == 0u);
  BOOST_TEST(r->count == 0u);
  BOOST_TEST(r->route.local_hops == 0u);
  BOOST_TEST(r->route.global_hops == 0u);
  BOOST_TEST(r->route.choice == 0u);
  BOOST_TEST(r->route.aux == network::invalid_id);
  BOOST_TEST((r->created == sc_core::SC_ZERO_TIME));
  BOOST_TEST((r->injected == sc_core::SC_ZERO_TIME));
  BOOST_TEST((r->tail_time == sc_core::SC_ZERO_TIME));
  BOOST_TEST(r->routers == 0u);
  BOOST_TEST(r->next_port == 0u);
  BOOST_TEST(r->next_vc == 0u);
  BOOST_TEST((r->hop_ready == sc_core::SC_ZERO_TIME));
  BOOST_TEST(r->first_of_message());
}

BOOST_AUTO_TEST_CASE(packet_pool_release_without_acquire_is_an_error) {
  packet_pool pool(2);
  packet stray;
  BOOST_CHECK_THROW(pool.release(&stray), sc_core::sc_report);
  // One acquired, two released: the second release is the error.
  packet* p = pool.acquire();
  pool.release(p);
  BOOST_CHECK_THROW(pool.release(p), sc_core::sc_report);
}
