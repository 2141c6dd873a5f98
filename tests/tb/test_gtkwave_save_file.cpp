// The GTKWave save file `bcastsim run --vcd FILE.vcd` writes beside the VCD
// (tb/gtkwave_save_file.h), for the default run, a Ragasa run, a torus run and the RTL Bcast
// Unit: every signal the VCD declares is a row exactly once, every row's name says its block
// and its stage or port class (and has no dot, where GTKWave would cut it to the leaf), the
// groups open and close per block, [dumpfile] names the VCD beside it, the zoom fits the trace
// window. The committed waveforms/*.gtkw show what the generator writes. A bad --vcd path and
// a block traced twice exit 2 naming the key; a save file is written whole or not at all.
#include "cli_runner.h"
#include "gtkw_reader.h"
#include "tb/atomic_file.h"
#include "tb/config.h"
#include "tb/gtkwave_save_file.h"
#include "vcd_reader.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

using namespace bcastsim;
using test::contains;
using test::fresh_dir;
using test::outcome;
using test::run_cli;

namespace {

constexpr const char* k_dragonfly_classes = "terminal|local|global";
constexpr const char* k_torus_classes = "terminal|x|y|z|a|b|c";

struct traced_run {
  std::string dir;
  test::vcd_summary vcd;
  test::gtkw_summary gtkw;
};

// Runs `bcastsim run <args> --vcd DIR/w.vcd` and reads both files.
traced_run run_traced(const std::string& args) {
  traced_run r;
  r.dir = fresh_dir();
  const outcome o = run_cli("run -q " + args + " --vcd " + r.dir + "/w.vcd --out " + r.dir);
  BOOST_REQUIRE_MESSAGE(o.code == 0, args << ": " << o.output);
  BOOST_REQUIRE(std::filesystem::exists(r.dir + "/w.gtkw"));
  BOOST_TEST(!std::filesystem::exists(r.dir + "/w.gtkw.part"));
  r.vcd = test::read_vcd(r.dir + "/w.vcd");
  r.gtkw = test::read_gtkw(r.dir + "/w.gtkw");
  return r;
}

// What a row of each kind of block must say after "<block>/": its stage, or its port and
// the port's class.
bool says_where(const std::string& shown, const std::string& classes) {
  const std::regex router("router_[0-9]+/(crossbar/packets|port[0-9]+\\((" + classes +
                          ")\\)/(in|out)/.+|port[0-9]+\\(bcast unit\\)/(in|out)/.+)");
  const std::regex nic("nic_[0-9]+/(inject|eject)/.+");
  const std::regex unit("unit_[0-9]+/s[0-9]_[a-z_]+/.+");
  return std::regex_match(shown, router) || std::regex_match(shown, nic) ||
         std::regex_match(shown, unit);
}

// Every VCD signal exactly once, every row named by block and stage or port class, inside
// its block's group; [dumpfile] beside; the groups in the order of trace.blocks.
void expect_readable(const traced_run& r, const std::vector<std::string>& blocks,
                     const std::string& classes) {
  const test::gtkw_summary& g = r.gtkw;
  std::map<std::string, int> shown;
  for (const test::gtkw_row& row : g.rows) {
    ++shown[row.signal];
    BOOST_TEST(!row.shown.empty(), row.signal << " is shown under its leaf name only");
    BOOST_TEST(row.shown.find('.') == std::string::npos, row.shown << ": GTKWave cuts at a dot");
    BOOST_TEST(says_where(row.shown, classes), row.shown << " does not say its stage or port");
    const std::string block = row.shown.substr(0, row.shown.find('/'));
    BOOST_TEST(row.group.rfind(block + " (", 0) == 0, row.shown << " in group " << row.group);
    BOOST_TEST(row.signal.rfind("SystemC." + block + ".", 0) == 0, row.signal);
  }
  std::set<std::string> declared;
  for (const auto& [id, name] : r.vcd.names) {
    declared.insert(name);
    BOOST_TEST(shown[name] == 1, name << " shown " << shown[name] << " times");
  }
  for (const auto& [name, n] : shown) BOOST_TEST(declared.count(name), name << " not in the VCD");
  BOOST_TEST(g.rows.size() == r.vcd.names.size());
  BOOST_TEST(g.unclosed_groups == 0);
  BOOST_REQUIRE(g.groups.size() == blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i)
    BOOST_TEST(g.groups[i].rfind(blocks[i] + " (", 0) == 0, g.groups[i]);
  BOOST_TEST(g.dumpfile == "w.vcd");
  BOOST_TEST(g.savefile == "w.gtkw");
}

// The zoom shows [start, end] in most of the waves' pane, and all of it.
void expect_zoom(const test::gtkw_summary& g, uint64_t start_ps, uint64_t end_ps) {
  BOOST_TEST(g.timestart == start_ps);
  const double pane = g.width - g.sst_width - g.signals_width;
  const double px = test::gtkw_pixels(g, static_cast<double>(end_ps - start_ps));
  BOOST_TEST(px <= pane - 40, px << " px for the window; the pane has " << pane);
  BOOST_TEST(px >= 0.75 * pane, px << " px for the window; the pane has " << pane);
}

uint64_t completion_ps(const std::string& dir) {
  std::ifstream in(dir + "/result.json");
  const nlohmann::json r = nlohmann::json::parse(in);
  return static_cast<uint64_t>(r["collective"]["completion_ns"].get<double>() * 1000);
}

std::vector<std::string> rows_of(const test::gtkw_summary& g) {
  std::vector<std::string> rows;
  for (const test::gtkw_row& r : g.rows) rows.push_back(r.shown + " " + r.signal);
  return rows;
}

}  // namespace

BOOST_AUTO_TEST_CASE(default_run_save_file_shows_every_signal_with_its_port_class) {
  const traced_run r = run_traced("");
  expect_readable(r, {"router_0", "nic_0"}, k_dragonfly_classes);
  // The root's router has terminal, local and global ports; its NIC injects and ejects.
  std::set<std::string> rows;
  for (const test::gtkw_row& row : r.gtkw.rows) rows.insert(row.shown);
  for (const char* s :
       {"router_0/crossbar/packets", "router_0/port0(terminal)/in/vc0/occupancy_bytes",
        "router_0/port1(terminal)/out/busy", "nic_0/inject/vc0/credit_bytes",
        "nic_0/inject/packets", "nic_0/eject/packets"})
    BOOST_TEST(rows.count(s), s);
  bool global = false;
  for (const std::string& s : rows) global |= contains(s, "(global)/out/vc0/credit_bytes");
  BOOST_TEST(global);
  BOOST_TEST(r.gtkw.groups[0] == "router_0 (router, 7 ports)");
  // trace.end_ns = 0: zoomed to the simulated time, which ends at or after the completion.
  const uint64_t end = completion_ps(r.dir);
  BOOST_TEST(test::gtkw_pixels(r.gtkw, static_cast<double>(end)) <=
             r.gtkw.width - r.gtkw.sst_width - r.gtkw.signals_width);
  BOOST_TEST(test::gtkw_pixels(r.gtkw, static_cast<double>(end)) >=
             0.75 * (r.gtkw.width - r.gtkw.sst_width - r.gtkw.signals_width));
}

BOOST_AUTO_TEST_CASE(ragasa_run_save_file_shows_the_unit_stages_and_its_router_port) {
  const traced_run r =
      run_traced("--set collective.algorithm=ragasa --set trace.blocks=unit_0,router_0");
  expect_readable(r, {"unit_0", "router_0"}, k_dragonfly_classes);
  BOOST_TEST(r.gtkw.groups[0] == "unit_0 (Bcast Unit, SystemC model, stages in pipeline order)");
  std::vector<std::string> unit;
  for (const test::gtkw_row& row : r.gtkw.rows)
    if (row.shown.rfind("unit_0/", 0) == 0) unit.push_back(row.shown);
  // Pipeline order, as the unit declares them.
  const std::vector<std::string> stages{"unit_0/s1_ri/packets_in",
                                        "unit_0/s1_ri/packets",
                                        "unit_0/s1_ri/blocked",
                                        "unit_0/s2_rx_queues/packets",
                                        "unit_0/s2_scheduler/memory_stall",
                                        "unit_0/s3_membership/entries",
                                        "unit_0/s4_working_memory/bytes",
                                        "unit_0/s5_descriptor_gen/batches",
                                        "unit_0/s5_work_queue/descriptors",
                                        "unit_0/s7_send_scheduler/descriptors",
                                        "unit_0/s9_si/copy_waiting",
                                        "unit_0/s9_si/busy",
                                        "unit_0/s9_si/credit_bytes",
                                        "unit_0/s9_si/packets_out"};
  BOOST_TEST(unit == stages, boost::test_tools::per_element());
  bool unit_port = false;
  for (const test::gtkw_row& row : r.gtkw.rows)
    unit_port |= row.shown == "router_0/port7(bcast unit)/out/busy";
  BOOST_TEST(unit_port);
  BOOST_TEST(r.gtkw.groups[1] == "router_0 (router, 8 ports)");
}

BOOST_AUTO_TEST_CASE(torus_run_save_file_names_the_dimensions) {
  const traced_run r =
      run_traced("--set topology.kind=torus --set topology.x=2 --set trace.blocks=router_0,nic_0");
  expect_readable(r, {"router_0", "nic_0"}, k_torus_classes);
  std::set<std::string> rows;
  for (const test::gtkw_row& row : r.gtkw.rows) rows.insert(row.shown);
  BOOST_TEST(rows.count("router_0/port1(x)/out/busy"));
  BOOST_TEST(rows.count("router_0/port2(y)/out/vc0/credit_bytes"));
}

BOOST_AUTO_TEST_CASE(save_file_zooms_to_the_trace_window) {
  const traced_run r = run_traced("--set trace.start_ns=2000 --set trace.end_ns=5000");
  expect_readable(r, {"router_0", "nic_0"}, k_dragonfly_classes);
  expect_zoom(r.gtkw, 2000000, 5000000);
}

namespace {
// `run` of the RTL unit 0 traced into `vcd`, results into `dir`.
outcome run_rtl_unit_traced(const std::string& vcd, const std::string& dir) {
  return run_cli(
      "run -q --set collective.algorithm=ragasa --set ragasa.model=rtl --set trace.blocks=unit_0 "
      "--vcd " +
      vcd + " --out " + dir);
}
}  // namespace

// The verilated RTL unit traces the same stage signals into the run's VCD, from the core's
// status outputs, besides its own verilated VCD; without Verilator the model is refused.
BOOST_AUTO_TEST_CASE(rtl_unit_is_traced_into_the_run_vcd) {
#ifdef BCASTSIM_WITH_VERILATOR
  const traced_run r = run_traced(
      "--set collective.algorithm=ragasa --set ragasa.relay=unit --set ragasa.model=rtl "
      "--set trace.blocks=unit_0");
  expect_readable(r, {"unit_0"}, k_dragonfly_classes);
  BOOST_TEST(r.gtkw.groups[0] == "unit_0 (Bcast Unit, verilated RTL, stages in pipeline order)");
  BOOST_TEST(r.vcd.names.size() == 14u);
  auto changed = [&r](const std::string& name) {
    const auto it = r.vcd.changes.find("SystemC.unit_0." + name);
    return it != r.vcd.changes.end() && it->second > 0;
  };
  // As the SystemC model's: the Mini Packet and 32 packets in, 6 x 32 copies out.
  for (const char* s : {"packets_in[63:0]", "packets_out[63:0]", "s3_membership.entries[31:0]",
                        "s4_working_memory.bytes[63:0]", "s5_work_queue.descriptors[31:0]",
                        "s7_send_scheduler.descriptors[31:0]", "s9_si.busy", "s9_si.copy_waiting",
                        "s9_si.credit_bytes[31:0]"})
    BOOST_TEST(changed(s), s);
  BOOST_TEST(r.vcd.changes.at("SystemC.unit_0.packets_out[63:0]") == 192);
  // The core's own VCD is whole: it reaches the edge of the last copy (Verilator buffers it,
  // and a run leaves without destructors), and no temporary file is left beside it.
  const test::vcd_summary rtl = test::read_vcd(r.dir + "/unit_0.rtl.vcd");
  BOOST_TEST(rtl.last_time >= r.vcd.last_change.at("SystemC.unit_0.packets_out[63:0]"));
  std::set<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(r.dir))
    files.insert(e.path().filename().string());
  BOOST_TEST((files == std::set<std::string>{"result.json", "unit_0.rtl.vcd", "w.gtkw", "w.vcd"}));
  // Its name may not be the run's VCD's.
  const std::string dir = fresh_dir();
  const outcome clash = run_rtl_unit_traced(dir + "/unit_0.rtl.vcd", dir);
  BOOST_TEST(clash.code == 2);
  BOOST_TEST(contains(clash.output, "trace.vcd"), clash.output);
  BOOST_TEST(contains(clash.output, "name of the run's VCD"), clash.output);
  BOOST_TEST(std::filesystem::is_empty(dir), "left behind in " << dir);
#else
  const std::string dir = fresh_dir();
  const outcome o = run_rtl_unit_traced(dir + "/w.vcd", dir);
  BOOST_TEST(o.code == 2);
  BOOST_TEST(contains(o.output, "ragasa.model"), o.output);
#endif
}

BOOST_AUTO_TEST_CASE(bad_vcd_path_exits_2_naming_trace_vcd) {
  const std::string dir = fresh_dir();
  const outcome o = run_cli("run -q --vcd " + dir + "/no/such/dir/w.vcd --out " + dir);
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "trace.vcd (--vcd)"), o.output);
  BOOST_TEST(contains(o.output, dir + "/no/such/dir/w.vcd"), o.output);
  BOOST_TEST(!std::filesystem::exists(dir + "/result.json"));
}

BOOST_AUTO_TEST_CASE(block_traced_twice_exits_2_naming_trace_blocks) {
  const std::string dir = fresh_dir();
  const outcome o = run_cli("run -q --set trace.blocks=router_0,nic_0,router_0 --vcd " + dir +
                            "/w.vcd --out " + dir);
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "trace.blocks names 'router_0' twice"), o.output);
}

// The committed save files show what the generator writes for the runs waveforms/README.md
// gives (same rows in the same groups; the zoom may move with the scenario's timing).
BOOST_AUTO_TEST_CASE(committed_save_files_match_the_generator) {
  const std::string src = BCASTSIM_SOURCE_DIR "/waveforms/";
  const traced_run run = run_traced("");
  const test::gtkw_summary committed_run = test::read_gtkw(src + "run.gtkw");
  BOOST_TEST(rows_of(committed_run) == rows_of(run.gtkw), boost::test_tools::per_element());
  BOOST_TEST(committed_run.groups == run.gtkw.groups, boost::test_tools::per_element());
  BOOST_TEST(committed_run.dumpfile == "run.vcd");
  const traced_run ragasa =
      run_traced("--set collective.algorithm=ragasa --set trace.blocks=unit_0,router_0");
  const test::gtkw_summary committed_ragasa = test::read_gtkw(src + "ragasa_unit.gtkw");
  BOOST_TEST(rows_of(committed_ragasa) == rows_of(ragasa.gtkw), boost::test_tools::per_element());
  BOOST_TEST(committed_ragasa.groups == ragasa.gtkw.groups, boost::test_tools::per_element());
  BOOST_TEST(committed_ragasa.dumpfile == "ragasa_unit.vcd");
}

// In-process: the writer alone.
BOOST_AUTO_TEST_CASE(save_file_is_written_whole_or_not_at_all) {
  const std::string dir = fresh_dir();
  tlm_net::trace_catalog c;
  c.blocks.push_back(
      {"router_1",
       "router, 2 ports",
       {{"port0.out.busy", "port0(local).out.busy", 1}, {"packets", "crossbar.packets", 64}}});
  tb::gtkwave_view v;
  v.vcd_file = "x.vcd";
  v.save_file = "x.gtkw";
  v.start_ps = 1000;
  v.end_ps = 9000;
  tb::write_file_atomically(dir + "/x.gtkw", tb::gtkwave_save_file(c, v), "trace.vcd");
  BOOST_TEST(std::distance(std::filesystem::directory_iterator(dir),
                           std::filesystem::directory_iterator()) == 1);  // no temporary left
  const test::gtkw_summary g = test::read_gtkw(dir + "/x.gtkw");
  BOOST_REQUIRE(g.rows.size() == 2u);
  BOOST_TEST(g.rows[0].shown == "router_1/port0(local)/out/busy");
  BOOST_TEST(g.rows[0].signal == "SystemC.router_1.port0.out.busy");
  BOOST_TEST(g.rows[1].shown == "router_1/crossbar/packets");
  BOOST_TEST(g.rows[1].signal == "SystemC.router_1.packets[63:0]");
  BOOST_TEST(g.groups == std::vector<std::string>{"router_1 (router, 2 ports)"},
             boost::test_tools::per_element());
  expect_zoom(g, 1000, 9000);
  // Into a folder that does not exist: an error naming the key, and no file at all.
  try {
    tb::write_file_atomically(dir + "/none/x.gtkw", "text", "trace.vcd");
    BOOST_FAIL("no error");
  } catch (const tb::config_error& e) {
    BOOST_TEST(contains(e.what(), "trace.vcd: cannot write"), e.what());
  }
  BOOST_TEST(!std::filesystem::exists(dir + "/none"));
}
