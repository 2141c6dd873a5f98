// `bcastsim sweep STUDY.yaml`: expands a study, runs every unfinished point in its own process
// (N at a time; across the ranks of `mpirun -n K` when built with Open MPI), records each
// point's outcome, writes OUT/results.csv and OUT/study.json, and draws the study's plots.
// Exit codes: 0 every point ok, 1 a point failed (the others still ran) or a plot could not be
// drawn, 2 bad input (plots included: they are checked before any point runs),
// 130 interrupted (run the same command again to resume).
#pragma once

#include "tb/sweep/runner.h"

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace bcastsim::tb::sweep {

// The most points one process runs at a time (-j): a bound far above any machine's cores, so
// a typo or a negative -j (read as 2^64 - 1) does not start every point at once.
inline constexpr size_t max_jobs = 1024;

struct sweep_options {
  std::string study_file;
  std::string out_dir;  // default: results/<study name>
  // Points at a time per process, 1 to max_jobs; 0: one per core (one per rank under MPI).
  size_t jobs = 0;
  bool retry_failed = false;
  std::vector<std::string> only;  // --only KEY=V1,V2: run only these points now
  bool list_only = false;         // print the points and exit
  bool plots = true;
  bool quiet = false;
};

int run_command(const sweep_options& o, std::ostream& out, std::ostream& err);

// Other processes that run points for this one: the MPI ranks beyond rank 0. The coordinator
// hands each waiting worker a point index, or `no more work`, and collects their outcomes.
class remote_pool {
 public:
  virtual ~remote_pool() = default;
  virtual void poll() = 0;
  virtual bool worker_waiting() const = 0;
  virtual void assign(size_t index) = 0;
  virtual void release_waiting() = 0;  // answer every waiting worker: no more work
  virtual bool all_released() const = 0;
  virtual std::vector<point_outcome> take_results() = 0;
  virtual size_t slots() const = 0;  // points the workers run at a time, in all
};

}  // namespace bcastsim::tb::sweep
