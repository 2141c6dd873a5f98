#include "hw/tofu2/driver.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>

namespace bcastsim::hw::tofu2 {

using algorithms::op_kind;

driver::driver(host& h, const driver_params& params, std::vector<driver_request> requests,
               uint32_t contexts)
    : m_host(h),
      m_params(params),
      m_requests(std::move(requests)),
      m_where(contexts, where{UINT32_MAX, 0}) {
  m_rounds.resize(m_requests.size());
  m_times.resize(m_requests.size());
  for (uint32_t r = 0; r < m_requests.size(); ++r) {
    const driver_request& req = m_requests[r];
    m_rounds[r].resize(req.contexts.size());
    m_times[r].resize(req.contexts.size());
    for (uint32_t k = 0; k < req.contexts.size(); ++k) m_where[req.contexts[k]] = where{r, k};
  }
}

uint32_t driver::own_puts(const driver_request& r) const {
  uint32_t n = 0;
  for (const driver_request::queue& q : r.queues) n += static_cast<uint32_t>(q.commands.size());
  return n;
}

void driver::call(uint32_t index, const algorithms::op& o) {
  const where w = locate(o.context);
  if (w.request == UINT32_MAX) {
    throw std::logic_error("tofu2 driver: a persistent call of a collective it does not run");
  }
  const driver_request& req = m_requests[w.request];
  const double puts = own_puts(req);
  double cost = m_params.call_ns;
  call_times& t = m_times[w.request][w.round];
  const uint64_t now = sc_core::sc_time_stamp().value();
  switch (o.kind) {
    case op_kind::offload_init:
      t.init_called = now;
      cost += m_params.register_ns + m_params.build_ns_per_descriptor * puts;
      if (!req.root) cost += m_params.enqueue_ns_per_descriptor * puts;
      break;
    case op_kind::offload_start:
      t.start_called = now;
      if (req.root) t.data_in = now;
      if (req.root || w.round > 0) cost += m_params.enqueue_ns_per_descriptor * puts;
      break;
    case op_kind::offload_wait: {
      t.wait_called = std::max<uint64_t>(now, m_host.cpu_free().value());
      round_state& rs = m_rounds[w.request][w.round];
      rs.wait_op = index;
      check_wait(w.request, w.round);
      return;
    }
    default:
      break;
  }
  m_host.finish_call(index, m_host.spend_cpu(cost));
}

// The descriptors the CPU wrote during the call become visible to the TNIs now.
void driver::returned(uint32_t, const algorithms::op& o) {
  const where w = locate(o.context);
  const driver_request& req = m_requests[w.request];
  call_times& t = m_times[w.request][w.round];
  const uint64_t now = sc_core::sc_time_stamp().value();
  switch (o.kind) {
    case op_kind::offload_init:
      t.init_returned = now;
      if (!req.root) enqueue_round(w.request, 0);
      break;
    case op_kind::offload_start:
      t.start_returned = now;
      if (req.root || w.round > 0) enqueue_round(w.request, w.round);
      break;
    case op_kind::offload_wait:
      t.wait_returned = now;
      break;
    case op_kind::offload_free:
      for (const driver_request::queue& q : req.queues) q.engine->reset_queue(q.number);
      break;
    default:
      break;
  }
}

void driver::enqueue_round(uint32_t request, uint32_t round) {
  const driver_request& req = m_requests[request];
  for (uint32_t q = 0; q < req.queues.size(); ++q) {
    if (!req.queues[q].commands.empty()) m_pending.push_back(pending{request, q, round, 0});
  }
  drain_pending();
}

// Enqueues in order; stops at a full TOQ (a slot frees when a put of that queue is done).
void driver::drain_pending() {
  size_t k = 0;
  for (; k < m_pending.size(); ++k) {
    pending& p = m_pending[k];
    const driver_request& req = m_requests[p.request];
    const driver_request::queue& q = req.queues[p.queue];
    const uint32_t edata = req.contexts[p.round] + 1;
    while (p.next < q.commands.size()) {
      toq_descriptor d = q.commands[p.next];
      d.edata = edata;
      if (!q.engine->enqueue(q.number, d)) break;
      ++p.next;
    }
    if (p.next < q.commands.size()) break;
  }
  m_pending.erase(m_pending.begin(), m_pending.begin() + static_cast<std::ptrdiff_t>(k));
}

void driver::on_put_done(uint32_t, const toq_descriptor& d) {
  const where w = locate(d.edata - 1);
  ++m_rounds[w.request][w.round].puts_done;
  drain_pending();
  check_wait(w.request, w.round);
}

void driver::on_put_arrived(network::terminal_id, uint32_t edata, uint64_t offset, uint64_t bytes) {
  const uint32_t context = edata - 1;
  m_host.offload_data(context, offset, bytes);
  const where w = locate(context);
  if (w.request == UINT32_MAX) return;  // offload_data reported it
  round_state& rs = m_rounds[w.request][w.round];
  if (++rs.puts_arrived == m_requests[w.request].puts_received) {
    m_times[w.request][w.round].data_in = sc_core::sc_time_stamp().value();
  }
  check_wait(w.request, w.round);
}

void driver::check_wait(uint32_t request, uint32_t round) {
  round_state& rs = m_rounds[request][round];
  const driver_request& req = m_requests[request];
  if (rs.wait_op < 0 || rs.puts_done < own_puts(req) || rs.puts_arrived < req.puts_received) {
    return;
  }
  const auto op = static_cast<uint32_t>(rs.wait_op);
  rs.wait_op = -1;
  // The rank calls MPI_Wait when its CPU is done with the computation it overlapped (booked
  // by now, even if it was not when the wait op started).
  call_times& t = m_times[request][round];
  t.wait_called = std::max<uint64_t>(t.wait_called, m_host.cpu_free().value());
  m_host.finish_call(op, m_host.spend_cpu(m_params.call_ns + m_params.poll_ns));
}

bool driver::idle() const {
  if (!m_pending.empty()) return false;
  for (const auto& rounds : m_rounds) {
    for (const round_state& rs : rounds) {
      if (rs.wait_op >= 0) return false;
    }
  }
  return true;
}

bool driver::describe_stall(std::ostream& os) const {
  bool any = false;
  for (uint32_t r = 0; r < m_rounds.size(); ++r) {
    const driver_request& req = m_requests[r];
    for (uint32_t k = 0; k < m_rounds[r].size(); ++k) {
      const round_state& rs = m_rounds[r][k];
      if (rs.wait_op < 0) continue;
      os << "; MPI_Wait of collective " << req.contexts[k] + 1 << " waits: " << rs.puts_done << "/"
         << own_puts(req) << " puts sent, " << rs.puts_arrived << "/" << req.puts_received
         << " arrived";
      any = true;
    }
  }
  if (!m_pending.empty()) {
    os << "; " << m_pending.size() << " queue(s) wait for TOQ slots";
    any = true;
  }
  return any;
}

}  // namespace bcastsim::hw::tofu2
