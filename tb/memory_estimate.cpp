#include "tb/memory_estimate.h"

#include "network/params.h"
#include "network/topology_kind.h"

#include <systemc>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <new>

namespace bcastsim::tb {

namespace {

// Bytes per terminal (its NIC, host and placement entry) and per router port (its buffers,
// links and routing state), and a fixed base. Measured as peak RSS, rounded up: `run` of 1 KiB
// broadcasts on dragonflies with 16,512 and 262,656 terminals (350 and 5,394 MiB, about 21 KiB
// per terminal with its share of ports) and a 4x4x4 torus with 3,072 (74 MiB), since links
// are passive parts (they were 30-34 KiB per terminal as modules); `analyze` of dragonflies
// with 16,512 and 262,656 terminals (about 550 bytes per terminal with its share of ports).
struct unit_costs {
  double per_terminal;
  double per_port;
  double base;
};
constexpr unit_costs simulate_costs{15 * 1024.0, 2 * 1024.0, 32 * 1048576.0};
constexpr unit_costs analyze_costs{400, 40, 16 * 1048576.0};

std::string memory_text(double bytes) {
  char buf[32];
  if (bytes < 1073741824.0) {  // 0.0 GiB would say nothing
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
  }
  return buf;
}

std::string count(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

// The kind's size keys with their values: "topology.a = 64, topology.p = 64, ...".
std::string size_keys(const config& cfg, const network::topology_kind& kind) {
  std::string keys;
  for (const params::decl& k : kind.params) {
    if (k.type != params::value_type::uint) continue;
    keys += (keys.empty() ? "" : ", ") + k.key + " = " + cfg.text(k.key);
  }
  return keys;
}

// Synthetic traffic keeps a latency sample (8 bytes) per packet delivered in the measurement
// window: terminals x packets per message x messages per terminal, with the generators' 1.2
// margin (tb/fabric.cpp). A window of 10^15 ns asks for petabytes.
double traffic_sample_bytes(const config& cfg, double terminals) {
  const std::string& kind = cfg.text("traffic.kind");
  if (kind != "uniform" && kind != "adversarial") return 0;
  const double bytes_per_ns = cfg.real("link.terminal.bandwidth_gib_per_s") * 1.073741824;
  const double message_bytes = cfg.real("traffic.message_bytes");
  const double interarrival_ns = message_bytes / (cfg.real("traffic.load") * bytes_per_ns);
  const double packets = std::ceil(message_bytes / cfg.real("network.packet_bytes"));
  return terminals * 1.2 * packets * cfg.real("traffic.measure_ns") / interarrival_ns * 8.0;
}

}  // namespace

double estimate_memory_bytes(const config& cfg, memory_use use) {
  const network::topology_kind& kind = network::find_topology_kind(cfg.kind());
  if (!kind.estimate_size) return 0;
  const network::topology_kind::size_estimate size = kind.estimate_size(cfg);
  const unit_costs& c = use == memory_use::simulate ? simulate_costs : analyze_costs;
  const double traffic =
      use == memory_use::simulate ? traffic_sample_bytes(cfg, size.terminals) : 0;
  return c.base + size.terminals * c.per_terminal + size.ports * c.per_port + traffic;
}

double memory_limit_bytes(const config& cfg) {
  const double given_gib = cfg.real("sim.max_memory_gib");
  if (given_gib > 0) return given_gib * 1073741824.0;
  return default_memory_limit_bytes();
}

double default_memory_limit_bytes() {
  double machine = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    machine = std::min(machine, static_cast<double>(as.rlim_cur));
  }
  return machine * 0.75;
}

void check_memory(const config& cfg, memory_use use) {
  const double need = estimate_memory_bytes(cfg, use);
  const double limit = memory_limit_bytes(cfg);
  if (need <= limit) return;
  const network::topology_kind& kind = network::find_topology_kind(cfg.kind());
  const network::topology_kind::size_estimate size = kind.estimate_size(cfg);
  const bool given = cfg.real("sim.max_memory_gib") > 0;
  const std::string allowed =
      "; allowed: at most " + memory_text(limit) +
      (given ? " (sim.max_memory_gib)"
             : " (sim.max_memory_gib = 0: 3/4 of the memory this process may use)");
  const double traffic =
      use == memory_use::simulate ? traffic_sample_bytes(cfg, size.terminals) : 0;
  if (traffic > need / 2) {  // the traffic's window, not the topology, is what is too large
    throw config_error("traffic.measure_ns",
                       "traffic.measure_ns = " + cfg.text("traffic.measure_ns") +
                           " keeps a latency sample per packet of " + count(size.terminals) +
                           " terminals: about " + memory_text(traffic) + " of samples" + allowed +
                           "; a shorter window, a lower traffic.load or larger messages");
  }
  throw config_error("sim.max_memory_gib",
                     size_keys(cfg, kind) + " (" + count(size.routers) + " routers, " +
                         count(size.terminals) + " terminals) would need about " +
                         memory_text(need) + " to " +
                         (use == memory_use::simulate ? "simulate" : "analyze") + allowed +
                         "; a smaller topology, or a larger sim.max_memory_gib to try anyway");
}

void limit_memory(const config& cfg) {
  limit_address_space(memory_limit_bytes(cfg));
}

#if defined(__SANITIZE_ADDRESS__)
void limit_address_space(double) {}
#else
void limit_address_space(double budget_bytes) {
  // The budget is for growth: the libraries and SystemC mapped so far do not count.
  double mapped = 0;
  std::ifstream statm("/proc/self/statm");
  if (!(statm >> mapped)) return;
  mapped *= static_cast<double>(sysconf(_SC_PAGESIZE));
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) != 0) return;
  const double want = mapped + budget_bytes;
  if (as.rlim_cur != RLIM_INFINITY && static_cast<double>(as.rlim_cur) <= want) return;
  if (want >= static_cast<double>(RLIM_INFINITY)) return;
  as.rlim_cur = static_cast<rlim_t>(want);
  if (as.rlim_max != RLIM_INFINITY) as.rlim_cur = std::min(as.rlim_cur, as.rlim_max);
  setrlimit(RLIMIT_AS, &as);
}
#endif

bool is_out_of_memory(const sc_core::sc_report& report) {
  return std::string(report.get_msg()) == std::bad_alloc().what();
}

std::string out_of_memory_message() {
  return "out of memory: the scenario needs more than this process may use "
         "(sim.max_memory_gib, default 3/4 of the machine, or a ulimit); make the topology, "
         "job or collective smaller, or allow more";
}

}  // namespace bcastsim::tb
