#include "hw/nic/host.h"

#include "tlm/units.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

namespace bcastsim::hw {

using algorithms::op_kind;
using sc_core::sc_time;

void collective_progress::reset(const algorithms::program& p) {
  prog = &p;
  instances.assign(p.instances.size(), instance_progress{});
  instances_done = 0;
  for (uint32_t i = 0; i < p.instances.size(); ++i) {
    const algorithms::instance_info& inst = p.instances[i];
    instance_progress& ip = instances[i];
    ip.rank_done.assign(inst.ranks.size(), sc_core::SC_ZERO_TIME);
    ip.done.assign(inst.ranks.size(), false);
    for (uint32_t m = 0; m < inst.ranks.size(); ++m) {
      if (inst.holds_at_start(m)) member_done(i, m);
    }
  }
  broadcasts.assign(p.context_instance.size(), broadcast_progress{});
  for (const algorithms::instance_info& inst : p.instances) {
    if (!inst.algorithm || inst.algorithm->kind != algorithms::collective_kind::broadcast) continue;
    const auto members = static_cast<uint32_t>(inst.ranks.size());
    for (uint32_t k = 0; k < inst.contexts; ++k) {
      broadcast_progress& b = broadcasts[inst.first_context + k];
      b.broadcast = true;
      if (inst.all_roots && k < inst.own.size()) {  // root k's block; the others receive it
        b.root = k;
        b.begin = inst.own[k].begin;
        b.end = inst.own[k].end;
        b.receivers = members - 1;
        continue;
      }
      b.root = static_cast<uint32_t>(std::find(inst.ranks.begin(), inst.ranks.end(), inst.root) -
                                     inst.ranks.begin());
      b.end = inst.buffer_bytes;
      for (uint32_t m = 0; m < members; ++m) b.receivers += inst.holds_at_start(m) ? 0 : 1;
    }
  }
}

void collective_progress::broadcast_done(uint32_t context) {
  broadcast_progress& b = broadcasts[context];
  ++b.receivers_done;
  b.last_done = sc_core::sc_time_stamp();
  b.done_ps_sum += b.last_done.value();
}

void collective_progress::member_done(uint32_t i, uint32_t member) {
  instance_progress& ip = instances[i];
  if (ip.done[member]) return;
  ip.done[member] = true;
  ip.rank_done[member] = sc_core::sc_time_stamp();
  if (++ip.members_done == ip.done.size()) ++instances_done;
}

host::host(const sc_core::sc_module_name& name, uint32_t rank, const algorithms::program& prog,
           const host_params& params, nic& nic, const network::placement& place,
           collective_progress& progress)
    : sc_core::sc_module(name),
      m_rank(rank),
      m_prog(prog),
      m_program(prog.sched.ranks[rank]),
      m_params(params),
      m_nic(nic),
      m_place(place),
      m_progress(progress),
      m_agenda(m_wakeup) {
  nic.set_client(this);
  const algorithms::rank_program& program = m_program;
  for (const auto& [i, m] : prog.memberships[rank]) {
    const algorithms::instance_info& inst = prog.instances[i];
    slot sl;
    sl.instance = i;
    sl.member = m;
    sl.buffer_bytes = inst.buffer_bytes;
    if (inst.own[m].size() > 0) hold(sl, byte_range{inst.own[m].begin, inst.own[m].end});
    m_slots.push_back(std::move(sl));
  }
  const size_t n = program.ops.size();
  m_deps_left.resize(n);
  m_dependents.resize(n);
  m_seq.resize(n);
  m_send_channels = channels_of(program, op_kind::send);
  for (const channel& c : channels_of(program, op_kind::offload_bcast))
    m_send_channels.push_back(c);  // peer: the rank itself, never a send's peer
  std::sort(m_send_channels.begin(), m_send_channels.end(), channel_before);
  m_recv_channels = channels_of(program, op_kind::recv);
  for (size_t i = 0; i < n; ++i) {
    m_deps_left[i] = static_cast<uint32_t>(program.ops[i].deps.size());
    for (uint32_t d : program.ops[i].deps) m_dependents[d].push_back(static_cast<uint32_t>(i));
  }
  for (size_t i = 0; i < n; ++i) {
    if (m_deps_left[i] == 0)
      m_agenda.push(sc_core::SC_ZERO_TIME, action{action_kind::start, static_cast<uint32_t>(i)});
  }
  m_stats.declare("cpu_busy_ps", "ps", "host CPU time spent in MPI overheads and compute",
                  cpu_busy_ps);
  m_stats.declare("ops_completed", "ops", "schedule operations completed", ops_completed);
  SC_METHOD(on_wakeup);
  sensitive << m_wakeup;
  dont_initialize();
}

bool host::channel_before(const channel& a, const channel& b) {
  if (a.peer != b.peer) return a.peer < b.peer;
  return a.context != b.context ? a.context < b.context : a.tag < b.tag;
}

std::vector<host::channel> host::channels_of(const algorithms::rank_program& program,
                                             op_kind kind) {
  std::vector<channel> out;
  for (const algorithms::op& o : program.ops) {
    if (o.kind == kind) out.push_back(channel{o.peer, o.context, o.tag, 0});
  }
  std::sort(out.begin(), out.end(), channel_before);
  out.erase(std::unique(out.begin(), out.end(),
                        [](const channel& a, const channel& b) {
                          return a.peer == b.peer && a.context == b.context && a.tag == b.tag;
                        }),
            out.end());
  return out;
}

uint32_t host::next_seq(std::vector<channel>& channels, const algorithms::op& o) {
  auto it = std::lower_bound(channels.begin(), channels.end(), channel{o.peer, o.context, o.tag, 0},
                             channel_before);
  return it->next_seq++;  // every (peer, context, tag) of the program has its channel
}

host::slot* host::slot_of_context(uint32_t context) {
  if (context >= m_prog.context_instance.size()) return nullptr;
  const uint32_t instance = m_prog.context_instance[context];
  auto it = std::lower_bound(m_slots.begin(), m_slots.end(), instance,
                             [](const slot& s, uint32_t i) { return s.instance < i; });
  return it != m_slots.end() && it->instance == instance ? &*it : nullptr;
}

// An instance starts with the first send call of any of its members.
void host::note_start(uint32_t context) {
  instance_progress& ip = m_progress.instances[m_prog.context_instance[context]];
  if (!ip.started) {
    ip.started = true;
    ip.start = sc_core::sc_time_stamp();
  }
  broadcast_progress& b = m_progress.broadcasts[context];
  if (!b.started) {
    b.started = true;
    b.start = sc_core::sc_time_stamp();
  }
}

sc_time host::use_cpu(double ns) {
  const sc_time now = sc_core::sc_time_stamp();
  const sc_time start = m_cpu_free > now ? m_cpu_free : now;
  const sc_time cost = sc_time::from_value(units::ps_from_ns(ns));
  m_cpu_free = start + cost;
  cpu_busy_ps += cost.value();
  return m_cpu_free;
}

void host::start(uint32_t i) {
  const algorithms::op& o = m_program.ops[i];
  switch (o.kind) {
    case op_kind::send: {
      note_start(o.context);
      m_seq[i] = next_seq(m_send_channels, o);  // posting order, as MPI numbers
      m_agenda.push(use_cpu(m_params.send_overhead_ns), action{action_kind::complete, i});
      break;
    }
    case op_kind::recv:
      m_seq[i] = next_seq(m_recv_channels, o);
      m_posted.push_back(i);
      try_match();
      break;
    case op_kind::compute:
      m_agenda.push(use_cpu(static_cast<double>(o.compute_ns)), action{action_kind::complete, i});
      break;
    case op_kind::join:
      complete(i);
      break;
    case op_kind::wait_until: {
      const sc_time at = sc_time::from_value(units::ps_from_ns(static_cast<double>(o.at_ns)));
      const sc_time now = sc_core::sc_time_stamp();
      m_agenda.push(at > now ? at : now, action{action_kind::complete, i});
      break;
    }
    case op_kind::offload_init:
    case op_kind::offload_start:
    case op_kind::offload_wait:
    case op_kind::offload_free:
      if (m_agent == nullptr) {
        m_progress.errors.push_back(std::string(name()) + ": a persistent offload call (" +
                                    algorithms::to_string(o.kind) +
                                    "), but the fabric has no offload agent for it");
        break;
      }
      if (o.kind == op_kind::offload_start) note_start(o.context);
      m_agent->call(i, o);
      break;
    case op_kind::offload_bcast:
      if (m_offload_target.family == 0) {
        m_progress.errors.push_back(std::string(name()) +
                                    ": an offload broadcast, but the fabric has no Bcast Units");
        break;
      }
      if (!m_gate_open[o.context]) {
        m_gated.push_back(i);
        break;
      }
      note_start(o.context);
      m_seq[i] = next_seq(m_send_channels, o);
      m_agenda.push(use_cpu(m_params.send_overhead_ns), action{action_kind::complete, i});
      break;
  }
}

void host::enable_offload(const tlm_net::family_header& target) {
  m_offload_target = target;
  m_gate_open.assign(m_prog.context_instance.size(), false);
}

void host::open_offload_gate(uint32_t context) {
  m_gate_open[context] = true;
  for (size_t k = 0; k < m_gated.size();) {
    const uint32_t i = m_gated[k];
    if (m_program.ops[i].context != context) {
      ++k;
      continue;
    }
    m_agenda.push(sc_core::sc_time_stamp(), action{action_kind::start, i});
    m_gated.erase(m_gated.begin() + static_cast<std::ptrdiff_t>(k));
  }
  m_agenda.arm();
}

void host::complete(uint32_t i) {
  const algorithms::op& o = m_program.ops[i];
  if (o.kind == op_kind::send) {
    message m;
    m.dst = m_place.terminal_of(o.peer);
    // A lane's message goes to the peer's same lane (Tofu2: fragment f from TNI f to TNI f).
    if (o.lane > 0 && m_lane_terminals != nullptr && o.lane <= (*m_lane_terminals)[o.peer].size())
      m.dst = (*m_lane_terminals)[o.peer][o.lane - 1u];
    m.bytes = o.bytes;
    m.buf_offset = o.offset;
    m.tag = o.tag;
    m.collective_id = o.context + 1;
    m.seq = m_seq[i];
    if (o.lane > m_lanes.size()) {
      m_progress.errors.push_back(std::string(name()) + ": a send on NIC lane " +
                                  std::to_string(o.lane) + ", but the rank has " +
                                  std::to_string(m_lanes.size() + 1) + " NIC(s)");
    }
    (o.lane == 0 || o.lane > m_lanes.size() ? m_nic : *m_lanes[o.lane - 1u]).send_message(m);
  } else if (o.kind == op_kind::offload_bcast) {
    message m;
    m.dst = m_nic.terminal();  // routing aims at the own router; its unit takes the packets
    m.offload = m_offload_target;
    m.collective_id = o.context + 1;
    m.bytes = o.bytes;
    m.buf_offset = o.offset;
    m.tag = o.tag;
    m.seq = m_seq[i];
    m_nic.send_message(m);
  } else if (algorithms::is_offload_call(o.kind)) {
    m_agent->returned(i, o);
  }
  ++m_completed;
  ++ops_completed;
  for (uint32_t d : m_dependents[i]) {
    if (--m_deps_left[d] == 0) start(d);
  }
}

void host::add_lanes(std::vector<nic*> lanes, const std::vector<uint32_t>* rank_of_terminal,
                     const std::vector<std::vector<network::terminal_id>>* lane_terminals) {
  m_lane_terminals = lane_terminals;
  for (nic* n : lanes) n->set_client(this);
  m_lanes.insert(m_lanes.end(), lanes.begin(), lanes.end());
  m_rank_of_terminal = rank_of_terminal;
}

void host::finish_call(uint32_t op, const sc_time& when) {
  const sc_time now = sc_core::sc_time_stamp();
  m_agenda.push(when > now ? when : now, action{action_kind::complete, op});
  m_agenda.arm();
}

void host::offload_data(uint32_t context, uint64_t offset, uint64_t bytes) {
  if (!slot_of_context(context)) {
    m_progress.errors.push_back(std::string(name()) + ": offload data of collective " +
                                std::to_string(context + 1) + ", which rank " +
                                std::to_string(m_rank) + " is not a member of");
    return;
  }
  note_received(context, offset, bytes);
}

void host::on_message(network::terminal_id src, uint32_t collective_id, uint32_t tag,
                      uint64_t offset, uint64_t bytes, uint32_t seq) {
  const uint32_t src_rank =
      m_rank_of_terminal != nullptr ? (*m_rank_of_terminal)[src] : m_place.rank_of(src);
  if (src_rank == network::invalid_id) {
    m_progress.errors.push_back(std::string(name()) + ": message from a terminal outside the job");
    return;
  }
  const uint32_t context = collective_id - 1;  // message::collective_id
  if (collective_id == 0 || !slot_of_context(context)) {
    m_progress.errors.push_back(std::string(name()) + ": message of collective " +
                                std::to_string(collective_id) + ", which rank " +
                                std::to_string(m_rank) + " is not a member of");
    return;
  }
  note_received(context, offset, bytes);
  m_unexpected.push_back(arrived{src_rank, context, tag, seq, offset, bytes});
  try_match();
  m_agenda.arm();
}

void host::note_received(uint32_t context, uint64_t offset, uint64_t bytes) {
  slot& sl = *slot_of_context(context);
  sl.received_bytes += bytes;
  ++sl.received_messages;
  // The broadcast of this context: its block held now, not before (bytes may come twice).
  const broadcast_progress& b = m_progress.broadcasts[context];
  const bool zero = b.begin == b.end;
  const bool had =
      !b.broadcast || (zero ? b.receivers_done == b.receivers : covers(sl, b.begin, b.end));
  if (bytes > 0) hold(sl, byte_range{offset, offset + bytes});
  if (!had && (zero || covers(sl, b.begin, b.end))) m_progress.broadcast_done(context);
  // Zero bytes: held when every message the member receives has come (with all roots, one
  // per root), not at the first.
  const bool holds_all =
      sl.buffer_bytes == 0
          ? sl.received_messages >= m_prog.instances[sl.instance].receives[sl.member]
          : !sl.held.empty() && sl.held.front().begin == 0 &&
                sl.held.front().end >= sl.buffer_bytes;
  if (holds_all) m_progress.member_done(sl.instance, sl.member);
}

bool host::covers(const slot& sl, uint64_t begin, uint64_t end) {
  // The held range reaching past `begin` (ranges are disjoint and sorted) must hold it all.
  auto it = std::lower_bound(sl.held.begin(), sl.held.end(), begin,
                             [](const byte_range& r, uint64_t at) { return r.end <= at; });
  return it != sl.held.end() && it->begin <= begin && it->end >= end;
}

void host::hold(slot& sl, byte_range got) {
  // Merge `got` with the held ranges it overlaps or touches: [first, last), those ending at
  // or after its begin and starting at or before its end.
  auto first = std::lower_bound(sl.held.begin(), sl.held.end(), got.begin,
                                [](const byte_range& r, uint64_t at) { return r.end < at; });
  auto last = first;
  for (; last != sl.held.end() && last->begin <= got.end; ++last) {
    got.begin = std::min(got.begin, last->begin);
    got.end = std::max(got.end, last->end);
    sl.held_bytes -= last->end - last->begin;
  }
  sl.held_bytes += got.end - got.begin;
  if (first == last) {
    sl.held.insert(first, got);
  } else {
    *first = got;
    sl.held.erase(first + 1, last);
  }
}

void host::try_match() {
  // MPI matching: each posted receive takes the message of its (source, tag) and number, so
  // a later message that arrived first waits for its receive.
  for (size_t pi = 0; pi < m_posted.size();) {
    const algorithms::op& o = m_program.ops[m_posted[pi]];
    const uint32_t seq = m_seq[m_posted[pi]];
    size_t ui = 0;
    while (ui < m_unexpected.size() &&
           !(m_unexpected[ui].src_rank == o.peer && m_unexpected[ui].context == o.context &&
             m_unexpected[ui].tag == o.tag && m_unexpected[ui].seq == seq))
      ++ui;
    if (ui == m_unexpected.size()) {
      ++pi;
      continue;
    }
    const arrived a = m_unexpected[ui];
    m_unexpected.erase(m_unexpected.begin() + static_cast<std::ptrdiff_t>(ui));
    if (a.offset != o.offset || a.bytes != o.bytes) {
      std::ostringstream os;
      os << name() << ": receive from rank " << o.peer << " tag " << o.tag << " expected bytes ["
         << o.offset << ", +" << o.bytes << ") but got [" << a.offset << ", +" << a.bytes << ")";
      m_progress.errors.push_back(os.str());
    }
    const uint32_t op = m_posted[pi];
    m_posted.erase(m_posted.begin() + static_cast<std::ptrdiff_t>(pi));
    m_agenda.push(use_cpu(m_params.recv_overhead_ns), action{action_kind::complete, op});
  }
}

void host::on_wakeup() {
  const sc_time now = sc_core::sc_time_stamp();
  while (m_agenda.due(now)) {
    const action a = m_agenda.pop();
    if (a.kind == action_kind::start) {
      start(a.op);
    } else {
      complete(a.op);
    }
  }
  m_agenda.arm();
}

bool host::describe_stall(std::ostream& os) const {
  if (finished()) return false;
  os << "  " << name() << " (rank " << m_rank << "): " << m_completed << "/" << m_program.ops.size()
     << " ops done";
  if (!m_gated.empty()) os << "; an offload broadcast waits for the tree's set-up";
  if (m_agent != nullptr) m_agent->describe_stall(os);
  for (uint32_t op : m_posted) {
    const algorithms::op& o = m_program.ops[op];
    os << "; op " << op << " waits for message " << m_seq[op] << " from rank " << o.peer << " tag "
       << o.tag;
    break;
  }
  os << "\n";
  return true;
}

}  // namespace bcastsim::hw
