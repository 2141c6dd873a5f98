#include "tlm/packet_pool.h"

#include <systemc>

namespace bcastsim::tlm_net {

void packet_pool::grow() {
  m_chunks.emplace_back(new packet[m_chunk]);
  packet* chunk = m_chunks.back().get();
  for (uint32_t i = 0; i < m_chunk; ++i) {
    chunk[i].m_next_free = m_free;
    m_free = &chunk[i];
  }
  m_capacity += m_chunk;
}

packet* packet_pool::acquire() {
  if (!m_free) grow();
  packet* p = m_free;
  m_free = p->m_next_free;
  p->reset();
  ++m_in_use;
  ++m_acquired;
  if (m_in_use > m_peak) m_peak = m_in_use;
  return p;
}

void packet_pool::release(packet* p) {
  if (m_in_use == 0) SC_REPORT_ERROR("bcastsim/packet_pool", "release without acquire");
  p->m_next_free = m_free;
  m_free = p;
  --m_in_use;
}

}  // namespace bcastsim::tlm_net
