#include "tb/cosim/cq_replay.h"

#include <nlohmann/json.hpp>

#include <fstream>
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

toq_descriptor descriptor_of(const json& j) {
  toq_descriptor d;
  const int command = j.at("command").get<int>();
  if (command != 0 && command != 1) throw std::out_of_range("command must be 0 (nop) or 1 (put)");
  d.command = static_cast<algorithms::toq_command>(command);
  d.remote_rank = j.at("remote_rank").get<uint32_t>();
  d.remote_tni = j.at("remote_tni").get<uint32_t>();
  d.remote_queue = j.at("remote_queue").get<uint32_t>();
  d.local_offset = j.at("local_offset").get<uint64_t>();
  d.remote_offset = j.at("remote_offset").get<uint64_t>();
  d.length = j.at("length").get<uint64_t>();
  d.sps = j.at("sps").get<uint32_t>();
  if (d.sps > algorithms::toq_max_sps) throw std::out_of_range("sps above 15");
  d.remote_terminal = j.at("remote_terminal").get<uint32_t>();
  d.edata = j.at("edata").get<uint32_t>();
  d.notify_remote = j.at("notify_remote").get<bool>();
  d.notify_local = j.at("notify_local").get<bool>();
  return d;
}

hw::tofu2::cq_cycle cycle_of(const json& j) {
  hw::tofu2::cq_cycle c;
  if (j.contains("enqueue")) {
    c.enqueue = true;
    c.descriptor = descriptor_of(j.at("enqueue"));
  }
  if (j.contains("sps")) {
    c.sps_valid = true;
    c.sps = j.at("sps").get<uint32_t>();
    if (c.sps > algorithms::toq_max_sps) throw std::out_of_range("sps above 15");
  }
  c.retire = j.value("retire", false);
  return c;
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
  std::ifstream in(path);
  if (!in) throw cq_replay_error("'" + path + "' cannot be opened");
  std::vector<cq_stimulus> out;
  std::string text;
  for (uint64_t line = 1; std::getline(in, text); ++line) {
    if (text.empty()) continue;
    const std::string where = "'" + path + "' line " + std::to_string(line) + ": ";
    try {
      const json j = json::parse(text);
      if (j.value("type", "") != "tofu2_queue") {
        throw cq_replay_error(where + "not a Tofu2 queue recording (type '" + j.value("type", "") +
                              "', expected tofu2_queue; a Bcast Unit " +
                              "recording replays with --block bcast-unit)");
      }
      cq_stimulus s;
      s.name = j.at("queue").get<std::string>();
      const std::string mode = j.at("mode").get<std::string>();
      if (mode != "normal" && mode != "session")
        throw std::out_of_range("mode must be normal or session, not '" + mode + "'");
      s.mode = mode == "normal" ? hw::tofu2::queue_mode::normal : hw::tofu2::queue_mode::session;
      s.entries = j.at("entries").get<uint64_t>();
      for (const json& c : j.at("cycles")) s.cycles.push_back(cycle_of(c));
      out.push_back(std::move(s));
    } catch (const cq_replay_error&) {
      throw;
    } catch (const std::exception& e) {
      throw cq_replay_error(where + e.what());
    }
  }
  if (out.empty()) throw cq_replay_error("'" + path + "' holds no queue recording");
  return out;
}

}  // namespace bcastsim::tb::cosim
