#include "tlm/credit_output.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace bcastsim::tlm_net {

void credit_output::init(const char* owner, uint32_t vcs, uint32_t capacity_bytes) {
  m_owner = owner;
  m_capacity_bytes = capacity_bytes;
  if (vcs > UINT16_MAX) throw std::invalid_argument(std::string(owner) + ": too many VCs");
  m_vcs = static_cast<uint16_t>(vcs);
  m_inline.fill(capacity_bytes);
  m_more.assign(vcs > inline_vcs ? vcs : 0, capacity_bytes);
  m_pending = ring<pending_credit>();
  m_busy_until = sc_core::SC_ZERO_TIME;
  m_link = nullptr;
  m_waiter = false;
}

uint32_t credit_output::credits(uint32_t vc, const sc_core::sc_time& now) const {
  uint32_t c = credit(vc);
  for (uint32_t k = 0; k < m_pending.size() && m_pending.at(k).when <= now; ++k) {
    if (m_pending.at(k).vc == vc) c += m_pending.at(k).bytes;
  }
  return c;
}

uint32_t credit_output::occupancy_bytes(const sc_core::sc_time& now) const {
  uint32_t used = 0;
  for (uint32_t vc = 0; vc < vcs(); ++vc) used += m_capacity_bytes - credits(vc, now);
  return used;
}

uint32_t credit_output::unreturned_bytes() const {
  uint32_t spent = 0;
  for (uint32_t vc = 0; vc < m_vcs; ++vc) spent += m_capacity_bytes - credit(vc);
  for (uint32_t k = 0; k < m_pending.size(); ++k) spent -= m_pending.at(k).bytes;
  return spent;
}

bool credit_output::on_credit(const sc_core::sc_time& when, uint8_t vc, uint32_t bytes) {
  if (vc >= vcs()) {
    SC_REPORT_ERROR(m_owner, "credit returned for a VC the output does not have");
    return false;
  }
  m_pending.push(pending_credit{when, vc, bytes});
  // Keep the queue sorted by time; equal times stay in arrival order.
  for (uint32_t k = m_pending.size() - 1; k > 0 && m_pending.at(k - 1).when > when; --k) {
    std::swap(m_pending.at(k - 1), m_pending.at(k));
  }
  const bool waiter = m_waiter;
  m_waiter = false;
  return waiter;
}

void credit_output::apply(const pending_credit& c) {
  uint32_t& credits = credit(c.vc);
  credits += c.bytes;
  if (credits > m_capacity_bytes) {
    SC_REPORT_ERROR(m_owner, "credit protocol violated: more credits returned than were spent");
  }
}

}  // namespace bcastsim::tlm_net
