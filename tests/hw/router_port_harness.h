// Test harness of one router alone: a scripted peer on every port (the topology's, then the
// Bcast Unit's) plays packets into the router's input and records what leaves its output.
// A peer's "link" is busy size_bytes * ps_per_byte for each packet it receives; it returns
// the credit when the tail has left, plus credit_delay_ps.
#pragma once

#include "hw/ragasa/packet_fields.h"
#include "hw/router/router.h"
#include "network/dragonfly.h"
#include "network/routing.h"
#include "network/topology_kind.h"
#include "tlm/packet.h"
#include "tlm/packet_pool.h"

#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

namespace bcastsim::test {

// The dragonfly's VC buffers per link class, from the kind's declaration (bcastsim's
// defaults for router.vc_buffer_bytes.*).
inline std::vector<uint32_t> dragonfly_vc_buffers() {
  std::vector<uint32_t> buffers;
  for (const network::link_class_decl& c : network::dragonfly_kind().classes) {
    buffers.push_back(c.vc_buffer_bytes);
  }
  return buffers;
}

class port_peer final : public sc_core::sc_module, public tlm_net::fw_if, public tlm_net::bw_if {
 public:
  tlm_net::initiator_socket out;  // into the router's in[port]
  tlm_net::target_socket in;      // from the router's out[port]

  struct arrival {  // a packet the router sent out of this port
    uint64_t at_ps;
    network::terminal_id dst;
    network::router_id unit_router;
    uint8_t vc;
    uint32_t size;
    uint32_t tag;
    network::route_state route;
    uint16_t routers;
  };
  std::vector<arrival> got;
  struct credit {  // a credit the router returned for a packet sent into this port
    uint64_t at_ps;
    uint8_t vc;
    uint32_t bytes;
  };
  std::vector<credit> credits;
  uint64_t ps_per_byte = 100;
  uint64_t credit_delay_ps = 0;

  port_peer(const sc_core::sc_module_name& name, tlm_net::packet_pool& pool)
      : sc_core::sc_module(name), out("out"), in("in"), m_pool(pool) {
    out.bind(*this);
    in.bind(*this);
  }

  // What a packet sent into the router looks like (its head and tail are in now, unless
  // tail_ps says when the tail is).
  struct packet_spec {
    network::terminal_id dst = 0;
    network::router_id unit_router = network::invalid_id;
    uint8_t vc = 0;
    uint32_t size = 512;
    uint32_t tag = 0;
    network::route_state route;
    uint64_t tail_ps = 0;
  };
  // Called from a thread: the packet enters the router's input now.
  void send(const packet_spec& s) {
    tlm_net::packet* p = m_pool.acquire();
    p->src = 0;
    p->dst = s.dst;
    p->offload = hw::ragasa::to_unit(s.unit_router);
    p->vc = s.vc;
    p->size_bytes = s.size;
    p->tag = s.tag;
    p->route = s.route;
    const uint64_t now = sc_core::sc_time_stamp().value();
    p->tail_time = sc_core::sc_time::from_value(s.tail_ps > now ? s.tail_ps : now);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    out->nb_transport_fw(*p, ph, t);
  }

  tlm::tlm_sync_enum nb_transport_fw(tlm_net::packet& p, tlm::tlm_phase&,
                                     sc_core::sc_time& t) override {
    got.push_back(arrival{sc_core::sc_time_stamp().value(), p.dst, hw::ragasa::unit_router(p), p.vc,
                          p.size_bytes, p.tag, p.route, p.routers});
    t = sc_core::sc_time::from_value(uint64_t{p.size_bytes} * ps_per_byte);
    tlm::tlm_phase c = tlm_net::CREDIT;
    sc_core::sc_time d = t + sc_core::sc_time::from_value(credit_delay_ps);
    in->nb_transport_bw(p, c, d);
    m_pool.release(&p);
    return tlm::TLM_ACCEPTED;
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm_net::packet& p, tlm::tlm_phase&,
                                     sc_core::sc_time& t) override {
    credits.push_back(credit{(sc_core::sc_time_stamp() + t).value(), p.vc, p.size_bytes});
    return tlm::TLM_ACCEPTED;
  }
  void b_transport(tlm_net::packet&, sc_core::sc_time&) override {}
  bool get_direct_mem_ptr(tlm_net::packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm_net::packet&) override { return 0; }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  tlm_net::packet_pool& m_pool;
};

// Called from a script thread: waits until simulated time t_ps.
inline void wait_until(uint64_t t_ps) {
  sc_core::wait(sc_core::sc_time::from_value(t_ps) - sc_core::sc_time_stamp());
}

// The benches' router: router 0 of dragonfly g=3 a=2 p=1 h=1, port 0 terminal 0, port 1
// local to router 1, port 2 global to router 2.
inline const network::dragonfly_params k_single_router{3, 2, 1, 1,
                                                       network::global_arrangement::absolute};

// Router `id` of a dragonfly, every port bound to a peer, with a scripted thread.
class router_bench final : public sc_core::sc_module {
 public:
  network::dragonfly topo;
  network::dragonfly_minimal_routing routing;
  tlm_net::packet_pool pool;
  hw::router rt;
  std::vector<std::unique_ptr<port_peer>> peers;  // [port]
  std::function<void(router_bench&)> script;

  router_bench(const sc_core::sc_module_name& name, const network::dragonfly_params& shape,
               network::router_id id, const hw::router_params& params)
      : sc_core::sc_module(name),
        topo(shape),
        routing(topo),
        rt("router", id, topo, routing, params) {
    for (uint32_t port = 0; port < rt.radix(); ++port) {
      peers.push_back(std::make_unique<port_peer>(("peer_" + std::to_string(port)).c_str(), pool));
      peers.back()->out.bind(rt.in[port]);
      rt.out[port].bind(peers.back()->in);
    }
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(router_bench);

 private:
  void run() {
    if (script) script(*this);
  }
};

}  // namespace bcastsim::test
