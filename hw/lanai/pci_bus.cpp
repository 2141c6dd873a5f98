#include "hw/lanai/pci_bus.h"

#include <cmath>
#include <ostream>
#include <stdexcept>

namespace bcastsim::hw::lanai {

namespace {
const char* name_of(pci_direction d) {
  return d == pci_direction::to_nic ? "to_nic" : "to_host";
}
}  // namespace

void pci_bus::check(const pci_params& params) {
  if (params.width_bytes == 0) {
    throw std::invalid_argument("lanai.pci_width_bytes = 0: a bus moves at least 1 B a cycle");
  }
  if (params.burst_bytes == 0) {
    throw std::invalid_argument("lanai.pci_burst_bytes = 0: a burst moves at least 1 B");
  }
  if (!(params.clock_mhz > 0)) {
    throw std::invalid_argument("lanai.pci_clock_mhz must be > 0");
  }
}

pci_bus::pci_bus(const sc_core::sc_module_name& name, const pci_params& params, pci_client& client)
    : sc_core::sc_module(name), m_params(params), m_client(client) {
  check(params);
  m_cycle_ps = 1e6 / params.clock_mhz;
  SC_METHOD(on_wakeup);
  sensitive << m_wakeup;
  dont_initialize();
  m_stats.declare("bytes_to_nic", "B", "bytes the NIC read from host memory (sends)", bytes_to_nic);
  m_stats.declare("bytes_to_host", "B", "bytes the NIC wrote into host memory (receives)",
                  bytes_to_host);
  m_stats.declare("dmas", "", "DMA transfers completed", dmas);
  m_stats.declare("bursts", "", "bus tenures (bursts)", bursts);
  m_stats.declare("busy_ps", "ps", "time the bus was held", busy_ps);
  m_stats.declare("queue_peak", "", "most DMAs waiting at once", queue_peak, tlm_net::combine::max);
}

sc_core::sc_time pci_bus::burst_time(pci_direction d, uint64_t bytes) const {
  uint64_t cycles =
      m_params.burst_overhead_cycles + (bytes + m_params.width_bytes - 1) / m_params.width_bytes;
  if (d == pci_direction::to_nic) cycles += m_params.read_latency_cycles;
  // Rounded once per burst, to the picosecond: deterministic on every machine.
  return sc_core::sc_time(std::round(static_cast<double>(cycles) * m_cycle_ps), sc_core::SC_PS);
}

void pci_bus::dma(pci_direction d, uint64_t bytes, uint64_t id) {
  m_waiting[static_cast<uint8_t>(d)].push({bytes, id});
  const uint64_t waiting = m_waiting[0].size() + m_waiting[1].size();
  if (waiting > queue_peak.value) queue_peak.value = waiting;
  if (!m_busy) start_burst();
}

void pci_bus::start_burst() {
  for (uint8_t k = 0; k < 2; ++k) {
    const uint8_t d = static_cast<uint8_t>((m_next_dir + k) % 2);
    if (m_waiting[d].empty()) continue;
    m_next_dir = static_cast<uint8_t>((d + 1) % 2);
    m_burst_dir = static_cast<pci_direction>(d);
    const uint64_t left = m_waiting[d].front().bytes_left;
    m_burst_bytes = left < m_params.burst_bytes ? left : m_params.burst_bytes;
    m_busy = true;
    const sc_core::sc_time t = burst_time(m_burst_dir, m_burst_bytes);
    busy_ps += t.value();
    ++bursts;
    m_wakeup.notify(t);
    return;
  }
}

void pci_bus::on_wakeup() {
  // The burst on the bus has ended.
  const uint8_t d = static_cast<uint8_t>(m_burst_dir);
  transfer& t = m_waiting[d].front();
  t.bytes_left -= m_burst_bytes;
  (m_burst_dir == pci_direction::to_nic ? bytes_to_nic : bytes_to_host) += m_burst_bytes;
  m_busy = false;
  if (t.bytes_left == 0) {
    const uint64_t id = t.id;
    m_waiting[d].pop();
    ++dmas;
    m_client.on_dma_done(m_burst_dir, id);  // may queue another DMA (starting a burst)
  }
  if (!m_busy) start_burst();
}

bool pci_bus::idle() const {
  return !m_busy && m_waiting[0].empty() && m_waiting[1].empty();
}

bool pci_bus::describe_stall(std::ostream& os) const {
  if (idle()) return false;
  os << name() << ": " << m_waiting[0].size() << " DMA(s) to the NIC and " << m_waiting[1].size()
     << " to the host waiting";
  if (m_busy) os << "; a " << m_burst_bytes << "-B burst " << name_of(m_burst_dir) << " on the bus";
  return true;
}

}  // namespace bcastsim::hw::lanai
