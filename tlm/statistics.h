// Statistics as declared, named objects: a block owns its counters and accumulators as
// members and declares each once (name, unit, description) in a stat_group, so reports and
// `bcastsim list` enumerate them without the block formatting anything on the hot path.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace bcastsim::tlm_net {

struct counter {
  uint64_t value = 0;
  void operator+=(uint64_t n) { value += n; }
  void operator++() { ++value; }
};

struct accumulator {
  uint64_t count = 0;
  double sum = 0.0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  void sample(double v) {
    ++count;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  double mean() const { return count ? sum / static_cast<double>(count) : 0.0; }
  void merge(const accumulator& o) {
    count += o.count;
    sum += o.sum;
    if (o.min < min) min = o.min;
    if (o.max > max) max = o.max;
  }
};

struct stat_info {
  const char* name;
  const char* unit;
  const char* description;
  const counter* c = nullptr;  // exactly one of c, a is set
  const accumulator* a = nullptr;
};

class stat_group {
 public:
  void declare(const char* name, const char* unit, const char* description, const counter& c) {
    m_stats.push_back(stat_info{name, unit, description, &c, nullptr});
  }
  void declare(const char* name, const char* unit, const char* description, const accumulator& a) {
    m_stats.push_back(stat_info{name, unit, description, nullptr, &a});
  }
  const std::vector<stat_info>& stats() const { return m_stats; }

 private:
  std::vector<stat_info> m_stats;
};

}  // namespace bcastsim::tlm_net
