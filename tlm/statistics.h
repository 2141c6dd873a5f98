// Statistics as declared, named objects: a block owns its counters and accumulators as
// members and declares each once (name, unit, description) in a stat_group, so reports and
// `bcastsim list` enumerate them without the block formatting anything on the hot path.
#pragma once

#include <cstddef>
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

// How a counter combines over the blocks of one kind: a total, or a high-water (low-water)
// mark. Accumulators always merge (count, sum, min, max).
enum class combine : uint8_t { sum, max, min };
const char* to_string(combine c);

struct stat_info {
  const char* name;
  const char* unit;
  const char* description;
  const counter* c = nullptr;  // exactly one of c, a is set
  const accumulator* a = nullptr;
  combine how = combine::sum;
};

class stat_group {
 public:
  void declare(const char* name, const char* unit, const char* description, const counter& c,
               combine how = combine::sum) {
    m_stats.push_back(stat_info{name, unit, description, &c, nullptr, how});
  }
  void declare(const char* name, const char* unit, const char* description, const accumulator& a) {
    m_stats.push_back(stat_info{name, unit, description, nullptr, &a, combine::sum});
  }
  const std::vector<stat_info>& stats() const { return m_stats; }

 private:
  std::vector<stat_info> m_stats;
};

// The statistics of many blocks of one kind, each combined as its declaration says, so a
// report over thousands of blocks needs no field-by-field code. Blocks added must declare
// the same statistics in the same order (they are blocks of one kind).
class stat_totals {
 public:
  void add(const stat_group& g);
  // The combined counter / accumulator `name`; throws std::out_of_range for an unknown name.
  uint64_t value(const char* name) const;
  const accumulator& merged(const char* name) const;
  size_t blocks() const { return m_blocks; }

 private:
  size_t index(const char* name) const;
  std::vector<stat_info> m_info;
  std::vector<uint64_t> m_values;
  std::vector<accumulator> m_accumulators;
  size_t m_blocks = 0;
};

}  // namespace bcastsim::tlm_net
