// Replay files (`bcastsim run --record-unit-inputs`, recorder.h): the JSON forms of their
// lines and load_replay. Every field is read against a range, so that a hand-edited or
// corrupt file is refused naming the field (exit 2) instead of wrapping around, allocating
// without bound or never ending.
#include "network/params.h"
#include "tb/config.h"
#include "tb/cosim/replay_fields.h"
#include "tb/cosim/stimulus.h"
#include "tb/yaml_input.h"
#include "tlm/units.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace bcastsim::tb::cosim {

using hw::ragasa::bcast_unit_params;
using hw::ragasa::membership_child;
using tlm_net::packet_kind;

namespace {

constexpr uint64_t k_u32 = std::numeric_limits<uint32_t>::max();
constexpr uint64_t k_u64 = std::numeric_limits<uint64_t>::max();

// A unit's name: recorded as unit_N.
constexpr size_t k_max_name_chars = 256;
constexpr const char* k_line_allowed =
    "a JSON object with a \"type\" (unit, membership, packet) and its fields";

// A packet's class (hw/ragasa/packet_fields.h) as a replay line names it.
const std::vector<std::string> k_class_names = {"handoff", "relayed", "mini", "credit"};

}  // namespace

nlohmann::json to_json(const bcast_unit_params& p) {
  return {{"clock_mhz", p.clock_mhz},
          {"rx_queues", p.rx_queues},
          {"rx_queue_packets", p.rx_queue_packets},
          {"working_memory_bytes", p.working_memory_bytes},
          {"membership_entries", p.membership_entries},
          {"descriptor_threshold_bytes", p.descriptor_threshold_bytes},
          {"work_queue_descriptors", p.work_queue_descriptors},
          {"send_queue_descriptors", p.send_queue_descriptors},
          {"ri_cycles", p.ri_cycles},
          {"scheduler_cycles", p.scheduler_cycles},
          {"descriptor_cycles", p.descriptor_cycles},
          {"dispatch_cycles", p.dispatch_cycles},
          {"send_cycles", p.send_cycles},
          {"packet_bytes", p.packet_bytes},
          {"input_buffer_bytes", p.input_buffer_bytes},
          {"output_buffer_bytes", p.output_buffer_bytes},
          {"vcs", p.vcs},
          {"seed", p.seed}};
}

// The ranges are the scenario keys' (bcast_unit_params::visit, router.vcs, network.packet_bytes,
// router.vc_buffer_bytes.*); the buffers must hold one packet (else nothing ever enters).
bcast_unit_params params_from_json(const nlohmann::json& j) {
  const replay_fields f(j, "params.");
  bcast_unit_params p;
  p.clock_mhz = f.real("clock_mhz", 1e-3, 1e6);
  f.get("rx_queues", p.rx_queues, 1, 1024);
  f.get("rx_queue_packets", p.rx_queue_packets, 1, 1000000);
  f.get("working_memory_bytes", p.working_memory_bytes, 1, uint64_t{1} << 36);
  f.get("membership_entries", p.membership_entries, 1, 1000000);
  f.get("descriptor_threshold_bytes", p.descriptor_threshold_bytes, 1, uint64_t{1} << 36);
  f.get("work_queue_descriptors", p.work_queue_descriptors, 1, 1000000);
  f.get("send_queue_descriptors", p.send_queue_descriptors, 1, 1000000);
  f.get("ri_cycles", p.ri_cycles, 0, 1000000);
  f.get("scheduler_cycles", p.scheduler_cycles, 0, 1000000);
  f.get("descriptor_cycles", p.descriptor_cycles, 0, 1000000);
  f.get("dispatch_cycles", p.dispatch_cycles, 0, 1000000);
  f.get("send_cycles", p.send_cycles, 0, 1000000);
  f.get("packet_bytes", p.packet_bytes, 1, 1u << 20);
  f.get("input_buffer_bytes", p.input_buffer_bytes, p.packet_bytes, 1u << 30);
  f.get("output_buffer_bytes", p.output_buffer_bytes, p.packet_bytes, 1u << 30);
  f.get("vcs", p.vcs, 1, 64);
  f.get("seed", p.seed, 0, k_u64);
  return p;
}

nlohmann::json to_json(const arrival& a) {
  return {{"t_ps", a.send_ps},
          {"head_ps", a.head_ps},
          {"tail_ps", a.tail_ps},
          {"kind", tlm_net::to_string(a.kind)},
          {"cls", k_class_names[static_cast<size_t>(a.cls)]},
          {"src", a.src},
          {"dst", a.dst},
          {"unit_router", a.unit_router},
          {"collective_id", a.collective_id},
          {"msg_id", a.msg_id},
          {"tag", a.tag},
          {"index", a.index},
          {"count", a.count},
          {"size_bytes", a.size_bytes},
          {"msg_bytes", a.msg_bytes},
          {"buf_offset", a.buf_offset}};
}

// Only the fields' types and own ranges; load_replay checks them against the unit.
arrival arrival_from_json(const nlohmann::json& j) {
  const replay_fields f(j, "");
  arrival a;
  a.send_ps = f.uint("t_ps", 0, k_u64);
  a.head_ps = f.uint("head_ps", a.send_ps, k_u64);
  a.tail_ps = f.uint("tail_ps", a.head_ps, k_u64);
  a.kind =
      f.choice("kind", {"data", "control"}) == "data" ? packet_kind::data : packet_kind::control;
  // Recordings from before the message classes have none: data handed off, Mini Packets.
  const bool data = a.kind == packet_kind::data;
  a.cls = data ? hw::ragasa::packet_class::handoff : hw::ragasa::packet_class::mini;
  if (f.has("cls")) {
    const std::vector<std::string> allowed = data ? std::vector<std::string>{"handoff", "relayed"}
                                                  : std::vector<std::string>{"mini", "credit"};
    const std::string c = f.choice("cls", allowed);
    a.cls = static_cast<hw::ragasa::packet_class>(
        std::find(k_class_names.begin(), k_class_names.end(), c) - k_class_names.begin());
  }
  f.get("src", a.src, 0, k_u32);
  f.get("dst", a.dst, 0, k_u32);
  f.get("unit_router", a.unit_router, 0, k_u32);
  f.get("collective_id", a.collective_id, 0, k_u32);
  f.get("msg_id", a.msg_id, 0, k_u64);
  f.get("tag", a.tag, 0, k_u32);
  f.get("count", a.count, 1, k_u32);
  f.get("index", a.index, 0, a.count - 1);
  f.get("size_bytes", a.size_bytes, 1, k_u32);
  // A zero-byte message is one packet of one wire byte.
  const bool empty_message = a.count == 1 && a.size_bytes == 1;
  f.get("msg_bytes", a.msg_bytes, empty_message ? 0 : a.size_bytes, k_u64);
  f.get("buf_offset", a.buf_offset, 0, k_u64);
  return a;
}

namespace {

// The unit line: its parameters, terminal and the router around it.
stimulus unit_from_json(const nlohmann::json& j, const std::string& unit) {
  const replay_fields f(j, "");
  stimulus s;
  s.name = unit;
  f.object("params", "an object of the unit's parameters (clock_mhz, rx_queues, ...)");
  s.params = params_from_json(j.at("params"));
  s.terminal = static_cast<network::terminal_id>(f.uint("terminal", 0, k_u32 - 1));
  const replay_fields port =
      f.object("port", "an object of the unit link (bandwidth_gib_per_s, latency_ns)");
  // The harness polls a few cycles at a time: a time beyond max_replay_cycles would not end.
  const uint64_t max_ps = max_replay_cycles * s.period_ps();
  s.sink.ps_per_byte = units::ps_per_byte(port.real("bandwidth_gib_per_s", 1e-6, 1e6));
  s.credit_latency_ps = units::ps_from_ns(port.real("latency_ns", 0, 1e9));
  if (s.credit_latency_ps > max_ps)
    refuse("port.latency_ns", j.at("port").at("latency_ns"), "out of range",
           "0 to " + params::format_real(static_cast<double>(max_ps) / 1000.0) + " (" +
               std::to_string(max_replay_cycles) + " cycles of the unit's clock)");
  f.get("credit_delay_ps", s.sink.credit_delay_ps, 0, max_ps);
  return s;
}

// A packet against its unit: it fits the unit's buffers, it comes within max_replay_cycles,
// and no data packet comes twice (the unit would wait for a copy that never completes).
using packet_key = std::tuple<uint32_t, network::terminal_id, uint64_t, uint32_t>;
void check_arrival(const arrival& a, const stimulus& s, const nlohmann::json& j,
                   std::set<packet_key>& seen) {
  const bcast_unit_params& p = s.params;
  const uint32_t fits =
      std::min(p.packet_bytes, std::min(p.input_buffer_bytes, p.output_buffer_bytes));
  if (a.size_bytes > fits)
    refuse("size_bytes", j.at("size_bytes"), "out of range",
           "1 to " + std::to_string(fits) +
               " (params.packet_bytes, input_buffer_bytes and output_buffer_bytes of " + s.name +
               ")");
  const uint64_t max_ps = max_replay_cycles * s.period_ps();
  if (a.tail_ps > max_ps)
    refuse("tail_ps", j.at("tail_ps"), "out of range",
           "0 to " + std::to_string(max_ps) + " (" + std::to_string(max_replay_cycles) +
               " cycles of " + s.name + "'s clock)");
  if (!s.arrivals.empty() && a.send_ps < s.arrivals.back().send_ps)
    refuse("t_ps", j.at("t_ps"), "earlier than the packet before it at " + s.name,
           "at least " + std::to_string(s.arrivals.back().send_ps) +
               " (a unit's packets in time order)");
  if (a.kind == packet_kind::data &&
      !seen.emplace(a.collective_id, a.src, a.msg_id, a.index).second)
    throw bad_field("data packet recorded twice at " + s.name + ": collective_id " +
                    std::to_string(a.collective_id) + ", src " + std::to_string(a.src) +
                    ", msg_id " + std::to_string(a.msg_id) + ", index " + std::to_string(a.index) +
                    "; allowed: each data packet once");
}

std::vector<membership_child> children_from_json(const replay_fields& f) {
  const std::string allowed =
      "an array of [dst, unit_router] pairs of integers 0 to " + std::to_string(k_u32);
  std::vector<membership_child> kids;
  size_t i = 0;
  for (const nlohmann::json& c : f.array("children", allowed)) {
    const std::string name = "children[" + std::to_string(i++) + "]";
    if (!c.is_array() || c.size() != 2) refuse(name, c, "not a pair", allowed);
    for (const nlohmann::json& v : c) {
      if (!v.is_number_unsigned() || v.get<uint64_t>() > k_u32)
        refuse(name, c, "not a pair of integers in range", allowed);
    }
    kids.push_back(membership_child{c[0].get<uint32_t>(), c[1].get<uint32_t>()});
  }
  return kids;
}

// A membership line's "parent": [dst, unit_router], the unit its data come from.
membership_child parent_from_json(const replay_fields& f) {
  const std::string allowed = "a [dst, unit_router] pair of integers 0 to " + std::to_string(k_u32);
  const nlohmann::json& c = f.array("parent", allowed);
  if (c.size() != 2) refuse("parent", c, "not a pair", allowed);
  for (const nlohmann::json& v : c) {
    if (!v.is_number_unsigned() || v.get<uint64_t>() > k_u32)
      refuse("parent", c, "not a pair of integers in range", allowed);
  }
  return membership_child{c[0].get<uint32_t>(), c[1].get<uint32_t>()};
}

// What load_replay reads, unit by unit, and where (lines) for the checks at the end.
struct replay_reader {
  std::vector<stimulus> units;
  std::map<std::string, size_t> by_name;
  std::vector<std::set<packet_key>> seen;                      // [unit]
  std::vector<std::map<uint32_t, uint64_t>> mini_packet_line;  // [unit]: collective -> first
  std::vector<std::map<uint32_t, uint64_t>> membership_line;   // [unit]: collective -> line

  void line(const nlohmann::json& j, uint64_t number) {
    const replay_fields f(j, "");
    const std::string type = f.choice("type", {"unit", "membership", "packet", "tofu2_queue"});
    if (type == "tofu2_queue") {
      refuse("type", j.at("type"), "a Tofu2 queue's (replay it with --block tofu2-cq)",
             "unit, membership, packet");
    }
    const std::string unit = f.text("unit", k_max_name_chars);
    if (type == "unit") {
      if (by_name.count(unit))
        refuse("unit", j.at("unit"), "given a second \"unit\" line", "one \"unit\" line a unit");
      by_name[unit] = units.size();
      units.push_back(unit_from_json(j, unit));
      seen.emplace_back();
      mini_packet_line.emplace_back();
      membership_line.emplace_back();
      return;
    }
    const auto it = by_name.find(unit);
    if (it == by_name.end())
      refuse("unit", j.at("unit"), "a unit without a \"unit\" line before this one",
             "units given by a \"unit\" line before");
    stimulus& s = units[it->second];
    if (type == "membership") {
      const auto id = static_cast<uint32_t>(f.uint("collective_id", 0, k_u32));
      s.membership[id] = children_from_json(f);
      if (f.has("parent")) s.membership_parent[id] = parent_from_json(f);
      if (f.has("packets")) s.membership_packets[id] = f.uint("packets", 0, ~uint64_t{0} - 1);
      membership_line[it->second][id] = number;
    } else {
      const arrival a = arrival_from_json(j);
      check_arrival(a, s, j, seen[it->second]);
      s.arrivals.push_back(a);
      if (a.cls == hw::ragasa::packet_class::mini)
        mini_packet_line[it->second].emplace(a.collective_id, number);
    }
  }
};

// A membership line's `packets` is the number of data packets the unit receives for the
// collective, after which Step 10 frees its entry: a different count frees it too early (the
// later data wait for a Mini Packet that never comes) or never, so it must match the recording.
void check_membership_packets(const stimulus& s, const std::map<uint32_t, uint64_t>& lines,
                              const std::string& path) {
  std::map<uint32_t, uint64_t> recorded;
  for (const arrival& a : s.arrivals)
    if (a.kind == packet_kind::data) ++recorded[a.collective_id];
  for (const auto& [id, packets] : s.membership_packets) {
    const auto it = recorded.find(id);
    const uint64_t n = it == recorded.end() ? 0 : it->second;
    if (packets != 0 && packets != n)
      throw replay_error(path + ":" + std::to_string(lines.at(id)) + ": " + s.name +
                         ": membership of collective " + std::to_string(id) + " has packets = " +
                         std::to_string(packets) + ", but the recording has " + std::to_string(n) +
                         " data packets of it at this unit; allowed: " + std::to_string(n) +
                         ", or 0 to keep the entry");
  }
}

// The checks of the whole recording, unit by unit; the units that received packets.
std::vector<stimulus> finish(replay_reader& reader, const std::string& path) {
  std::vector<stimulus> replayed;
  for (size_t u = 0; u < reader.units.size(); ++u) {
    stimulus& s = reader.units[u];
    if (s.arrivals.empty()) continue;
    for (const auto& [id, number] : reader.mini_packet_line[u]) {
      if (!s.membership.count(id))
        throw replay_error(path + ":" + std::to_string(number) +
                           ": collective_id = " + std::to_string(id) + ": " + s.name +
                           " receives a Mini Packet of a collective without a membership line; "
                           "allowed: collectives with a membership line at " +
                           s.name);
    }
    check_membership_packets(s, reader.membership_line[u], path);
    replayed.push_back(std::move(s));
  }
  if (replayed.empty()) {
    throw replay_error(path + ": no unit received packets in this recording; allowed: a " +
                       "recording with \"packet\" lines (`bcastsim run --record-unit-inputs`)");
  }
  return replayed;
}

}  // namespace

std::vector<stimulus> load_replay(const std::string& path) {
  replay_reader reader;
  try {
    read_input_lines(path, "--replay", "replay file", max_replay_file_bytes,
                     [&](const std::string& text, uint64_t line) {
                       if (text.empty()) return;
                       try {
                         reader.line(parse_line(text, k_line_allowed), line);
                       } catch (const bad_field& e) {
                         throw replay_error(path + ":" + std::to_string(line) + ": " + e.what());
                       } catch (const nlohmann::json::exception& e) {  // a check missed: still 2
                         throw replay_error(path + ":" + std::to_string(line) +
                                            ": ill-formed line: " + e.what());
                       }
                     });
  } catch (const config_error& e) {
    throw replay_error(e.what());
  }
  return finish(reader, path);
}

}  // namespace bcastsim::tb::cosim
