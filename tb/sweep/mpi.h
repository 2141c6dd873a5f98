// Distributing a study over the ranks of `mpirun -n K bcastsim sweep ...` (built when CMake
// finds Open MPI). Rank 0 coordinates and runs points too; every other rank asks rank 0 for a
// point whenever it has a free slot, runs it as a child process, and sends back its outcome
// and result file, so rank 0 writes every point's files and the CSV even when the ranks do
// not share a file system. The CSV is made from those files, so it is the same as a local run's.
#pragma once

#include "tb/sweep/command.h"
#include "tb/sweep/runner.h"

#include <memory>
#include <string>
#include <vector>

namespace bcastsim::tb::sweep {

// True when this process was started by an MPI launcher (mpirun, srun, ...).
bool launched_by_mpi();

class mpi_session {
 public:
  mpi_session();   // MPI_Init
  ~mpi_session();  // MPI_Finalize
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;

  int rank() const { return m_rank; }
  int size() const { return m_size; }
  // True when every rank passes true (a collective: every rank must call it).
  bool all(bool mine) const;
  // True when every rank passes the same value.
  bool same(uint64_t mine) const;

 private:
  int m_rank = 0, m_size = 1;
};

// Rank 0's view of the other ranks.
std::unique_ptr<remote_pool> make_mpi_pool(const mpi_session& s, size_t slots_per_rank);

// A rank beyond 0: runs the points rank 0 hands it until told there are no more.
void run_mpi_worker(const std::vector<point>& points, launcher& local);

}  // namespace bcastsim::tb::sweep
