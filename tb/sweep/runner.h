// Running a study's points: each point is one `bcastsim run` (or `analyze`) child process,
// because SystemC allows one design per process. The point store keeps every point's files
// in its own directory under the study's output directory:
//   point.json   what the point is (values, seed, fixed keys, the base scenario's hash and
//                the hashes of the files it reads: tb/sweep/inputs.h)
//   result.json  the run's result (analyze.json for command: analyze)
//   status.json  ok | failed, exit code, error, wall time; written last, so a point with a
//                status.json matching its point.json (and, when ok, a valid result file) is
//                finished and a resume skips it
//   log.txt      the child's output
#pragma once

#include "tb/sweep/inputs.h"
#include "tb/sweep/study.h"

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace bcastsim::tb::sweep {

struct point_outcome {
  size_t index = 0;
  bool ok = false;
  int exit_code = 0;  // the child's exit code; 128 + signal when a signal ended it
  std::string error;  // why it failed, from the child's output
  double wall_s = 0;
  std::string result;    // the result file's text, when ok
  bool carried = false;  // read back from results.csv (tb/sweep/carried.h): no files, no wall time
  std::string host;      // where it ran (status.json only: never in the CSV)
  int rank = 0;          // MPI rank that ran it

  nlohmann::json to_json() const;  // without `result`
  static point_outcome from_json(const nlohmann::json& j);
};

class point_store {
 public:
  // Reads every file the points read before it makes the output directory: config_error
  // (exit code 2) when one cannot be read.
  point_store(const study& s, const std::vector<point>& points, std::string out_dir);

  const std::string& out_dir() const { return m_out; }
  std::string dir_of(const point& p) const;       // absolute
  const char* result_file() const;                // result.json | analyze.json
  nlohmann::json identity(const point& p) const;  // point.json's content
  // The base scenario file's FNV-1a hash in hex ("" without one): edited means re-run.
  std::string scenario_hash() const;
  // {key: FNV-1a hex} of the files the point reads (an edited graph file means re-run).
  nlohmann::json input_hashes(const point& p) const { return m_inputs.hashes(p); }
  // Whether those files are still as input_hashes says (point_inputs::unchanged).
  bool inputs_unchanged(const point& p) const { return m_inputs.unchanged(p); }
  std::vector<std::string> argv(const point& p, const std::string& exe) const;

  // A result file that parses and has the command's sections (config, collective, ...).
  bool valid_result(const std::string& text) const;
  // Finished earlier (status.json present, point.json unchanged and, when ok, a valid result
  // file: status.json alone is not trusted); failed points count as finished unless
  // `retry_failed`.
  bool finished(const point& p, bool retry_failed) const;
  // Whether the point has a directory of its own (point.json): started here, so it is judged
  // by its files alone, never by results.csv.
  bool started(const point& p) const;
  // Points whose directory holds another point's files but whose own finished run sits in
  // another directory (a value added to the study moves the indices) take that run's files.
  // Returns how many did.
  size_t adopt_moved(const std::vector<point>& points) const;
  // A fresh directory for the point: point.json written, old outputs removed.
  void prepare(const point& p) const;
  // status.json (and the result file when it is not already there: another node ran it).
  void record(const point& p, const point_outcome& o) const;
  // A finished point's outcome as recorded, with its result text when ok.
  point_outcome load(const point& p) const;

 private:
  const study& m_study;
  point_inputs m_inputs;
  std::string m_out;
  uint64_t m_scenario_hash = 0;
};

// Up to `slots` children at a time; never blocks.
class launcher {
 public:
  launcher(const point_store& store, std::string exe, size_t slots, int rank = 0);
  ~launcher();
  launcher(const launcher&) = delete;
  launcher& operator=(const launcher&) = delete;

  size_t slots() const { return m_slots; }
  size_t running() const { return m_children.size(); }
  bool has_free_slot() const { return m_children.size() < m_slots; }

  // Prepares the point's directory and starts its child; a child that cannot start is
  // reported by the next reap() as failed.
  void start(const point& p);
  // Children that ended since the last call, with their outcomes.
  std::vector<point_outcome> reap();
  // Stops every running child (SIGTERM, then waits); their points stay unfinished.
  void terminate_all();

 private:
  struct child {
    pid_t pid;
    const point* p;
    std::chrono::steady_clock::time_point start;
  };
  point_outcome outcome_of(const child& c, int status) const;

  const point_store& m_store;
  std::string m_exe;
  size_t m_slots;
  int m_rank;
  std::string m_host;
  std::vector<child> m_children;
  std::vector<point_outcome> m_not_started;
};

// Replaces the whole file (tb/atomic_file: a temporary file renamed into place): a reader, or
// a resume after a crash, never sees half of it. Throws config_error (key --out) if it cannot.
void write_text(const std::string& path, const std::string& text);

// A whole file's text; "" when it cannot be read (a missing file is not an error here).
std::string read_text(const std::string& path);

// This executable's path (children run it again).
std::string self_executable();

}  // namespace bcastsim::tb::sweep
