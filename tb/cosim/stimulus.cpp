#include "tb/cosim/stimulus.h"

#include "tlm/units.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <set>
#include <sstream>

namespace bcastsim::tb::cosim {

using hw::ragasa::bcast_unit_params;
using hw::ragasa::membership_child;
using tlm_net::packet_kind;

uint64_t sink_params::serialisation_ps(uint32_t bytes) const {
  return units::serialisation_ps(bytes, ps_per_byte);  // as tlm_net::link does
}

namespace {

// SplitMix64: a portable hash of (seed, k).
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t sink_params::credit_delay_of_copy(uint64_t copy) const {
  if (credit_jitter_ps == 0) return credit_delay_ps;
  return credit_delay_ps + mix(jitter_seed ^ mix(copy)) % (credit_jitter_ps + 1);
}

uint64_t stimulus::period_ps() const {
  return units::clock_period_ps(params.clock_mhz);  // as bcast_unit does
}

uint64_t stimulus::packets(packet_kind kind) const {
  return static_cast<uint64_t>(std::count_if(arrivals.begin(), arrivals.end(),
                                             [kind](const arrival& a) { return a.kind == kind; }));
}

uint64_t replay_credit_delay_ps(double router_clock_mhz, uint32_t router_delay_cycles,
                                double port_latency_ns) {
  const uint64_t router_period = units::clock_period_ps(router_clock_mhz);
  const uint64_t latency = units::ps_from_ns(port_latency_ns);
  return uint64_t{router_delay_cycles} * router_period + 2 * latency;
}

// ---------------------------------------------------------------------------------------
// Random stimulus.

namespace {

// Draws from mt19937_64 with our own reductions: identical on every standard library.
class draw {
 public:
  explicit draw(uint64_t seed) : m_gen(seed) {}
  uint64_t in(uint64_t lo, uint64_t hi) { return lo + m_gen() % (hi - lo + 1); }  // [lo, hi]
  bool chance(uint32_t percent) { return m_gen() % 100 < percent; }
  // [lo, hi], log-uniform: small values as often as large ones.
  uint64_t log_in(uint64_t lo, uint64_t hi) {
    const auto bits_lo = static_cast<uint32_t>(std::floor(std::log2(static_cast<double>(lo))));
    const auto bits_hi = static_cast<uint32_t>(std::floor(std::log2(static_cast<double>(hi))));
    const uint64_t top = uint64_t{1} << in(bits_lo, bits_hi);
    return in(lo, std::min(hi, std::max(lo, 2 * top - 1)));
  }

 private:
  std::mt19937_64 m_gen;
};

constexpr network::terminal_id k_unit_terminal = 14;  // the unit's router: 7, terminals 14, 15
constexpr network::router_id k_unit_router = 7;
constexpr network::terminal_id k_manager_terminal = 3;

// A message being sent into the unit.
struct message_plan {
  uint32_t collective = 0;  // index into the collectives
  network::terminal_id src = 0;
  uint64_t msg_id = 0;
  uint32_t tag = 0;
  uint32_t count = 0;
  uint32_t last_bytes = 0;
  uint64_t buf_offset = 0;
  uint32_t next = 0;  // next packet index
};

struct collective_plan {
  uint32_t id = 0;
  uint32_t children = 0;
  network::terminal_id sources[2] = {0, 0};
  hw::ragasa::packet_class cls = hw::ragasa::packet_class::handoff;  // of its data
  std::vector<network::terminal_id> unit_children;  // their terminals: they return credits
  uint32_t credited = 0;  // data packets credit returns have been sent for
  bool mp_sent = false;
  uint32_t mp_after = 0;  // data packets of it before its Mini Packet (0: MP first)
  uint32_t data_sent = 0;
  uint32_t in_progress = 0;  // messages started, not finished
  uint64_t offset = 0;       // buffer offset of its next message
};

// The traffic's shape, drawn before its first packet.
struct traffic_plan {
  uint64_t period_ps = 0;
  uint64_t in_ps_per_byte = 0;  // the unit's input link
  uint32_t min_bytes = 0;       // of a message's last packet
  uint32_t max_active = 0;      // messages in progress at once
  uint64_t mean_gap_ps = 0;     // between one packet's tail and the next packet
  uint32_t pause_permille = 0;  // chance of a pause after a packet, so the unit may drain
  // Child units return credits for every credit_every data packets of a collective, once
  // credit_lag more have come after them (they lag behind as a child's memory would).
  uint32_t credit_every = 1;
  uint32_t credit_lag = 0;
};

// The unit's parameters; returns the number of collectives, drawn among them. Working
// Memory holds every collective's reservation at once (the Mini Packets are never held
// back: the management node's admission is not modelled here), of 2 .. 6 packets each, and
// a chunk fits a reservation (chunks never close early).
uint32_t draw_unit_params(draw& d, uint64_t seed, bcast_unit_params& p) {
  p.clock_mhz = 1000.0;
  p.packet_bytes = 512;
  // At least two Rx-queues and three collectives: the opening (arrival_writer::opening)
  // needs two queues that wait at once.
  p.rx_queues = static_cast<uint32_t>(d.in(2, 8));
  p.rx_queue_packets = static_cast<uint32_t>(d.in(1, 16));
  const auto ncoll = static_cast<uint32_t>(d.in(3, 12));
  p.membership_entries = static_cast<uint32_t>(d.in(ncoll, 64));
  const auto reserve = static_cast<uint32_t>(d.in(2, 6));  // packets a collective reserves
  const uint64_t least = uint64_t{ncoll} * reserve * p.packet_bytes;
  p.working_memory_bytes = d.log_in(least, std::max<uint64_t>(least, 65536));
  p.reserved_chunks = static_cast<uint32_t>(d.in(1, reserve));
  const uint64_t chunk_packets = reserve / p.reserved_chunks;
  p.descriptor_threshold_bytes = d.log_in(1, chunk_packets * p.packet_bytes);
  // At least two packets reserved (the opening stores two of collective 0 at once).
  const uint64_t c = (p.descriptor_threshold_bytes + p.packet_bytes - 1) / p.packet_bytes;
  if (p.reserved_chunks * c < 2) p.reserved_chunks = 2;
  p.credit_packet_bytes = static_cast<uint32_t>(d.log_in(8, 64));
  p.work_queue_descriptors = static_cast<uint32_t>(d.log_in(1, 64));
  p.send_queue_descriptors = static_cast<uint32_t>(d.log_in(1, 16));
  p.ri_cycles = static_cast<uint32_t>(d.in(1, 8));
  p.scheduler_cycles = static_cast<uint32_t>(d.in(1, 8));
  p.descriptor_cycles = static_cast<uint32_t>(d.in(1, 8));
  p.dispatch_cycles = static_cast<uint32_t>(d.in(1, 8));
  p.send_cycles = static_cast<uint32_t>(d.in(1, 8));
  p.input_buffer_bytes = static_cast<uint32_t>(d.log_in(512, 16384));
  p.output_buffer_bytes = static_cast<uint32_t>(d.log_in(512, 16384));
  p.vcs = 3;
  p.seed = seed;
  return ncoll;
}

// The router around the unit: the credits' way back and the output (into s); returns its
// input link rate in ps per byte.
uint64_t draw_router_around_unit(draw& d, uint64_t seed, uint64_t period, stimulus& s) {
  const uint64_t in_ps_per_byte = d.in(10, 100);
  s.credit_latency_ps = d.in(0, 4) * period + d.in(0, period - 1);
  s.sink.ps_per_byte = static_cast<double>(d.in(10, 60));
  s.sink.credit_delay_ps = d.in(0, 20) * period;
  s.sink.credit_jitter_ps = d.chance(70) ? d.in(1, 60) * period : 0;
  s.sink.jitter_seed = mix(seed ^ 0x5eedull);
  return in_ps_per_byte;
}

// Collectives, children drawn from a shared pool of terminals and neighbouring units; their
// Membership lists go into s. Half of them have their data relayed by a parent unit (this
// unit returns it credits). Collective 0 has two or more children (the opening's, see
// arrival_writer::opening).
std::vector<collective_plan> draw_collectives(draw& d, uint32_t ncoll, stimulus& s) {
  std::vector<membership_child> pool;
  for (network::terminal_id t = 0; t < 12; ++t) pool.push_back({t, network::invalid_id});
  for (network::router_id r = 0; r < 16; ++r) {
    if (r != k_unit_router) pool.push_back({2 * r + 100, r});
  }
  std::vector<collective_plan> colls(ncoll);
  std::set<uint32_t> ids;
  for (uint32_t ci = 0; ci < ncoll; ++ci) {
    collective_plan& c = colls[ci];
    do {
      c.id = static_cast<uint32_t>(d.in(1, 5000));
    } while (!ids.insert(c.id).second);
    c.children = static_cast<uint32_t>(d.log_in(ci == 0 ? 2 : 1, 16));
    std::vector<membership_child> left = pool;
    std::vector<membership_child>& kids = s.membership[c.id];
    for (uint32_t k = 0; k < c.children; ++k) {
      const auto pick = static_cast<size_t>(d.in(0, left.size() - 1));
      kids.push_back(left[pick]);
      if (left[pick].unit_router != network::invalid_id) c.unit_children.push_back(left[pick].dst);
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    c.sources[0] = static_cast<network::terminal_id>(d.in(20, 90));
    c.sources[1] = static_cast<network::terminal_id>(d.in(20, 90));
    if (d.chance(50)) {  // relayed by a parent unit
      c.cls = hw::ragasa::packet_class::relayed;
      const auto r = static_cast<network::router_id>(d.in(0, 15));
      if (r != k_unit_router) s.membership_parent[c.id] = membership_child{2 * r + 100, r};
    }
  }
  return colls;
}

// Data before its Mini Packet: they wait at their queue's head (no entry, no reservation).
void draw_early_data(draw& d, std::vector<collective_plan>& colls) {
  for (size_t ci = 1; ci < colls.size(); ++ci) {
    if (d.chance(35)) colls[ci].mp_after = static_cast<uint32_t>(d.in(1, 6));
  }
}

// Offered load: the copies a packet makes (children) against the output link's rate, from
// 0.3 (the unit mostly idle) to 1.5 (back-pressure through the credits to the driver).
// Returns the mean gap that load leaves between packets on the input link.
uint64_t draw_mean_gap_ps(draw& d, const std::vector<collective_plan>& colls, const stimulus& s,
                          uint64_t in_ps_per_byte) {
  const bcast_unit_params& p = s.params;
  double children = 0;
  for (const collective_plan& c : colls) children += c.children;
  children /= static_cast<double>(colls.size());
  const double load = static_cast<double>(d.in(30, 150)) / 100.0;
  const double interval = children * p.packet_bytes * s.sink.ps_per_byte / load;
  const double wire = static_cast<double>(p.packet_bytes * in_ps_per_byte);
  return static_cast<uint64_t>(interval > wire ? interval - wire : 0.0);
}

// Writes the arrivals: starts messages, sends their packets one by one on the input link,
// and each collective's Mini Packet before its first data or after its early data.
class arrival_writer {
 public:
  arrival_writer(draw& d, stimulus& s, std::vector<collective_plan>& colls,
                 const traffic_plan& plan, uint64_t now)
      : m_d(d), m_s(s), m_colls(colls), m_plan(plan), m_now(now) {}

  // A directed opening that makes the Receive Packet Scheduler choose between two waiting
  // data queues, so that a scheduler without round robin (rtl-fault-unfair) diverges at
  // every seed, and shares stored packets between two or more children
  // (rtl-fault-early-free). Collective 0 sends rx_queue_packets + 1 one-packet messages
  // handed off (its hand-off Rx-queue q) and as many relayed (Rx-queue rx_queues + q), all
  // before its Mini Packet, so they wait at the heads of both queues, and the RI holds the
  // next of each. Its Mini Packet lets both go at once: round robin takes q, then the relayed
  // queue, the faulty scheduler q again (it holds a second packet, and collective 0 reserves
  // two or more). No other data come before.
  void opening() {
    const bcast_unit_params& p = m_s.params;
    const uint64_t step = uint64_t{p.ri_cycles + p.scheduler_cycles + 2} * m_plan.period_ps;
    collective_plan& c = m_colls[0];
    c.mp_after = ~0u;  // not before the opening sends it
    for (uint32_t k = 0; k <= p.rx_queue_packets; ++k) {
      send_message(0, 1, hw::ragasa::packet_class::handoff);
      send_message(0, 1, hw::ragasa::packet_class::relayed);
    }
    m_now += step;
    emit_mp(c, false);
    m_now += step;
  }

  // Until `end_ps` (then every message in progress is completed).
  void run(uint64_t end_ps) {
    const auto ncoll = static_cast<uint32_t>(m_colls.size());
    while (m_now < end_ps || !m_active.empty()) {
      // Start a message (only before the end), or send the next packet of one in progress.
      std::vector<uint32_t> can_start;
      if (m_now < end_ps && m_active.size() < m_plan.max_active) {
        for (uint32_t ci = 0; ci < ncoll; ++ci) {
          if (m_colls[ci].in_progress < 4) can_start.push_back(ci);
        }
      }
      if (!can_start.empty() && (m_active.empty() || m_d.chance(15))) {
        start_message(can_start[m_d.in(0, can_start.size() - 1)]);
        continue;
      }
      // Mostly the same message as before (bursts), sometimes another (interleaving).
      const size_t k = m_d.chance(60) ? 0 : static_cast<size_t>(m_d.in(0, m_active.size() - 1));
      send_next(k);
    }
    for (collective_plan& c : m_colls) {  // and the Mini Packets of collectives without data
      if (!c.mp_sent) emit_mp(c);
    }
    for (collective_plan& c : m_colls) credit(c, c.data_sent);  // the last credit returns
  }

 private:
  // `gap`: a random gap (and sometimes a pause) after it; else the next follows its tail.
  void emit(arrival a, bool gap) {
    a.send_ps = m_now;
    const uint32_t head = std::min<uint32_t>(a.size_bytes, 64);
    a.head_ps = m_now + m_plan.in_ps_per_byte * head;
    a.tail_ps = m_now + m_plan.in_ps_per_byte * a.size_bytes;
    a.dst = k_unit_terminal;
    a.unit_router = k_unit_router;
    m_now = a.tail_ps;  // the link is busy until the tail has left
    if (gap) {
      m_now += m_d.in(0, 2 * m_plan.mean_gap_ps);
      if (m_d.in(0, 999) < m_plan.pause_permille) m_now += m_d.in(1, 500) * m_plan.period_ps;
    }
    m_s.arrivals.push_back(a);
  }

  void emit_mp(collective_plan& c, bool gap = true) {
    arrival a;
    a.kind = packet_kind::control;
    a.cls = hw::ragasa::packet_class::mini;
    a.src = k_manager_terminal;
    a.collective_id = c.id;
    a.size_bytes = 16 + 4 * c.children;
    a.count = 1;
    a.msg_bytes = a.size_bytes;
    emit(a, gap);
    c.mp_sent = true;
  }

  // A message of collective ci (its source, id and tag drawn) with the given shape.
  message_plan new_message(uint32_t ci, uint32_t count, uint32_t last_bytes) {
    collective_plan& c = m_colls[ci];
    message_plan m;
    m.collective = ci;
    m.src = c.sources[m_d.chance(80) ? 0 : 1];
    uint64_t& id = m_next_msg[m.src];
    if (id == 0) id = m_d.in(0, (uint64_t{1} << 32) - 100000);
    m.msg_id = id++;
    m.tag = static_cast<uint32_t>(m_d.in(0, 65535));
    m.count = count;
    m.last_bytes = last_bytes;
    m.buf_offset = c.offset;
    c.offset += uint64_t{m.count - 1} * m_s.params.packet_bytes + m.last_bytes;
    ++c.in_progress;
    return m;
  }

  void start_message(uint32_t ci) {
    const bcast_unit_params& p = m_s.params;
    const auto count = static_cast<uint32_t>(m_d.chance(20) ? 1 : m_d.in(1, 40));
    const auto last = static_cast<uint32_t>(
        m_d.chance(30) ? p.packet_bytes : m_d.in(m_plan.min_bytes, p.packet_bytes));
    m_active.push_back(new_message(ci, count, last));
    collective_plan& c = m_colls[ci];
    if (c.mp_after == 0 && !c.mp_sent) emit_mp(c);  // before its first data
  }

  // A whole message of `count` full packets of class `cls`, back to back (the opening's).
  void send_message(uint32_t ci, uint32_t count, hw::ragasa::packet_class cls) {
    m_active.push_back(new_message(ci, count, m_s.params.packet_bytes));
    while (!m_active.empty()) send_next(0, false, cls);
  }

  // Credit returns from the collective's child units for its data packets up to `upto`
  // (after its Mini Packet: the unit ignores returns for a broadcast it has no entry for).
  void credit(collective_plan& c, uint32_t upto) {
    if (!c.mp_sent || upto <= c.credited || c.unit_children.empty()) return;
    for (network::terminal_id child : c.unit_children) {
      arrival a;
      a.kind = packet_kind::control;
      a.cls = hw::ragasa::packet_class::credit;
      a.src = child;
      a.collective_id = c.id;
      a.count = upto - c.credited;
      a.size_bytes = m_s.params.credit_packet_bytes;
      a.msg_bytes = a.size_bytes;
      emit(a, false);
    }
    c.credited = upto;
  }

  void send_next(size_t k, bool gap = true,
                 std::optional<hw::ragasa::packet_class> cls = std::nullopt) {
    const bcast_unit_params& p = m_s.params;
    message_plan& m = m_active[k];
    collective_plan& c = m_colls[m.collective];
    arrival a;
    a.kind = packet_kind::data;
    a.cls = cls ? *cls : c.cls;
    a.src = m.src;
    a.collective_id = c.id;
    a.msg_id = m.msg_id;
    a.tag = m.tag;
    a.index = m.next;
    a.count = m.count;
    a.size_bytes = m.next + 1 == m.count ? m.last_bytes : p.packet_bytes;
    a.msg_bytes = uint64_t{m.count - 1} * p.packet_bytes + m.last_bytes;
    a.buf_offset = m.buf_offset;
    emit(a, gap);
    ++c.data_sent;
    if (!c.mp_sent && c.data_sent >= c.mp_after) emit_mp(c);
    const uint32_t every = m_plan.credit_every;
    if (c.data_sent >= c.credited + m_plan.credit_lag + every)
      credit(c, c.data_sent - m_plan.credit_lag);
    if (++m.next == m.count) {
      --c.in_progress;
      m_active.erase(m_active.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }

  draw& m_d;
  stimulus& m_s;
  std::vector<collective_plan>& m_colls;
  traffic_plan m_plan;
  uint64_t m_now;
  std::map<network::terminal_id, uint64_t> m_next_msg;  // per source
  std::vector<message_plan> m_active;
};

}  // namespace

// Limits kept (rtl/bcast_pkg.sv and the unit's premises, hw/ragasa/README.md): 3..12
// collectives (Working Memory holds all their reservations and the Membership Table all
// their entries, so no Mini Packet waits and no entry ever needs freeing), 1..16 children
// each, at most 4 messages in progress per collective, msg_id < 2^32, the RI never over 64
// packets a VC (driver), no data packet under 1/64 of Working Memory (so at most 64 closed
// chunks), and child units return credits for all the data of their collective.
// Every seed begins with the opening (arrival_writer::opening), so that both fault builds
// diverge at every seed; random traffic follows.
// Keep the order of the draws: the co-simulation regression depends on a seed's exact stimulus.
stimulus random_stimulus(uint64_t seed, uint64_t cycles) {
  draw d(seed);
  stimulus s;
  s.name = "seed_" + std::to_string(seed);
  s.terminal = k_unit_terminal;
  const uint32_t ncoll = draw_unit_params(d, seed, s.params);
  traffic_plan plan;
  plan.period_ps = s.period_ps();
  plan.min_bytes = static_cast<uint32_t>(
      std::min<uint64_t>(s.params.packet_bytes, (s.params.working_memory_bytes + 63) / 64));
  plan.in_ps_per_byte = draw_router_around_unit(d, seed, plan.period_ps, s);
  std::vector<collective_plan> colls = draw_collectives(d, ncoll, s);
  draw_early_data(d, colls);
  plan.max_active = static_cast<uint32_t>(d.in(1, 8));
  plan.mean_gap_ps = draw_mean_gap_ps(d, colls, s, plan.in_ps_per_byte);
  plan.pause_permille = static_cast<uint32_t>(d.in(0, 20));
  plan.credit_every = static_cast<uint32_t>(d.in(1, 8));
  plan.credit_lag = static_cast<uint32_t>(d.in(0, 16));
  const uint64_t start_ps = d.in(0, 20) * plan.period_ps;
  arrival_writer writer(d, s, colls, plan, start_ps);
  writer.opening();
  writer.run(cycles * plan.period_ps);
  for (const arrival& a : s.arrivals) {
    if (a.kind == packet_kind::data) ++s.membership_packets[a.collective_id];
  }
  return s;
}

std::string summary(const stimulus& s) {
  const bcast_unit_params& p = s.params;
  std::ostringstream os;
  os << s.name << ": " << s.arrivals.size() << " packets (" << s.packets(packet_kind::control)
     << " Mini Packets) of " << s.membership.size() << " collectives until "
     << (s.arrivals.empty() ? 0 : s.arrivals.back().tail_ps / s.period_ps())
     << " cycles; unit: rx_queues " << p.rx_queues << " x " << p.rx_queue_packets << ", membership "
     << p.membership_entries << ", memory " << p.working_memory_bytes << " B, threshold "
     << p.descriptor_threshold_bytes << " B, work queue " << p.work_queue_descriptors
     << ", send queue " << p.send_queue_descriptors << ", cycles " << p.ri_cycles << "/"
     << p.scheduler_cycles << "/" << p.descriptor_cycles << "/" << p.dispatch_cycles << "/"
     << p.send_cycles << ", reserved chunks " << p.reserved_chunks << ", buffers in "
     << p.input_buffer_bytes << " B out " << p.output_buffer_bytes << " B; sink "
     << s.sink.ps_per_byte << " ps/B, credit after " << s.sink.credit_delay_ps << " + [0, "
     << s.sink.credit_jitter_ps << "] ps";
  return os.str();
}

}  // namespace bcastsim::tb::cosim
