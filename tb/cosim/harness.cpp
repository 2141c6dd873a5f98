#include "tb/cosim/harness.h"
#include "hw/ragasa/packet_fields.h"
#include "tb/config.h"
#include "tb/sc_vcd_waveform.h"

#include "tlm/packet_pool.h"
#include "tlm/timed_queue.h"
#include "tlm/trace_window.h"

#include <algorithm>
#include <array>
#include <deque>
#include <filesystem>
#include <memory>
#include <sstream>
#include <systemc>

namespace bcastsim::tb::cosim {

namespace {

using hw::ragasa::bcast_unit_base;
using hw::ragasa::membership_child;
using sc_core::sc_time;
using tlm_net::packet;

sc_time ps(uint64_t v) {
  return sc_time::from_value(v);
}
uint64_t now_ps() {
  return sc_core::sc_time_stamp().value();
}

// The unit's stage events, with their times; the sink adds the copies.
class stage_log final : public hw::ragasa::unit_observer {
 public:
  event_log log;
  uint64_t events = 0;

  void on_scheduled(const packet& p, uint32_t queue) override {
    event e = event_of(p, now_ps());
    e.n = queue;
    add(stage::scheduled, e);
  }
  void on_parsed(uint32_t collective_id) override {
    event e;
    e.t_ps = now_ps();
    e.collective_id = collective_id;
    add(stage::parsed, e);
  }
  void on_freed(uint32_t collective_id) override {
    event e;
    e.t_ps = now_ps();
    e.collective_id = collective_id;
    add(stage::freed, e);
  }
  void on_batch(const packet& first, uint32_t packets) override {
    event e = event_of(first, now_ps());
    e.n = packets;
    add(stage::batch, e);
  }
  void on_descriptor(const packet& first, const membership_child& child) override {
    event e = event_of(first, now_ps());
    e.child = child;
    add(stage::descriptor, e);
  }
  void on_dispatched(const packet& first, const membership_child& child) override {
    event e = event_of(first, now_ps());
    e.child = child;
    add(stage::dispatched, e);
  }
  void add(stage s, const event& e) {
    log[s].push_back(e);
    ++events;
  }
};

// Plays a stimulus's arrivals into a unit's `in`, as the router does (see harness.h): one
// lane a VC, each with its own credits, so that a class waiting never holds up another.
class unit_driver final : public sc_core::sc_module, public tlm_net::bw_if {
 public:
  tlm_net::initiator_socket out;

  unit_driver(const sc_core::sc_module_name& name, const stimulus& s, tlm_net::packet_pool& pool,
              stage_log& log)
      : sc_core::sc_module(name), out("out"), m_stim(s), m_pool(pool), m_log(log) {
    out.bind(*this);
    for (size_t k = 0; k < s.arrivals.size(); ++k) {
      const uint8_t vc = hw::ragasa::unit_port_vc(s.arrivals[k].cls);
      m_lanes[vc].arrivals.push_back(k);
    }
    for (lane& l : m_lanes) l.credit_bytes = s.params.input_buffer_bytes;
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(unit_driver);

  tlm::tlm_sync_enum nb_transport_bw(packet& p, tlm::tlm_phase& ph, sc_time& t) override {
    if (ph != tlm_net::CREDIT || p.vc >= k_lanes) {
      SC_REPORT_ERROR(name(), "the unit returned something other than a credit of VC 0-2");
      return tlm::TLM_COMPLETED;
    }
    event e;
    e.t_ps = now_ps() + t.value();
    e.size_bytes = p.size_bytes;
    e.vc = p.vc;
    m_log.add(stage::credit, e);
    m_lanes[p.vc].pending.push_back(credit{e.t_ps + m_stim.credit_latency_ps, p.size_bytes});
    ++progress;
    m_credit_event.notify(sc_core::SC_ZERO_TIME);
    return tlm::TLM_ACCEPTED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

  bool done() const { return m_sent == m_stim.arrivals.size(); }
  // Every lane not done waits for credits, none for a later arrival.
  bool blocked() const {
    for (const lane& l : m_lanes)
      if (l.next < l.arrivals.size() && !l.blocked) return false;
    return true;
  }
  uint64_t left() const { return m_stim.arrivals.size() - m_sent; }
  uint64_t progress = 0;

 private:
  static constexpr uint8_t k_lanes = 3;
  struct credit {
    uint64_t when_ps;
    uint32_t bytes;
  };
  struct lane {
    std::vector<size_t> arrivals;  // indices into the stimulus, in send order
    size_t next = 0;
    uint32_t credit_bytes = 0;
    uint32_t in_ri = 0;  // sent, credit not yet back
    std::vector<credit> pending;
    uint64_t lag_ps = 0;
    bool blocked = false;
  };

  // Applies the lane's credits that have arrived; true when `a` may go now.
  bool can_send(lane& l, const arrival& a) {
    const uint64_t now = now_ps();
    for (size_t k = 0; k < l.pending.size();) {
      if (l.pending[k].when_ps <= now) {
        l.credit_bytes += l.pending[k].bytes;
        --l.in_ri;
        l.pending.erase(l.pending.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        ++k;
      }
    }
    return l.credit_bytes >= a.size_bytes && l.in_ri < m_stim.max_ri_packets;
  }

  // One link, one thread: of the lanes whose next packet is due, has its credits and finds
  // the link free, the one whose packet comes first in the stimulus goes (so both sides
  // break ties alike); a packet held back (for credits or the link) delays every later
  // arrival of its lane by as much, and the RI sees tails in the order packets start, as in
  // the fabric.
  void run() {
    while (!done()) {
      const uint64_t now = now_ps();
      lane* best = nullptr;
      uint64_t wake = ~uint64_t{0};
      for (lane& l : m_lanes) {
        if (l.next >= l.arrivals.size()) continue;
        const arrival& a = m_stim.arrivals[l.arrivals[l.next]];
        const uint64_t planned = std::max(a.send_ps + l.lag_ps, m_link_free_ps);
        if (planned > now) {
          wake = std::min(wake, planned);
          l.blocked = false;
          continue;
        }
        l.blocked = !can_send(l, a);
        if (l.blocked) {
          for (const credit& c : l.pending) wake = std::min(wake, c.when_ps);
        } else if (!best || l.arrivals[l.next] < best->arrivals[best->next]) {
          best = &l;
        }
      }
      if (best) {
        const arrival& a = m_stim.arrivals[best->arrivals[best->next]];
        if (now > a.send_ps + best->lag_ps) best->lag_ps = now - a.send_ps;
        send(*best, a);
        ++best->next;
        continue;
      }
      if (wake != ~uint64_t{0}) {
        sc_core::wait(ps(wake - now), m_credit_event);
      } else {
        sc_core::wait(m_credit_event);
      }
    }
  }

  void send(lane& l, const arrival& a) {
    packet* p = m_pool.acquire();
    p->src = a.src;
    p->dst = a.dst;
    p->kind = a.kind;
    p->vc = hw::ragasa::unit_port_vc(a.cls);
    p->size_bytes = a.size_bytes;
    p->offload = hw::ragasa::to_unit(a.unit_router, a.cls);
    p->msg_id = a.msg_id;
    p->tag = a.tag;
    p->collective_id = a.collective_id;
    p->msg_bytes = a.msg_bytes;
    p->buf_offset = a.buf_offset;
    p->index = a.index;
    p->count = a.count;
    p->created = p->injected = sc_core::sc_time_stamp();
    p->tail_time = ps(a.tail_ps + l.lag_ps);
    m_link_free_ps = a.tail_ps + l.lag_ps;
    m_link_free_ps = a.tail_ps + l.lag_ps;
    l.credit_bytes -= a.size_bytes;
    ++l.in_ri;
    ++m_sent;
    ++progress;
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_time t = ps(a.head_ps - a.send_ps);
    out->nb_transport_fw(*p, ph, t);
  }

  const stimulus& m_stim;
  tlm_net::packet_pool& m_pool;
  stage_log& m_log;
  std::array<lane, k_lanes> m_lanes;
  sc_core::sc_event m_credit_event;
  size_t m_sent = 0;
  uint64_t m_link_free_ps = 0;  // the unit link's tail: the next packet starts after it
};

// The router behind a unit's `out` (see harness.h and sink_params).
class unit_sink final : public sc_core::sc_module, public tlm_net::fw_if {
 public:
  tlm_net::target_socket in;

  unit_sink(const sc_core::sc_module_name& name, const stimulus& s, tlm_net::packet_pool& pool,
            stage_log& log)
      : sc_core::sc_module(name),
        in("in"),
        m_stim(s),
        m_pool(pool),
        m_log(log),
        m_agenda(m_wakeup) {
    in.bind(*this);
    SC_METHOD(on_wakeup);
    sensitive << m_wakeup;
    dont_initialize();
  }
  SC_HAS_PROCESS(unit_sink);

  tlm::tlm_sync_enum nb_transport_fw(packet& p, tlm::tlm_phase& ph, sc_time& t) override {
    const uint64_t now = now_ps();
    if (ph != tlm::BEGIN_REQ) {
      SC_REPORT_ERROR(name(), "unexpected phase from the unit's `out`");
      return tlm::TLM_COMPLETED;
    }
    if (now < m_link_free_ps) SC_REPORT_ERROR(name(), "the unit sent a copy into a busy link");
    while (!m_held.empty() && m_held.front().when_ps <= now) {
      m_held_bytes -= m_held.front().bytes;
      m_held.pop_front();
    }
    m_held_bytes += p.size_bytes;
    if (m_held_bytes > m_stim.params.output_buffer_bytes)
      SC_REPORT_ERROR(name(), "credit protocol violated: the unit overran the router's buffer");

    event e = event_of(p, now);
    e.child = membership_child{p.dst, hw::ragasa::unit_router(p)};
    m_log.add(stage::copy, e);

    const uint64_t ser = m_stim.sink.serialisation_ps(p.size_bytes);
    const uint64_t tail = now + ser;
    m_link_free_ps = tail;
    const uint64_t credit_at =
        std::max(m_last_credit_ps, tail + m_stim.sink.credit_delay_of_copy(m_copies++));
    m_last_credit_ps = credit_at;
    m_held.push_back(held{credit_at, p.size_bytes});
    m_agenda.push(ps(tail), credit{p.vc, p.size_bytes, credit_at - tail});
    m_pool.release(&p);
    ph = tlm::END_REQ;
    t = ps(ser);
    return tlm::TLM_UPDATED;
  }
  void b_transport(packet&, sc_time&) override {
    SC_REPORT_ERROR(name(), "the unit's port carries packets with nb_transport only");
  }
  bool get_direct_mem_ptr(packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(packet&) override { return 0; }

 private:
  struct credit {
    uint8_t vc = 0;
    uint32_t bytes = 0;
    uint64_t delay_ps = 0;  // from the tail's departure
  };
  struct held {
    uint64_t when_ps;
    uint32_t bytes;
  };

  // The tail has left: the router gives the credit back, usable after its delay.
  void on_wakeup() {
    const sc_time now = sc_core::sc_time_stamp();
    while (m_agenda.due(now)) {
      const credit c = m_agenda.pop();
      tlm_net::return_credit(in, m_token, c.vc, c.bytes, ps(c.delay_ps));
    }
    m_agenda.arm();
  }

  const stimulus& m_stim;
  tlm_net::packet_pool& m_pool;
  stage_log& m_log;
  uint64_t m_copies = 0;
  uint64_t m_link_free_ps = 0;
  uint64_t m_last_credit_ps = 0;
  std::deque<held> m_held;  // copies whose credit the unit does not have yet
  uint64_t m_held_bytes = 0;
  packet m_token;
  sc_core::sc_event m_wakeup;
  tlm_net::timed_queue<credit> m_agenda;
};

// One stimulus, played into the reference and the device under test.
class unit_pair final : public sc_core::sc_module {
 public:
  unit_pair(const sc_core::sc_module_name& name, const stimulus& s,
            hw::ragasa::unit_model dut_model)
      : sc_core::sc_module(name),
        stim(s),
        ref(hw::ragasa::make_bcast_unit(hw::ragasa::unit_model::systemc, "ref", s.terminal,
                                        s.params, m_ref_pool, m_membership, nullptr)),
        dut(hw::ragasa::make_bcast_unit(dut_model, "dut", s.terminal, s.params, m_dut_pool,
                                        m_membership, nullptr)),
        ref_driver("ref_driver", s, m_ref_pool, ref_log),
        dut_driver("dut_driver", s, m_dut_pool, dut_log),
        ref_sink("ref_sink", s, m_ref_pool, ref_log),
        dut_sink("dut_sink", s, m_dut_pool, dut_log) {
    for (const auto& [id, kids] : s.membership) {
      const auto n = s.membership_packets.find(id);
      m_membership.set(
          id, kids,
          n == s.membership_packets.end() ? hw::ragasa::membership_source::keep_entry : n->second);
      const auto parent = s.membership_parent.find(id);
      if (parent != s.membership_parent.end()) m_membership.set_parent(id, parent->second);
    }
    ref->set_observer(&ref_log);
    dut->set_observer(&dut_log);
    ref_driver.out.bind(ref->in);
    dut_driver.out.bind(dut->in);
    ref->out.bind(ref_sink.in);
    dut->out.bind(dut_sink.in);
  }

  end_state end(const bcast_unit_base& u, const unit_driver& d) const {
    end_state e;
    e.idle = u.idle();
    std::ostringstream os;
    u.describe_stall(os);
    e.stall = os.str();
    e.arrivals_left = d.left();
    e.packets_in = u.packets_in.value;
    e.packets_out = u.packets_out.value;
    e.mini_packets = u.mini_packets.value;
    e.descriptors = u.descriptors.value;
    e.bytes_replicated = u.bytes_replicated.value;
    return e;
  }
  uint64_t progress() const {
    return ref_log.events + dut_log.events + ref_driver.progress + dut_driver.progress;
  }

 private:
  tlm_net::packet_pool m_ref_pool;
  tlm_net::packet_pool m_dut_pool;
  hw::ragasa::membership_source m_membership;

 public:
  const stimulus& stim;
  stage_log ref_log, dut_log;
  std::unique_ptr<bcast_unit_base> ref, dut;
  unit_driver ref_driver, dut_driver;
  unit_sink ref_sink, dut_sink;
};

class harness final : public sc_core::sc_module {
 public:
  harness(const sc_core::sc_module_name& name, const std::vector<stimulus>& stimuli,
          const cosim_options& o)
      : sc_core::sc_module(name) {
    uint64_t period = 0;
    for (const stimulus& s : stimuli) {
      pairs.push_back(std::make_unique<unit_pair>(s.name.c_str(), s, o.dut));
      const uint64_t p = s.period_ps();
      if (period == 0 || p < period) period = p;
      if (p > slowest_period_ps) slowest_period_ps = p;
    }
    m_poll = ps(16 * period);
    m_stall_limit_ps = o.stall_limit_cycles * slowest_period_ps;
  }

  std::vector<std::unique_ptr<unit_pair>> pairs;
  uint64_t slowest_period_ps = 0;

  // Simulates, a poll interval at a time, until every driver is done and every unit idle,
  // or nothing has moved for the stall limit while no driver waits for a later arrival.
  void simulate() {
    uint64_t last = 0, last_change = 0;
    for (;;) {
      sc_core::sc_start(m_poll);
      bool finished = true, waiting = false;
      uint64_t moved = 0;
      for (const auto& p : pairs) {
        for (const unit_driver* d : {&p->ref_driver, &p->dut_driver}) {
          finished &= d->done();
          waiting |= !d->done() && !d->blocked();
        }
        finished &= p->ref->idle() && p->dut->idle();
        moved += p->progress();
      }
      if (finished) return;
      if (moved != last || waiting) {
        last = moved;
        last_change = now_ps();
      } else if (now_ps() - last_change >= m_stall_limit_ps) {
        return;  // deadlock: the end stage reports it
      }
    }
  }

 private:
  sc_time m_poll;
  uint64_t m_stall_limit_ps = 0;
};

}  // namespace

namespace {

// A co-simulation's waveforms (options.vcd_dir): each written under a temporary name, and all
// renamed only once all are whole (tlm_net::finish_own_waveforms), else none is left.
class cosim_waveforms {
 public:
  // Opens the VCDs and traces every pair into them; their final names go to `names`.
  cosim_waveforms(const harness& h, const cosim_options& options, std::vector<std::string>& names) {
    if (options.vcd_dir.empty()) return;
    std::filesystem::create_directories(options.vcd_dir);
    const std::string dir = options.vcd_dir;
    m_ref = open_vcd(dir + "/cosim_ref.vcd", names);
    const bool systemc_dut = options.dut == hw::ragasa::unit_model::systemc;
    if (systemc_dut) m_dut = open_vcd(dir + "/cosim_dut.vcd", names);
    for (const auto& p : h.pairs) {
      tlm_net::trace_window w;
      w.own_vcd_dir = dir;
      w.catalog = &m_traced;
      w.file = m_ref->file();
      p->ref->trace(w, p->basename());
      w.file = m_dut ? m_dut->file() : nullptr;  // an RTL DUT writes a VCD of its own
      const std::string prefix = systemc_dut ? p->basename() : "cosim_dut_" + p->stim.name;
      p->dut->trace(w, prefix);
      if (!systemc_dut) names.push_back(dir + "/" + prefix + ".rtl.vcd");
    }
    for (const tlm_net::own_waveform* v : m_traced.own) {
      if (!v->opened())
        throw config_error(
            "--vcd", "--vcd: cannot write '" + v->path() + "': it cannot be opened for writing");
    }
  }

  // Why one could not be written whole (a full disk: then none is left), or empty.
  std::string finish() {
    for (const auto step : {tlm_net::own_step::close, tlm_net::own_step::commit}) {
      std::string why = tlm_net::finish_own_waveforms(m_traced.own, step);
      if (!why.empty()) return why;
    }
    return {};
  }

 private:
  std::unique_ptr<sc_vcd_waveform> open_vcd(const std::string& path,
                                            std::vector<std::string>& names) {
    auto vcd = std::make_unique<sc_vcd_waveform>(path);
    m_traced.own.push_back(vcd.get());
    names.push_back(path);
    return vcd;
  }

  std::unique_ptr<sc_vcd_waveform> m_ref, m_dut;
  tlm_net::trace_catalog m_traced;  // every VCD, the RTL DUTs' own too
};

}  // namespace

report run_cosim(const std::vector<stimulus>& stimuli, const cosim_options& options,
                 coverage* cover) {
  harness h("cosim", stimuli, options);
  const std::string dut_name = hw::ragasa::to_string(options.dut);
  report r;
  cosim_waveforms waves(h, options, r.waveforms);
  // An error a block reports (SC_REPORT_ERROR: a broken protocol, an RTL error code) ends
  // the simulation; what was recorded until then is still compared.
  std::string error, error_source;
  try {
    h.simulate();
  } catch (const sc_core::sc_report& e) {
    error = e.get_msg();
    error_source = e.get_msg_type();
  }
  r.waveform_error = waves.finish();

  const uint64_t end_ps = now_ps();
  scoreboard sb(options.tolerance_cycles);
  if (!error.empty()) {  // first: it wins a tie with what it caused
    // The source is a module name: cosim.<pair>.<ref|dut>[_driver|_sink].
    const std::string prefix = std::string(h.name()) + ".";
    std::string pair, side;
    if (error_source.compare(0, prefix.size(), prefix) == 0) {
      pair = error_source.substr(prefix.size());
      side = pair.substr(pair.find('.') == std::string::npos ? pair.size() : pair.find('.') + 1);
      pair = pair.substr(0, pair.find('.'));
    }
    sb.error(pair.empty() ? error_source : pair, end_ps, error_source + ": " + error,
             side.compare(0, 3, "dut") != 0);
  }
  for (const auto& p : h.pairs) {
    sb.compare(p->stim.name, p->stim.period_ps(), p->ref_log.log, p->dut_log.log);
    sb.compare_end(p->stim.name, end_ps, p->end(*p->ref, p->ref_driver),
                   p->end(*p->dut, p->dut_driver));
    if (cover) cover->add(measure(p->stim, p->ref_log.log, *p->ref));
  }
  report& out = sb.result();
  out.dut = dut_name;
  out.units = static_cast<uint32_t>(h.pairs.size());
  out.cycles = h.slowest_period_ps ? end_ps / h.slowest_period_ps : 0;
  for (const stimulus& s : stimuli) out.packets_in += s.arrivals.size();
  out.waveforms = r.waveforms;
  out.waveform_error = r.waveform_error;
  return out;
}

}  // namespace bcastsim::tb::cosim
