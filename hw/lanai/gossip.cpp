// The LANai NIC's collective engine: NIC-CB and NIC-RD (algorithms/lanai_gossip.h) in time.
//
// The group is set up before the run's first request (gossip_init: the paper's group
// initiation posts the peers and the preregistered buffer to the NIC), so a NIC takes and
// forwards a group's packets that arrive before its own host's request, into the operation's
// buffer channel in host memory.
//   request    gossip_start(): the gm_gossip request crosses the PCI bus (event_bytes) into the
//              separate collective queue; the LANai takes it (event_cycles) and DMAs the
//              host's block (NIC-CB: the operation's fragment) into SRAM.
//   NIC-CB     the own packet goes to each child in the NIC's own tree, built once
//              (packet_cycles) and re-sent from the same buffer (forward_cycles). A packet
//              received (packet_cycles) is marked in the operation's arrival record; a new one
//              is DMAed to host memory and forwarded to its children in its origin's tree from
//              the receive buffer (forward_cycles each); a duplicate is dropped. An operation
//              completes here when every origin has arrived and the own packet is out; the
//              next fragment's operation starts then.
//   NIC-RD     step k sends the 2^k blocks held to the peer rank XOR 2^k, combined into as few
//              packets as the MTU allows (packet_cycles each), and completes when the peer's
//              packets of step k are in. Data kept in the staging buffer goes to the host at
//              the end; a step whose data would overflow it DMAs what arrives to the host and
//              the next step's data back (the paper's staging through host memory).
//   completion once the last operation or step completed and every DMA of data to the host is
//              done, a receive event crosses the PCI bus and the host hears of it.
#include "hw/lanai/gossip_state.h"

#include <cmath>
#include <ostream>

namespace bcastsim::hw::lanai {

using algorithms::lanai::cb_sends;
using algorithms::lanai::hop;
using tlm_net::packet;

namespace {

// Gossip DMAs: index (sub << 48) | value; gossip tasks: code in task::a.
enum class gdma : uint8_t { request = 1, own, rx, back, flush, event };
constexpr uint64_t gid(gdma k, uint64_t v = 0) {
  return uint64_t{static_cast<uint8_t>(k)} << 48 | v;
}
enum gtask : uint32_t { g_request = 1, g_send };

}  // namespace

void nic::gossip_init(const gossip_request& r, gossip_client& client) {
  m_gossip = std::make_unique<gossip_state>();
  gossip_state& g = *m_gossip;
  g.req = r;
  g.client = &client;
  g.n = static_cast<uint32_t>(r.members.size());
  g.me = r.member;
  g.queued_resends.assign(g.n, 0);
  g.mtu_bytes = m_params.mtu_bytes;
  if (r.recursive_doubling) {
    g.steps = algorithms::lanai::rd_steps(g.me, g.n, r.block_bytes, m_params.mtu_bytes,
                                          m_params.staging_bytes);
    g.step_packets.assign(g.steps.size(), 0);
    for (const algorithms::lanai::rd_step& st : g.steps)
      g.step_got.emplace_back(algorithms::lanai::arrival_record(st.packets));
  } else {
    g.ops =
        r.block_bytes == 0
            ? 1
            : static_cast<uint32_t>((r.block_bytes + m_params.mtu_bytes - 1) / m_params.mtu_bytes);
    g.nacked_up.assign(g.n, false);
    g.arrived.resize(g.ops);
    for (auto& a : g.arrived) {
      a.reset(g.n);
      a.mark(g.me);
    }
  }
}

void nic::gossip_start() {
  if (!m_gossip) SC_REPORT_ERROR(name(), "gm_gossip request before the group was set up");
  m_gossip->active = true;
  m_pci->dma(pci_direction::to_nic, m_params.event_bytes, dma_id_gossip(gid(gdma::request)));
}

// A gossip task costing `n` cycles.
void nic::post_gossip(uint32_t code, uint32_t n) {
  post(task_kind::gossip, code, uint64_t{n} << 32);
}

void nic::gossip_task(const task& t) {
  gossip_state& g = *m_gossip;
  if (t.a == g_request) {
    // The host's block (NIC-CB: this operation's fragment) into SRAM.
    const uint64_t bytes = g.req.recursive_doubling ? g.req.block_bytes : g.frag_bytes(g.op);
    m_pci->dma(pci_direction::to_nic, bytes, dma_id_gossip(gid(gdma::own)));
    return;
  }
  // g_send: the next packet the engine has to send.
  const gossip_state::pending s = g.sends.pop();
  wire w;
  w.dst = s.to;
  w.kind = s.fields.type == packet_type::coll_nack ? tlm_net::packet_kind::control
                                                   : tlm_net::packet_kind::data;
  w.fields = s.fields;
  w.payload = s.payload;
  w.msg_id = m_next_wire_msg++;
  w.collective_id = g.req.context + 1;
  w.msg_bytes = s.payload;
  w.buf_offset = s.offset;
  w.index = s.index;
  w.count = s.count;
  w.created = sc_core::sc_time_stamp();
  w.resend = s.resend;
  if (s.forward) ++forwards;
  if (s.resend) ++retransmissions;
  if (s.fields.type == packet_type::coll_nack) ++nacks;
  queue_wire(w);
  gossip_check();
}

// Queues origin's packet of operation `op` to every child of this NIC in origin's tree.
void nic::cb_send_down(uint32_t origin, uint32_t op, bool forward) {
  gossip_state& g = *m_gossip;
  bool first = !forward;
  for (const hop& h : cb_sends(g.me, origin, g.n)) {
    gossip_state::pending s;
    s.to = g.req.members[h.to];
    s.fields.type = packet_type::cb_data;
    s.fields.flag = h.flag.log_distance;
    s.fields.seq = static_cast<uint16_t>(op);
    s.fields.origin = origin;
    s.payload = static_cast<uint32_t>(g.frag_bytes(op));
    s.offset = origin * g.req.block_bytes + uint64_t{op} * m_params.mtu_bytes;
    s.forward = forward;
    g.sends.push(s);
    post_gossip(g_send, first ? m_params.packet_cycles : m_params.forward_cycles);
    first = false;
  }
}

// Queues every packet of step k's data for `to` (the step's peer).
void nic::queue_rd_step(uint32_t k, network::terminal_id to, bool resend, uint32_t cycles) {
  gossip_state& g = *m_gossip;
  const algorithms::lanai::rd_step& st = g.steps[k];
  for (uint32_t i = 0; i < st.packets; ++i) {
    gossip_state::pending s;
    s.to = to;
    s.fields.type = packet_type::rd_data;
    s.fields.flag = static_cast<uint8_t>(k);
    s.fields.origin = st.first_block;
    const uint64_t first = uint64_t{i} * m_params.mtu_bytes;
    const uint64_t left = st.bytes - first;
    s.payload = static_cast<uint32_t>(left < m_params.mtu_bytes ? left : m_params.mtu_bytes);
    s.offset = st.first_block * g.req.block_bytes + first;
    s.index = i;
    s.count = st.packets;
    s.resend = resend;
    g.sends.push(s);
    post_gossip(g_send, cycles);
  }
}

void nic::rd_send_step() {
  gossip_state& g = *m_gossip;
  queue_rd_step(g.step, g.req.members[g.steps[g.step].peer], false, m_params.packet_cycles);
  g.step_sent = true;
  g.deadline = sc_core::sc_time_stamp() + nack_timeout();
  arm_timer();
}

void nic::gossip_dma_done(pci_direction, uint64_t i) {
  gossip_state& g = *m_gossip;
  switch (static_cast<gdma>(i >> 48)) {
    case gdma::request:
      post_gossip(g_request, m_params.event_cycles);
      break;
    case gdma::own:
      if (g.req.recursive_doubling) {
        g.own_ready = true;
        g.step = 0;
        if (!g.steps.empty()) rd_send_step();
      } else {
        g.channels.open(g.op);
        g.own_sent = true;
        g.nacked_up.assign(g.n, false);
        g.deadline = sc_core::sc_time_stamp() + nack_timeout();
        arm_timer();
        cb_send_down(g.me, g.op, false);
      }
      break;
    case gdma::back:
      rd_send_step();
      break;
    case gdma::rx:
      ++m_free_recv_buffers;  // the packet's data is in host memory
      take_arrivals();
      --g.dma_writes;
      break;
    case gdma::flush:
      --g.dma_writes;
      break;
    case gdma::event:
      g.active = false;
      g.client->on_gossip_done(g.req.context);
      return;
  }
  gossip_check();
}

void nic::gossip_receive(packet* p) {
  if (!m_gossip) {
    SC_REPORT_ERROR(name(), "a collective packet at a NIC outside the group");
    release_rx(p);
    return;
  }
  gossip_state& g = *m_gossip;
  const packet_fields f = p->offload.as<packet_fields>();
  const uint32_t payload = p->size_bytes - m_params.header_bytes;
  if (f.type == packet_type::cb_data) {
    if (f.seq >= g.ops || f.origin >= g.n || !g.arrived[f.seq].mark(f.origin)) {
      ++duplicates;
      release_rx(p);
      return;
    }
    cb_send_down(f.origin, f.seq, true);
    if (f.seq == g.op) restart_nack_timer();
    // The receive buffer is held until the data is in host memory.
    m_pool.release(p);
    ++g.dma_writes;
    m_pci->dma(pci_direction::to_host, payload, dma_id_gossip(gid(gdma::rx)));
  } else if (f.type == packet_type::coll_nack) {
    gossip_nack(p->src, f);
    release_rx(p);
  } else if (f.type == packet_type::rd_data && f.flag < g.steps.size() &&
             g.step_got[f.flag].mark(p->index)) {
    ++g.step_packets[f.flag];
    if (f.flag == g.step) restart_nack_timer();
    if (g.steps[f.flag].staged_in_host) {
      m_pool.release(p);
      ++g.dma_writes;
      m_pci->dma(pci_direction::to_host, payload, dma_id_gossip(gid(gdma::rx)));
    } else {
      g.unflushed_bytes += payload;  // into the staging buffer
      release_rx(p);
    }
  } else {
    ++duplicates;
    release_rx(p);
  }
  gossip_check();
}

// Moves the collective on: operations (NIC-CB) or steps (NIC-RD) that completed here, then
// the completion event once all data is in host memory.
void nic::gossip_check() {
  gossip_state& g = *m_gossip;
  if (!g.active || g.done_event) return;
  bool all_done = false;
  if (!g.req.recursive_doubling) {
    while (g.own_sent && g.arrived[g.op].complete()) {
      g.channels.complete(g.op);
      if (g.op + 1 == g.ops) {
        all_done = true;
        break;
      }
      ++g.op;
      g.own_sent = false;
      m_pci->dma(pci_direction::to_nic, g.frag_bytes(g.op), dma_id_gossip(gid(gdma::own)));
    }
  } else {
    while (g.step < g.steps.size() && g.step_sent &&
           g.step_packets[g.step] == g.steps[g.step].packets) {
      const bool staged = g.steps[g.step].staged_in_host;
      ++g.step;
      g.step_sent = false;
      if (g.step == g.steps.size()) break;
      if (staged) {
        // What the next step sends comes back from host memory.
        m_pci->dma(pci_direction::to_nic, g.steps[g.step].bytes, dma_id_gossip(gid(gdma::back)));
        return;
      }
      rd_send_step();
    }
    all_done = g.own_ready && g.step == g.steps.size();
    if (all_done && g.unflushed_bytes > 0) {
      ++g.dma_writes;
      m_pci->dma(pci_direction::to_host, g.unflushed_bytes, dma_id_gossip(gid(gdma::flush)));
      g.unflushed_bytes = 0;
    }
  }
  if (all_done && g.deadline != sc_core::sc_max_time()) {
    g.deadline = sc_core::sc_max_time();
    arm_timer();  // cancelled: a timer left armed would end the run late
  }
  if (!all_done || g.dma_writes > 0 || !g.sends.empty()) return;
  g.done_event = true;
  m_pci->dma(pci_direction::to_host, m_params.event_bytes, dma_id_gossip(gid(gdma::event)));
}

// A collective packet left for the link: NACKs and resends are no longer waiting.
void nic::gossip_injected(const wire& w) {
  gossip_state& g = *m_gossip;
  if (w.fields.type == packet_type::coll_nack) {
    --g.queued_nacks;
  } else if (w.resend) {
    for (uint32_t m = 0; m < g.n; ++m) {
      if (g.req.members[m] == w.dst && g.queued_resends[m] > 0) --g.queued_resends[m];
    }
  }
}

bool nic::gossip_idle() const {
  return !m_gossip || !m_gossip->active;
}

void nic::gossip_stall(std::ostream& os) const {
  if (gossip_idle()) return;
  const gossip_state& g = *m_gossip;
  if (g.req.recursive_doubling) {
    os << "; NIC-RD step " << g.step << "/" << g.steps.size();
    if (g.step < g.steps.size())
      os << " (" << g.step_packets[g.step] << "/" << g.steps[g.step].packets
         << " packets from rank " << g.steps[g.step].peer << ")";
  } else {
    os << "; NIC-CB operation " << g.op << "/" << g.ops << ", " << g.arrived[g.op].count() << "/"
       << g.n << " origins";
  }
  os << ", " << g.dma_writes << " DMAs to the host";
}

sc_core::sc_time nic::nack_timeout() const {
  return sc_core::sc_time::from_value(
      static_cast<uint64_t>(std::llround(m_params.nack_timeout_us * 1e6)));
}

// The operation or step made progress: its NACK timer starts again. A NIC times out when
// the packets it expects stop coming, not a fixed time after it began, so a long operation
// (4 KiB on 128 NICs takes 4 ms) draws no NACK while its packets still arrive. Our reading:
// the paper says only "if any expected all-to-all broadcast message is timed out".
void nic::restart_nack_timer() {
  gossip_state& g = *m_gossip;
  if (g.deadline == sc_core::sc_max_time()) return;  // not started here yet, or done
  g.deadline = sc_core::sc_time_stamp() + nack_timeout();
  arm_timer();
}

sc_core::sc_time nic::gossip_deadline() const {
  if (gossip_idle() || m_gossip->done_event) return sc_core::sc_max_time();
  return m_gossip->deadline;
}

// The running operation or step has waited nack_timeout: NACK what is missing (the paper:
// "if any expected all-to-all broadcast message is timed out, a NACK is generated by the
// receiver NIC and sent to the corresponding sender NIC"), and wait as long again.
void nic::gossip_timer(const sc_core::sc_time& now) {
  if (gossip_idle() || m_gossip->done_event || m_gossip->deadline > now) return;
  gossip_state& g = *m_gossip;
  g.deadline = now + nack_timeout();
  if (g.queued_nacks > 0) return;  // the last round's NACKs have not left yet
  // Only packets this NIC waits for are NACKed; waiting on its own DMA is not a timeout.
  if (g.req.recursive_doubling) {
    if (g.step < g.steps.size() && g.step_sent &&
        g.step_packets[g.step] < g.steps[g.step].packets) {
      ++timeouts;
      send_nack(g.steps[g.step].peer, 0, g.step, 0);
    }
  } else if (g.own_sent && !g.arrived[g.op].complete()) {
    ++timeouts;
    g.nacked_up.assign(g.n, false);
    for (const uint32_t origin : g.arrived[g.op].missing()) {
      g.nacked_up[origin] = true;
      send_nack(algorithms::lanai::cb_parent(g.me, origin, g.n), g.op, 0, origin);
    }
  }
}

void nic::send_nack(uint32_t member, uint32_t op, uint32_t step, uint32_t origin) {
  gossip_state& g = *m_gossip;
  gossip_state::pending s;
  s.to = g.req.members[member];
  s.fields.type = packet_type::coll_nack;
  s.fields.seq = static_cast<uint16_t>(op);
  s.fields.flag = static_cast<uint8_t>(step);
  s.fields.origin = origin;
  ++g.queued_nacks;
  g.sends.push(s);
  post_gossip(g_send, m_params.ack_cycles);
}

// A NACK from `from`. NIC-CB: it lacks origin's packet of operation f.seq, which this NIC sends
// it again if it holds it (an operation's packets stay in SRAM until the collective ends: our
// choice, the paper does not say where a parent finds a packet to resend), else passes the
// NACK up its own tree, once a round. NIC-RD: it lacks step f.flag, which this NIC sends again
// if it has reached that step (else it will send it when it does).
void nic::gossip_nack(network::terminal_id from, const packet_fields& f) {
  gossip_state& g = *m_gossip;
  uint32_t requester = 0;
  while (requester < g.n && g.req.members[requester] != from) ++requester;
  if (requester == g.n || g.queued_resends[requester] > 0) return;  // one waits already
  if (g.req.recursive_doubling) {
    const uint32_t k = f.flag;
    if (k >= g.steps.size() || k > g.step || (k == g.step && !g.step_sent)) return;
    g.queued_resends[requester] += g.steps[k].packets;
    queue_rd_step(k, from, true, m_params.forward_cycles);
    return;
  }
  const uint32_t op = f.seq;
  const uint32_t origin = f.origin;
  if (op >= g.ops || origin >= g.n) return;
  if (g.arrived[op].has(origin)) {
    gossip_state::pending s;
    s.to = from;
    s.fields.type = packet_type::cb_data;
    s.fields.flag = algorithms::lanai::arrival_flag(requester, origin, g.n).log_distance;
    s.fields.seq = static_cast<uint16_t>(op);
    s.fields.origin = origin;
    s.payload = static_cast<uint32_t>(g.frag_bytes(op));
    s.offset = origin * g.req.block_bytes + uint64_t{op} * m_params.mtu_bytes;
    s.resend = true;
    ++g.queued_resends[requester];
    g.sends.push(s);
    post_gossip(g_send, m_params.forward_cycles);
  } else if (op == g.op && !g.nacked_up[origin]) {
    g.nacked_up[origin] = true;
    send_nack(algorithms::lanai::cb_parent(g.me, origin, g.n), op, 0, origin);
  }
}

}  // namespace bcastsim::hw::lanai
