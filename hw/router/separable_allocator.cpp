#include "hw/router/separable_allocator.h"

#include <algorithm>

namespace bcastsim::hw {

separable_allocator::separable_allocator(uint32_t inputs, uint32_t vcs, uint32_t outputs,
                                         uint32_t iterations)
    : m_vcs(vcs),
      m_iterations(iterations < 1 ? 1 : iterations),
      m_inputs(inputs, input_state{round_robin_arbiter(vcs)}),
      m_output_arbiters(outputs, round_robin_arbiter(inputs)),
      m_picked_by(inputs),
      m_picked_count(outputs, 0),
      m_picked_end(outputs, 0) {
  m_active_inputs.reserve(inputs);
  m_picked_outputs.reserve(outputs);
  m_grants.reserve(std::min(inputs, outputs));
  if (m_iterations > 1) {
    m_request_output.assign(size_t{inputs} * vcs, no_output);
    m_input_matched.assign(inputs, 0);
    m_output_matched.assign(outputs, 0);
  }
}

const std::vector<separable_allocator::grant>& separable_allocator::allocate() {
  m_grants.clear();
  if (m_active_inputs.empty()) return m_grants;
  if (!m_active_sorted) std::sort(m_active_inputs.begin(), m_active_inputs.end());

  match(true);
  for (uint32_t pass = 1; pass < m_iterations && repick(); ++pass) match(false);

  for (const uint32_t i : m_active_inputs) {
    m_inputs[i].requests = 0;
    if (m_iterations > 1) {
      std::fill_n(m_request_output.begin() + size_t{i} * m_vcs, m_vcs, no_output);
      m_input_matched[i] = 0;
    }
  }
  if (m_iterations > 1) {
    for (const grant& g : m_grants) m_output_matched[g.output] = 0;
  }
  m_active_inputs.clear();
  m_active_sorted = true;
  return m_grants;
}

void separable_allocator::match(bool first) {
  // Input stage (the picks were made as the requests came, or by repick()): each input
  // requests the output of its pick. Scanning inputs upward lists the outputs by their
  // lowest requesting input, and each output's inputs upward.
  const bool later = !first;
  for (const uint32_t i : m_active_inputs) {
    if (later && (m_input_matched[i] || m_inputs[i].requests == 0)) continue;
    const uint32_t o = m_inputs[i].pick_output;
    if (m_picked_count[o]++ == 0) m_picked_outputs.push_back(o);
  }
  uint32_t at = 0;
  for (const uint32_t o : m_picked_outputs) {
    m_picked_end[o] = at;  // filled upward from here
    at += m_picked_count[o];
  }
  for (const uint32_t i : m_active_inputs) {
    if (later && (m_input_matched[i] || m_inputs[i].requests == 0)) continue;
    const uint32_t o = m_inputs[i].pick_output;
    m_picked_by[m_picked_end[o]++] = i;
  }

  // Output stage: each picked output grants the input nearest its pointer.
  for (const uint32_t o : m_picked_outputs) {
    const uint32_t* last = m_picked_by.data() + m_picked_end[o];
    const uint32_t* first_in = last - m_picked_count[o];
    m_picked_count[o] = 0;
    round_robin_arbiter& out_arbiter = m_output_arbiters[o];
    grant g;
    g.input = out_arbiter.pick(first_in, last);
    g.vc = m_inputs[g.input].pick_vc;
    g.output = o;
    if (first) {
      for (const uint32_t* i = first_in; i != last; ++i) {
        if (*i == g.input) continue;
        if (m_inputs[*i].requests > 1) {
          g.losers_with_other_requests = true;
        } else {
          g.losers_without_other_requests = true;
        }
      }
      out_arbiter.update(g.input);
      m_inputs[g.input].arbiter.update(g.vc);
    }
    if (m_iterations > 1) {
      m_input_matched[g.input] = 1;
      m_output_matched[o] = 1;
    }
    m_grants.push_back(g);
  }
  m_picked_outputs.clear();
}

bool separable_allocator::repick() {
  bool any = false;
  for (const uint32_t i : m_active_inputs) {
    if (m_input_matched[i]) continue;
    input_state& s = m_inputs[i];
    const uint32_t* want = m_request_output.data() + size_t{i} * m_vcs;
    uint32_t best = no_output;
    for (uint32_t vc = 0; vc < m_vcs; ++vc) {
      if (want[vc] == no_output || m_output_matched[want[vc]]) continue;
      if (best == no_output || s.arbiter.nearer(vc, best)) best = vc;
    }
    if (best == no_output) {
      s.requests = 0;  // nothing left for this input this round
      continue;
    }
    s.pick_vc = best;
    s.pick_output = want[best];
    any = true;
  }
  return any;
}

}  // namespace bcastsim::hw
