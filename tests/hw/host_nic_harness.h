// Test harness of the host NIC and its host (tests/hw/test_host_nic.cpp, test_host.cpp): the
// NIC under test is terminal 1 of a 4-terminal dragonfly; its injection link ends in a
// recording sink, and a scripted source plays packets from terminals 0 and 2 into its
// ejection port.
#pragma once

#include "algorithms/registry.h"
#include "algorithms/schedule.h"
#include "hw/nic/host.h"
#include "hw/nic/host_nic.h"
#include "network/dragonfly.h"
#include "network/placement.h"
#include "network/routing.h"
#include "tlm/link.h"
#include "tlm/packet_pool.h"

#include <systemc>
#include "message_log.h"

#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace bcastsim::test::host_nic_bench {

using namespace bcastsim;
using algorithms::make_compute;
using algorithms::make_recv;
using algorithms::make_send;
using sc_core::sc_time;
using tlm_net::packet;

inline sc_time ps(uint64_t v) {
  return sc_time::from_value(v);
}
inline void wait_until(uint64_t t_ps) {
  sc_core::wait(ps(t_ps) - sc_core::sc_time_stamp());
}

// End of the NIC's injection link: records each packet, returns its credit `hold_ps` after
// its tail arrived, and gives it back to the pool.
class packet_sink final : public sc_core::sc_module, public tlm_net::fw_if {
 public:
  tlm_net::target_socket in;
  struct arrival {
    packet pkt;  // as it arrived
    uint64_t head_ps;
  };
  std::vector<arrival> got;
  uint64_t hold_ps = 0;

  packet_sink(const sc_core::sc_module_name& name, tlm_net::packet_pool& pool)
      : sc_core::sc_module(name), in("in"), m_pool(pool) {
    in.bind(*this);
  }
  tlm::tlm_sync_enum nb_transport_fw(packet& p, tlm::tlm_phase&, sc_time& t) override {
    got.push_back(arrival{p, (sc_core::sc_time_stamp() + t).value()});
    tlm::tlm_phase c = tlm_net::CREDIT;
    sc_time d = p.tail_time - sc_core::sc_time_stamp() + ps(hold_ps);
    in->nb_transport_bw(p, c, d);
    m_pool.release(&p);
    return tlm::TLM_ACCEPTED;
  }
  void b_transport(packet&, sc_time&) override {}
  bool get_direct_mem_ptr(packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(packet&) override { return 0; }

 private:
  tlm_net::packet_pool& m_pool;
};

// Plays planned packets into the NIC's ejection port: the head 5 ns before the planned
// time, the tail at it. Records the credits the NIC returns.
class packet_source final : public sc_core::sc_module, public tlm_net::bw_if {
 public:
  tlm_net::initiator_socket out;
  struct plan {
    uint64_t at_ps;  // tail in at the NIC
    network::terminal_id src;
    uint64_t msg_id;
    uint32_t tag;
    uint64_t offset;
    uint64_t msg_bytes;
    uint32_t index;
    uint32_t count;
    uint32_t size;
    uint8_t vc = 0;
    network::terminal_id dst = 1;  // the NIC under test
    uint32_t seq = 0;              // among the source's messages to dst with this tag
  };
  std::vector<plan> plans;  // in time order
  struct credit {
    uint64_t at_ps;
    uint8_t vc;
    uint32_t bytes;
  };
  std::vector<credit> credits;

  packet_source(const sc_core::sc_module_name& name, tlm_net::packet_pool& pool)
      : sc_core::sc_module(name), out("out"), m_pool(pool) {
    out.bind(*this);
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(packet_source);

  tlm::tlm_sync_enum nb_transport_bw(packet& p, tlm::tlm_phase&, sc_time& t) override {
    credits.push_back(credit{(sc_core::sc_time_stamp() + t).value(), p.vc, p.size_bytes});
    return tlm::TLM_ACCEPTED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  void run() {
    for (const plan& pl : plans) {
      wait_until(pl.at_ps - k_head_lead_ps);
      packet* p = m_pool.acquire();
      p->src = pl.src;
      p->dst = pl.dst;
      p->vc = pl.vc;
      p->size_bytes = pl.size;
      p->msg_id = pl.msg_id;
      p->tag = pl.tag;
      p->collective_id = 1;  // context 0 of the host's program
      p->msg_seq = pl.seq;
      p->msg_bytes = pl.msg_bytes;
      p->buf_offset = pl.offset;
      p->index = pl.index;
      p->count = pl.count;
      p->tail_time = ps(pl.at_ps);
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_time t = sc_core::SC_ZERO_TIME;  // the head is in now
      out->nb_transport_fw(*p, ph, t);
    }
  }
  static constexpr uint64_t k_head_lead_ps = 5000;
  tlm_net::packet_pool& m_pool;
};

using bcastsim::test::message_log;

struct bench_params {
  hw::nic_params nic;         // 512 B packets, 16 KiB buffers
  tlm_net::link_params link;  // 5.25 GiB/s, 10 ns, 64 B flits
  hw::host_params host{300.0, 200.0};
  const algorithms::rank_program* program = nullptr;  // a host for rank 1 when set
  uint32_t root = 0;   // the broadcast the host's program is part of: its root
  uint64_t bytes = 0;  // and its buffer
};

// dragonfly g=2 a=1 p=2 h=1: terminals 0, 1 on router 0 and 2, 3 on router 1; rank i sits
// on terminal i. The NIC (and host) under test are terminal (rank) 1.
class bench final : public sc_core::sc_module {
 public:
  network::dragonfly topo{
      network::dragonfly_params{2, 1, 2, 1, network::global_arrangement::absolute}};
  network::dragonfly_minimal_routing routing{topo};
  network::placement place{topo, network::placement_params{}};
  tlm_net::packet_pool pool;
  algorithms::program prog;
  hw::collective_progress progress;
  hw::host_nic nic;
  tlm_net::link up;
  packet_sink sink;
  packet_source source;
  message_log log;
  std::unique_ptr<hw::host> host;
  std::function<void(bench&)> script;

  bench(const sc_core::sc_module_name& name, const bench_params& bp)
      : sc_core::sc_module(name),
        nic("nic", 1, bp.nic, pool, routing),
        up("up", bp.link),
        sink("sink", pool),
        source("source", pool) {
    up.connect(nic.out, sink.in);
    source.out.bind(nic.in);
    nic.set_client(&log);
    if (bp.program) {
      // Rank 1's program as context 0 of one broadcast over the four ranks.
      prog.sched = algorithms::schedule(place.num_ranks());
      prog.sched.ranks[1] = *bp.program;
      algorithms::instance_info inst;
      inst.algorithm = &algorithms::find_algorithm("binomial");
      inst.ranks = {0, 1, 2, 3};
      inst.root = bp.root;
      inst.buffer_bytes = bp.bytes;
      for (uint32_t r : inst.ranks)
        inst.own.push_back(r == bp.root ? algorithms::byte_span{0, bp.bytes}
                                        : algorithms::byte_span{});
      for (uint32_t r : inst.ranks) inst.receives.push_back(r != bp.root ? 1 : 0);
      inst.contexts = 1;
      prog.instances.push_back(inst);
      prog.context_instance = {0};
      prog.memberships = {{{0, 0}}, {{0, 1}}, {{0, 2}}, {{0, 3}}};
      progress.reset(prog);
      host = std::make_unique<hw::host>("host", 1, prog, bp.host, nic, place, progress);
    }
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(bench);

  void send(network::terminal_id dst, uint64_t bytes, uint32_t tag, uint64_t offset = 0) {
    hw::message m;
    m.dst = dst;
    m.bytes = bytes;
    m.tag = tag;
    m.buf_offset = offset;
    m.collective_id = 3;
    nic.send_message(m);
  }

 private:
  void run() {
    if (script) script(*this);
  }
};

}  // namespace bcastsim::test::host_nic_bench
