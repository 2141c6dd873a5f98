// What `cosim --replay` reads (tb/cosim/replay.cpp, cq_replay.cpp), for both blocks: only a
// regular file of bounded size (a device, a FIFO or a directory is refused, exit 2, never read
// or waited on); every bad line is refused naming the file, the line, the field, what it holds
// and what is allowed; cosim runs under the address-space cap `run` takes; --seeds takes every
// seed up to 2^64 - 1. Issue 39, defects 4 and 8 and the --seeds range.
//
// Device nodes and FIFOs are made inside the test's own scratch folder, never /dev's.
#include "cli_runner.h"
#include "hw/ragasa/bcast_unit_base.h"
#include "hw/tofu2/command_queue_rtl.h"
#include "tb/cosim/command.h"
#include "tb/cosim/cq_replay.h"
#include "tb/cosim/stimulus.h"
#include "unit_replay_lines.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace bcastsim;
using namespace bcastsim::tb::cosim;
using test::contains;
using test::fresh_dir;
using test::outcome;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

// `command` run by the shell, with its exit code and output (stdout and stderr).
outcome run_shell(const std::string& command) {
  outcome o;
  FILE* f = popen((command + " 2>&1").c_str(), "r");
  BOOST_REQUIRE(f != nullptr);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) o.output.append(buf, n);
  const int status = pclose(f);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

// The CLI killed after `seconds` (so code that reads /dev/zero or waits on a FIFO for ever
// fails rather than hangs), under a 2 GiB address space where AddressSanitizer allows it
// (the unfixed /dev/zero read grew by 370 MB a second).
outcome run_cli_bounded(const std::string& args, int seconds = 20) {
  std::string prefix = sanitized ? "" : "ulimit -v 2097152; ";
  return run_shell(prefix + "exec timeout -s KILL " + std::to_string(seconds) + " " +
                   BCASTSIM_BINARY + " " + args);
}

const char* const k_blocks[] = {"bcast-unit", "tofu2-cq"};

// The bound on a replay file the README states (max_replay_file_bytes).
constexpr uint64_t k_max_replay_bytes = uint64_t{1} << 30;

}  // namespace

// Defect 4: a character device (/dev/zero's numbers), a FIFO and a directory given to
// --replay are refused before they are read, exit 2 naming --replay; /dev/zero grew without
// bound, the FIFO blocked for ever and the directory read as "no unit received packets".
BOOST_AUTO_TEST_CASE(replay_refuses_a_device_a_fifo_and_a_directory) {
  const std::string dir = fresh_dir();
  std::vector<std::pair<std::string, std::string>> inputs;  // path, what the message says
  if (mknod((dir + "/zero").c_str(), S_IFCHR | 0666, makedev(1, 5)) == 0) {
    inputs.emplace_back(dir + "/zero", "not a regular file");
  } else {
    BOOST_TEST_MESSAGE("mknod not permitted here (" << std::strerror(errno)
                                                    << "): the device case is left out");
  }
  BOOST_TEST_REQUIRE(mkfifo((dir + "/fifo").c_str(), 0666) == 0, std::strerror(errno));
  inputs.emplace_back(dir + "/fifo", "not a regular file");
  std::filesystem::create_directory(dir + "/folder");
  inputs.emplace_back(dir + "/folder", "it is a directory");
  for (const char* block : k_blocks) {
    for (const auto& [path, why] : inputs) {
      const outcome o =
          run_cli_bounded(std::string("cosim --block ") + block + " --replay " + path);
      BOOST_TEST(o.code == 2, block << " " << path << " -> " << o.code << ": " << o.output);
      BOOST_TEST(contains(o.output, "bcastsim: error: --replay cannot read replay file '" + path +
                                        "': " + why),
                 block << ": " << o.output);
      BOOST_TEST(contains(o.output, "allowed: a regular file"), o.output);
    }
  }
}

// Defect 4: the bound, stated: a (sparse) file one byte larger than 1 GiB is
// refused from its size, before anything is read.
BOOST_AUTO_TEST_CASE(replay_refuses_a_file_over_the_bound) {
  const std::string file = fresh_dir() + "/huge.jsonl";
  std::ofstream(file).put('\n');
  std::filesystem::resize_file(file, k_max_replay_bytes + 1);
  for (const char* block : k_blocks) {
    const outcome o = run_cli_bounded(std::string("cosim --block ") + block + " --replay " + file);
    BOOST_TEST(o.code == 2, block << ": " << o.output);
    BOOST_TEST(contains(o.output, "--replay cannot read replay file '" + file +
                                      "': larger than 1024 MiB; allowed: at most 1073741824 bytes"),
               block << ": " << o.output);
  }
}

namespace {

// cosim takes the cap `run` takes at sim.max_memory_gib = 0: RLIMIT_AS at what is mapped plus
// 3/4 of the machine's memory (the process starts without a limit here).
void check_cosim_caps_its_address_space(const char* block) {
  rlimit before{};
  BOOST_TEST_REQUIRE(getrlimit(RLIMIT_AS, &before) == 0);
  if (sanitized || before.rlim_cur != RLIM_INFINITY) {
    BOOST_TEST_MESSAGE("AddressSanitizer build, or a limit inherited: the cap is not checked");
    return;
  }
  const double budget = 0.75 * static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                        static_cast<double>(sysconf(_SC_PAGESIZE));
  command_options o;
  o.block = block;
  o.random_cycles = 300;
  o.quiet = true;
  std::ostringstream out, err;
  BOOST_TEST(run_command(o, out, err) == 0, out.str() << err.str());
  rlimit as{};
  BOOST_TEST_REQUIRE(getrlimit(RLIMIT_AS, &as) == 0);
  BOOST_TEST_REQUIRE(as.rlim_cur != RLIM_INFINITY, "cosim runs without an address-space cap");
  double mapped_pages = 0;
  std::ifstream("/proc/self/statm") >> mapped_pages;
  const double headroom =
      static_cast<double>(as.rlim_cur) - mapped_pages * static_cast<double>(sysconf(_SC_PAGESIZE));
  BOOST_TEST(headroom <= budget, headroom);
  BOOST_TEST(headroom > budget - 512.0 * 1048576.0, headroom);  // what the run mapped since
}

}  // namespace

BOOST_AUTO_TEST_CASE(cosim_bcast_unit_runs_under_the_memory_cap) {
  check_cosim_caps_its_address_space("bcast-unit");
}

BOOST_AUTO_TEST_CASE(cosim_tofu2_cq_runs_under_the_memory_cap) {
  check_cosim_caps_its_address_space("tofu2-cq");
}

// A stimulus larger than the cap ends in a message naming what to make smaller, exit 1 (the
// message was run's: "make the topology, job or collective smaller"). Under ulimit -v 800000
// the cap is 3/4 of that; 10^8 random cycles take 2.4 GB.
BOOST_AUTO_TEST_CASE(cosim_out_of_memory_is_a_message_and_exit_1) {
  if (sanitized) {
    BOOST_TEST_MESSAGE("AddressSanitizer build: no address-space limit can be set; left out");
    return;
  }
  const outcome o = run_shell("ulimit -v 800000; exec timeout -s KILL 60 " +
                              std::string(BCASTSIM_BINARY) + " cosim --random-cycles 100000000 -q");
  BOOST_TEST(o.code == 1, o.output);
  BOOST_TEST(contains(o.output,
                      "bcastsim: out of memory: the co-simulation needs more than this "
                      "process may use (3/4 of the machine, or a ulimit); fewer "
                      "--random-cycles or a shorter --replay recording"),
             o.output);
}

// --seeds takes the seeds its message allows, up to 2^64 - 1 (a 20-digit seed was refused),
// without wrapping after the last; 2^64, A > B and more than max_seeds seeds are refused.
BOOST_AUTO_TEST_CASE(seed_ranges_reach_the_largest_seed) {
  uint64_t first = 0, last = 0;
  BOOST_TEST(parse_seed_range("18446744073709551615-18446744073709551615", first, last));
  BOOST_TEST(first == 18446744073709551615u);
  BOOST_TEST(last == 18446744073709551615u);
  BOOST_TEST(parse_seed_range("18446744073709551615", first, last));
  BOOST_TEST(parse_seed_range("18446744073709541616-18446744073709551615", first, last));
  BOOST_TEST(parse_seed_range("0-9999", first, last));
  for (const char* bad :
       {"18446744073709551616", "18446744073709551615-18446744073709551616", "99999999999999999999",
        "18446744073709551615-18446744073709551614", "18446744073709541615-18446744073709551615",
        "5-2", "0-10000", "", "-", "1-", "-1", "1-2-3", "+1", " 1", "1 ", "0x10", "1e3"}) {
    BOOST_TEST(!parse_seed_range(bad, first, last), "'" << bad << "'");
  }
  for (const char* block : k_blocks) {
    const std::string args = std::string("cosim --block ") + block + " --random-cycles 500";
    const outcome o = run_cli_bounded(args + " --seeds 18446744073709551614-18446744073709551615");
    BOOST_TEST(o.code == 0, block << ": " << o.output);
    BOOST_TEST(contains(o.output, "seed 18446744073709551615"), block << ": " << o.output);
    BOOST_TEST(!contains(o.output, "seed 0"), block << ": " << o.output);
    for (const char* bad : {"18446744073709551616", "18446744073709551615-18446744073709551614"}) {
      const outcome b = run_cli_bounded(args + " --seeds " + bad);
      BOOST_TEST(b.code == 2, block << " " << bad << ": " << b.output);
      BOOST_TEST(contains(b.output, "--seeds '" + std::string(bad) + "' is not a seed range"),
                 b.output);
    }
  }
}

namespace {

// A valid Tofu2 queue recording: one queue, an enqueue then an SPS and a retire.
std::vector<nlohmann::json> queue_lines() {
  cq_stimulus s;
  s.name = "nic_4.cq0";
  s.entries = 16;
  hw::tofu2::cq_cycle put;
  put.enqueue = true;
  put.descriptor.remote_terminal = 3;
  hw::tofu2::cq_cycle sps;
  sps.sps_valid = true;
  sps.sps = 1;
  sps.retire = true;
  s.cycles = {put, sps};
  std::ostringstream text;
  write_cq_stimulus(text, s);
  return {nlohmann::json::parse(text.str())};
}

// One bad line: `edit` changes the valid lines (or `raw` replaces line `line`); the message
// must name `texts` (the field, what it holds, what is allowed).
struct bad_line {
  bad_line(size_t l, std::function<void(nlohmann::json&)> e, std::vector<std::string> t,
           std::string r = "")
      : line(l), edit(std::move(e)), texts(std::move(t)), raw(std::move(r)) {}
  size_t line;  // 0-based
  std::function<void(nlohmann::json&)> edit;
  std::vector<std::string> texts;
  std::string raw;  // not empty: the line's whole text
};

std::string write_lines(const std::string& file, std::vector<nlohmann::json> lines,
                        const bad_line& c) {
  if (c.edit) c.edit(lines[c.line]);
  std::ofstream out(file);
  for (size_t i = 0; i < lines.size(); ++i)
    out << (i == c.line && !c.raw.empty() ? c.raw : lines[i].dump()) << "\n";
  return file;
}

using json = nlohmann::json;

void set(json& j, const std::string& path, const json& v) {
  json* at = &j;
  size_t from = 0;
  for (size_t dot; (dot = path.find('.', from)) != std::string::npos; from = dot + 1)
    at = &(*at)[path.substr(from, dot - from)];
  (*at)[path.substr(from)] = v;
}

std::function<void(json&)> setter(const std::string& path, const json& v) {
  return [=](json& j) { set(j, path, v); };
}

std::function<void(json&)> eraser(const std::string& path) {
  return [=](json& j) {
    const size_t dot = path.rfind('.');
    json& parent = dot == std::string::npos ? j : j[path.substr(0, dot)];
    parent.erase(path.substr(dot + 1));
  };
}

// Every case: load throws `Error` whose message names the file and line, the texts, and
// "allowed: ".
template <class Error, class Load>
void check_table(const std::vector<json>& good, const std::vector<bad_line>& cases,
                 const std::function<std::string(const std::string&, size_t)>& where, Load load) {
  const std::string dir = fresh_dir();
  for (size_t k = 0; k < cases.size(); ++k) {
    const bad_line& c = cases[k];
    const std::string file = write_lines(dir + "/bad" + std::to_string(k) + ".jsonl", good, c);
    std::string message;
    try {
      load(file);
    } catch (const Error& e) {
      message = e.what();
    } catch (const std::exception& e) {
      message = std::string("an exception of another type: ") + e.what();
    }
    const std::string label = "case " + std::to_string(k) + " (" + c.texts.front() + ")";
    BOOST_TEST(contains(message, where(file, c.line + 1)), label << ": " << message);
    for (const std::string& t : c.texts) BOOST_TEST(contains(message, t), label << ": " << message);
    BOOST_TEST(contains(message, "allowed: "), label << ": " << message);
    BOOST_TEST(!contains(message, "json.exception"), label << ": " << message);
  }
}

}  // namespace

// Defect 8: every bad line of a Bcast Unit recording names the file, the line, the field,
// what it holds and what is allowed (157 of 235 bad files gave nlohmann's text alone).
BOOST_AUTO_TEST_CASE(every_bad_unit_replay_line_names_its_field) {
  const std::vector<bad_line> cases = {
      {0, setter("type", 5), {"type = 5 is an integer; allowed: unit, membership, packet"}},
      {0, eraser("type"), {"type is missing; allowed: unit, membership, packet"}},
      {0, setter("type", "bulk"), {"type = \"bulk\" is not allowed; allowed: unit, membership"}},
      {0, setter("type", "tofu2_queue"), {"type = \"tofu2_queue\"", "--block tofu2-cq"}},
      {0, setter("unit", 3), {"unit = 3 is an integer; allowed: a non-empty string"}},
      {0, setter("unit", ""), {"unit = \"\" is empty; allowed: a non-empty string"}},
      {0, setter("params", "x"), {"params = \"x\" is a string; allowed: an object"}},
      {0, eraser("params"), {"params is missing; allowed: an object"}},
      {0,
       setter("params.clock_mhz", "fast"),
       {"params.clock_mhz = \"fast\" is a string", "allowed: numbers 0.001 to"}},
      {0, eraser("params.rx_queues"), {"params.rx_queues is missing; allowed: integers 1 to 1024"}},
      {0, setter("params.vcs", 1.5), {"params.vcs = 1.5 is not an integer; allowed: integers 1"}},
      {0, setter("params.seed", -1), {"params.seed = -1 is out of range; allowed: integers 0 to"}},
      {0, setter("params.send_cycles", json::array()), {"params.send_cycles = [] is an array"}},
      {0,
       setter("terminal", 4294967295u),
       {"terminal = 4294967295 is out of range", "allowed: integers 0 to 4294967294"}},
      {0, setter("port", json::array()), {"port = [] is an array; allowed: an object"}},
      {0,
       setter("port.bandwidth_gib_per_s", nullptr),
       {"port.bandwidth_gib_per_s = null is null", "allowed: numbers"}},
      {0, eraser("port.latency_ns"), {"port.latency_ns is missing; allowed: numbers 0 to"}},
      {0, setter("credit_delay_ps", true), {"credit_delay_ps = true is a boolean; allowed: "}},
      {1, setter("collective_id", "7"), {"collective_id = \"7\" is a string; allowed: integers"}},
      {1, setter("children", json::object()), {"children = {} is an object; allowed: an array"}},
      {1, eraser("children"), {"children is missing; allowed: an array of [dst, unit_router]"}},
      {1, setter("children", {{1}}), {"children[0] = [1] is not a pair"}},
      {1, setter("children", {{1, 2}, {1, "a"}}), {"children[1] = [1,\"a\"] is not a pair of"}},
      {1, setter("packets", -2), {"packets = -2 is out of range"}},
      {1, setter("unit", "unit_9"), {"unit = \"unit_9\" is a unit without a \"unit\" line"}},
      {2, setter("kind", 1), {"kind = 1 is an integer; allowed: data, control"}},
      {2, setter("t_ps", "0"), {"t_ps = \"0\" is a string; allowed: integers 0 to"}},
      {3, eraser("msg_id"), {"msg_id is missing; allowed: integers 0 to 18446744073709551615"}},
      {3,
       setter("src", 4294967296u),
       {"src = 4294967296 is out of range", "allowed: integers 0 to 4294967295"}},
      {3, setter("buf_offset", "0x10"), {"buf_offset = \"0x10\" is a string"}},
      {0, {}, {"the line is not JSON (", "allowed: a JSON object"}, "{not json"},
      {1, {}, {"the line = [1,2] is an array; allowed: a JSON object"}, "[1,2]"},
      {2, {}, {"the line = 42 is an integer; allowed: a JSON object"}, "42"},
      {3, {}, {"the line = \"text\" is a string"}, "\"text\""},
      // Nested 10^6 deep: the message shows its start (dump() overflowed the stack).
      {3,
       {},
       {"the line = [[[[", "...", "is an array"},
       std::string(1000000, '[') + std::string(1000000, ']')},
      {0,
       {},
       {"params = [[[[", "is an array; allowed: an object"},
       R"({"type":"unit","unit":"unit_1","params":)" + std::string(100000, '[') +
           std::string(100000, ']') + "}"},
  };
  check_table<replay_error>(
      test::unit_replay_lines(), cases,
      [](const std::string& file, size_t line) { return file + ":" + std::to_string(line) + ": "; },
      [](const std::string& file) { load_replay(file); });
  // The valid lines themselves load; a packet earlier than the one before it names t_ps.
  const std::string dir = fresh_dir();
  std::vector<json> early = test::unit_replay_lines();
  early[2]["t_ps"] = 1000;
  early[3]["t_ps"] = 500;
  try {
    load_replay(write_lines(dir + "/early.jsonl", early, {0, {}, {""}}));
    BOOST_TEST(false, "a packet earlier than the one before it was read");
  } catch (const replay_error& e) {
    BOOST_TEST(contains(e.what(),
                        "early.jsonl:4: t_ps = 500 is earlier than the packet before "
                        "it at unit_1; allowed: at least 1000"),
               e.what());
  }
  BOOST_TEST(load_replay(write_lines(dir + "/good.jsonl", test::unit_replay_lines(), {0, {}, {""}}))
                 .size() == 1u);
  // Through the CLI a bad line exits 2.
  const std::string bad = write_lines(dir + "/bad.jsonl", test::unit_replay_lines(), cases[8]);
  const outcome o = run_cli_bounded("cosim --replay " + bad);
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "--replay " + bad + ":1: params.clock_mhz = \"fast\""), o.output);
}

// Defect 8, the Tofu2 command queue's recordings: the same for every field of a queue line,
// its cycles and their descriptors.
BOOST_AUTO_TEST_CASE(every_bad_queue_replay_line_names_its_field) {
  auto cycle = [](size_t i, const std::string& key, const json& v) {
    return [=](json& j) {
      if (key.empty()) {
        j["cycles"][i] = v;
      } else {
        set(j["cycles"][i], key, v);
      }
    };
  };
  auto drop = [](size_t i, const std::string& key) {
    return [=](json& j) { j["cycles"][i]["enqueue"].erase(key); };
  };
  const std::vector<bad_line> cases = {
      {0,
       setter("type", "unit"),
       {"type = \"unit\" is a Bcast Unit recording's", "--block bcast-unit",
        "allowed: tofu2_queue"}},
      {0, setter("type", 7), {"type = 7 is an integer; allowed: tofu2_queue"}},
      {0, eraser("type"), {"type is missing"}},
      {0, setter("queue", 5), {"queue = 5 is an integer; allowed: a non-empty string"}},
      {0, setter("queue", ""), {"queue = \"\" is empty"}},
      {0, setter("queue", std::string(300, 'q')), {"queue = \"qqq", "...", "is too long"}},
      {0, setter("mode", "fast"), {"mode = \"fast\" is not allowed; allowed: normal, session"}},
      {0, eraser("mode"), {"mode is missing; allowed: normal, session"}},
      {0, setter("entries", 0), {"entries = 0 is out of range; allowed: integers 1 to 2097152"}},
      {0, setter("entries", "16"), {"entries = \"16\" is a string; allowed: integers 1 to"}},
      {0, setter("entries", 1e30), {"entries = 1e+30 is not an integer"}},
      {0, setter("cycles", json::object()), {"cycles = {} is an object; allowed: an array"}},
      {0, cycle(1, "", 5), {"cycles[1] = 5 is not an object"}},
      {0, cycle(1, "sps", 16), {"cycles[1].sps = 16 is out of range; allowed: integers 0 to 15"}},
      {0, cycle(1, "retire", 1), {"cycles[1].retire = 1 is an integer; allowed: true, false"}},
      {0,
       cycle(0, "enqueue", json::array()),
       {"cycles[0].enqueue = [] is an array", "allowed: a descriptor"}},
      {0,
       cycle(0, "enqueue.command", 2),
       {"cycles[0].enqueue.command = 2 is out of range", "allowed: integers 0 to 1"}},
      {0, cycle(0, "enqueue.remote_rank", -1), {"cycles[0].enqueue.remote_rank = -1 is out of"}},
      {0, cycle(0, "enqueue.length", "big"), {"cycles[0].enqueue.length = \"big\" is a string"}},
      {0, cycle(0, "enqueue.sps", 99), {"cycles[0].enqueue.sps = 99 is out of range"}},
      {0,
       cycle(0, "enqueue.notify_local", "yes"),
       {"cycles[0].enqueue.notify_local = \"yes\"", "allowed: true, false"}},
      {0, drop(0, "edata"), {"cycles[0].enqueue.edata is missing; allowed: integers 0 to"}},
      {0, {}, {"the line is not JSON (", "allowed: a JSON object"}, "{\"type\":"},
      {0, {}, {"the line = [] is an array; allowed: a JSON object"}, "[]"},
  };
  check_table<cq_replay_error>(
      queue_lines(), cases,
      [](const std::string& file, size_t line) {
        return "'" + file + "' line " + std::to_string(line) + ": ";
      },
      [](const std::string& file) { load_cq_replay(file); });
  const std::string dir = fresh_dir();
  BOOST_TEST(
      load_cq_replay(write_lines(dir + "/good.jsonl", queue_lines(), {0, {}, {""}})).size() == 1u);
  const std::string bad = write_lines(dir + "/bad.jsonl", queue_lines(), cases[6]);
  const outcome o = run_cli_bounded("cosim --block tofu2-cq --replay " + bad);
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "--replay '" + bad + "' line 1: mode = \"fast\""), o.output);
  // A size the SystemC twin holds but the RTL does not: named with its line, not as the RTL
  // model's own exception ("the RTL command queue holds a power of two ...", no line).
  if (!hw::tofu2::cq_model_available(hw::tofu2::cq_model::rtl)) {
    BOOST_TEST_MESSAGE("no Verilator in this build: the RTL queue's sizes are left out");
    return;
  }
  const std::string big =
      write_lines(dir + "/big.jsonl", queue_lines(), {0, setter("entries", 4096), {""}});
  const outcome r = run_cli_bounded("cosim --block tofu2-cq --dut rtl --replay " + big);
  BOOST_TEST(r.code == 2, r.output);
  BOOST_TEST(contains(r.output, "--replay '" + big +
                                    "' line 1: entries = 4096 (queue nic_4.cq0) "
                                    "is not a size the RTL command queue holds; allowed with --dut "
                                    "rtl: a power of two up to 2048"),
             r.output);
  BOOST_TEST(run_cli_bounded("cosim --block tofu2-cq --replay " + big).code == 0);
}
