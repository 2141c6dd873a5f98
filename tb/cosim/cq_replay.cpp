#include "tb/cosim/cq_replay.h"

#include "tb/config.h"
#include "tb/cosim/replay_fields.h"
#include "tb/yaml_input.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <ostream>

namespace bcastsim::tb::cosim {

namespace {

using algorithms::toq_descriptor;
using nlohmann::json;

json to_json(const toq_descriptor& d) {
  return {{"command", static_cast<int>(d.command)},
          {"remote_rank", d.remote_rank},
          {"remote_tni", d.remote_tni},
          {"remote_queue", d.remote_queue},
          {"local_offset", d.local_offset},
          {"remote_offset", d.remote_offset},
          {"length", d.length},
          {"sps", d.sps},
          {"remote_terminal", d.remote_terminal},
          {"edata", d.edata},
          {"notify_remote", d.notify_remote},
          {"notify_local", d.notify_local}};
}

constexpr uint64_t k_u32 = std::numeric_limits<uint32_t>::max();
constexpr uint64_t k_u64 = std::numeric_limits<uint64_t>::max();
// The largest TOQ the hardware offers, 2^(2s+11) entries for s = 5 (command_queue.h).
constexpr uint64_t k_max_entries = uint64_t{1} << 21;
// A queue's name (recorded as nic_N.cqM): it names the DUT's waveform file too.
constexpr size_t k_max_name_chars = 200;

toq_descriptor descriptor_of(const replay_fields& f) {
  toq_descriptor d;
  d.command = static_cast<algorithms::toq_command>(f.uint("command", 0, 1));
  d.remote_rank = static_cast<uint32_t>(f.uint("remote_rank", 0, k_u32));
  d.remote_tni = static_cast<uint32_t>(f.uint("remote_tni", 0, k_u32));
  d.remote_queue = static_cast<uint32_t>(f.uint("remote_queue", 0, k_u32));
  d.local_offset = f.uint("local_offset", 0, k_u64);
  d.remote_offset = f.uint("remote_offset", 0, k_u64);
  d.length = f.uint("length", 0, k_u64);
  d.sps = static_cast<uint32_t>(f.uint("sps", 0, algorithms::toq_max_sps));
  d.remote_terminal = static_cast<uint32_t>(f.uint("remote_terminal", 0, k_u32));
  d.edata = static_cast<uint32_t>(f.uint("edata", 0, k_u32));
  d.notify_remote = f.boolean("notify_remote");
  d.notify_local = f.boolean("notify_local");
  return d;
}

// Cycle `i` of the queue's list: any of an enqueue, an SPS arrival and a retire request.
hw::tofu2::cq_cycle cycle_of(const json& j, size_t i) {
  const std::string name = "cycles[" + std::to_string(i) + "]";
  const std::string allowed =
      "an object with any of \"enqueue\" (a descriptor), \"sps\" (0 to 15), \"retire\" (true, "
      "false)";
  if (!j.is_object()) refuse(name, j, "not an object", allowed);
  const replay_fields f(j, name + ".");
  hw::tofu2::cq_cycle c;
  if (f.has("enqueue")) {
    c.enqueue = true;
    c.descriptor = descriptor_of(f.object("enqueue", "a descriptor (command, remote_rank, ...)"));
  }
  if (f.has("sps")) {
    c.sps_valid = true;
    c.sps = static_cast<uint32_t>(f.uint("sps", 0, algorithms::toq_max_sps));
  }
  c.retire = f.has("retire") && f.boolean("retire");
  return c;
}

// One line: a queue's recording.
cq_stimulus queue_of(const json& j) {
  const replay_fields f(j, "");
  if (f.choice("type", {"tofu2_queue", "unit", "membership", "packet"}) != "tofu2_queue") {
    refuse("type", j.at("type"), "a Bcast Unit recording's (replay it with --block bcast-unit)",
           "tofu2_queue");
  }
  cq_stimulus s;
  s.name = f.text("queue", k_max_name_chars);
  s.mode = f.choice("mode", {"normal", "session"}) == "normal" ? hw::tofu2::queue_mode::normal
                                                               : hw::tofu2::queue_mode::session;
  s.entries = f.uint("entries", 1, k_max_entries);
  const json& cycles = f.array("cycles", "an array of cycles (objects)");
  s.cycles.reserve(cycles.size());
  for (size_t i = 0; i < cycles.size(); ++i) s.cycles.push_back(cycle_of(cycles[i], i));
  return s;
}

}  // namespace

void write_cq_stimulus(std::ostream& out, const cq_stimulus& s) {
  json cycles = json::array();
  for (const hw::tofu2::cq_cycle& c : s.cycles) {
    json j = json::object();
    if (c.enqueue) j["enqueue"] = to_json(c.descriptor);
    if (c.sps_valid) j["sps"] = c.sps;
    if (c.retire) j["retire"] = true;
    cycles.push_back(std::move(j));
  }
  out << json{{"type", "tofu2_queue"},
              {"queue", s.name},
              {"mode", algorithms::to_string(s.mode)},
              {"entries", s.entries},
              {"cycles", cycles}}
             .dump()
      << "\n";
}

std::vector<cq_stimulus> load_cq_replay(const std::string& path) {
  std::vector<cq_stimulus> out;
  try {
    read_input_lines(path, "--replay", "replay file", max_replay_file_bytes,
                     [&](const std::string& text, uint64_t line) {
                       if (text.empty()) return;
                       const std::string where =
                           "'" + path + "' line " + std::to_string(line) + ": ";
                       try {
                         out.push_back(queue_of(parse_line(
                             text,
                             "a JSON object with \"type\": \"tofu2_queue\", queue, mode, entries, "
                             "cycles")));
                         out.back().line = line;
                       } catch (const bad_field& e) {
                         throw cq_replay_error(where + e.what());
                       } catch (const json::exception& e) {  // a check missed: still bad input
                         throw cq_replay_error(where + "ill-formed line: " + e.what());
                       }
                     });
  } catch (const config_error& e) {
    throw cq_replay_error(e.what());
  }
  if (out.empty()) {
    throw cq_replay_error("'" + path + "' holds no queue recording; allowed: a recording " +
                          "with \"tofu2_queue\" lines (`bcastsim run --record-unit-inputs` " +
                          "with a tofu2-* algorithm)");
  }
  return out;
}

}  // namespace bcastsim::tb::cosim
