#include "hw/router/separable_allocator.h"

#include <algorithm>

namespace bcastsim::hw {

separable_allocator::separable_allocator(uint32_t inputs, uint32_t vcs, uint32_t outputs)
    : m_vcs(vcs),
      m_inputs(inputs, input_state{round_robin_arbiter(vcs)}),
      m_output_arbiters(outputs, round_robin_arbiter(inputs)),
      m_picked_by(inputs),
      m_picked_count(outputs, 0),
      m_picked_end(outputs, 0) {
  m_active_inputs.reserve(inputs);
  m_picked_outputs.reserve(outputs);
  m_grants.reserve(std::min(inputs, outputs));
}

const std::vector<separable_allocator::grant>& separable_allocator::allocate() {
  m_grants.clear();
  if (m_active_inputs.empty()) return m_grants;
  if (!m_active_sorted) std::sort(m_active_inputs.begin(), m_active_inputs.end());

  // Input stage (the picks were made as the requests came): each input requests the output
  // of its pick. Scanning inputs upward lists the outputs by their lowest requesting input,
  // and each output's inputs upward.
  for (const uint32_t i : m_active_inputs) {
    const uint32_t o = m_inputs[i].pick_output;
    if (m_picked_count[o]++ == 0) m_picked_outputs.push_back(o);
  }
  uint32_t at = 0;
  for (const uint32_t o : m_picked_outputs) {
    m_picked_end[o] = at;  // filled upward from here
    at += m_picked_count[o];
  }
  for (const uint32_t i : m_active_inputs) {
    const uint32_t o = m_inputs[i].pick_output;
    m_picked_by[m_picked_end[o]++] = i;
  }

  // Output stage: each picked output grants the input nearest its pointer.
  for (const uint32_t o : m_picked_outputs) {
    const uint32_t* last = m_picked_by.data() + m_picked_end[o];
    const uint32_t* first = last - m_picked_count[o];
    m_picked_count[o] = 0;
    round_robin_arbiter& out_arbiter = m_output_arbiters[o];
    grant g;
    g.input = out_arbiter.pick(first, last);
    g.vc = m_inputs[g.input].pick_vc;
    g.output = o;
    for (const uint32_t* i = first; i != last; ++i) {
      if (*i == g.input) continue;
      if (m_inputs[*i].requests > 1) {
        g.losers_with_other_requests = true;
      } else {
        g.losers_without_other_requests = true;
      }
    }
    out_arbiter.update(g.input);
    m_inputs[g.input].arbiter.update(g.vc);
    m_grants.push_back(g);
  }

  for (const uint32_t i : m_active_inputs) m_inputs[i].requests = 0;
  m_active_inputs.clear();
  m_active_sorted = true;
  m_picked_outputs.clear();
  return m_grants;
}

}  // namespace bcastsim::hw
