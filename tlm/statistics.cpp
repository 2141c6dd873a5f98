#include "tlm/statistics.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace bcastsim::tlm_net {

const char* to_string(combine c) {
  switch (c) {
    case combine::sum:
      return "sum";
    case combine::max:
      return "max";
    case combine::min:
      return "min";
  }
  return "?";
}

void stat_totals::add(const stat_group& g) {
  const std::vector<stat_info>& stats = g.stats();
  if (m_blocks == 0) {
    m_info = stats;
    m_values.assign(stats.size(), 0);
    m_accumulators.assign(stats.size(), accumulator{});
  } else if (stats.size() != m_info.size()) {
    throw std::logic_error("stat_totals: blocks of one kind declare different statistics");
  }
  for (size_t k = 0; k < stats.size(); ++k) {
    if (stats[k].a) {
      m_accumulators[k].merge(*stats[k].a);
      continue;
    }
    const uint64_t v = stats[k].c->value;
    uint64_t& total = m_values[k];
    switch (stats[k].how) {
      case combine::sum:
        total += v;
        break;
      case combine::max:
        total = m_blocks == 0 ? v : std::max(total, v);
        break;
      case combine::min:
        total = m_blocks == 0 ? v : std::min(total, v);
        break;
    }
  }
  ++m_blocks;
}

size_t stat_totals::index(const char* name) const {
  for (size_t k = 0; k < m_info.size(); ++k) {
    if (std::strcmp(m_info[k].name, name) == 0) return k;
  }
  throw std::out_of_range(std::string("stat_totals: no statistic '") + name + "'");
}

uint64_t stat_totals::value(const char* name) const {
  return m_values[index(name)];
}

const accumulator& stat_totals::merged(const char* name) const {
  return m_accumulators[index(name)];
}

}  // namespace bcastsim::tlm_net
