#include "tb/cosim/scoreboard.h"
#include "hw/ragasa/packet_fields.h"

#include "tlm/units.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>
#include <utility>

namespace bcastsim::tb::cosim {

const char* to_string(stage s) {
  switch (s) {
    case stage::credit:
      return "credit";
    case stage::scheduled:
      return "scheduled";
    case stage::parsed:
      return "parsed";
    case stage::freed:
      return "freed";
    case stage::batch:
      return "batch";
    case stage::descriptor:
      return "descriptor";
    case stage::dispatched:
      return "dispatched";
    case stage::copy:
      return "copy";
    case stage::end:
      return "end";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, stage s) {
  return os << to_string(s);
}

event event_of(const tlm_net::packet& p, uint64_t t_ps) {
  event e;
  e.t_ps = t_ps;
  e.kind = p.kind;
  e.collective_id = p.collective_id;
  e.src = p.src;
  e.msg_id = p.msg_id;
  e.index = p.index;
  e.count = p.count;
  e.size_bytes = p.size_bytes;
  e.tag = p.tag;
  e.msg_bytes = p.msg_bytes;
  e.buf_offset = p.buf_offset;
  e.vc = p.vc;
  e.cls = static_cast<uint8_t>(hw::ragasa::unit_class(p));
  return e;
}

namespace {

bool same_packet(const event& a, const event& b) {
  return a.kind == b.kind && a.collective_id == b.collective_id && a.src == b.src &&
         a.msg_id == b.msg_id && a.index == b.index && a.count == b.count &&
         a.size_bytes == b.size_bytes;
}
bool same_child(const event& a, const event& b) {
  return a.child.dst == b.child.dst && a.child.unit_router == b.child.unit_router;
}

std::string child_text(const hw::ragasa::membership_child& c) {
  std::ostringstream os;
  os << "child {dst " << c.dst;
  if (c.unit_router != network::invalid_id) os << ", unit of router " << c.unit_router;
  os << "}";
  return os.str();
}

std::string time_text(uint64_t t_ps) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3) << units::ns_from_ps(static_cast<double>(t_ps)) << " ns";
  return os.str();
}

std::string nothing(size_t events) {
  return "(nothing: only " + std::to_string(events) + " events in this sequence)";
}

}  // namespace

bool same_event(stage s, const event& a, const event& b) {
  switch (s) {
    case stage::credit:
      return a.size_bytes == b.size_bytes && a.vc == b.vc;
    case stage::parsed:
    case stage::freed:
      return a.collective_id == b.collective_id;
    case stage::scheduled:
    case stage::batch:
      return same_packet(a, b) && a.n == b.n;
    case stage::descriptor:
    case stage::dispatched:
      return same_packet(a, b) && same_child(a, b);
    case stage::copy:
      return same_packet(a, b) && same_child(a, b) && a.tag == b.tag &&
             a.msg_bytes == b.msg_bytes && a.buf_offset == b.buf_offset && a.vc == b.vc &&
             a.cls == b.cls;
    case stage::end:
      return true;
  }
  return false;
}

std::string describe(stage s, const event& e) {
  std::ostringstream os;
  if (s == stage::parsed) {
    os << "Mini Packet of collective " << e.collective_id << " parsed";
  } else if (s == stage::freed) {
    os << "Membership Table entry of collective " << e.collective_id << " freed";
  } else if (s == stage::credit) {
    os << "credit of " << e.size_bytes << " B on VC " << static_cast<unsigned>(e.vc)
       << " returned at `in`";
  } else {
    if (s == stage::copy) os << "copy of ";
    if (s == stage::batch || s == stage::descriptor || s == stage::dispatched) os << "batch from ";
    os << tlm_net::to_string(e.kind) << " packet of collective " << e.collective_id << ", src "
       << e.src << " msg " << e.msg_id << " pkt " << e.index << "/" << e.count << ", "
       << e.size_bytes << " B";
    switch (s) {
      case stage::scheduled:
        os << ", from Rx-queue " << e.n;
        break;
      case stage::batch:
        os << ", " << e.n << " packets";
        break;
      case stage::descriptor:
      case stage::dispatched:
        os << ", for " << child_text(e.child);
        break;
      case stage::copy:
        os << " (tag " << e.tag << ", message " << e.msg_bytes << " B at offset " << e.buf_offset
           << ", vc " << static_cast<unsigned>(e.vc) << ") to " << child_text(e.child);
        break;
      default:
        break;
    }
  }
  os << ", at " << time_text(e.t_ps);
  return os.str();
}

void scoreboard::diverge(stage s, const std::string& unit, uint64_t t_ps, const char* kind,
                         std::string expected, std::string got, double drift) {
  ++m_report.divergences;
  divergence& f = m_report.first;
  if (f.found && f.t_ps <= t_ps) return;
  f.found = true;
  f.t_ps = t_ps;
  f.where = s;
  f.unit = unit;
  f.kind = kind;
  f.expected = std::move(expected);
  f.got = std::move(got);
  f.drift_cycles = drift;
}

void scoreboard::compare_sequence(stage s, const std::string& unit, uint64_t period_ps,
                                  const std::vector<event>& ref, const std::vector<event>& dut) {
  stage_summary& sum = m_report[s];
  const size_t n = std::max(ref.size(), dut.size());
  for (size_t i = 0; i < n; ++i) {
    if (i >= ref.size() || i >= dut.size() || !same_event(s, ref[i], dut[i])) {
      ++sum.mismatches;
      const uint64_t t = i >= ref.size()   ? dut[i].t_ps
                         : i >= dut.size() ? ref[i].t_ps
                                           : std::min(ref[i].t_ps, dut[i].t_ps);
      diverge(s, unit, t, "functional", i < ref.size() ? describe(s, ref[i]) : nothing(ref.size()),
              i < dut.size() ? describe(s, dut[i]) : nothing(dut.size()), 0.0);
      return;  // the rest of this sequence is out of step
    }
    const auto delta = static_cast<int64_t>(dut[i].t_ps) - static_cast<int64_t>(ref[i].t_ps);
    const double drift = static_cast<double>(delta) / static_cast<double>(period_ps);
    ++sum.compared;
    sum.sum_drift_cycles += drift;
    sum.max_abs_drift_cycles = std::max(sum.max_abs_drift_cycles, std::fabs(drift));
    if (std::fabs(drift) > m_report.tolerance_cycles) {
      ++sum.violations;
      diverge(s, unit, std::min(ref[i].t_ps, dut[i].t_ps), "timing", describe(s, ref[i]),
              describe(s, dut[i]), drift);
    }
  }
}

void scoreboard::compare(const std::string& unit, uint64_t period_ps, const event_log& ref,
                         const event_log& dut) {
  for (stage s : {stage::credit, stage::scheduled, stage::parsed, stage::freed, stage::batch,
                  stage::descriptor, stage::dispatched}) {
    compare_sequence(s, unit, period_ps, ref[s], dut[s]);
  }
  // Copies per child, children in (dst, unit_router) order.
  using key = std::pair<network::terminal_id, network::router_id>;
  std::map<key, std::pair<std::vector<event>, std::vector<event>>> children;
  for (const event& e : ref[stage::copy])
    children[{e.child.dst, e.child.unit_router}].first.push_back(e);
  for (const event& e : dut[stage::copy])
    children[{e.child.dst, e.child.unit_router}].second.push_back(e);
  for (const auto& [child, copies] : children)
    compare_sequence(stage::copy, unit, period_ps, copies.first, copies.second);
}

void scoreboard::compare_end(const std::string& unit, uint64_t t_ps, const end_state& ref,
                             const end_state& dut) {
  if (!ref.idle || ref.arrivals_left) {
    m_report.incomplete += unit + ": the reference did not finish (" +
                           std::to_string(ref.arrivals_left) + " packets not sent)\n" + ref.stall;
  }
  stage_summary& sum = m_report[stage::end];
  auto check = [&](const char* what, uint64_t r, uint64_t d) {
    if (r == d) {
      ++sum.compared;
      return;
    }
    ++sum.mismatches;
    diverge(
        stage::end, unit, t_ps, "functional", std::string(what) + " " + std::to_string(r),
        std::string(what) + " " + std::to_string(d) + (dut.stall.empty() ? "" : "\n") + dut.stall,
        0.0);
  };
  check("idle", ref.idle, dut.idle);
  check("stimulus packets not sent", ref.arrivals_left, dut.arrivals_left);
  check("packets_in", ref.packets_in, dut.packets_in);
  check("packets_out", ref.packets_out, dut.packets_out);
  check("mini_packets", ref.mini_packets, dut.mini_packets);
  check("descriptors", ref.descriptors, dut.descriptors);
  check("bytes_replicated", ref.bytes_replicated, dut.bytes_replicated);
}

void scoreboard::error(const std::string& unit, uint64_t t_ps, const std::string& what,
                       bool reference) {
  if (reference) {
    m_report.incomplete += unit + ": error at " + time_text(t_ps) + ": " + what + "\n";
    return;
  }
  ++m_report[stage::end].mismatches;
  diverge(stage::end, unit, t_ps, "functional", "no error", "error: " + what, 0.0);
}

void print(std::ostream& os, const report& r) {
  os << "co-simulation of the Bcast Unit: " << r.dut << " against the SystemC model, " << r.units
     << (r.units == 1 ? " unit, " : " units, ") << r.packets_in << " packets in, " << r.cycles
     << " clock cycles\n";
  os << "timing tolerance: " << r.tolerance_cycles
     << " cycles (drift = t_dut - t_ref of each matched event, in clock cycles)\n";
  os << "  " << std::left << std::setw(12) << "stage" << std::right << std::setw(10) << "compared"
     << std::setw(12) << "mismatches" << std::setw(12) << "violations" << std::setw(18)
     << "max |drift| cyc" << std::setw(18) << "mean drift cyc"
     << "\n";
  os << std::fixed << std::setprecision(3);
  for (size_t k = 0; k < num_stages; ++k) {
    const stage_summary& s = r.stages[k];
    os << "  " << std::left << std::setw(12) << to_string(static_cast<stage>(k)) << std::right
       << std::setw(10) << s.compared << std::setw(12) << s.mismatches << std::setw(12)
       << s.violations << std::setw(18) << s.max_abs_drift_cycles << std::setw(18)
       << s.mean_drift_cycles() << "\n";
  }
  if (!r.incomplete.empty()) os << "incomplete run:\n" << r.incomplete;
  if (r.first.found) {
    const divergence& f = r.first;
    os << "FAIL: " << r.divergences << (r.divergences == 1 ? " divergence" : " divergences")
       << "; the first at " << time_text(f.t_ps) << ", stage " << to_string(f.where) << ", "
       << f.unit << ", " << f.kind;
    if (f.kind == "timing") os << " (drift " << f.drift_cycles << " cycles)";
    const std::string expected = "expected (SystemC model):", got = "got (" + r.dut + "):";
    const size_t w = std::max(expected.size(), got.size()) + 1;
    os << "\n  " << std::left << std::setw(static_cast<int>(w)) << expected << f.expected << "\n  "
       << std::setw(static_cast<int>(w)) << got << f.got << std::right << "\n";
  } else if (r.incomplete.empty()) {
    os << "PASS: no divergence\n";
  }
  for (const std::string& w : r.waveforms) os << "waveform: " << w << "\n";
}

nlohmann::json to_json(const report& r) {
  nlohmann::json j;
  j["dut"] = r.dut;
  j["tolerance_cycles"] = r.tolerance_cycles;
  j["units"] = r.units;
  j["cycles"] = r.cycles;
  j["packets_in"] = r.packets_in;
  j["ok"] = r.ok();
  j["divergences"] = r.divergences;
  for (size_t k = 0; k < num_stages; ++k) {
    const stage_summary& s = r.stages[k];
    j["stages"][to_string(static_cast<stage>(k))] = {
        {"compared", s.compared},
        {"mismatches", s.mismatches},
        {"violations", s.violations},
        {"max_abs_drift_cycles", s.max_abs_drift_cycles},
        {"mean_drift_cycles", s.mean_drift_cycles()}};
  }
  if (r.first.found) {
    const divergence& f = r.first;
    j["first_divergence"] = {{"t_ps", f.t_ps},
                             {"stage", to_string(f.where)},
                             {"unit", f.unit},
                             {"kind", f.kind},
                             {"expected", f.expected},
                             {"got", f.got},
                             {"drift_cycles", f.drift_cycles}};
  } else {
    j["first_divergence"] = nullptr;
  }
  j["incomplete"] = r.incomplete;
  j["waveforms"] = r.waveforms;
  return j;
}

}  // namespace bcastsim::tb::cosim
