#include "tb/sweep/runner.h"

#include "network/hash.h"
#include "tb/atomic_file.h"
#include "tb/config.h"
#include "tb/format.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

extern char** environ;

namespace bcastsim::tb::sweep {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& path, const std::string& text) {
  write_file_atomically(path, text, "--out");
}

namespace {

// The child's own diagnosis: its last "bcastsim: ..." line, else its last line.
std::string error_from_log(const fs::path& log, int exit_code) {
  std::istringstream in(read_text(log));
  std::string line, last, last_own;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = line;
    if (line.rfind("bcastsim:", 0) == 0) last_own = line;
  }
  std::string e = !last_own.empty() ? last_own : last;
  if (e.empty()) e = "exit code " + std::to_string(exit_code) + " without a message";
  if (e.size() > 500) e = e.substr(0, 497) + "...";
  return e;
}

nlohmann::json pairs(const std::vector<std::pair<std::string, std::string>>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& [k, x] : v) a.push_back({k, x});
  return a;
}

}  // namespace

nlohmann::json point_outcome::to_json() const {
  return {{"index", index},
          {"status", ok ? "ok" : "failed"},
          {"exit_code", exit_code},
          {"error", error},
          {"wall_s", wall_s},
          {"host", host},
          {"rank", rank}};
}

point_outcome point_outcome::from_json(const nlohmann::json& j) {
  point_outcome o;
  o.index = j.at("index").get<size_t>();
  o.ok = j.at("status") == "ok";
  o.exit_code = j.at("exit_code").get<int>();
  o.error = j.at("error").get<std::string>();
  o.wall_s = j.at("wall_s").get<double>();
  o.host = j.value("host", "");
  o.rank = j.value("rank", 0);
  return o;
}

point_store::point_store(const study& s, const std::vector<point>& points, std::string out_dir)
    : m_study(s), m_inputs(s, points) {
  std::error_code ec;
  fs::create_directories(fs::path(out_dir) / "points", ec);
  if (ec) {
    throw config_error("--out",
                       "cannot create output directory '" + out_dir + "': " + ec.message());
  }
  m_out = fs::absolute(out_dir).lexically_normal().string();
  if (!s.scenario.empty()) m_scenario_hash = network::fnv1a(read_text(s.scenario));
}

std::string point_store::dir_of(const point& p) const {
  return (fs::path(m_out) / p.dir).string();
}

const char* point_store::result_file() const {
  return m_study.command == "run" ? "result.json" : "analyze.json";
}

std::string point_store::scenario_hash() const {
  if (m_study.scenario.empty()) return {};
  return hex64(m_scenario_hash);
}

nlohmann::json point_store::identity(const point& p) const {
  nlohmann::json id = {{"index", p.index},
                       {"command", m_study.command},
                       // The base scenario by content: a moved checkout resumes, an edited
                       // file re-runs.
                       {"scenario_fnv1a", scenario_hash()},
                       {"set", pairs(m_study.fixed)},
                       {"values", pairs(p.values)},
                       {"replicate", p.replicate},
                       {"seed", p.seed}};
  // The files it reads the same way; absent when it reads none, as in older point.json files.
  if (nlohmann::json files = input_hashes(p); !files.empty()) id["inputs_fnv1a"] = files;
  return id;
}

std::vector<std::string> point_store::argv(const point& p, const std::string& exe) const {
  std::vector<std::string> a{exe, m_study.command};
  if (!m_study.scenario.empty()) a.push_back(m_study.scenario);
  // A file the study names is relative to the study's folder: the child gets it resolved.
  for (const auto& [k, v] : m_study.fixed) {
    a.insert(a.end(), {"--set", k + "=" + m_inputs.argument(k, v)});
  }
  for (const auto& [k, v] : p.values) {
    if (k != "seed") a.insert(a.end(), {"--set", k + "=" + m_inputs.argument(k, v)});
  }
  a.insert(a.end(), {"--seed", std::to_string(p.seed), "--out", dir_of(p), "-q"});
  return a;
}

bool point_store::valid_result(const std::string& text) const {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object()) return false;
  const bool run = m_study.command == "run";
  for (const char* key : {"config", "collective", "traversals", run ? "packets" : "hops_avg",
                          run ? "sim_time_ns" : "topology"}) {
    if (!doc.contains(key)) return false;
  }
  return true;
}

bool point_store::finished(const point& p, bool retry_failed) const {
  const fs::path d = dir_of(p);
  const std::string status = read_text(d / "status.json");
  if (status.empty()) return false;
  try {
    if (nlohmann::json::parse(read_text(d / "point.json")) != identity(p)) return false;
    const point_outcome o = point_outcome::from_json(nlohmann::json::parse(status));
    if (!o.ok) return !retry_failed;
    return valid_result(read_text(d / result_file()));  // truncated or edited: run it again
  } catch (const nlohmann::json::exception&) {
    return false;  // unreadable: run it again
  }
}

bool point_store::started(const point& p) const {
  std::error_code ec;
  return fs::exists(fs::path(dir_of(p)) / "point.json", ec);
}

size_t point_store::adopt_moved(const std::vector<point>& points) const {
  // Finished runs by what they are, the index left out.
  auto key = [](nlohmann::json id) {
    id.erase("index");
    return id.dump();
  };
  std::map<std::string, fs::path> runs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(m_out) / "points", ec)) {
    const std::string status = read_text(e.path() / "status.json");
    if (status.empty()) continue;
    const auto id = nlohmann::json::parse(read_text(e.path() / "point.json"), nullptr, false);
    const auto st = nlohmann::json::parse(status, nullptr, false);
    if (!id.is_object() || !st.is_object()) continue;
    if (st.value("status", "") == "ok" && !valid_result(read_text(e.path() / result_file())))
      continue;
    runs.emplace(key(id), e.path());
  }
  // Read every moved run before writing any: a destination may be another's source.
  struct move {
    const point* p;
    std::string status, result, log;
  };
  std::vector<move> moves;
  for (const point& p : points) {
    if (finished(p, false)) continue;  // its own directory holds it already
    const auto it = runs.find(key(identity(p)));
    if (it == runs.end() || it->second == fs::path(dir_of(p))) continue;
    moves.push_back({&p, read_text(it->second / "status.json"),
                     read_text(it->second / result_file()), read_text(it->second / "log.txt")});
  }
  for (const move& m : moves) {
    const fs::path d = dir_of(*m.p);
    fs::create_directories(d, ec);
    for (const char* f : {"status.json", "result.json", "analyze.json", "log.txt"})
      fs::remove(d / f, ec);
    if (!m.result.empty()) write_text(d / result_file(), m.result);
    write_text(d / "log.txt", m.log);
    write_text(d / "point.json", identity(*m.p).dump(2) + "\n");
    auto st = nlohmann::json::parse(m.status);
    st["index"] = m.p->index;
    write_text(d / "status.json", st.dump(2) + "\n");
  }
  return moves.size();
}

void point_store::prepare(const point& p) const {
  const fs::path d = dir_of(p);
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) throw config_error("--out", "cannot create " + d.string() + ": " + ec.message());
  for (const char* f : {"status.json", "result.json", "analyze.json", "log.txt"})
    fs::remove(d / f, ec);
  nlohmann::json j = identity(p);
  write_text(d / "point.json", j.dump(2) + "\n");
}

void point_store::record(const point& p, const point_outcome& o) const {
  const fs::path d = dir_of(p);
  std::error_code ec;
  fs::create_directories(d, ec);  // absent here when another node ran the point
  if (o.ok && read_text(d / result_file()) != o.result) write_text(d / result_file(), o.result);
  write_text(d / "point.json", identity(p).dump(2) + "\n");  // another rank may have run it
  write_text(d / "status.json", o.to_json().dump(2) + "\n");
}

point_outcome point_store::load(const point& p) const {
  const fs::path d = dir_of(p);
  point_outcome o = point_outcome::from_json(nlohmann::json::parse(read_text(d / "status.json")));
  if (o.ok) o.result = read_text(d / result_file());
  return o;
}

launcher::launcher(const point_store& store, std::string exe, size_t slots, int rank)
    : m_store(store), m_exe(std::move(exe)), m_slots(slots == 0 ? 1 : slots), m_rank(rank) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  m_host = host;
}

launcher::~launcher() {
  terminate_all();
}

void launcher::start(const point& p) {
  m_store.prepare(p);
  const std::vector<std::string> args = m_store.argv(p, m_exe);
  std::vector<char*> cargs;
  for (const std::string& a : args) cargs.push_back(const_cast<char*>(a.c_str()));
  cargs.push_back(nullptr);
  const std::string log = (fs::path(m_store.dir_of(p)) / "log.txt").string();

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, m_exe.c_str(), &actions, nullptr, cargs.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    point_outcome o;
    o.index = p.index;
    o.exit_code = 127;
    o.host = m_host;
    o.rank = m_rank;
    o.error = "cannot start " + m_exe + ": " + std::strerror(rc);
    m_not_started.push_back(o);
    return;
  }
  m_children.push_back({pid, &p, std::chrono::steady_clock::now()});
}

point_outcome launcher::outcome_of(const child& c, int status) const {
  point_outcome o;
  o.index = c.p->index;
  o.host = m_host;
  o.rank = m_rank;
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
  const fs::path d = m_store.dir_of(*c.p);
  if (WIFEXITED(status)) {
    o.exit_code = WEXITSTATUS(status);
  } else {
    o.exit_code = 128 + WTERMSIG(status);
  }
  if (o.exit_code == 0) o.result = read_text(d / m_store.result_file());
  o.ok = o.exit_code == 0 && m_store.valid_result(o.result);
  if (o.ok) return o;
  if (WIFSIGNALED(status)) {
    o.error = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
              strsignal(WTERMSIG(status)) + ")";
  } else if (o.exit_code == 0) {
    o.exit_code = 1;
    o.error = std::string("exited 0 without writing a valid ") + m_store.result_file();
    o.result.clear();
  } else {
    o.error = error_from_log(d / "log.txt", o.exit_code);
  }
  return o;
}

std::vector<point_outcome> launcher::reap() {
  std::vector<point_outcome> done = std::move(m_not_started);
  m_not_started.clear();
  for (size_t i = 0; i < m_children.size();) {
    int status = 0;
    const pid_t r = waitpid(m_children[i].pid, &status, WNOHANG);
    if (r == m_children[i].pid || (r < 0 && errno == ECHILD)) {
      if (r < 0) status = 0x7f00;  // vanished: report as exit 127
      done.push_back(outcome_of(m_children[i], status));
      m_children.erase(m_children.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  return done;
}

void launcher::terminate_all() {
  for (const child& c : m_children) kill(c.pid, SIGTERM);
  for (const child& c : m_children) {
    int status = 0;
    waitpid(c.pid, &status, 0);
  }
  m_children.clear();
}

std::string self_executable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw config_error("", "cannot find this executable (/proc/self/exe): " + ec.message());
  return p.string();
}

}  // namespace bcastsim::tb::sweep
