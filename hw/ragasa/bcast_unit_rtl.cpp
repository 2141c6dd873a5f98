#include "hw/ragasa/bcast_unit_rtl.h"

#include "hw/ragasa/unit_trace.h"

#include "tlm/packet_pool.h"
#include "tlm/ring.h"
#include "tlm/timed_queue.h"

// Verilator's headers look for SystemC's time in the global namespace once SystemC is in.
using sc_core::sc_time_stamp;

#include "Vbcast_core.h"
#include "Vbcast_core_early_free.h"
#include "Vbcast_core_unfair.h"
#include "verilated.h"

#include "hw/verilated_waveform.h"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace bcastsim::hw::ragasa {

namespace {
// rtl/bcast_pkg.sv
constexpr uint32_t k_ri_max = 64;
// Cycles without an event after which the core can change only through an input (a packet,
// a credit): every stage latency is at most 255 cycles and each ends in an event or a static
// wait. The wrapper then stops clocking it until an input arrives, so a deadlocked unit lets
// the simulation run out of events and the watchdog names it (as with the SystemC model),
// instead of being clocked to the time limit.
constexpr uint32_t k_quiet_cycles = 1024;
constexpr uint32_t k_rxq_max = 8;
constexpr uint32_t k_rxq_depth_max = 16;
constexpr uint32_t k_mt_max = 128;
constexpr uint32_t k_child_max = 16;
constexpr uint32_t k_wq_max = 64;
constexpr uint32_t k_sq_max = 16;
constexpr uint32_t k_handles = 1u << 16;
constexpr uint64_t k_slot_max = 4096;  // packets held in Working Memory
constexpr uint64_t k_wm_max = 1u << 24;

const char* error_name(uint32_t code) {
  switch (code) {
    case 1:
      return "more packets held in the RI than it has room for (64)";
    case 2:
      return "more collectives with data in the unit than it tracks (128)";
    case 3:
      return "more messages in progress in one collective than it tracks (4)";
    case 4:
      return "more closed chunks alive than it tracks (256)";
    case 5:
      return "a Mini Packet with no children, or more than 16";
    default:
      return "unknown error";
  }
}
}  // namespace

uint32_t rtl_max_children() {
  return k_child_max;
}

std::string rtl_params_error(const bcast_unit_params& p) {
  std::ostringstream os;
  auto range = [&](const char* key, uint64_t v, uint64_t lo, uint64_t hi) {
    if (os.tellp() == 0 && (v < lo || v > hi))
      os << key << " = " << v << " does not fit the RTL Bcast Unit; allowed: " << lo << " .. " << hi
         << " (ragasa.model: rtl)";
  };
  range("ragasa.rx_queues", p.rx_queues, 1, k_rxq_max);
  range("ragasa.rx_queue_packets", p.rx_queue_packets, 1, k_rxq_depth_max);
  range("ragasa.membership_entries", p.membership_entries, 1, k_mt_max);
  range("ragasa.working_memory_bytes", p.working_memory_bytes, 1, k_wm_max);
  range("ragasa.descriptor_threshold_bytes", p.descriptor_threshold_bytes, 1, 0xffffffffu);
  range("ragasa.work_queue_descriptors", p.work_queue_descriptors, 1, k_wq_max);
  range("ragasa.send_queue_descriptors", p.send_queue_descriptors, 1, k_sq_max);
  range("ragasa.scheduler_cycles", p.scheduler_cycles, 1, 255);
  range("ragasa.descriptor_cycles", p.descriptor_cycles, 1, 255);
  range("ragasa.dispatch_cycles", p.dispatch_cycles, 1, 255);
  range("ragasa.send_cycles", p.send_cycles, 1, 255);
  range("network.packet_bytes", p.packet_bytes, 1, 65535);
  // Its slots hold one packet each: a chunk must fit them, or it never closes.
  const uint64_t chunk_packets =
      (p.descriptor_threshold_bytes + p.packet_bytes - 1) / std::max<uint32_t>(p.packet_bytes, 1);
  if (os.tellp() == 0 && chunk_packets > k_slot_max) {
    os << "ragasa.descriptor_threshold_bytes = " << p.descriptor_threshold_bytes
       << " makes chunks of " << chunk_packets
       << " packets (network.packet_bytes = " << p.packet_bytes
       << "), more than the RTL Bcast Unit's " << k_slot_max
       << " Working Memory slots; allowed: at most " << k_slot_max
       << " packets (ragasa.model: rtl)";
  }
  return os.str();
}

namespace {

template <class Core>
class bcast_unit_rtl final : public bcast_unit_base {
 public:
  SC_HAS_PROCESS(bcast_unit_rtl);
  bcast_unit_rtl(const sc_core::sc_module_name& name, network::terminal_id terminal,
                 const bcast_unit_params& params, tlm_net::packet_pool& pool,
                 const membership_source& membership, const network::routing_policy* routing)
      : bcast_unit_base(name, terminal, params, pool, membership, routing),
        m_handles(k_handles),
        m_agenda(m_wakeup) {
    const std::string err = rtl_params_error(params);
    if (!err.empty()) SC_REPORT_ERROR(this->name(), err.c_str());
    for (uint32_t h = k_handles; h-- > 0;) m_free_handles.push_back(h);
    m_fw.bind_owner(this, 0);
    m_bw.bind_owner(this, 0);
    in.bind(m_fw);
    out.bind(m_bw);
    Verilated::traceEverOn(true);
    m_core = std::make_unique<Core>(&m_ctx, "core");
    Core& c = *m_core;
    c.cfg_rx_queues = params.rx_queues;
    c.cfg_rx_depth = params.rx_queue_packets;
    c.cfg_mt_entries = params.membership_entries;
    c.cfg_wm_bytes = static_cast<uint32_t>(params.working_memory_bytes);
    c.cfg_threshold = static_cast<uint32_t>(params.descriptor_threshold_bytes);
    c.cfg_wq = params.work_queue_descriptors;
    c.cfg_sq = params.send_queue_descriptors;
    c.cfg_sched_cycles = static_cast<uint8_t>(params.scheduler_cycles);
    c.cfg_desc_cycles = static_cast<uint8_t>(params.descriptor_cycles);
    c.cfg_disp_cycles = static_cast<uint8_t>(params.dispatch_cycles);
    c.cfg_send_cycles = static_cast<uint8_t>(params.send_cycles);
    c.rst = 1;
    c.clk = 0;
    c.eval();
    c.clk = 1;
    c.eval();
    c.rst = 0;
    SC_METHOD(on_wakeup);
    sensitive << m_wakeup;
    dont_initialize();
  }

  ~bcast_unit_rtl() override {
    m_vcd.reset();  // before the core it reads: removed if the run never finished it
    m_core->final();
  }

  tlm::tlm_sync_enum nb_transport_fw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time&) {
    if (ph != tlm::BEGIN_REQ || p.vc >= m_params.vcs) {
      SC_REPORT_ERROR(name(), "unexpected phase or VC on the input port");
      return tlm::TLM_COMPLETED;
    }
    m_in_bytes[p.vc] += p.size_bytes;
    if (m_in_bytes[p.vc] > m_params.input_buffer_bytes)
      SC_REPORT_ERROR(name(), "credit protocol violated: input buffer overflow");
    if (p.kind == tlm_net::packet_kind::control && !m_source.find(p.collective_id))
      SC_REPORT_ERROR(name(), "Mini Packet for a collective the membership source does not know");
    if (p.msg_id > 0xffffffffu || p.count == 0 || p.size_bytes > 0xffff)
      SC_REPORT_ERROR(name(), "packet header out of the RTL's field widths");
    ++packets_in;
    ++m_pending;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    action a;
    a.pkt = &p;
    m_agenda.push(edge(p.tail_time > now ? p.tail_time : now) + m_period * m_params.ri_cycles, a);
    return tlm::TLM_ACCEPTED;
  }

  tlm::tlm_sync_enum nb_transport_bw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t) {
    if (ph != tlm_net::CREDIT) {
      SC_REPORT_ERROR(name(), "unexpected phase on the output port");
      return tlm::TLM_COMPLETED;
    }
    const sc_core::sc_time when = edge(sc_core::sc_time_stamp() + t);  // from a clock edge
    m_out.on_credit(when, p.vc, p.size_bytes);
    m_agenda.push(when, action{});
    return tlm::TLM_ACCEPTED;
  }

  bool idle() const override {
    return m_core->idle && m_assembled.empty() && m_ri.empty() && m_pending == 0;
  }

  bool describe_stall(std::ostream& os) const override {
    if (idle()) return false;
    const Core& c = *m_core;
    os << "  " << name() << " (RTL): " << c.st_ri_packets << " packets held in the RI"
       << (c.st_ri_blocked ? " (blocked by a full Rx-queue)" : "") << ", " << c.st_rx_packets
       << " in Rx-queues, Working Memory " << c.st_mem_used << "/" << m_params.working_memory_bytes
       << " bytes, " << c.st_wq << " descriptors in the Work Queue, " << c.st_sq
       << " dispatched; output credits " << m_out.credits(0, sc_core::sc_time_stamp()) << "/"
       << m_params.output_buffer_bytes << " bytes"
       << (c.out_valid ? ", a copy waits in the SI" : "") << "\n";
    if (c.st_mp_wait)
      os << "    a Mini Packet waits for a free Membership Table entry (" << c.st_mt_entries
         << " held, the table is full)\n";
    return true;
  }

  // Into the SystemC VCD: the stage signals of the SystemC model, from the core's status
  // outputs; every signal of the core goes into a verilated VCD of its own beside it.
  void trace(const tlm_net::trace_window& window, const std::string& prefix) override {
    m_window = window;
    if (window.file) {
      m_trace = std::make_unique<unit_trace_mirror>();
      m_trace->out_credit_bytes = m_out.capacity_bytes();
      m_trace->declare(window, prefix, "verilated RTL");
    }
    if (!window.catalog) return;  // nobody to finish a file of its own
    m_vcd = std::make_unique<verilated_waveform>(window.own_vcd_dir + "/" + prefix + ".rtl.vcd");
    m_core->trace(&m_vcd->file(), 99);
    m_vcd->open();
    window.catalog->own.push_back(m_vcd.get());
  }

 private:
  void sample_trace() {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (!m_trace->window.active(now)) return;
    const Core& c = *m_core;
    unit_trace_mirror& m = *m_trace;
    m.packets_in = packets_in.value;
    m.ri_packets = c.st_ri_packets;
    m.ri_blocked = c.st_ri_blocked;
    m.rx_packets = c.st_rx_packets;
    m.memory_stall = c.st_stalled != 0;
    m.membership_entries = c.st_mt_entries;
    m.memory_bytes = c.st_mem_used;
    m.gen_batches = c.st_gen_batches;
    m.work_queue = c.st_wq;
    m.send_queue = c.st_sq;
    m.si_ready = c.out_valid;
    m.link_busy = !m_out.link_free(now);
    m.out_credit_bytes = m_out.credits(0, now);
    m.packets_out = packets_out.value;
  }

  struct action {
    tlm_net::packet* pkt = nullptr;  // assembled by the RI
    // else a clock tick, or a credit's arrival (m_out holds the credit)
  };
  struct stored {
    tlm_net::packet* pkt = nullptr;
    bool live = false;
  };

  sc_core::sc_time edge(const sc_core::sc_time& t) const {
    const sc_dt::uint64 period = m_period.value();
    return sc_core::sc_time::from_value((t.value() + period - 1) / period * period);
  }

  uint32_t admit(tlm_net::packet* p) {
    if (m_free_handles.empty()) SC_REPORT_ERROR(name(), "out of packet handles");
    const uint32_t h = m_free_handles.back();
    m_free_handles.pop_back();
    m_handles[h] = stored{p, true};
    return h;
  }
  void release(uint32_t h) {
    if (!m_handles[h].live) return;  // a faulty core frees twice: the scoreboard sees it
    m_handles[h].live = false;
    m_pool.release(m_handles[h].pkt);
    m_free_handles.push_back(h);
  }
  const tlm_net::packet& packet_of(uint32_t h) const {
    static const tlm_net::packet k_dead;  // a freed handle: copies of it mismatch
    return m_handles[h].live ? *m_handles[h].pkt : k_dead;
  }

  void on_wakeup() {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    while (m_agenda.due(now)) {
      const action a = m_agenda.pop();
      if (a.pkt) {
        --m_pending;
        m_assembled.push(a.pkt);
      }
    }
    if (now > m_last_cycle || !m_cycled) {
      if (!m_assembled.empty() || !m_core->idle) cycle(now);
    }
    const bool waits_for_input = m_quiet >= k_quiet_cycles && m_assembled.empty();
    if ((!m_assembled.empty() || !m_core->idle) && !waits_for_input)
      m_agenda.push(m_last_cycle + m_period, action{});
    m_agenda.arm();
    if (m_trace) sample_trace();
  }

  void cycle(const sc_core::sc_time& now) {
    m_cycled = true;
    if (m_last_cycle + m_period < now) m_quiet = 0;  // woken by an input after a pause
    m_last_cycle = now;
    Core& c = *m_core;
    c.clk = 0;
    c.in_valid = 0;
    if (!m_assembled.empty() && m_ri.size() < k_ri_max) {  // one per clock into the core's RI
      tlm_net::packet* p = m_assembled.pop();
      c.in_valid = 1;
      c.in_handle = static_cast<uint16_t>(admit(p));
      c.in_control = p->kind == tlm_net::packet_kind::control;
      c.in_queue = static_cast<uint8_t>(p->collective_id % m_params.rx_queues);
      c.in_coll = p->collective_id;
      c.in_bytes = static_cast<uint16_t>(p->size_bytes);
      c.in_src = p->src;
      c.in_msg = static_cast<uint32_t>(p->msg_id);
      c.in_count = p->count;
      m_ri.push(p);
    }
    if (c.pl_valid) {  // the Mini Packet parsed at this edge: its payload
      const uint32_t id = packet_of(c.pl_handle).collective_id;
      const auto* kids = m_source.find(id);
      const size_t n = kids ? kids->size() : 0;
      c.pl_nchild = static_cast<uint32_t>(n);
      const uint64_t expect = m_source.packets(id);  // the core counts in 32 bits
      c.pl_expect = expect >= 0xffffffffu ? 0xffffffffu : static_cast<uint32_t>(expect);
      for (uint32_t k = 0; k < k_child_max; ++k) {
        c.pl_dst[k] = k < n ? (*kids)[k].dst : 0;
        c.pl_unit[k] = k < n ? (*kids)[k].unit_router : 0;
      }
    }
    c.out_ready = c.out_valid && m_out.link_free(now) && m_out.has_credits(0, c.out_bytes, now);
    c.eval();
    c.clk = 1;
    c.eval();
    if (m_vcd && m_window.active(now)) {
      m_ctx.time(static_cast<uint64_t>(now.value()));
      m_vcd->file().dump(static_cast<uint64_t>(now.value()));
    }
    if (c.err_code) {
      const std::string what = std::string("RTL core: ") + error_name(c.err_code);
      SC_REPORT_ERROR(name(), what.c_str());
    }
    collect(now);
  }

  void collect(const sc_core::sc_time& now) {
    Core& c = *m_core;
    const bool event = c.in_valid || c.ev_moved || c.ev_sched || c.ev_parsed || c.ev_batch ||
                       c.ev_desc || c.ev_disp || c.ev_copy || c.ev_freed;
    m_quiet = event ? 0 : m_quiet + 1;
    for (uint32_t k = 0; k < c.ev_moved; ++k) {  // left the RI: the credit goes back
      tlm_net::packet* p = m_ri.pop();
      m_in_bytes[p->vc] -= p->size_bytes;
      tlm_net::return_credit(in, m_credit_token, p->vc, p->size_bytes);
    }
    if (c.ev_sched && m_observer)
      m_observer->on_scheduled(packet_of(c.ev_sched_handle), c.ev_sched_queue);
    if (c.ev_parsed) {
      const uint32_t id = packet_of(c.ev_parsed_handle).collective_id;
      ++mini_packets;
      release(c.ev_parsed_handle);
      if (m_listener) m_listener->on_membership(id);
      if (m_observer) m_observer->on_parsed(id);
    }
    if (c.ev_batch && m_observer)
      m_observer->on_batch(packet_of(c.ev_batch_handle), c.ev_batch_npkts);
    if (c.ev_desc) {
      ++descriptors;
      if (m_observer)
        m_observer->on_descriptor(packet_of(c.ev_desc_handle),
                                  membership_child{c.ev_desc_dst, c.ev_desc_unit});
    }
    if (c.ev_disp && m_observer)
      m_observer->on_dispatched(packet_of(c.ev_disp_handle),
                                membership_child{c.ev_disp_dst, c.ev_disp_unit});
    if (c.ev_copy) inject(now);
    if (c.ev_freed) {  // step 10 freed an entry (after the copy that completed it)
      ++membership_freed;
      if (m_listener) m_listener->on_freed(m_terminal, c.ev_freed_coll);
      if (m_observer) m_observer->on_freed(c.ev_freed_coll);
    }
    // Statistics, sampled once per clock.
    const uint64_t period = m_period.value();
    for (uint32_t q = 0; q < k_rxq_max; ++q) {
      if (c.st_mp_wait >> q & 1u) membership_stall_ps += period;
      if (c.st_stalled >> q & 1u) memory_stall_ps += period;
      if (c.st_hol >> q & 1u) rx_hol_blocked_ps += period;
    }
    if (c.st_ri_blocked) ri_blocked_ps += period;
    if (c.st_conn_wait) connection_wait_ps += period;
    auto peak = [](tlm_net::counter& s, uint64_t v) {
      if (v > s.value) s.value = v;
    };
    peak(rx_queue_peak_packets, c.st_rx_max);
    peak(membership_peak_entries, c.st_mt_entries);
    peak(working_memory_peak_bytes, c.st_mem_used);
    peak(work_queue_peak_descriptors, c.st_wq);
    peak(send_queue_peak_descriptors, c.st_sq);
  }

  // Step 9: the SI injects the copy the core let go at this edge.
  void inject(const sc_core::sc_time& now) {
    Core& c = *m_core;
    const tlm_net::packet& src = packet_of(c.ev_copy_handle);
    tlm_net::packet* p = m_pool.acquire();
    p->src = src.src;
    p->dst = c.ev_copy_dst;
    p->offload = to_unit(c.ev_copy_unit);
    p->kind = src.kind;
    p->vc = 0;
    p->size_bytes = src.size_bytes;
    p->msg_id = src.msg_id;
    p->tag = src.tag;
    p->msg_seq = src.msg_seq;
    p->collective_id = src.collective_id;
    p->msg_bytes = src.msg_bytes;
    p->buf_offset = src.buf_offset;
    p->index = src.index;
    p->count = src.count;
    p->created = src.created;
    p->injected = src.injected;
    p->routers = src.routers;
    if (m_routing)
      m_routing->init_state(m_terminal, p->dst,
                            network::packet_entropy(m_params.seed, m_terminal, m_next_packet++),
                            p->route);
    if (c.ev_copy_release) release(c.ev_copy_handle);
    p->tail_time = now;
    ++packets_out;
    bytes_replicated += p->size_bytes;
    const sc_core::sc_time t = m_out.send(out, *p, now);
    m_out.set_busy_until(edge(now + t));  // the SI injects on clock edges
  }

  tlm_net::tagged_fw<bcast_unit_rtl> m_fw;
  tlm_net::tagged_bw<bcast_unit_rtl> m_bw;
  std::vector<stored> m_handles;
  std::vector<uint32_t> m_free_handles;
  tlm_net::ring<tlm_net::packet*> m_assembled;  // assembled, not yet handed to the core
  tlm_net::ring<tlm_net::packet*> m_ri;         // in the core's RI, in order
  uint64_t m_next_packet = 0;
  uint32_t m_pending = 0;  // packets whose tail the RI is still assembling
  tlm_net::packet m_credit_token;
  sc_core::sc_time m_last_cycle;
  bool m_cycled = false;
  uint32_t m_quiet = 0;  // cycles in a row without an event (see k_quiet_cycles)
  sc_core::sc_event m_wakeup;
  tlm_net::timed_queue<action> m_agenda;
  VerilatedContext m_ctx;
  std::unique_ptr<Core> m_core;
  std::unique_ptr<verilated_waveform> m_vcd;
  tlm_net::trace_window m_window;
  std::unique_ptr<unit_trace_mirror> m_trace;  // with a SystemC VCD
};

}  // namespace

std::unique_ptr<bcast_unit_base> make_bcast_unit_rtl(
    unit_model m, const sc_core::sc_module_name& name, network::terminal_id terminal,
    const bcast_unit_params& params, tlm_net::packet_pool& pool,
    const membership_source& membership, const network::routing_policy* routing) {
  switch (m) {
    case unit_model::rtl_fault_unfair:
      return std::make_unique<bcast_unit_rtl<Vbcast_core_unfair>>(name, terminal, params, pool,
                                                                  membership, routing);
    case unit_model::rtl_fault_early_free:
      return std::make_unique<bcast_unit_rtl<Vbcast_core_early_free>>(name, terminal, params, pool,
                                                                      membership, routing);
    default:
      return std::make_unique<bcast_unit_rtl<Vbcast_core>>(name, terminal, params, pool, membership,
                                                           routing);
  }
}

}  // namespace bcastsim::hw::ragasa
