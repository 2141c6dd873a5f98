#include "tb/cosim/cq_lockstep.h"

#include "network/placement.h"  // network::rng

#include <sstream>

namespace bcastsim::tb::cosim {

namespace {

// Every field a put's header or DMA takes from its descriptor: a wrong slot shows.
bool same(const algorithms::toq_descriptor& a, const algorithms::toq_descriptor& b) {
  return a.command == b.command && a.remote_rank == b.remote_rank && a.remote_tni == b.remote_tni &&
         a.remote_queue == b.remote_queue && a.local_offset == b.local_offset &&
         a.remote_offset == b.remote_offset && a.length == b.length && a.sps == b.sps &&
         a.remote_terminal == b.remote_terminal && a.edata == b.edata &&
         a.notify_remote == b.notify_remote && a.notify_local == b.notify_local;
}

using hw::tofu2::command_queue;
using hw::tofu2::command_queue_port;
using hw::tofu2::cq_cycle;
using hw::tofu2::cq_state;

class lockstep {
 public:
  explicit lockstep(const cq_lockstep_options& o)
      : m_options(o),
        m_ref(o.entries, o.mode, o.start_count),
        m_dut(hw::tofu2::make_command_queue(o.dut, o.entries, o.mode, o.vcd_path, o.start_count)) {}

  // One cycle; false at a divergence (the report says which).
  bool step(cq_cycle c) {
    const cq_state before = m_ref.state();
    m_ref.cycle(c);  // a retire without a head is ignored by both
    m_dut->cycle(c);
    ++m_report.cycles;
    count(c, before);
    const cq_state ref = m_ref.state();
    const cq_state dut = m_dut->state();
    std::string what;
    if (ref != dut) {
      what = "states differ";
    } else if (ref.head_valid && !same(m_ref.head_descriptor(), m_dut->head_descriptor())) {
      what = "head descriptors differ";
    }
    if (what.empty()) return true;
    std::ostringstream os;
    os << "cycle " << m_report.cycles - 1 << ": " << what << " after enqueue " << c.enqueue
       << " sps " << (c.sps_valid ? static_cast<int>(c.sps) : -1) << " retire " << c.retire
       << "\n  reference: " << ref << "\n  " << to_string(m_options.dut) << ": " << dut;
    m_report.ok = false;
    m_report.divergence = os.str();
    return false;
  }

  // The report, once the last cycle ran: the DUT's waveform is finished first.
  cq_lockstep_report finish() {
    m_report.waveform_error = m_dut->finish_waveform();
    return m_report;
  }

 private:
  void count(const cq_cycle& c, const cq_state& before) {
    cq_lockstep_coverage& k = m_report.coverage;
    if (c.enqueue) {
      if (before.full) {
        ++k.refused;
      } else {
        ++k.enqueues;
        if ((before.producer + 1) % m_options.entries == 0) ++k.wraps;
      }
    }
    if (c.sps_valid) ++k.sps_arrivals;
    if (c.retire && before.head_valid) ++k.retires;
    if (before.waits) ++k.wait_cycles;
  }

  const cq_lockstep_options& m_options;
  command_queue m_ref;
  std::unique_ptr<command_queue_port> m_dut;
  cq_lockstep_report m_report;
};

}  // namespace

cq_lockstep_report run_cq_lockstep(const cq_lockstep_options& options) {
  lockstep ls(options);
  network::rng rng(options.seed);
  for (uint64_t i = 0; i < options.cycles; ++i) {
    cq_cycle c;
    c.enqueue = rng.below(1000) < options.enqueue_per_mille;
    c.descriptor.remote_rank = static_cast<uint32_t>(i);  // names the descriptor
    c.sps_valid = rng.below(1000) < options.sps_per_mille;
    // Small SPS values likelier (a tree's fan-out), every value reachable.
    c.sps = static_cast<uint32_t>(rng.below(2) ? rng.below(4) : rng.below(16));
    c.retire = rng.below(1000) < options.retire_per_mille;
    if (!ls.step(c)) break;
  }
  return ls.finish();
}

cq_lockstep_report run_cq_lockstep(const std::vector<hw::tofu2::cq_cycle>& cycles,
                                   const cq_lockstep_options& options) {
  lockstep ls(options);
  for (const cq_cycle& c : cycles) {
    if (!ls.step(c)) break;
  }
  return ls.finish();
}

}  // namespace bcastsim::tb::cosim
