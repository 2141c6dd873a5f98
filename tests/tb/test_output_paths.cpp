// Every output path of every command, as a hostile user gives it (issue 39): a device, a
// FIFO, a socket, a directory where a file is wanted (or a file where a directory is), a
// missing folder. Each is refused before anything runs (exit 2, naming the flag) and left as
// it was; before, a write-then-rename replaced a device or FIFO with a regular file (exit 0).
// Also: SIGTERM and SIGHUP clean up as SIGINT does; --record-unit-inputs only where a unit
// records; numeric flags name what they allow.
// Device nodes, FIFOs and sockets are made inside each test's scratch folder, never aimed at
// the machine's own /dev.
#include <boost/test/unit_test.hpp>

#include "cli_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

using bcastsim::test::contains;
using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;
namespace fs = std::filesystem;

namespace {

// A special file made in a scratch folder, and how to tell it is still one.
struct node {
  std::string kind;  // "device", "fifo", "socket", "directory"
  std::string path;
  mode_t type;
};

bool is_type(const std::string& path, mode_t type) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && (st.st_mode & S_IFMT) == type;
}

// A character device like the machine's null device (1, 3): writing to it would be harmless,
// replacing it is what the test looks for. False where mknod is not permitted.
bool make_device(const std::string& path) {
  return mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
}

bool make_socket(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof(a.sun_path)) return false;
  std::strcpy(a.sun_path, path.c_str());
  const bool ok = bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof(a)) == 0;
  close(fd);  // the socket file stays
  return ok;
}

// A node of `kind` at `path` (as make_nodes makes them).
bool make_node(const std::string& kind, const std::string& path) {
  if (kind == "device") return make_device(path);
  if (kind == "fifo") return mkfifo(path.c_str(), 0644) == 0;
  if (kind == "socket") return make_socket(path);
  return fs::create_directory(path);
}

// The special files a test aims an output at, in `dir`, named NAME.<kind>; the device only
// where mknod is permitted (said in the log otherwise).
std::vector<node> make_nodes(const std::string& dir, const std::string& name) {
  std::vector<node> nodes;
  const std::string base = dir + "/" + name;
  if (make_node("device", base + ".device")) {
    nodes.push_back({"device", base + ".device", S_IFCHR});
  } else {
    BOOST_TEST_MESSAGE("no device case: mknod not permitted here (" << std::strerror(errno) << ")");
  }
  for (const auto& [kind, type] : {std::pair<const char*, mode_t>{"fifo", S_IFIFO},
                                   {"socket", S_IFSOCK},
                                   {"directory", S_IFDIR}}) {
    BOOST_REQUIRE(make_node(kind, base + "." + kind));
    nodes.push_back({kind, base + "." + kind, type});
  }
  return nodes;
}

// A time limit: before the fix some of these blocked on a FIFO for ever (exit 124 then).
outcome run_limited(const std::string& args) { return run_cli(args, 60); }

void expect_refused(const std::string& args, const std::string& flag, const node& n) {
  const outcome o = run_limited(args);
  BOOST_TEST(o.code == 2, n.kind << ": " << args << " -> " << o.code << ": " << o.output);
  BOOST_TEST(contains(o.output, flag), n.kind << ": " << o.output);
  BOOST_TEST(is_type(n.path, n.type), n.kind << " " << n.path << " was replaced");
}

// A small study of one point, for the sweep's --out.
std::string one_point_study(const std::string& dir) {
  const std::string path = dir + "/study.yaml";
  std::ofstream(path) << "name: one\ncross:\n  collective.bytes: [1024]\n";
  return path;
}

}  // namespace

// graph --file, cosim --json, run --record-unit-inputs and run --vcd: a file is wanted.
BOOST_AUTO_TEST_CASE(file_outputs_refuse_devices_fifos_sockets_and_directories) {
  const std::string dir = fresh_dir();
  const std::string out = " --out " + dir;
  for (const node& n : make_nodes(dir, "target")) {
    expect_refused("graph --file " + n.path, "--file", n);
    expect_refused("cosim -q --random-cycles 2000 --json " + n.path, "--json", n);
    expect_refused("cosim -q --block tofu2-cq --random-cycles 200 --json " + n.path, "--json", n);
    expect_refused(
        "run -q" + out + " --set collective.algorithm=ragasa --record-unit-inputs " + n.path,
        "--record-unit-inputs", n);
    expect_refused("run -q" + out + " --vcd " + n.path, "--vcd", n);
  }
  BOOST_TEST(!fs::exists(dir + "/result.json"));
}

// A file in a folder that does not exist, or under a path that is a file, is refused before
// anything runs.
BOOST_AUTO_TEST_CASE(file_outputs_in_a_missing_folder_exit_2) {
  const std::string dir = fresh_dir();
  std::ofstream(dir + "/plain") << "x";
  for (const std::string& p : {dir + "/missing/out.txt", dir + "/plain/out.txt"}) {
    const node none{"missing folder", dir, S_IFDIR};
    expect_refused("graph --file " + p, "--file", none);
    // Not -q: a co-simulation that ran would print its report before the write failed.
    const outcome o = run_limited("cosim --random-cycles 2000 --json " + p);
    BOOST_TEST(o.code == 2, o.output);
    BOOST_TEST(contains(o.output, "--json"), o.output);
    BOOST_TEST(!contains(o.output, "coverage"), "it ran first: " << o.output);
    expect_refused(
        "run -q --out " + dir + " --set collective.algorithm=ragasa --record-unit-inputs " + p,
        "--record-unit-inputs", none);
  }
  BOOST_TEST(!fs::exists(dir + "/result.json"));
}

// The --out folder a run makes may hold its other outputs: its VCD and recording (a fuzz
// finding: checking them before the folder was made refused what had always worked).
BOOST_AUTO_TEST_CASE(outputs_inside_the_out_folder_the_run_makes_are_accepted) {
  const std::string out = fresh_dir() + "/new/res";
  const outcome o = run_cli("run -q --out " + out + " --set collective.algorithm=ragasa --vcd " +
                            out + "/w.vcd --record-unit-inputs " + out + "/rec.jsonl");
  BOOST_TEST(o.code == 0, o.output);
  for (const char* f : {"/result.json", "/w.vcd", "/w.gtkw", "/rec.jsonl"})
    BOOST_TEST(fs::is_regular_file(out + f), f);
}

// --out DIR of run and analyze, and the result file in it; a regular file is no folder.
BOOST_AUTO_TEST_CASE(out_folders_and_their_result_files_are_checked) {
  const std::string dir = fresh_dir();
  std::ofstream(dir + "/plain") << "x";
  const node plain{"regular file", dir + "/plain", S_IFREG};
  expect_refused("run -q --out " + plain.path, "--out", plain);
  expect_refused("analyze -q --out " + plain.path, "--out", plain);
  expect_refused("run -q --out " + plain.path + "/sub", "--out", plain);
  for (const node& n : make_nodes(dir, "out")) {
    if (n.kind != "directory") {
      expect_refused("run -q --out " + n.path, "--out", n);
      expect_refused("analyze -q --out " + n.path, "--out", n);
    }
    for (const auto& [command, file] :
         {std::pair<std::string, std::string>{"run", "result.json"}, {"analyze", "analyze.json"}}) {
      const std::string folder = dir + "/" + command + "_" + n.kind;
      fs::create_directory(folder);
      const std::string target = folder + "/" + file;
      BOOST_REQUIRE(make_node(n.kind, target));
      expect_refused(command + " -q --out " + folder, "--out", {n.kind, target, n.type});
    }
  }
}

// cosim --vcd DIR: the folder, and every VCD the co-simulation writes in it.
BOOST_AUTO_TEST_CASE(cosim_vcd_folder_and_its_files_are_checked) {
  const std::string dir = fresh_dir();
  std::ofstream(dir + "/plain") << "x";
  expect_refused("cosim -q --random-cycles 2000 --vcd " + dir + "/plain", "--vcd",
                 {"regular file", dir + "/plain", S_IFREG});
  for (const node& n : make_nodes(dir, "vcd")) {
    if (n.kind != "directory") {
      expect_refused("cosim -q --random-cycles 2000 --vcd " + n.path, "--vcd", n);
    }
    const std::string folder = dir + "/vcd_in_" + n.kind;
    fs::create_directory(folder);
    const std::string target = folder + "/cosim_ref.vcd";
    BOOST_REQUIRE(make_node(n.kind, target));
    expect_refused("cosim -q --random-cycles 2000 --vcd " + folder, "--vcd",
                   {n.kind, target, n.type});
  }
}

// sweep --out DIR: the folder, and results.csv, study.json and points/ in it.
BOOST_AUTO_TEST_CASE(sweep_out_folder_and_its_files_are_checked) {
  const std::string dir = fresh_dir();
  const std::string study = one_point_study(dir);
  std::ofstream(dir + "/plain") << "x";
  expect_refused("sweep -q --no-plots -j 1 " + study + " --out " + dir + "/plain", "--out",
                 {"regular file", dir + "/plain", S_IFREG});
  for (const node& n : make_nodes(dir, "sweep")) {
    if (n.kind != "directory") {
      expect_refused("sweep -q --no-plots -j 1 " + study + " --out " + n.path, "--out", n);
    }
    const std::string folder = dir + "/sweep_" + n.kind;
    fs::create_directory(folder);
    const std::string target = folder + "/results.csv";
    BOOST_REQUIRE(make_node(n.kind, target));
    expect_refused("sweep -q --no-plots -j 1 " + study + " --out " + folder, "--out",
                   {n.kind, target, n.type});
    BOOST_TEST(!fs::exists(folder + "/points"), "the sweep started in " << folder);
  }
  // A plot the study draws into OUT/plots/ (matplotlib would block on a FIFO at the end).
  const std::string plotted = dir + "/plotted";
  std::ofstream(plotted + ".yaml") << "name: plotted\ncross:\n  collective.bytes: [1024]\n"
                                   << "plots: [{kind: lines, x: collective.bytes, "
                                   << "y: collective.completion_ns, file: a.png}]\n";
  fs::create_directories(plotted + "/plots");
  BOOST_REQUIRE(make_node("fifo", plotted + "/plots/a.png"));
  expect_refused("sweep -q -j 1 " + plotted + ".yaml --out " + plotted, "--out",
                 {"fifo", plotted + "/plots/a.png", S_IFIFO});
}

namespace {

// Starts bcastsim with `args`, its output into `log`; returns its pid.
pid_t spawn_bcastsim(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> all{BCASTSIM_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  BOOST_REQUIRE_EQUAL(rc, 0);
  return pid;
}

// Names in `dir` that hold `part`.
std::vector<std::string> names_with(const std::string& dir, const std::string& part) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(part) != std::string::npos) found.push_back(name);
  }
  return found;
}

// A run slow enough to be stopped (1 MiB through 512-byte buffers, traced), stopped by `sig`
// once its VCD is being written: it ends by the signal and leaves no part file.
void stop_a_traced_run(int sig) {
  const std::string dir = fresh_dir();
  const pid_t pid = spawn_bcastsim(
      {"run", "-q", "--out", dir, "--vcd", dir + "/w.vcd", "--set", "collective.bytes=1048576",
       "--set", "router.vc_buffer_bytes.terminal=512", "--set", "router.vc_buffer_bytes.local=512",
       "--set", "router.vc_buffer_bytes.global=512"},
      dir + "/log.txt");
  const auto start = std::chrono::steady_clock::now();
  while (names_with(dir, ".part").empty() &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(120)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  BOOST_REQUIRE_MESSAGE(!names_with(dir, ".part").empty(), "the run never began its VCD");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // well inside the simulation
  BOOST_REQUIRE_EQUAL(kill(pid, sig), 0);
  int status = 0;
  BOOST_REQUIRE_EQUAL(waitpid(pid, &status, 0), pid);
  BOOST_TEST((WIFSIGNALED(status) && WTERMSIG(status) == sig),
             "status " << status << " for signal " << sig);
  BOOST_TEST(names_with(dir, ".part").empty(), "a part file is left in " << dir);
  BOOST_TEST(names_with(dir, ".tmp.").empty(), "a temporary file is left in " << dir);
  BOOST_TEST(!fs::exists(dir + "/w.vcd"));
}

void expect_bad_input(const std::string& args, const std::vector<std::string>& texts) {
  const outcome o = run_limited(args);
  BOOST_TEST(o.code == 2, args << " -> " << o.code << ": " << o.output);
  for (const std::string& t : texts) BOOST_TEST(contains(o.output, t), args << ": " << o.output);
}

}  // namespace

// Issue 39, defect 7: SIGTERM and SIGHUP left w.part<pid>.vcd; all three now clean up and end
// the process by the signal (128 + its number in a shell).
BOOST_AUTO_TEST_CASE(sigint_stops_a_traced_run_leaving_no_part_file) {
  stop_a_traced_run(SIGINT);
}

BOOST_AUTO_TEST_CASE(sigterm_stops_a_traced_run_leaving_no_part_file) {
  stop_a_traced_run(SIGTERM);
}

BOOST_AUTO_TEST_CASE(sighup_stops_a_traced_run_leaving_no_part_file) {
  stop_a_traced_run(SIGHUP);
}

// --record-unit-inputs where no unit records (host algorithms, nic-cb's LANai NICs, sfata's
// Galaxyfly plan) and with an empty path: exit 2 naming it and the algorithms that record.
BOOST_AUTO_TEST_CASE(record_unit_inputs_only_where_a_unit_records) {
  const std::string dir = fresh_dir();
  const std::string rec = " --record-unit-inputs " + dir + "/u.jsonl";
  for (const std::string& sets :
       {std::string("--set collective.algorithm=binomial"),
        std::string("--set collective.algorithm=nic-cb"),
        std::string(
            "--set collective.algorithm=sfata --set job.ranks_per_node=1 --set job.ranks=0"),
        std::string("--set nic.kind=lanai")}) {
    expect_bad_input("run -q --out " + dir + " " + sets + rec,
                     {"--record-unit-inputs", "allowed: collective.algorithm = ragasa"});
    BOOST_TEST(!fs::exists(dir + "/u.jsonl"), sets);
    BOOST_TEST(!fs::exists(dir + "/result.json"), sets);
  }
  expect_bad_input(
      "run -q --out " + dir + " --set collective.algorithm=ragasa " + "--record-unit-inputs ''",
      {"--record-unit-inputs", "empty"});
  const outcome ok =
      run_limited("run -q --out " + dir + " --set collective.algorithm=ragasa" + rec);
  BOOST_TEST(ok.code == 0, ok.output);
  BOOST_TEST(fs::file_size(dir + "/u.jsonl") > 0u);
}

// Issue 39, defect 6: -j -1 wrapped to 2^64 - 1 and started every point at once.
BOOST_AUTO_TEST_CASE(sweep_jobs_out_of_range_exit_2) {
  const std::string dir = fresh_dir();
  const std::string study = one_point_study(dir);
  for (const char* j : {"-1", "-5", "0", "4294967297", "1025", "x", "2.5"}) {
    expect_bad_input("sweep " + study + " --list -j " + j + " --out " + dir + "/out",
                     {"--jobs", "allowed: an integer from 1 to 1024"});
  }
  const outcome ok = run_limited("sweep " + study + " --list -j 1024 --out " + dir + "/out");
  BOOST_TEST(ok.code == 0, ok.output);
}

// CLI11's conversion errors named no allowed values.
BOOST_AUTO_TEST_CASE(numeric_flags_name_their_allowed_values) {
  expect_bad_input("cosim --seed abc", {"--seed", "allowed: an integer from 0 to"});
  expect_bad_input("cosim --seed -1", {"--seed", "allowed: an integer from 0 to"});
  expect_bad_input("cosim --random-cycles x", {"--random-cycles", "allowed: an integer from 1 to"});
  expect_bad_input("cosim --random-cycles 0", {"--random-cycles", "allowed: an integer from 1 to"});
  expect_bad_input("cosim --tolerance-cycles -1",
                   {"--tolerance-cycles", "allowed: an integer from 0 to 4294967295"});
  expect_bad_input("cosim --tolerance-cycles 4294967296",
                   {"--tolerance-cycles", "allowed: an integer from 0 to 4294967295"});
}
