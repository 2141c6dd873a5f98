#include "tb/sweep/command.h"

#include "tb/config.h"
#include "tb/output_path.h"
#include "tb/sweep/carried.h"
#include "tb/sweep/progress.h"
#include "tb/sweep/table.h"
#ifdef BCASTSIM_WITH_MPI
#include "tb/sweep/mpi.h"
#endif

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <thread>

extern char** environ;

namespace bcastsim::tb::sweep {

namespace fs = std::filesystem;

namespace {

volatile std::sig_atomic_t g_interrupted = 0;  // set by SIGINT/SIGTERM during a local run
extern "C" void on_interrupt(int) {
  g_interrupted = 1;
}

constexpr auto idle_wait = std::chrono::milliseconds(5);

std::string label_of(const point& p) {
  std::string s;
  for (const auto& [k, v] : p.values) s += (s.empty() ? "" : " ") + k + "=" + v;
  if (p.replicate) s += " replicate=" + std::to_string(p.replicate);
  return s.empty() ? "(the base scenario)" : s;
}

nlohmann::ordered_json study_json(const study& s, const std::vector<point>& points,
                                  const point_store& store,
                                  const std::vector<std::string>& columns) {
  nlohmann::ordered_json j;
  j["schema"] = "bcastsim.sweep/1";
  j["name"] = s.name;
  j["study_file"] = s.file;
  j["scenario"] = s.scenario;
  j["scenario_fnv1a"] = store.scenario_hash();  // what results.csv's rows ran on (carried.h)
  j["command"] = s.command;
  j["seed"] = s.seed;
  j["replicates"] = s.replicates;
  j["random_draws"] = to_string(s.draws);
  j["set"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : s.fixed) j["set"][k] = v;
  j["parameters"] = s.parameters();
  j["columns"] = columns;
  j["plots"] = s.plots;
  j["points"] = nlohmann::ordered_json::array();
  for (const point& p : points) {
    nlohmann::ordered_json e;
    e["index"] = p.index;
    e["dir"] = p.dir;
    e["values"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : p.values) e["values"][k] = v;
    e["replicate"] = p.replicate;
    e["seed"] = p.seed;
    // What the point's row ran on (carried.h); absent when it reads no file.
    const nlohmann::json files = store.input_hashes(p);
    for (const auto& f : files.items()) e["inputs_fnv1a"][f.key()] = f.value().get<std::string>();
    j["points"].push_back(std::move(e));
  }
  return j;
}

void list_points(const study& s, const std::vector<point>& points, const selection& sel,
                 std::ostream& out) {
  const size_t chosen = static_cast<size_t>(
      std::count_if(points.begin(), points.end(), [&](const point& p) { return sel.contains(p); }));
  out << s.name << ": " << points.size() << " points";
  if (chosen != points.size()) out << ", " << chosen << " chosen by --only";
  out << " (" << s.command;
  if (!s.scenario.empty()) out << " " << s.scenario;
  for (const auto& [k, v] : s.fixed) out << " --set " << k << "=" << v;
  out << "; random draws " << to_string(s.draws) << ")\n";
  for (const point& p : points) {
    if (sel.contains(p)) out << "  " << p.dir << "  seed " << p.seed << "  " << label_of(p) << "\n";
  }
}

// One sweep at a time in an output directory: two would each start points the other has
// finished or is running (a point's start clears its directory) and write results.csv from
// what each saw. A lock on the directory, held until this process ends, not inherited by the
// points (O_CLOEXEC).
class dir_lock {
 public:
  explicit dir_lock(const std::string& dir)
      : m_fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (m_fd >= 0 && flock(m_fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
      close(m_fd);
      throw config_error("--out", "--out " + dir +
                                      ": another bcastsim sweep is running in it; run one at a "
                                      "time (another --only choice once this one has ended)");
    }
  }
  ~dir_lock() {
    if (m_fd >= 0) close(m_fd);
  }
  dir_lock(const dir_lock&) = delete;
  dir_lock& operator=(const dir_lock&) = delete;

 private:
  int m_fd;
};

// What drawing the study's plots came to.
enum class plots_outcome : uint8_t {
  drawn,
  waiting,  // every plot that could not be drawn needs points not run yet (plot_sweep.py: 3)
  failed,   // a plot could not be drawn (the sweep then exits 1: its output is incomplete)
};

// The plots of the study's `plots` list, by scripts/plot_sweep.py with Debian's python3.
plots_outcome draw_plots(const std::string& out_dir, std::ostream& out, std::ostream& err,
                         bool quiet) {
  const char* env = std::getenv("BCASTSIM_SCRIPTS_DIR");
  const fs::path script = fs::path(env ? env : BCASTSIM_SCRIPTS_DIR) / "plot_sweep.py";
  if (!fs::exists(script)) {
    err << "bcastsim: error: plots: " << script
        << " not found (set BCASTSIM_SCRIPTS_DIR, or --no-plots)\n";
    return plots_outcome::failed;
  }
  // Debian's matplotlib belongs to /usr/bin/python3, which a python3 earlier in PATH may not see.
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::vector<std::string> args{python, script.string(), out_dir};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  out.flush();
  pid_t pid = 0;
  int status = 0;
  const int rc = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) waitpid(pid, &status, 0);
  const int code = rc == 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0) return plots_outcome::drawn;
  if (code == 3) return plots_outcome::waiting;
  err << "bcastsim: error: plots: the study's plots failed (see above; matplotlib is the Debian "
         "package python3-matplotlib); redraw them with: "
      << python << " " << script.string() << " " << out_dir << "\n";
  return plots_outcome::failed;
}

struct run_state {
  const study& s;
  const std::vector<point>& points;
  const point_store& store;
  std::vector<std::optional<point_outcome>> outcomes;
  size_t run_now = 0;
  size_t carried = 0;  // finished earlier, read back from results.csv
  size_t stale = 0;    // ran while a file it reads changed: not recorded (inputs.h)
};

// Rank 0 (or the only process): hands out the pending points, to its own slots and to the
// remote workers, and records every outcome. Returns false when interrupted.
bool coordinate(run_state& st, const std::vector<size_t>& pending, launcher& local,
                remote_pool* remote, progress_meter& meter) {
  size_t next = 0, done = 0;
  auto record = [&](const point_outcome& o) {
    const point& p = st.points.at(o.index);
    if (!st.store.inputs_unchanged(p)) {  // read the old file or the new: left to run again
      ++done;
      ++st.stale;
      meter.finished(o.index, false, o.wall_s,
                     label_of(p) + ": a file it reads changed while it ran; not recorded");
      return;
    }
    st.store.record(p, o);
    st.outcomes[o.index] = o;
    ++done;
    ++st.run_now;
    meter.finished(o.index, o.ok, o.wall_s, o.ok ? label_of(p) : label_of(p) + ": " + o.error);
  };
  while (done < pending.size() || (remote && !remote->all_released())) {
    for (const point_outcome& o : local.reap()) {
      const bool ours = o.exit_code == 128 + SIGINT || o.exit_code == 128 + SIGTERM;
      if (!(g_interrupted && ours)) record(o);
    }
    if (g_interrupted) {
      local.terminate_all();
      return false;
    }
    if (remote) {
      remote->poll();
      for (const point_outcome& o : remote->take_results()) record(o);
    }
    bool started = false;
    while (next < pending.size() && local.has_free_slot()) {
      local.start(st.points[pending[next++]]);
      started = true;
    }
    if (remote) {
      while (next < pending.size() && remote->worker_waiting()) {
        remote->assign(pending[next++]);
        started = true;
      }
      if (next == pending.size()) remote->release_waiting();
    }
    meter.running(local.running());
    meter.tick();
    if (!started) std::this_thread::sleep_for(idle_wait);
  }
  return true;
}

// The study, or nothing and why not: under mpirun the ranks compare before any of them fails.
std::optional<study> try_load_study(const std::string& file, std::string& why) {
  try {
    return load_study(file);
  } catch (const config_error& e) {
    why = e.what();
  }
  return std::nullopt;
}

#ifdef BCASTSIM_WITH_MPI
// Every rank reads the study itself; all must agree before any point runs. Throws on rank 0
// (or on a rank that could not read it); false: this rank leaves with exit code 2.
bool ranks_agree(const mpi_session& mpi, const std::optional<study>& parsed, const std::string& why,
                 const std::string& study_file) {
  const bool all_read = mpi.all(parsed.has_value());
  const bool agree = all_read && mpi.same(parsed->num_points());
  if (all_read && agree) return true;
  if (!parsed) throw config_error("STUDY", why + " (rank " + std::to_string(mpi.rank()) + ")");
  if (mpi.rank() == 0) {
    throw config_error("STUDY", "the ranks of mpirun read different studies from " + study_file +
                                    "; every node must see the same files");
  }
  return false;
}
#else
// Without Open MPI the ranks of an mpirun cannot share a study.
void refuse_mpirun() {
  if (const char* n = std::getenv("OMPI_COMM_WORLD_SIZE"); n && std::atoi(n) > 1) {
    throw config_error("mpirun",
                       "this bcastsim was built without Open MPI, so its ranks "
                       "cannot share a study; install libopenmpi-dev and rebuild, "
                       "or run `bcastsim sweep -j N` on one machine");
  }
}
#endif

// The points to run now, by index (unfinished, and chosen by --only); the outcomes of the
// finished ones, chosen or not, are read back into st: from their directories, else from
// results.csv.
std::vector<size_t> pending_points(run_state& st, bool retry_failed, const selection& sel,
                                   std::ostream& err) {
  carried_rows rows = carried_outcomes(st.s, st.points, st.store);
  auto& carried = rows.outcomes;
  if (!rows.refused.empty()) {  // written over below, with the rows pending: say why
    err << "bcastsim: note: the finished rows of " << st.store.out_dir()
        << "/results.csv are not taken as finished: " << rows.refused << "\n";
  }
  if (rows.changed_inputs) {
    err << "bcastsim: note: " << rows.changed_inputs << " finished rows of " << st.store.out_dir()
        << "/results.csv are not taken as finished: a file their point reads (topology.file) "
           "changed since, or "
           "study.json does not record it\n";
  }
  std::vector<size_t> pending;
  for (const point& p : st.points) {
    const bool chosen = sel.contains(p);
    const bool retry = retry_failed && chosen;  // a failure not chosen stays one
    if (st.store.finished(p, retry)) {
      st.outcomes[p.index] = st.store.load(p);
    } else if (carried[p.index] && !st.store.started(p) && !(retry && !carried[p.index]->ok)) {
      st.outcomes[p.index] = std::move(carried[p.index]);
      st.carried += 1;
    } else if (chosen) {
      pending.push_back(p.index);
    }
  }
  return pending;
}

// coordinate(), with SIGINT and SIGTERM caught meanwhile when there are no remote workers, so
// an interrupt stops the points and leaves a study that runs again to resume.
bool coordinate_interruptible(run_state& st, const std::vector<size_t>& pending, launcher& local,
                              remote_pool* remote, progress_meter& meter) {
  struct sigaction sa {
  }, old_int{}, old_term{};
  if (!remote) {
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  const bool complete = coordinate(st, pending, local, remote, meter);
  if (!remote) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
  return complete;
}

int finish(run_state& st, const std::string& out_dir, bool interrupted, const sweep_options& o,
           const progress_meter& meter, std::ostream& out, std::ostream& err) {
  const std::string csv = make_csv(st.s, st.points, st.outcomes);
  write_text((fs::path(out_dir) / "results.csv").string(), csv);
  const std::string perf = make_perf_csv(st.s, st.points, st.outcomes);
  if (!perf.empty()) write_text((fs::path(out_dir) / "perf.csv").string(), perf);
  write_text(
      (fs::path(out_dir) / "study.json").string(),
      study_json(st.s, st.points, st.store, result_columns(st.s, st.outcomes)).dump(2) + "\n");
  size_t ok = 0, failed = 0, pending = 0;
  for (const auto& x : st.outcomes) (!x ? pending : x->ok ? ok : failed) += 1;
  if (!o.quiet || failed || interrupted) {
    out << st.s.name << ": " << st.points.size() << " points, " << ok << " ok, " << failed
        << " failed";
    if (pending) out << ", " << pending << " not run";
    out << " (" << st.run_now << " run now in " << clock_text(meter.elapsed_s()) << ", "
        << (st.points.size() - pending - st.run_now) << " earlier) -> " << out_dir
        << "/results.csv\n";
    size_t shown = 0;
    for (const point& p : st.points) {
      const auto& x = st.outcomes[p.index];
      if (x && !x->ok && shown++ < 10) {
        out << "  failed " << p.dir << " (" << label_of(p) << "): " << x->error << "\n";
      }
    }
  }
  if (interrupted) {
    err << "bcastsim: interrupted; run the same command again to resume\n";
    return 130;
  }
  if (st.stale) {
    err << "bcastsim: error: " << st.stale
        << " points ran while a file they read (topology.file) changed and are not recorded; "
           "run the same command again to run them on the file as it is now\n";
  }
  const plots_outcome plots = !o.plots || st.s.plots.empty()
                                  ? plots_outcome::drawn
                                  : draw_plots(out_dir, out, err, o.quiet);
  return failed || st.stale || plots == plots_outcome::failed ? 1 : 0;
}

}  // namespace

int run_command(const sweep_options& o, std::ostream& out, std::ostream& err) {
#ifdef BCASTSIM_WITH_MPI
  std::unique_ptr<mpi_session> mpi;
  if (launched_by_mpi()) mpi = std::make_unique<mpi_session>();
  const bool coordinator = !mpi || mpi->rank() == 0;
#else
  refuse_mpirun();
  const bool coordinator = true;
#endif
  std::string why;
  const std::optional<study> parsed = try_load_study(o.study_file, why);
#ifdef BCASTSIM_WITH_MPI
  if (mpi && !ranks_agree(*mpi, parsed, why, o.study_file)) return 2;
#endif
  if (!parsed) throw config_error("STUDY", why);
  const study& s = *parsed;
  const std::vector<point> points = expand(s);
  const selection sel = parse_selection(s, o.only);
  if (std::none_of(points.begin(), points.end(), [&](const point& p) { return sel.contains(p); })) {
    throw config_error("--only",
                       "--only: no point of the study has all the values chosen; "
                       "`bcastsim sweep STUDY --list` shows the points");
  }
  if (o.list_only) {
    if (coordinator) list_points(s, points, sel, out);
    return 0;
  }
  const std::string out_dir = o.out_dir.empty() ? "results/" + s.name : o.out_dir;
  // What a sweep writes in OUT, checked before it creates anything (output_path.h); its
  // plots are drawn into OUT/plots/ after every point has run.
  check_output_dir(out_dir, "--out", {"results.csv", "study.json", "perf.csv"});
  check_output_dir((fs::path(out_dir) / "points").string(), "--out");
  std::vector<std::string> plot_files;  // checked names: a plain name ending .png/.pdf/.svg
  for (const auto& plot : s.plots) {
    if (o.plots && !plot.value("file", "").empty()) plot_files.push_back(plot.value("file", ""));
  }
  check_output_dir((fs::path(out_dir) / "plots").string(), "--out", plot_files);
  if (o.jobs > max_jobs) {
    throw config_error("--jobs", "-j/--jobs " + std::to_string(o.jobs) +
                                     " is not allowed; allowed: an integer from 1 to " +
                                     std::to_string(max_jobs));
  }
  const point_store store(s, points, out_dir);
  size_t jobs = o.jobs;
#ifdef BCASTSIM_WITH_MPI
  if (jobs == 0 && mpi) jobs = 1;
#endif
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
#ifdef BCASTSIM_WITH_MPI
  launcher local(store, self_executable(), jobs, mpi ? mpi->rank() : 0);
#else
  launcher local(store, self_executable(), jobs);
#endif
#ifdef BCASTSIM_WITH_MPI
  if (mpi && !coordinator) {
    run_mpi_worker(points, local);
    return 0;
  }
#endif

  // Under mpirun the ranks leave together (a coordinator throwing here would leave its workers
  // waiting), so only a run on one machine takes the lock.
  std::optional<dir_lock> lock;
#ifdef BCASTSIM_WITH_MPI
  if (!mpi) lock.emplace(store.out_dir());
#else
  lock.emplace(store.out_dir());
#endif
  run_state st{s, points, store, std::vector<std::optional<point_outcome>>(points.size())};
  const size_t moved = store.adopt_moved(points);
  const std::vector<size_t> pending = pending_points(st, o.retry_failed, sel, err);
  size_t finished_earlier = 0;
  for (const auto& x : st.outcomes) finished_earlier += x.has_value();
  // results.csv first, then study.json: a row never outlives the study it was run for (a
  // changed scenario, its rows pending, is not read back by carried.h after a crash).
  write_text((fs::path(store.out_dir()) / "results.csv").string(),
             make_csv(s, points, st.outcomes));
  write_text((fs::path(store.out_dir()) / "study.json").string(),
             study_json(s, points, store, result_columns(s, st.outcomes)).dump(2) + "\n");
  std::unique_ptr<remote_pool> remote;
#ifdef BCASTSIM_WITH_MPI
  if (mpi) remote = make_mpi_pool(*mpi, jobs);
#endif
  const size_t slots = jobs + (remote ? remote->slots() : 0);
  if (!o.quiet) {
    out << s.name << ": " << points.size() << " points, " << pending.size() << " to run ("
        << finished_earlier << " finished earlier";
    if (moved) out << ", " << moved << " of them moved to their new index";
    if (st.carried) out << ", " << st.carried << " of them only in results.csv";
    if (const size_t left = points.size() - pending.size() - finished_earlier) {
      out << ", " << left << " left out by --only";
    }
    out << "), " << slots << " at a time";
    if (remote) out << " over " << remote->slots() / jobs + 1 << " MPI ranks";
    out << " -> " << store.out_dir() << "\n" << std::flush;
  }
  // Counted against the points this run can finish: --only leaves the others out of the ETA.
  progress_meter meter(err, finished_earlier + pending.size(), finished_earlier,
                       isatty(STDERR_FILENO) != 0, o.quiet);
  const bool complete = coordinate_interruptible(st, pending, local, remote.get(), meter);
  meter.close();
  return finish(st, store.out_dir(), !complete, o, meter, out, err);
}

}  // namespace bcastsim::tb::sweep
