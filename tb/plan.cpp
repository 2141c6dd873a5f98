#include "tb/plan.h"

#include "algorithms/registry.h"
#include "algorithms/verify.h"
#include "network/topology_kind.h"
#include "tb/fault_links.h"
#include "tb/simulation.h"
#include "tlm/units.h"

#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace bcastsim::tb {

namespace {

// The terminal links' rates a topology brings itself (a graph file's terminal_link, e.g. a
// Myrinet written by `bcastsim graph`), where the scenario does not set them: the kind's
// defaults would otherwise replace them. A key given wins, each on its own.
void apply_terminal_rates(scenario& s, const network::topology& topo) {
  const network::link_class_rates* r = topo.class_rates(network::terminal_class);
  if (!r) return;
  const auto& given = s.cfg.given();
  tlm_net::link_params& lp = s.links[network::terminal_class];
  if (!given.count("link.terminal.bandwidth_gib_per_s")) {
    lp.bandwidth_gib_per_s = r->bandwidth_gib_per_s;
    s.cfg.set("link.terminal.bandwidth_gib_per_s", params::format_real(r->bandwidth_gib_per_s));
  }
  if (!given.count("link.terminal.latency_ns")) {
    lp.latency_ns = r->latency_ns;
    s.cfg.set("link.terminal.latency_ns", params::format_real(r->latency_ns));
  }
  if (!given.count("router.vc_buffer_bytes.terminal")) {
    if (r->vc_buffer_bytes < s.nic.packet_bytes) {
      throw config_error("topology.file",
                         "the terminal_link vc_buffer_bytes of " + topo.describe() + " (" +
                             std::to_string(r->vc_buffer_bytes) +
                             ") cannot hold one packet (network.packet_bytes = " +
                             std::to_string(s.nic.packet_bytes) + "); allowed: at least " +
                             std::to_string(s.nic.packet_bytes));
    }
    // As make_scenario derives them from the key.
    s.router.vc_buffer_bytes[network::terminal_class] = r->vc_buffer_bytes;
    s.nic.inject_buffer_bytes = r->vc_buffer_bytes;
    s.nic.codes_issue_window_bytes = 2 * r->vc_buffer_bytes;
    s.nic.eject_buffer_bytes = r->vc_buffer_bytes;
    s.cfg.set("router.vc_buffer_bytes.terminal", std::to_string(r->vc_buffer_bytes));
  }
}

// Link parameters and VC buffers of the classes a topology brings beyond its kind's
// declared ones (a graph file's), from the topology's own rates.
void complete_link_classes(scenario& s, const network::topology& topo) {
  apply_terminal_rates(s, topo);
  const uint32_t packet = s.nic.packet_bytes;
  for (network::link_class c = static_cast<network::link_class>(s.links.size());
       c < topo.num_link_classes(); ++c) {
    const network::link_class_rates* r = topo.class_rates(c);
    if (!r) {
      throw config_error("topology.file", "link class " + topo.class_name(c) + " of " +
                                              topo.describe() +
                                              " has no rates; allowed: a class with "
                                              "bandwidth_gib_per_s, latency_ns and "
                                              "vc_buffer_bytes");
    }
    tlm_net::link_params lp = s.links.front();
    lp.cls = c;
    lp.bandwidth_gib_per_s = r->bandwidth_gib_per_s;
    lp.latency_ns = r->latency_ns;
    s.links.push_back(lp);
    if (r->vc_buffer_bytes < packet) {
      throw config_error(
          "topology.file",
          "the vc_buffer_bytes of link class " + topo.class_name(c) + " (" +
              std::to_string(r->vc_buffer_bytes) +
              ") cannot hold one packet (network.packet_bytes = " + std::to_string(packet) +
              "); allowed: at least " + std::to_string(packet));
    }
    s.router.vc_buffer_bytes.push_back(r->vc_buffer_bytes);
  }
  if (topo.num_link_classes() > network::max_link_classes) {
    throw config_error("topology.file", topo.describe() + " has " +
                                            std::to_string(topo.num_link_classes()) +
                                            " link classes; allowed: at most " +
                                            std::to_string(network::max_link_classes));
  }
}

// Packet indices and counts are 32-bit (tlm_net::packet); a message must fit. No message of a
// broadcast is longer than the collective buffer; traffic.message_bytes is limited lower.
void check_packets_per_message(const scenario& s, const algorithms::program& prog) {
  const uint64_t max_packets = std::numeric_limits<uint32_t>::max();
  for (const algorithms::instance_info& inst : prog.instances) {
    const uint64_t packets = (inst.buffer_bytes + s.nic.packet_bytes - 1) / s.nic.packet_bytes;
    if (packets <= max_packets) continue;
    const std::string key = s.collective_keys[inst.collective] + ".bytes";
    throw config_error(
        key,
        key + " = " + std::to_string(s.collectives[inst.collective].bytes) + " makes a buffer of " +
            std::to_string(packets) + " packets of network.packet_bytes = " +
            std::to_string(s.nic.packet_bytes) + "; allowed: at most " +
            std::to_string(max_packets) + " packets per message (a buffer up to " +
            std::to_string(max_packets * s.nic.packet_bytes) + " bytes with this packet size)");
  }
}

std::string plain(double v) {
  std::ostringstream os;
  os << std::setprecision(4) << v;
  return os.str();
}

// Background traffic offered far beyond what a terminal link can ever carry only fills the
// source queues and drops, at one event per arrival: 0.001 ns between 1 KiB messages would
// take days to simulate. Refused beyond this factor of the link's bandwidth.
constexpr double max_background_overload = 10.0;

void check_background_load(const scenario& s) {
  if (s.traffic.kind != "background") return;
  const double bytes_per_ns =
      units::bytes_per_ns(s.links[network::terminal_class].bandwidth_gib_per_s);
  const double offered = static_cast<double>(s.traffic.message_bytes) /
                         (s.traffic.mean_interarrival_ns * bytes_per_ns);
  if (offered > max_background_overload) {
    const double min_ns =
        static_cast<double>(s.traffic.message_bytes) / (max_background_overload * bytes_per_ns);
    throw config_error(
        "traffic.mean_interarrival_ns",
        "traffic.mean_interarrival_ns = " + plain(s.traffic.mean_interarrival_ns) + " offers " +
            plain(offered) + " times what a terminal link carries (traffic.message_bytes = " +
            std::to_string(s.traffic.message_bytes) + "); allowed: at least " + plain(min_ns) +
            " (at most " + plain(max_background_overload) + " times the link)");
  }
}

}  // namespace

// Pure C++ stages: anything wrong here is bad input (config_error,
// exit 2).
plan make_plan(scenario& s) {
  plan p;
  const network::topology_kind& kind = network::find_topology_kind(s.topology_kind);
  try {
    p.topo = kind.make(s.cfg);
  } catch (const network::topology_error& e) {
    throw config_error(e.key, e.what());
  }
  complete_link_classes(s, *p.topo);
  try {
    p.routing = kind.make_routing(network::resolve_routing(kind, s.routing), *p.topo);
  } catch (const std::invalid_argument& e) {
    throw config_error("routing.kind", e.what());
  }
  if (s.router.vcs < p.routing->min_vcs()) {
    throw config_error("router.vcs", "router.vcs = " + std::to_string(s.router.vcs) +
                                         " is too few for " + s.routing +
                                         " routing; allowed: at least " +
                                         std::to_string(p.routing->min_vcs()));
  }
  try {
    p.place = std::make_unique<network::placement>(*p.topo, s.job);
  } catch (const std::invalid_argument& e) {
    throw config_error("job.ranks", e.what());
  }
  check_background_load(s);
  parse_drop_packets(s.fault_drop_packet, *p.topo);  // the fabric applies it; refused alike
  // Adversarial traffic sends group i to group i + 1: one group would send to itself, which
  // is uniform traffic under another name.
  if (s.traffic.kind == "adversarial" && p.topo->num_groups() < 2) {
    throw config_error("traffic.kind",
                       "traffic.kind = adversarial sends every group's "
                       "terminals to the next group's, but " +
                           p.topo->describe() + " has one group; allowed: uniform, background");
  }
  if (s.algorithm == "none") return p;  // synthetic traffic only: no schedule, no hosts
  try {
    // ragasa.relay shapes the hosts' part of Ragasa's broadcasts (algorithms/registry.h).
    const algorithms::ragasa_relay relay = s.cfg.text("ragasa.relay") == "unit"
                                               ? algorithms::ragasa_relay::unit
                                               : algorithms::ragasa_relay::node;
    // tofu2.* shape Tofu2's broadcasts (algorithms/tofu2_bcast.h).
    algorithms::tofu2_options tofu2;
    tofu2.offload = s.cfg.text("tofu2.mode") == "offload";
    tofu2.segments = static_cast<uint32_t>(s.cfg.uint("tofu2.segments"));
    tofu2.build_ns_per_descriptor = s.cfg.real("tofu2.build_ns_per_descriptor");
    p.prog =
        algorithms::make_program(s.collectives, *p.topo, *p.place, s.collective_keys, relay, tofu2);
  } catch (const algorithms::program_error& e) {
    throw config_error(e.key, e.what());
  } catch (const std::logic_error& e) {
    throw simulation_failure(e.what());  // an algorithm produced an invalid schedule
  }
  check_packets_per_message(s, p.prog);
  return p;
}

}  // namespace bcastsim::tb
