#include "tb/sweep/mpi.h"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <thread>

namespace bcastsim::tb::sweep {

namespace {

enum tag : int { tag_request = 1, tag_assign = 2, tag_result = 3 };
constexpr long long no_more_work = -1;
constexpr auto idle_wait = std::chrono::milliseconds(5);

std::string receive_text(int source, int t) {
  MPI_Status st;
  MPI_Probe(source, t, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string text(static_cast<size_t>(n), '\0');
  MPI_Recv(text.data(), n, MPI_CHAR, source, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return text;
}

class mpi_pool final : public remote_pool {
 public:
  mpi_pool(int size, size_t slots_per_rank)
      : m_released(static_cast<size_t>(size), false),
        m_slots(static_cast<size_t>(size - 1) * slots_per_rank) {
    m_released[0] = true;
  }

  void poll() override {
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) return;
      if (st.MPI_TAG == tag_request) {
        MPI_Recv(nullptr, 0, MPI_CHAR, st.MPI_SOURCE, tag_request, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        m_waiting.push_back(st.MPI_SOURCE);
      } else {
        const auto j = nlohmann::json::parse(receive_text(st.MPI_SOURCE, st.MPI_TAG));
        point_outcome o = point_outcome::from_json(j);
        o.result = j.value("result", "");
        o.rank = st.MPI_SOURCE;
        m_results.push_back(std::move(o));
      }
    }
  }
  bool worker_waiting() const override { return !m_waiting.empty(); }
  void assign(size_t index) override {
    send(m_waiting.front(), static_cast<long long>(index));
    m_waiting.pop_front();
  }
  void release_waiting() override {
    for (const int w : m_waiting) {
      send(w, no_more_work);
      m_released[static_cast<size_t>(w)] = true;
    }
    m_waiting.clear();
  }
  bool all_released() const override {
    for (const bool r : m_released) {
      if (!r) return false;
    }
    return true;
  }
  std::vector<point_outcome> take_results() override { return std::exchange(m_results, {}); }
  size_t slots() const override { return m_slots; }

 private:
  static void send(int worker, long long index) {
    MPI_Send(&index, 1, MPI_LONG_LONG, worker, tag_assign, MPI_COMM_WORLD);
  }

  std::deque<int> m_waiting;
  std::vector<bool> m_released;
  std::vector<point_outcome> m_results;
  size_t m_slots;
};

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(v)) return true;
  }
  return false;
}

mpi_session::mpi_session() {
  MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m_size);
}

mpi_session::~mpi_session() {
  MPI_Finalize();
}

bool mpi_session::all(bool mine) const {
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out == 1;
}

bool mpi_session::same(uint64_t mine) const {
  unsigned long long in = mine, lo = 0, hi = 0;
  MPI_Allreduce(&in, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&in, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

std::unique_ptr<remote_pool> make_mpi_pool(const mpi_session& s, size_t slots_per_rank) {
  return std::make_unique<mpi_pool>(s.size(), slots_per_rank);
}

void run_mpi_worker(const std::vector<point>& points, launcher& local) {
  bool asked = false, done = false;
  while (!done || local.running() > 0) {
    for (const point_outcome& o : local.reap()) {
      nlohmann::json j = o.to_json();
      j["result"] = o.result;
      const std::string text = j.dump();
      MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, tag_result, MPI_COMM_WORLD);
    }
    if (!done && !asked && local.has_free_slot()) {
      MPI_Send(nullptr, 0, MPI_CHAR, 0, tag_request, MPI_COMM_WORLD);
      asked = true;
    }
    int flag = 0;
    if (asked) MPI_Iprobe(0, tag_assign, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      long long index = 0;
      MPI_Recv(&index, 1, MPI_LONG_LONG, 0, tag_assign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      asked = false;
      if (index == no_more_work) {
        done = true;
      } else {
        local.start(points.at(static_cast<size_t>(index)));
      }
      continue;
    }
    std::this_thread::sleep_for(idle_wait);
  }
}

}  // namespace bcastsim::tb::sweep
