#include "hw/tofu2/command_queue_rtl.h"

#include "hw/verilated_waveform.h"

#include "Vtofu2_cq.h"
#include "Vtofu2_cq_pass_scheduling.h"
#include "verilated.h"

#include <stdexcept>
#include <unordered_map>

namespace bcastsim::hw::tofu2 {

namespace {

template <class Core>
class command_queue_rtl final : public command_queue_port {
 public:
  command_queue_rtl(uint64_t entries, queue_mode mode, const std::string& vcd_path,
                    uint64_t start) {
    Verilated::traceEverOn(true);
    m_core = std::make_unique<Core>(&m_ctx, "cq");
    Core& c = *m_core;
    c.cfg_session = mode == queue_mode::session;
    c.cfg_entries = static_cast<uint32_t>(entries);
    c.cfg_start = static_cast<uint32_t>(start);
    if (!vcd_path.empty()) {
      m_vcd = std::make_unique<verilated_waveform>(vcd_path);
      c.trace(&m_vcd->file(), 99);
      m_vcd->open();
      if (!m_vcd->opened())
        throw std::invalid_argument("--vcd: cannot write '" + vcd_path +
                                    "': it cannot be opened for writing");
    }
    c.rst = 1;
    edge();
    c.rst = 0;
  }
  ~command_queue_rtl() override {
    m_vcd.reset();  // before the core it reads: removed if it was not finished
    m_core->final();
  }

  std::string finish_waveform() override {
    if (!m_vcd) return {};
    for (const auto step : {tlm_net::own_step::close, tlm_net::own_step::commit}) {
      const std::string why = tlm_net::finish_own_waveforms({m_vcd.get()}, step);
      if (!why.empty()) return why;
    }
    return {};
  }

  void cycle(const cq_cycle& in) override {
    Core& c = *m_core;
    const uint32_t handle = m_next_handle++;
    c.enq_valid = in.enqueue;
    c.enq_handle = handle;
    if (in.enqueue) m_descriptors[handle] = in.descriptor;
    c.sps_valid = in.sps_valid;
    c.sps = static_cast<uint8_t>(in.sps & 0xf);
    c.retire = in.retire;
    const bool retired = in.retire && c.head_valid;
    const uint32_t head = c.head_handle;
    const uint32_t producer = c.producer;
    edge();
    if (retired) m_descriptors.erase(head);
    if (in.enqueue && c.producer == producer) m_descriptors.erase(handle);  // refused
    c.enq_valid = c.sps_valid = c.retire = 0;
    c.eval();
  }

  cq_state state() const override {
    const Core& c = *m_core;
    cq_state s;
    s.head_valid = c.head_valid;
    s.waits = c.waits;
    s.full = !c.enq_ready;
    s.overflow = c.overflow;
    s.producer = c.producer;
    s.consumer = c.consumer;
    s.scheduling = c.scheduling;
    s.occupancy = c.occupancy;
    s.refused = c.refused;
    return s;
  }

  const toq_descriptor& head_descriptor() const override {
    const auto it = m_descriptors.find(m_core->head_handle);
    if (it == m_descriptors.end()) {
      throw std::logic_error("RTL command queue: head handle " +
                             std::to_string(m_core->head_handle) + " names no descriptor");
    }
    return it->second;
  }

 private:
  void edge() {
    Core& c = *m_core;
    c.clk = 0;
    c.eval();
    dump();
    c.clk = 1;
    c.eval();
    dump();
  }
  void dump() {
    if (!m_vcd) return;
    m_vcd->file().dump(m_time);
    m_time += 500;  // half a 1 ns cycle, in the VCD's ps
  }

  VerilatedContext m_ctx;
  std::unique_ptr<Core> m_core;
  std::unique_ptr<verilated_waveform> m_vcd;
  uint64_t m_time = 0;
  uint32_t m_next_handle = 0;  // one per cycle, so handles never repeat among held ones
  std::unordered_map<uint32_t, toq_descriptor> m_descriptors;
};

}  // namespace

std::unique_ptr<command_queue_port> make_command_queue_rtl(cq_model m, uint64_t entries,
                                                           queue_mode mode,
                                                           const std::string& vcd_path,
                                                           uint64_t start) {
  if (m == cq_model::rtl_fault_pass_scheduling) {
    return std::make_unique<command_queue_rtl<Vtofu2_cq_pass_scheduling>>(entries, mode, vcd_path,
                                                                          start);
  }
  return std::make_unique<command_queue_rtl<Vtofu2_cq>>(entries, mode, vcd_path, start);
}

}  // namespace bcastsim::hw::tofu2
