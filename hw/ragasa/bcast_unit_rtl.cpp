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
#include <array>
#include <ostream>
#include <sstream>

namespace bcastsim::hw::ragasa {

namespace {
// rtl/bcast_pkg.sv
constexpr uint32_t k_vcs = 3;      // the unit port's VCs (VCS): one FIFO each in the RI
constexpr uint32_t k_ri_max = 64;  // packets a VC's FIFO holds (RI_MAX)
// Cycles without an event after which the core can change only through an input (a packet,
// a credit): every stage latency is at most 255 cycles and each ends in an event or a static
// wait. The wrapper then stops clocking it until an input arrives, so a deadlocked unit lets
// the simulation run out of events and the watchdog names it (as with the SystemC model),
// instead of being clocked to the time limit.
constexpr uint32_t k_quiet_cycles = 1024;
constexpr uint32_t k_rxq_max = 8;  // Rx-queues per bank: the core has 2 x 8 + the control queue
constexpr uint32_t k_queues = 2 * k_rxq_max + 1;
constexpr uint32_t k_moves = 8;  // RI -> queue moves an edge (2 MOVES)
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
      return "more packets held in the RI than it has room for (64 a VC), or a packet on a VC "
             "above 2";
    case 2:
      return "more collectives with data in the unit than it tracks (128)";
    case 3:
      return "more messages in progress in one collective than it tracks (4)";
    case 4:
      return "more closed chunks alive than it tracks (256)";
    case 5:
      return "a Mini Packet with no children, or more than 16";
    case 6:
      return "a credit return queued while another waits for the SI";
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
    c.cfg_pkt_bytes = params.packet_bytes;
    // A reservation's packets when the broadcast brings more or says nothing (at most the
    // memory's packets, < 2^24).
    c.cfg_res_pkts = static_cast<uint32_t>(
        reservation_bytes(params, membership_source::keep_entry) / params.packet_bytes);
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
    if (unit_class(p) == packet_class::mini && !m_source.find(p.collective_id))
      SC_REPORT_ERROR(name(), "Mini Packet for a collective the membership source does not know");
    if (p.msg_id > 0xffffffffu || p.count == 0 || p.size_bytes > 0xffff || p.vc >= k_vcs)
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
    for (const auto& ri : m_ri)
      if (!ri.empty()) return false;
    return m_core->idle && m_assembled.empty() && m_pending == 0;
  }

  bool describe_stall(std::ostream& os) const override {
    if (idle()) return false;
    const Core& c = *m_core;
    os << "  " << name() << " (RTL): " << c.st_ri_packets << " packets held in the RI"
       << (c.st_ri_blocked ? " (blocked by a full Rx-queue)" : "") << ", " << c.st_rx_packets
       << " in queues, Working Memory " << c.st_mem_used << "/" << m_params.working_memory_bytes
       << " bytes used, " << c.st_resv << " reserved, " << c.st_wq
       << " descriptors in the Work Queue, " << c.st_sq << " dispatched"
       << (c.cro_valid ? ", a credit return to send" : "") << "; output credits "
       << m_out.credits(0, sc_core::sc_time_stamp()) << "/" << m_params.output_buffer_bytes
       << " bytes" << (c.out_valid ? ", a copy waits in the SI" : "") << "\n";
    if (c.st_mp_wait)
      os << "    a Mini Packet waits for a free Membership Table entry and its reservation ("
         << c.st_mt_entries << " entries held)\n";
    if (c.st_stalled)
      os << "    head data packets wait for their Mini Packet or their broadcast's reserved "
            "Working Memory (queues 0x"
         << std::hex << c.st_stalled << std::dec << ")\n";
    if (c.st_credit_waits)
      os << "    " << c.st_credit_waits
         << " broadcasts have batches waiting for credits at child units\n";
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
    // One per clock into the core's RI, which holds k_ri_max a VC.
    if (!m_assembled.empty() && m_ri[m_assembled.front()->vc].size() < k_ri_max) hand_in();
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
      const membership_child parent = m_source.parent(id);
      c.pl_parent_dst = parent.dst;
      c.pl_parent_unit = parent.unit_router;
    }
    // The SI: a queued credit return goes before any copy (it needs no build stage).
    const bool link_free = m_out.link_free(now);
    c.cr_ready =
        c.cro_valid && link_free && m_out.has_credits(0, m_params.credit_packet_bytes, now);
    c.out_ready =
        c.out_valid && !c.cro_valid && link_free && m_out.has_credits(0, c.out_bytes, now);
    const credit_return cr{c.cro_coll, c.cro_count, membership_child{c.cro_dst, c.cro_unit}};
    const bool send_credit = c.cr_ready;
    // Broadcasts whose batches wait for credits, integrated over time (the SystemC model adds
    // each wait when it ends).
    credit_wait_ps += uint64_t{m_credit_waits} * (now - m_waits_since).value();
    m_waits_since = now;
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
    m_credit_waits = c.st_credit_waits;
    collect(now);
    if (send_credit) inject_credit(cr, now);
  }

  // The packet the RI assembled first goes into the core's RI: its class picks its VC's
  // FIFO and its queue (README.md, mechanisms 1-2); a Mini Packet's count is the data
  // packets it announces (its payload), which its reservation depends on.
  void hand_in() {
    Core& c = *m_core;
    tlm_net::packet* p = m_assembled.pop();
    const packet_class cls = unit_class(*p);
    const uint32_t n = m_params.rx_queues;
    c.in_valid = 1;
    c.in_handle = static_cast<uint16_t>(admit(p));
    c.in_cls = static_cast<uint8_t>(cls);
    c.in_vc = static_cast<uint8_t>(p->vc);
    c.in_queue = static_cast<uint8_t>(cls == packet_class::relayed ? n + p->collective_id % n
                                                                   : p->collective_id % n);
    c.in_coll = p->collective_id;
    c.in_bytes = static_cast<uint16_t>(p->size_bytes);
    c.in_src = p->src;
    c.in_msg = static_cast<uint32_t>(p->msg_id);
    c.in_count = p->count;
    if (cls == packet_class::mini) {
      const uint64_t expect = m_source.packets(p->collective_id);  // the core counts in 32 bits
      c.in_count = expect >= 0xffffffffu ? 0xffffffffu : static_cast<uint32_t>(expect);
    }
    m_ri[p->vc].push(p);
  }

  void collect(const sc_core::sc_time& now) {
    Core& c = *m_core;
    const bool event = c.in_valid || c.ev_moved || c.ev_sched || c.ev_parsed || c.ev_batch ||
                       c.ev_desc || c.ev_disp || c.ev_copy || c.ev_freed || c.ev_credit ||
                       c.cr_ready;
    m_quiet = event ? 0 : m_quiet + 1;
    for (uint32_t k = 0; k < c.ev_moved; ++k) {  // left the RI: the credit goes back
      const uint32_t vc = (c.ev_moved_vc >> (2 * k)) & 3u;
      tlm_net::packet* p = m_ri[vc].pop();
      m_in_bytes[p->vc] -= p->size_bytes;
      tlm_net::return_credit(in, m_credit_token, p->vc, p->size_bytes);
    }
    if (c.ev_credit) release(c.ev_credit_handle);  // a credit return, parsed
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
    for (uint32_t q = 0; q < k_queues; ++q) {
      if (c.st_mp_wait >> q & 1u) membership_stall_ps += period;
      if (c.st_stalled >> q & 1u) memory_stall_ps += period;
      if (c.st_hol >> q & 1u) rx_hol_blocked_ps += period;
    }
    if (c.st_ri_blocked) ri_blocked_ps += period;
    if (c.st_conn_wait) connection_wait_ps += period;
    auto peak = [](tlm_net::counter& s, uint64_t v) {
      if (v > s.value) s.value = v;
    };
    // As a packet enters a queue, as the model counts it (it may leave at the same edge).
    peak(rx_queue_peak_packets, c.ev_rx_peak);
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
    p->offload = to_unit(c.ev_copy_unit, packet_class::relayed);  // a tree edge: VC 1
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

  struct credit_return {
    uint32_t collective;
    uint32_t packets;
    membership_child parent;
  };

  // The SI sends the credit return the core let go at this edge: a control packet to the
  // broadcast's parent unit, as the SystemC model builds it.
  void inject_credit(const credit_return& r, const sc_core::sc_time& now) {
    tlm_net::packet* p =
        make_credit_return(r.collective, r.packets, r.parent, now, m_next_packet++);
    const sc_core::sc_time t = m_out.send(out, *p, now);
    m_out.set_busy_until(edge(now + t));
  }

  tlm_net::tagged_fw<bcast_unit_rtl> m_fw;
  tlm_net::tagged_bw<bcast_unit_rtl> m_bw;
  std::vector<stored> m_handles;
  std::vector<uint32_t> m_free_handles;
  tlm_net::ring<tlm_net::packet*> m_assembled;              // assembled, not yet handed to the core
  std::array<tlm_net::ring<tlm_net::packet*>, k_vcs> m_ri;  // in the core's RI, per VC
  uint32_t m_credit_waits = 0;  // broadcasts waiting for credits since m_waits_since
  sc_core::sc_time m_waits_since;
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
