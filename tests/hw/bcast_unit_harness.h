// Test harness of the Ragasa Bcast Unit: a source plays planned packets into the unit's `in`
// (as the router would) and records the credits it gets back; a sink on `out` records every
// copy, holds its "link" busy for size_bytes * ps_per_byte and returns its credit then (or
// at credits_not_before_ps, if later: a receiver that frees its buffer late).
#pragma once

#include "hw/ragasa/packet_fields.h"
#include "hw/ragasa/bcast_unit.h"
#include "tlm/packet.h"
#include "tlm/packet_pool.h"

#include <functional>
#include <systemc>
#include <vector>

namespace bcastsim::test {

inline sc_core::sc_time ps(uint64_t v) {
  return sc_core::sc_time::from_value(v);
}
inline void wait_until(uint64_t t_ps) {
  sc_core::wait(ps(t_ps) - sc_core::sc_time_stamp());
}

class bcast_source final : public sc_core::sc_module, public tlm_net::bw_if {
 public:
  tlm_net::initiator_socket out;
  struct plan {
    uint64_t at_ps;  // head and tail in at the unit
    tlm_net::packet_kind kind;
    uint32_t collective;
    uint64_t msg_id;
    uint32_t index;
    uint32_t count;
    uint32_t size;
  };
  std::vector<plan> plans;  // in time order
  struct credit {
    uint64_t at_ps;
    uint32_t bytes;
  };
  std::vector<credit> credits;

  bcast_source(const sc_core::sc_module_name& name, tlm_net::packet_pool& pool)
      : sc_core::sc_module(name), out("out"), m_pool(pool) {
    out.bind(*this);
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(bcast_source);

  tlm::tlm_sync_enum nb_transport_bw(tlm_net::packet& p, tlm::tlm_phase&,
                                     sc_core::sc_time& t) override {
    credits.push_back(credit{(sc_core::sc_time_stamp() + t).value(), p.size_bytes});
    return tlm::TLM_ACCEPTED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  void run() {
    for (const plan& pl : plans) {
      wait_until(pl.at_ps);
      tlm_net::packet* p = m_pool.acquire();
      p->src = 0;
      p->dst = 1;
      p->kind = pl.kind;
      p->size_bytes = pl.size;
      p->collective_id = pl.collective;
      p->msg_id = pl.msg_id;
      p->msg_bytes = uint64_t{pl.count} * pl.size;
      p->index = pl.index;
      p->count = pl.count;
      p->tail_time = ps(pl.at_ps);
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_core::sc_time t = sc_core::SC_ZERO_TIME;
      out->nb_transport_fw(*p, ph, t);
    }
  }
  tlm_net::packet_pool& m_pool;
};

class bcast_sink final : public sc_core::sc_module, public tlm_net::fw_if {
 public:
  tlm_net::target_socket in;
  struct arrival {
    uint64_t at_ps;
    network::terminal_id dst;
    uint32_t collective;
    uint64_t msg_id;
    uint32_t index;
    uint32_t size;
    network::router_id unit_router;
    uint8_t vc;
  };
  std::vector<arrival> got;
  uint64_t ps_per_byte = 100;
  uint64_t credits_not_before_ps = 0;

  bcast_sink(const sc_core::sc_module_name& name, tlm_net::packet_pool& pool)
      : sc_core::sc_module(name), in("in"), m_pool(pool) {
    in.bind(*this);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm_net::packet& p, tlm::tlm_phase&,
                                     sc_core::sc_time& t) override {
    const uint64_t now = sc_core::sc_time_stamp().value();
    got.push_back(
        arrival{now, p.dst, p.collective_id, p.msg_id, p.index, p.size_bytes, hw::ragasa::unit_router(p), p.vc});
    t = ps(uint64_t{p.size_bytes} * ps_per_byte);  // link busy until the tail left
    tlm::tlm_phase c = tlm_net::CREDIT;
    sc_core::sc_time d = t;
    if (credits_not_before_ps > now + t.value()) d = ps(credits_not_before_ps - now);
    in->nb_transport_bw(p, c, d);
    m_pool.release(&p);
    return tlm::TLM_ACCEPTED;
  }
  void b_transport(tlm_net::packet&, sc_core::sc_time&) override {}
  bool get_direct_mem_ptr(tlm_net::packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm_net::packet&) override { return 0; }

 private:
  tlm_net::packet_pool& m_pool;
};

// source -> unit -> sink, with a scripted thread for sampling.
class bcast_bench final : public sc_core::sc_module {
 public:
  tlm_net::packet_pool pool;
  hw::ragasa::membership_source membership;
  hw::ragasa::bcast_unit unit;
  bcast_source source;
  bcast_sink sink;
  std::function<void(bcast_bench&)> script;

  bcast_bench(const sc_core::sc_module_name& name, const hw::ragasa::bcast_unit_params& p)
      : sc_core::sc_module(name),
        unit("unit", 1, p, pool, membership, nullptr),
        source("source", pool),
        sink("sink", pool) {
    source.out.bind(unit.in);
    unit.out.bind(sink.in);
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(bcast_bench);

 private:
  void run() {
    if (script) script(*this);
  }
};

// Records each Mini Packet parse: when, and what the Membership Table held at that moment;
// and each entry freed.
class membership_recorder final : public hw::ragasa::membership_listener {
 public:
  struct call {
    uint64_t at_ps;
    uint32_t collective;
    size_t children;  // of that collective, read from the unit during the call
  };
  explicit membership_recorder(const hw::ragasa::bcast_unit& unit) : m_unit(unit) {}
  void on_membership(uint32_t collective_id) override {
    const auto* kids = m_unit.children(collective_id);
    calls.push_back(
        call{sc_core::sc_time_stamp().value(), collective_id, kids ? kids->size() : size_t{999}});
  }
  std::vector<call> calls;
  void on_freed(network::terminal_id, uint32_t collective_id) override {
    freed.push_back(call{sc_core::sc_time_stamp().value(), collective_id, 0});
  }
  std::vector<call> freed;  // entries step 10 freed

 private:
  const hw::ragasa::bcast_unit& m_unit;
};


}  // namespace bcastsim::test
