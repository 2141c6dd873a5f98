// The LANai NIC's waveform mirror and stall diagnosis (nic.h).
#include "hw/lanai/nic.h"

#include <ostream>
#include <sstream>

namespace bcastsim::hw::lanai {

// The waveform mirror, after anything that changes it: this process's actions and the PCI
// bus's completions (which run in the bus's process, not here).
void nic::sample_trace() {
  if (!m_trace->window.active(sc_core::sc_time_stamp())) return;
  trace_mirror& m = *m_trace;
  m.cpu_busy = m_cpu_busy;
  m.tasks = m_tasks.size();
  m.free_send_buffers = static_cast<uint32_t>(m_free_send.size());
  m.free_recv_buffers = m_free_recv_buffers;
  m.rx_wait = m_rx_wait.size();
  m.out_queue = m_out.size();
  m.pci_idle = m_pci->idle();
}

bool nic::idle() const {
  return m_events.empty() && m_token_wait.empty() && m_out.empty() && m_tasks.empty() &&
         !m_cpu_busy && m_rx_wait.empty() && m_partial.empty() && m_pci->idle() &&
         m_free_rx_dmas.size() == m_rx_dmas.size() && gossip_idle();
}

bool nic::describe_stall(std::ostream& os) const {
  if (idle()) return false;
  os << "  " << name() << ": " << m_events.size() << " host messages not yet acknowledged ("
     << m_token_wait.size() << " more waiting for a send token), " << m_recv_tokens << "/"
     << m_params.recv_tokens << " receive tokens, " << m_free_send.size() << "/"
     << m_params.send_buffers << " send buffers free, " << m_free_recv_buffers << "/"
     << m_params.recv_buffers << " receive buffers free (" << m_rx_wait.size()
     << " packets waiting for one), " << m_tasks.size() << " LANai tasks queued"
     << (m_cpu_busy ? " (busy)" : "") << ", " << m_out.size() << " packets to inject (VC 0 credits "
     << m_inject.credits(0, sc_core::sc_time_stamp()) << " bytes)";
  std::ostringstream pci;
  if (m_pci->describe_stall(pci)) os << "; " << pci.str();
  gossip_stall(os);
  os << "\n";
  return true;
}

void nic::trace(const tlm_net::trace_window& window, const std::string& prefix) {
  m_trace = std::make_unique<trace_mirror>();
  m_trace->window = window;
  trace_mirror& m = *m_trace;
  tlm_net::trace_signals sig(window, prefix, "LANai NIC of terminal " + std::to_string(m_terminal));
  sig.add(m.cpu_busy, "lanai.busy");
  sig.add(m.tasks, "lanai.tasks_queued");
  sig.add(m.free_send_buffers, "sram.free_send_buffers");
  sig.add(m.free_recv_buffers, "sram.free_recv_buffers");
  sig.add(m.rx_wait, "rx.waiting_packets");
  sig.add(m.out_queue, "tx.queued_packets");
  sig.add(m.pci_idle, "pci.idle");
}

}  // namespace bcastsim::hw::lanai
