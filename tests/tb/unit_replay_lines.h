// A valid Bcast Unit replay recording (`run --record-unit-inputs`), one JSON object a line:
// line 0 the unit, 1 its membership of collective 7, 2 a Mini Packet, 3 a data packet. The
// replay tests edit one line of it at a time.
#pragma once

#include "hw/ragasa/bcast_unit_base.h"
#include "tb/cosim/stimulus.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace bcastsim::test {

inline std::vector<nlohmann::json> unit_replay_lines() {
  using tb::cosim::arrival;
  using tb::cosim::to_json;
  std::vector<nlohmann::json> lines;
  lines.push_back({{"type", "unit"},
                   {"unit", "unit_1"},
                   {"router", 1},
                   {"terminal", 2},
                   {"params", to_json(hw::ragasa::bcast_unit_params{})},
                   {"port", {{"bandwidth_gib_per_s", 21.0}, {"latency_ns", 1.0}}},
                   {"credit_delay_ps", 5000}});
  lines.push_back({{"type", "membership"},
                   {"unit", "unit_1"},
                   {"collective_id", 7},
                   {"children", {{0, 4294967295u}, {1, 4294967295u}}}});
  arrival mp;
  mp.kind = tlm_net::packet_kind::control;
  mp.cls = hw::ragasa::packet_class::mini;
  mp.src = 3;
  mp.dst = 2;
  mp.unit_router = 1;
  mp.collective_id = 7;
  mp.count = 1;
  mp.size_bytes = mp.msg_bytes = 24;
  mp.head_ps = mp.tail_ps = 1000;
  arrival data = mp;
  data.kind = tlm_net::packet_kind::data;
  data.cls = hw::ragasa::packet_class::handoff;
  data.src = 5;
  data.size_bytes = data.msg_bytes = 512;
  data.send_ps = 2000;
  data.head_ps = 3000;
  data.tail_ps = 26000;
  for (const arrival& a : {mp, data}) {
    nlohmann::json j = to_json(a);
    j["type"] = "packet";
    j["unit"] = "unit_1";
    lines.push_back(j);
  }
  return lines;
}

}  // namespace bcastsim::test
