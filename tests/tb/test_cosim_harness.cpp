// The co-simulation harness itself (tb/cosim), without the RTL: the random stimulus is
// deterministic and within the RTL's limits; the SystemC model against itself gives no
// divergence and events in every stage; the scoreboard finds planted differences (child,
// order, timing) and names the first; a fabric run's recording replays packet for packet;
// the CLI rejects bad input with exit code 2 and is deterministic.
//
// Cases that simulate elaborate one design each (one CTest entry per case); the CLI cases
// run the real binary.
#include "cli_runner.h"
#include "hw/ragasa/unit_factory.h"
#include "tb/cosim/command.h"
#include "tb/cosim/harness.h"
#include "tb/cosim/scoreboard.h"
#include "tb/cosim/stimulus.h"
#include "unit_replay_lines.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::tb::cosim;
using test::contains;
using test::fresh_dir;
using test::run_cli;

namespace {

std::string dump(const stimulus& s) {
  nlohmann::json j = to_json(s.params);
  for (const arrival& a : s.arrivals) j["arrivals"].push_back(to_json(a));
  for (const auto& [id, kids] : s.membership)
    for (const auto& k : kids)
      j["membership"][std::to_string(id)].push_back({k.dst, k.unit_router});
  j["sink"] = {s.sink.ps_per_byte, s.sink.credit_delay_ps, s.sink.credit_jitter_ps,
               s.sink.jitter_seed};
  return j.dump();
}

event copy_event(uint64_t t_ns, uint32_t index, network::terminal_id dst) {
  event e;
  e.t_ps = t_ns * 1000;
  e.collective_id = 7;
  e.src = 3;
  e.msg_id = 100;
  e.index = index;
  e.count = 4;
  e.size_bytes = 512;
  e.msg_bytes = 2048;
  e.child = hw::ragasa::membership_child{dst, network::invalid_id};
  return e;
}

// Two identical logs: a descriptor at 5 ns, copies of packets 0..3 to children 1 and 2.
void make_logs(event_log& ref, event_log& dut) {
  event d = copy_event(5, 0, 1);
  ref[stage::descriptor].push_back(d);
  for (uint32_t i = 0; i < 4; ++i) {
    ref[stage::copy].push_back(copy_event(10 + 2 * i, i, 1));
    ref[stage::copy].push_back(copy_event(11 + 2 * i, i, 2));
  }
  dut = ref;
}

nlohmann::json load_json(const std::string& path) {
  std::ifstream in(path);
  BOOST_REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  return nlohmann::json::parse(in);
}

}  // namespace

BOOST_AUTO_TEST_CASE(random_stimulus_is_deterministic_and_within_rtl_limits) {
  BOOST_TEST(dump(random_stimulus(7, 5000)) == dump(random_stimulus(7, 5000)));
  BOOST_TEST(dump(random_stimulus(7, 5000)) != dump(random_stimulus(8, 5000)));
  BOOST_TEST(dump(random_stimulus(7, 5000)) != dump(random_stimulus(7, 6000)));
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const stimulus s = random_stimulus(seed, 20000);
    const hw::ragasa::bcast_unit_params& p = s.params;
    BOOST_TEST_CONTEXT("seed " << seed) {
      BOOST_TEST((p.rx_queues >= 2 && p.rx_queues <= 8));
      BOOST_TEST((p.rx_queue_packets >= 1 && p.rx_queue_packets <= 16));
      BOOST_TEST((p.work_queue_descriptors >= 1 && p.work_queue_descriptors <= 64));
      BOOST_TEST((p.send_queue_descriptors >= 1 && p.send_queue_descriptors <= 16));
      BOOST_TEST((s.membership.size() >= 3 && s.membership.size() <= 12));
      BOOST_TEST(p.membership_entries >= s.membership.size());
      BOOST_TEST(p.membership_entries <= 64u);
      for (const auto& [id, kids] : s.membership) {
        BOOST_TEST((kids.size() >= 1 && kids.size() <= 16));
        std::set<std::pair<uint32_t, uint32_t>> distinct;
        for (const auto& k : kids) distinct.insert({k.dst, k.unit_router});
        BOOST_TEST(distinct.size() == kids.size());
      }
      // Working Memory holds every collective's reservation (no Mini Packet ever waits),
      // each of two packets or more (or all of its data).
      uint64_t reserved = 0;
      for (const auto& [id, n] : s.membership_packets) {
        const uint64_t r = hw::ragasa::reservation_bytes(p, n);
        BOOST_TEST(r >= std::min<uint64_t>(n, 2) * p.packet_bytes);
        reserved += r;
      }
      BOOST_TEST(reserved <= p.working_memory_bytes);
      // Arrivals: in time order, every collective's Mini Packet once, messages complete,
      // at most 4 in progress per collective, Working Memory never over 64 packets (or
      // whole packets only), every unit child returning credits for all the data.
      std::map<uint32_t, uint32_t> mini;
      std::map<std::pair<uint32_t, uint32_t>, uint64_t> credited;  // (collective, child)
      std::map<std::pair<uint32_t, uint64_t>, uint32_t> next;      // (src, msg) -> next index
      std::map<uint32_t, uint32_t> in_progress;
      uint64_t last = 0;
      for (const arrival& a : s.arrivals) {
        BOOST_TEST(a.send_ps >= last);
        last = a.send_ps;
        BOOST_TEST((a.send_ps <= a.head_ps && a.head_ps <= a.tail_ps));
        BOOST_TEST((a.size_bytes >= 1 && a.size_bytes <= p.packet_bytes));
        BOOST_TEST(s.membership.count(a.collective_id) == 1u);
        if (a.cls == hw::ragasa::packet_class::credit) {
          BOOST_TEST(mini[a.collective_id] == 1u);  // after its Mini Packet
          BOOST_TEST(a.size_bytes == p.credit_packet_bytes);
          credited[{a.collective_id, a.src}] += a.count;
          continue;
        }
        if (a.kind == tlm_net::packet_kind::control) {
          BOOST_TEST((a.cls == hw::ragasa::packet_class::mini));
          ++mini[a.collective_id];
          BOOST_TEST(a.size_bytes == 16 + 4 * s.membership.at(a.collective_id).size());
          continue;
        }
        BOOST_TEST(a.msg_id < (uint64_t{1} << 32));
        BOOST_TEST((a.size_bytes * 64 >= p.working_memory_bytes || a.size_bytes == p.packet_bytes));
        uint32_t& n = next[{a.src, a.msg_id}];
        BOOST_TEST(a.index == n);
        if (n == 0) ++in_progress[a.collective_id];
        BOOST_TEST(in_progress[a.collective_id] <= 4u);
        if (++n == a.count) --in_progress[a.collective_id];
      }
      for (const auto& [id, kids] : s.membership) {
        BOOST_TEST(mini[id] == 1u);
        for (const hw::ragasa::membership_child& k : kids) {
          if (k.unit_router == network::invalid_id) continue;
          const auto n = s.membership_packets.find(id);
          const uint64_t got = credited[std::make_pair(id, k.dst)];
          BOOST_TEST(got == (n == s.membership_packets.end() ? 0 : n->second));
        }
      }
      for (const auto& [id, n] : in_progress) BOOST_TEST(n == 0u);
      BOOST_TEST(last >= 20000 * s.period_ps() / 2);  // about `cycles` long
    }
  }
}

// 4 seeds x 20,000 cycles, one design: the model against itself.
BOOST_AUTO_TEST_CASE(systemc_against_itself_has_no_divergence) {
  std::vector<stimulus> stimuli;
  for (uint64_t seed = 1; seed <= 4; ++seed) stimuli.push_back(random_stimulus(seed, 20000));
  const report r = run_cosim(stimuli, cosim_options{});
  std::ostringstream os;
  print(os, r);
  BOOST_TEST_MESSAGE(os.str());
  BOOST_TEST(r.ok(), os.str());
  BOOST_TEST(r.divergences == 0u);
  BOOST_TEST(r.units == 4u);
  BOOST_TEST(r.cycles >= 20000u);
  for (size_t k = 0; k < num_stages; ++k) {
    BOOST_TEST(r.stages[k].compared > 0u, to_string(static_cast<stage>(k)));
    BOOST_TEST(r.stages[k].max_abs_drift_cycles == 0.0);
  }
  uint64_t packets = 0;
  for (const stimulus& s : stimuli) packets += s.arrivals.size();
  BOOST_TEST(r.packets_in == packets);
  BOOST_TEST(r[stage::credit].compared == packets);
  BOOST_TEST(r[stage::scheduled].compared == packets);
}

// A seed range prints one line a seed and nothing else: an error the DUT reported, or the
// reference's, is named in it.
BOOST_AUTO_TEST_CASE(seed_line_names_an_error) {
  const coverage none;
  {
    scoreboard sb(0);
    sb.error("u", 5000, "RTL core: Working Memory freed twice", false);
    std::ostringstream line;
    print_seed_line(line, 7, sb.result(), none, "");
    BOOST_TEST(contains(line.str(), "seed 7: FAIL ("), line.str());
    BOOST_TEST(contains(line.str(), "error: RTL core: Working Memory freed twice)"), line.str());
  }
  {
    scoreboard sb(0);
    sb.error("u", 5000, "credit protocol violated", true);
    std::ostringstream line;
    print_seed_line(line, 8, sb.result(), none, "");
    BOOST_TEST(contains(line.str(), "FAIL (the reference did not finish: u: error at "),
               line.str());
    BOOST_TEST(contains(line.str(), "credit protocol violated)"), line.str());
  }
}

BOOST_AUTO_TEST_CASE(scoreboard_finds_planted_differences) {
  const uint64_t period = 1000;  // 1 GHz
  {                              // identical: nothing
    event_log ref, dut;
    make_logs(ref, dut);
    scoreboard sb(0);
    sb.compare("u", period, ref, dut);
    BOOST_TEST(sb.result().ok());
    BOOST_TEST(sb.result()[stage::copy].compared == 8u);
  }
  {  // one copy to another child: a functional mismatch in `copy`, at that copy's time
    event_log ref, dut;
    make_logs(ref, dut);
    dut[stage::copy][5].child.dst = 9;  // packet 2 to child 9 instead of child 2
    scoreboard sb(0);
    sb.compare("u", period, ref, dut);
    const report& r = sb.result();
    BOOST_TEST(!r.ok());
    BOOST_TEST(r.first.where == stage::copy);
    BOOST_TEST(r.first.kind == "functional");
    BOOST_TEST(r.first.t_ps == 15000u);
    BOOST_TEST(contains(r.first.expected, "pkt 2/4"));  // child 2 misses packet 2
    BOOST_TEST(contains(r.first.got, "pkt 3/4"));
    BOOST_TEST(r[stage::copy].mismatches == 2u);  // child 2, and child 9 that got it
  }
  {  // two copies to one child swapped: a functional mismatch at the first of them
    event_log ref, dut;
    make_logs(ref, dut);
    std::swap(dut[stage::copy][2].index, dut[stage::copy][4].index);  // child 1: 0, 2, 1, 3
    scoreboard sb(0);
    sb.compare("u", period, ref, dut);
    const report& r = sb.result();
    BOOST_TEST(r.first.found);
    BOOST_TEST(r.first.where == stage::copy);
    BOOST_TEST(r.first.t_ps == 12000u);
    BOOST_TEST(contains(r.first.expected, "pkt 1/4"));
    BOOST_TEST(contains(r.first.got, "pkt 2/4"));
    BOOST_TEST(r[stage::copy].mismatches == 1u);
  }
  {  // a copy 3 cycles late: a timing violation beyond 2 cycles, none within 3
    event_log ref, dut;
    make_logs(ref, dut);
    dut[stage::copy][6].t_ps += 3 * period;
    scoreboard tight(2);
    tight.compare("u", period, ref, dut);
    const report& r = tight.result();
    BOOST_TEST(r.first.found);
    BOOST_TEST(r.first.where == stage::copy);
    BOOST_TEST(r.first.kind == "timing");
    BOOST_TEST(r.first.drift_cycles == 3.0);
    BOOST_TEST(r.first.t_ps == 16000u);
    BOOST_TEST(r[stage::copy].violations == 1u);
    BOOST_TEST(r[stage::copy].max_abs_drift_cycles == 3.0);
    scoreboard loose(3);
    loose.compare("u", period, ref, dut);
    BOOST_TEST(loose.result().ok());
    BOOST_TEST(loose.result()[stage::copy].max_abs_drift_cycles == 3.0);
  }
  {  // the earliest divergence wins over a later one in an earlier stage, and a missing
     // event is a mismatch
    event_log ref, dut;
    make_logs(ref, dut);
    dut[stage::copy][1].t_ps += period;  // at 11 ns
    dut[stage::descriptor].clear();      // at 5 ns: missing
    scoreboard sb(0);
    sb.compare("u", period, ref, dut);
    const report& r = sb.result();
    BOOST_TEST(r.first.where == stage::descriptor);
    BOOST_TEST(r.first.t_ps == 5000u);
    BOOST_TEST(contains(r.first.got, "nothing"));
    BOOST_TEST(r.divergences == 2u);
    std::ostringstream os;
    print(os, r);
    BOOST_TEST(contains(os.str(), "the first at 5.000 ns, stage descriptor, u, functional"));
  }
  {  // end states: a DUT that did not finish
    end_state ref, dut;
    ref.packets_in = dut.packets_in = 10;
    dut.idle = false;
    dut.stall = "  stuck\n";
    scoreboard sb(0);
    sb.compare_end("u", 7000, ref, dut);
    BOOST_TEST(sb.result().first.where == stage::end);
    BOOST_TEST(contains(sb.result().first.got, "stuck"));
  }
}

// A small Ragasa run recorded, loaded and replayed: every packet that entered a unit is
// replayed, and the model against itself gives no divergence.
BOOST_AUTO_TEST_CASE(replay_of_a_recorded_run_round_trips) {
  const std::string dir = fresh_dir();
  const std::string file = dir + "/units.jsonl";
  const test::outcome o = run_cli(
      "run --set topology.p=2 --set topology.a=2 --set topology.h=1 --set "
      "collective.algorithm=ragasa"
      " --set collective.bytes=5000 --set collective.root=3 -q --out " +
      dir + " --record-unit-inputs " + file);
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  const nlohmann::json result = load_json(dir + "/result.json");
  const std::vector<stimulus> stimuli = load_replay(file);
  BOOST_REQUIRE(!stimuli.empty());
  uint64_t packets = 0, mini = 0;
  for (const stimulus& s : stimuli) {
    packets += s.arrivals.size();
    mini += s.packets(tlm_net::packet_kind::control);
    BOOST_TEST(s.params.input_buffer_bytes == 2048u);  // ragasa.ri_buffer_bytes
    BOOST_TEST(s.credit_latency_ps == 1000u);          // ragasa.port_latency_ns
  }
  BOOST_TEST(packets == result["ragasa"]["units"]["packets_in"].get<uint64_t>());
  BOOST_TEST(mini == result["ragasa"]["setup"]["mini_packets"].get<uint64_t>());
  const report r = run_cosim(stimuli, cosim_options{});
  std::ostringstream os;
  print(os, r);
  BOOST_TEST(r.ok(), os.str());
  BOOST_TEST(r.packets_in == packets);
  BOOST_TEST(r[stage::copy].compared == result["ragasa"]["units"]["packets_out"].get<uint64_t>());
  BOOST_TEST(r[stage::parsed].compared == mini);
  // Each Mini Packet announced its collective's packets (the recording keeps the count):
  // every entry was freed when they had left.
  BOOST_TEST(r[stage::freed].compared == mini);
}

// A zero-byte broadcast sends one packet of one wire byte (msg_bytes 0); its recording
// replays (it was refused: msg_bytes below size_bytes).
BOOST_AUTO_TEST_CASE(replay_of_a_zero_byte_broadcast_round_trips) {
  const std::string dir = fresh_dir();
  const std::string file = dir + "/units.jsonl";
  const test::outcome o =
      run_cli("run --set collective.algorithm=ragasa --set collective.bytes=0 -q --out " + dir +
              " --record-unit-inputs " + file);
  BOOST_REQUIRE_MESSAGE(o.code == 0, o.output);
  const std::vector<stimulus> stimuli = load_replay(file);
  BOOST_REQUIRE(!stimuli.empty());
  const report r = run_cosim(stimuli, cosim_options{});
  std::ostringstream os;
  print(os, r);
  BOOST_TEST(r.ok(), os.str());
  BOOST_TEST(r[stage::copy].compared > 0u);
}

BOOST_AUTO_TEST_CASE(cli_bad_input_exits_2) {
  auto expect = [](const std::string& args, const std::vector<std::string>& texts) {
    const test::outcome o = run_cli(args);
    BOOST_TEST(o.code == 2, args << " -> " << o.code << ": " << o.output);
    for (const std::string& t : texts) BOOST_TEST(contains(o.output, t), args << ": " << o.output);
  };
  expect("cosim --dut verilog",
         {"--dut 'verilog'", "allowed: systemc, rtl, rtl-fault-unfair, rtl-fault-early-free"});
  expect("cosim --random-cycles 0", {"--random-cycles", "allowed: an integer from 1 to 100000000"});
  expect("cosim --random-cycles -1",
         {"--random-cycles", "allowed: an integer from 1 to 100000000"});
  expect("cosim --random-cycles 100000001",
         {"--random-cycles", "allowed: an integer from 1 to 100000000"});
  expect("cosim --replay /nonexistent/units.jsonl", {"--replay", "/nonexistent/units.jsonl"});
  const std::string dir = fresh_dir();
  std::ofstream(dir + "/bad.jsonl")
      << R"({"type":"unit","unit":"unit_0","router":0,"terminal":0,"params":{}})"
      << "\n";
  expect("cosim --replay " + dir + "/bad.jsonl",
         {dir + "/bad.jsonl:1: params.clock_mhz is missing; allowed: numbers"});
  std::ofstream(dir + "/junk.jsonl") << "\n{not json\n";
  expect("cosim --replay " + dir + "/junk.jsonl", {dir + "/junk.jsonl:2"});
  std::ofstream(dir + "/orphan.jsonl")
      << R"({"type":"membership","unit":"unit_4","collective_id":1,"children":[]})"
      << "\n";
  expect("cosim --replay " + dir + "/orphan.jsonl", {"orphan.jsonl:1", "unit_4"});
  std::ofstream(dir + "/empty.jsonl") << "";
  expect("cosim --replay " + dir + "/empty.jsonl", {"empty.jsonl", "no unit received packets"});
  expect("cosim --replay " + dir + "/empty.jsonl --random-cycles 10", {"--random-cycles"});
  expect("run --record-unit-inputs /nonexistent/dir/u.jsonl --set collective.algorithm=ragasa",
         {"--record-unit-inputs", "/nonexistent/dir/u.jsonl"});
  if (!hw::ragasa::unit_model_available(hw::ragasa::unit_model::rtl))
    expect("cosim --dut rtl", {"--dut rtl", "needs a build with Verilator"});
}

// The report is the same for the same seed, with waveforms of both sides and JSON.
BOOST_AUTO_TEST_CASE(cli_self_check_is_deterministic_with_waveforms_and_json) {
  const std::string dir = fresh_dir();
  const std::string args = "cosim --seed 11 --random-cycles 6000 --json " + dir + "/r.json";
  const test::outcome a = run_cli(args + " --vcd " + dir + "/vcd");
  const test::outcome b = run_cli(args);
  BOOST_TEST(a.code == 0, a.output);
  BOOST_TEST(b.code == 0, b.output);
  BOOST_TEST(contains(a.output, "PASS: no divergence"));
  BOOST_TEST(contains(a.output, "timing tolerance: 4 cycles"));
  BOOST_TEST(contains(a.output, "stimulus seed_11"));
  BOOST_TEST(a.output.substr(0, a.output.find("waveform:")) == b.output);
  for (const char* f : {"/vcd/cosim_ref.vcd", "/vcd/cosim_dut.vcd"}) {
    BOOST_TEST(std::filesystem::file_size(dir + f) > 1000u, f);
  }
  const nlohmann::json j = load_json(dir + "/r.json");
  BOOST_TEST(j["ok"].get<bool>());
  BOOST_TEST(j["dut"] == "systemc");
  BOOST_TEST(j["first_divergence"].is_null());
  BOOST_TEST(j["stages"]["copy"]["compared"].get<uint64_t>() > 0u);
  const test::outcome quiet = run_cli("cosim --seed 11 --random-cycles 2000 -q");
  BOOST_TEST(quiet.code == 0);
  BOOST_TEST(quiet.output.empty(), quiet.output);
}

namespace {

// A valid replay of one unit: its Mini Packet and one data packet of collective 7. `edit`
// changes one line before it is written: line 0 the unit, 1 the membership, 2 and 3 packets.
std::string write_replay(const std::string& file,
                         const std::function<void(std::vector<nlohmann::json>&)>& edit) {
  std::vector<nlohmann::json> lines = test::unit_replay_lines();
  edit(lines);
  std::ofstream out(file);
  for (const nlohmann::json& j : lines) out << j.dump() << "\n";
  return file;
}

}  // namespace

// Issue 13, reproduction 12: every field of a replay file is checked against its range; a
// bad one exits 2 naming the file, the line, the field and the allowed values (it used to
// exit 1, pass after wrapping around, throw bad_alloc or never end).
BOOST_AUTO_TEST_CASE(cli_replay_fields_out_of_range_exit_2) {
  const std::string dir = fresh_dir();
  const test::outcome good =
      run_cli("cosim --replay " + write_replay(dir + "/good.jsonl", [](auto&) {}));
  BOOST_TEST(good.code == 0, good.output);
  struct bad_case {
    size_t line;
    const char* key;  // "a.b": a nested key
    nlohmann::json value;
    std::vector<std::string> texts;
  };
  const uint64_t max64 = ~uint64_t{0};
  const std::vector<bad_case> cases = {
      {0, "params.rx_queues", 0, {":1: params.rx_queues = 0", "allowed: integers 1 to 1024"}},
      {0, "params.vcs", -1, {"params.vcs = -1", "allowed: integers 1 to 64"}},
      {0, "params.input_buffer_bytes", 0, {"params.input_buffer_bytes = 0", "512 to"}},
      {0, "params.output_buffer_bytes", 100, {"params.output_buffer_bytes = 100"}},
      {0, "params.clock_mhz", 1e308, {"params.clock_mhz = 1e+308", "allowed: 0.001 to"}},
      {0, "params.working_memory_bytes", 1.5, {"params.working_memory_bytes = 1.5"}},
      {0, "port.latency_ns", -1, {"port.latency_ns = -1"}},
      {0, "port.bandwidth_gib_per_s", 0, {"port.bandwidth_gib_per_s = 0"}},
      {0, "credit_delay_ps", max64, {"credit_delay_ps = 18446744073709551615"}},
      {1, "children", {{-1, 0}}, {":2: children[0] = [-1,0]"}},
      {3, "tail_ps", -1, {":4: tail_ps = -1", "allowed: integers 3000 to"}},
      {3, "t_ps", max64, {"head_ps = 3000", "allowed: integers 18446744073709551615"}},
      {3, "count", 0, {"count = 0", "allowed: integers 1 to"}},
      {3, "index", 1, {"index = 1", "allowed: integers 0 to 0"}},
      {3, "size_bytes", 513, {"size_bytes = 513", "allowed: 1 to 512"}},
      {3, "kind", "bulk", {"kind = \"bulk\"", "allowed: data, control"}},
  };
  for (const bad_case& c : cases) {
    const std::string file = write_replay(dir + "/bad.jsonl", [&](std::vector<nlohmann::json>& l) {
      const std::string key = c.key;
      const size_t dot = key.find('.');
      if (dot == std::string::npos) {
        l[c.line][key] = c.value;
        if (key == "size_bytes") l[c.line]["msg_bytes"] = c.value;  // still >= size_bytes
      } else {
        l[c.line][key.substr(0, dot)][key.substr(dot + 1)] = c.value;
      }
    });
    const test::outcome o = run_cli("cosim --replay " + file);
    BOOST_TEST(o.code == 2, c.key << " -> " << o.code << ": " << o.output);
    BOOST_TEST(contains(o.output, "--replay " + file + ":"), o.output);
    for (const std::string& t : c.texts)
      BOOST_TEST(contains(o.output, t), c.key << ": " << o.output);
  }
  // Times that would never be reached (2^64 - 1 ps), and a data packet recorded twice.
  const std::string late = write_replay(
      dir + "/late.jsonl", [&](auto& l) { l[3]["head_ps"] = l[3]["tail_ps"] = max64; });
  const test::outcome o = run_cli("cosim --replay " + late);
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "tail_ps = 18446744073709551615"), o.output);
  BOOST_TEST(contains(o.output, "100000000 cycles of unit_1's clock"), o.output);
  const std::string twice = write_replay(dir + "/twice.jsonl", [](auto& l) { l.push_back(l[3]); });
  const test::outcome t = run_cli("cosim --replay " + twice);
  BOOST_TEST(t.code == 2, t.output);
  BOOST_TEST(contains(t.output, "twice.jsonl:5: data packet recorded twice at unit_1"), t.output);
  // A membership's packet count must be the recording's (it frees the entry): 1 is, 0 keeps
  // the entry, 2 would never free it (the run used to end in a divergence, exit 1).
  for (const int packets : {1, 0}) {
    const std::string ok =
        write_replay(dir + "/count_ok.jsonl", [&](auto& l) { l[1]["packets"] = packets; });
    const test::outcome c = run_cli("cosim --replay " + ok);
    BOOST_TEST(c.code == 0, packets << ": " << c.output);
  }
  const std::string count =
      write_replay(dir + "/count.jsonl", [](auto& l) { l[1]["packets"] = 2; });
  const test::outcome c = run_cli("cosim --replay " + count);
  BOOST_TEST(c.code == 2, c.output);
  BOOST_TEST(contains(c.output,
                      "unit_1: membership of collective 7 has packets = 2, but the "
                      "recording has 1 data packets of it at this unit; allowed: 1, "
                      "or 0 to keep the entry"),
             c.output);
}

// Issue 13: `cosim --replay ''` ran the random stimulus instead.
BOOST_AUTO_TEST_CASE(cli_empty_replay_name_exits_2) {
  const test::outcome o = run_cli("cosim --replay ''");
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "--replay needs a file name"), o.output);
  BOOST_TEST(!contains(o.output, "PASS"), o.output);
}

// Issue 13 (CI): --seeds runs a seed range, one line per seed with what it exercised, a
// summary, and the JSON of every seed; bad ranges exit 2.
BOOST_AUTO_TEST_CASE(cli_seed_range_with_coverage) {
  const std::string dir = fresh_dir();
  const test::outcome o =
      run_cli("cosim --seeds 3-5 --random-cycles 3000 --json " + dir + "/seeds.json");
  BOOST_TEST(o.code == 0, o.output);
  for (const char* line : {"seed 3: PASS; coverage: contended picks ", "seed 4: PASS",
                           "seed 5: PASS", "seeds 3-5 (systemc): 3 passed, 0 failed"})
    BOOST_TEST(contains(o.output, line), o.output);
  BOOST_TEST(contains(o.output, "memory stall "), o.output);
  BOOST_TEST(contains(o.output, "table hits "), o.output);
  const nlohmann::json j = load_json(dir + "/seeds.json");
  BOOST_REQUIRE(j["seeds"].size() == 3u);
  BOOST_TEST(j["seeds"][1]["seed"].get<uint64_t>() == 4u);
  BOOST_TEST(j["seeds"][1]["ok"].get<bool>());
  for (const char* k : {"contended_picks", "memory_stall_cycles", "rx_queue_full_cycles",
                        "work_queue_full", "send_queue_full", "table_hits", "shared_batches"})
    BOOST_TEST(j["seeds"][1]["coverage"].contains(k), k);
  const test::outcome one = run_cli("cosim --seed 4 --random-cycles 3000");
  BOOST_TEST(contains(one.output, "coverage: contended picks "), one.output);
  for (const char* bad : {"--seeds 5-2", "--seeds x", "--seeds 1-20000", "--seeds -3",
                          "--seeds 1-2 --seed 3", "--seeds 1-2 --replay f.jsonl"}) {
    const test::outcome b = run_cli(std::string("cosim ") + bad);
    BOOST_TEST(b.code == 2, bad << " -> " << b.code << ": " << b.output);
    BOOST_TEST(contains(b.output, "--seed"), bad << ": " << b.output);
  }
}

// Issue 13: --record-unit-inputs with a run that has no Bcast Unit is refused (exit 2, no
// file), not an empty recording and exit 0.
BOOST_AUTO_TEST_CASE(cli_record_unit_inputs_needs_a_ragasa_run) {
  const std::string dir = fresh_dir();
  for (const char* set : {"", " --set collective.algorithm=none --set traffic.kind=uniform"}) {
    const test::outcome o =
        run_cli("run -q --out " + dir + " --record-unit-inputs " + dir + "/u.jsonl" + set);
    BOOST_TEST(o.code == 2, set << ": " << o.output);
    BOOST_TEST(contains(o.output, "--record-unit-inputs needs a Ragasa run"), o.output);
    BOOST_TEST(!std::filesystem::exists(dir + "/u.jsonl"));
    BOOST_TEST(!std::filesystem::exists(dir + "/result.json"));
  }
}

// Issue 13: no output file is left half-written. A run refused after the recording began
// (here while the fabric is built) leaves neither the recording nor its temporary file.
BOOST_AUTO_TEST_CASE(cli_record_unit_inputs_leaves_no_file_when_the_run_is_refused) {
  const std::string dir = fresh_dir();
  const test::outcome o = run_cli("run -q --out " + dir + " --record-unit-inputs " + dir +
                                  "/u.jsonl --set collective.algorithm=ragasa "
                                  "--set ragasa.management_terminal=999");
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "ragasa.management_terminal = 999 is not a terminal"), o.output);
  BOOST_TEST(std::filesystem::is_empty(dir), "files left in " << dir);
}
