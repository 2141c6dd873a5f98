// Elaboration: turns a topology into SystemC modules and bindings — a router per router, a
// link per direction of every cable, a host NIC per terminal, a host per rank, and a traffic
// generator per terminal that sends traffic (traffic.kind). Ports a topology leaves
// unconnected are terminated by one null endpoint. An algorithm that needs an offload
// family's hardware (tb/offload_family.h) has the family attach its blocks: to the routers'
// attached port, beside the NICs, or in place of them.
#pragma once

#include "algorithms/program.h"
#include "hw/nic/host.h"
#include "hw/nic/host_nic.h"
#include "hw/router/router.h"
#include "hw/traffic/traffic_generator.h"
#include "network/placement.h"
#include "network/routing.h"
#include "tb/config.h"
#include "tb/offload_family.h"
#include "tlm/link.h"
#include "tlm/null_endpoint.h"
#include "tlm/packet_pool.h"
#include "tlm/trace_window.h"

#include <memory>
#include <systemc>
#include <vector>

namespace bcastsim::tb {

class fabric final : public sc_core::sc_module {
 public:
  fabric(const sc_core::sc_module_name& name, const scenario& s, const network::topology& topo,
         const network::routing_policy& routing, const network::placement& place,
         const algorithms::program& prog, hw::collective_progress& progress,
         const std::string& record_unit_inputs = {});
  ~fabric() override;

  // Registers the named blocks ("router_3", "nic_5", an offload family's "unit_0") for
  // waveforms; throws config_error (key trace.blocks) for a name that is not a block here.
  void trace(const tlm_net::trace_window& window, const std::vector<std::string>& blocks);
  // The end of simulation for the offload families (e.g. a recording to finish); throws
  // config_error.
  void finish();

  const network::topology& topo() const { return m_topo; }

  tlm_net::packet_pool pool;
  std::vector<std::unique_ptr<hw::router>> routers;  // [router]
  std::vector<std::unique_ptr<hw::nic>> nics;        // [terminal]
  std::vector<std::unique_ptr<hw::host>> hosts;      // [rank]; none without a schedule
  std::vector<std::unique_ptr<hw::traffic_generator>> generators;  // terminal order
  std::vector<std::unique_ptr<tlm_net::link>> links;               // the network's (traversals)
  // What each of `links` joins, same index: a router port, or a terminal (port unused).
  struct link_end {
    bool terminal = false;
    uint32_t id = 0;  // router or terminal
    uint32_t port = 0;
  };
  std::vector<std::pair<link_end, link_end>> link_ends;  // [link] -> (from, to)
  std::unique_ptr<tlm_net::null_endpoint> unconnected;
  // The offload families the algorithm needs, with the blocks each attached.
  std::vector<std::unique_ptr<offload_instance>> offloads;

 private:
  tlm_net::link& make_link(const std::string& name, const tlm_net::link_params& params,
                           link_end from, link_end to);
  void make_traffic(const scenario& s, const network::topology& topo,
                    const network::placement& place, const hw::collective_progress& progress);
  void set_faults(const scenario& s);

  const network::topology& m_topo;
  std::vector<std::vector<network::terminal_id>> m_destinations;  // generators' lists
};

}  // namespace bcastsim::tb
