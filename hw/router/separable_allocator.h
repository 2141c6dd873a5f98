// The router's switch allocator: separable, input first, with round-robin arbiters.
//
// Each round the router offers every (input, VC) whose head could leave now (request()),
// then allocate() runs the two stages:
//   input stage   each input picks one of its requesting VCs, the one nearest its VC
//                 arbiter's pointer;
//   output stage  each output that was picked grants one of the inputs that picked it, the
//                 one nearest its input arbiter's pointer.
// Both pointers move past a winner only (round_robin_arbiter::update): an input that loses
// keeps its pick for the next round, so no VC and no input starves. Outputs are granted in
// the order of their lowest requesting input, the order in which the router scans them.
//
// A loser is told apart by whether it had other requests this round: it can try another
// head on the next cycle; otherwise it waits for the output it lost (grant::losers_*).
//
// Iterations (router.alloc_iterations, BookSim's alloc_iters): with more than one, inputs
// left unmatched pick again among their requests for outputs still unmatched, and those
// outputs grant again, up to that many passes a round. Pointers move only on first-pass
// grants, as in iSLIP (McKeown 1999), so later passes fill gaps without changing whose turn
// it is, and the starvation bound above still holds. The losers_* flags describe the first
// pass only.
//
// No allocation after construction: every list is sized for the router's ports.
#pragma once

#include "hw/router/round_robin_arbiter.h"

#include <cstdint>
#include <vector>

namespace bcastsim::hw {

class separable_allocator {
 public:
  struct grant {
    uint32_t input = 0;
    uint32_t vc = 0;
    uint32_t output = 0;
    // Some input that picked this output and lost had another requesting VC this round.
    bool losers_with_other_requests = false;
    // Some input that picked this output and lost had no other request this round.
    bool losers_without_other_requests = false;
  };

  separable_allocator(uint32_t inputs, uint32_t vcs, uint32_t outputs, uint32_t iterations = 1);

  uint32_t inputs() const { return static_cast<uint32_t>(m_inputs.size()); }
  uint32_t vcs() const { return m_vcs; }
  uint32_t outputs() const { return static_cast<uint32_t>(m_output_arbiters.size()); }
  uint32_t iterations() const { return m_iterations; }

  // The head of (input, vc) can leave through `output` now. At most one request per
  // (input, vc) a round; requests may come in any order.
  void request(uint32_t input, uint32_t vc, uint32_t output) {
    input_state& s = m_inputs[input];
    if (m_iterations > 1) m_request_output[input * m_vcs + vc] = output;
    if (s.requests++ == 0) {
      if (!m_active_inputs.empty() && input < m_active_inputs.back()) m_active_sorted = false;
      m_active_inputs.push_back(input);
    } else if (!s.arbiter.nearer(vc, s.pick_vc)) {
      return;
    }
    s.pick_vc = vc;  // the input stage, as the requests come: the VC nearest the pointer
    s.pick_output = output;
  }

  // Requests of `input` this round (before allocate()).
  uint32_t requests(uint32_t input) const { return m_inputs[input].requests; }

  // Runs both stages on this round's requests, moves the winners' pointers and clears the
  // requests. The grants stay valid until the next allocate().
  const std::vector<grant>& allocate();

  const round_robin_arbiter& input_arbiter(uint32_t input) const { return m_inputs[input].arbiter; }
  const round_robin_arbiter& output_arbiter(uint32_t output) const {
    return m_output_arbiters[output];
  }

 private:
  struct input_state {
    round_robin_arbiter arbiter;  // over the VCs
    uint32_t requests = 0;        // requesting VCs this round
    uint32_t pick_vc = 0;         // valid when requests > 0
    uint32_t pick_output = 0;
  };

  // One pass over the inputs' picks: buckets them by output, then each picked output grants
  // one; `first` pass: pointers move and the losers_* flags are set.
  void match(bool first);
  // A later pass: each unmatched input picks again among its requests for unmatched outputs;
  // false if none did.
  bool repick();

  static constexpr uint32_t no_output = UINT32_MAX;
  uint32_t m_vcs;
  uint32_t m_iterations;
  std::vector<input_state> m_inputs;
  // Iterations > 1: [input * vcs + vc] the output requested this round, or no_output; and
  // which inputs and outputs the round has matched.
  std::vector<uint32_t> m_request_output;
  std::vector<uint8_t> m_input_matched;
  std::vector<uint8_t> m_output_matched;
  std::vector<round_robin_arbiter> m_output_arbiters;  // over the inputs
  std::vector<uint32_t> m_active_inputs;               // inputs with requests this round
  bool m_active_sorted = true;
  // The inputs that picked each output, bucketed by output: each input picks one output,
  // so one list of `inputs` entries holds them all (an outputs x inputs table cost 4 KiB a
  // router on the 16,512-terminal network).
  std::vector<uint32_t> m_picked_by;       // [k]: inputs, output by output, each upward
  std::vector<uint32_t> m_picked_count;    // [output]
  std::vector<uint32_t> m_picked_end;      // [output]: one past its last entry in m_picked_by
  std::vector<uint32_t> m_picked_outputs;  // outputs with picks, by lowest input
  std::vector<grant> m_grants;
};

}  // namespace bcastsim::hw
