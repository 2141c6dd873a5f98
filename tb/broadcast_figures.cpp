#include "tb/broadcast_figures.h"

#include "tlm/units.h"

namespace bcastsim::tb {

namespace {

double ns(const sc_core::sc_time& t) {
  return units::ns_from_ps(static_cast<double>(t.value()));
}

}  // namespace

std::vector<broadcast_figures> broadcasts_of(const algorithms::program& prog,
                                             const hw::collective_progress& progress) {
  std::vector<broadcast_figures> out;
  for (uint32_t c = 0; c < progress.broadcasts.size(); ++c) {
    const hw::broadcast_progress& b = progress.broadcasts[c];
    if (!b.broadcast) continue;
    broadcast_figures f;
    f.instance = prog.context_instance[c];
    f.context = c;
    const algorithms::instance_info& inst = prog.instances[f.instance];
    f.root = b.root < inst.ranks.size() ? inst.ranks[b.root] : inst.root;
    f.start_ns = ns(b.start);
    f.done = b.started && b.receivers_done == b.receivers && b.receivers > 0;
    if (f.done) {
      // As the instance figures are computed (tb/simulation.cpp), so that one root gives
      // the same numbers.
      f.data_completion_ns = ns(b.last_done) - f.start_ns;
      f.rank_average_ns =
          units::ns_from_ps(static_cast<double>(b.done_ps_sum)) / static_cast<double>(b.receivers) -
          f.start_ns;
    }
    out.push_back(f);
  }
  return out;
}

bool has_all_roots_broadcast(const algorithms::program& prog) {
  for (const algorithms::instance_info& inst : prog.instances) {
    if (inst.all_roots && inst.algorithm->kind == algorithms::collective_kind::broadcast)
      return true;
  }
  return false;
}

nlohmann::json accumulator_json(const tlm_net::accumulator& a) {
  return {{"count", a.count},
          {"mean", a.mean()},
          {"min", a.count ? a.min : 0.0},
          {"max", a.count ? a.max : 0.0}};
}

nlohmann::json broadcasts_summary(const std::vector<broadcast_figures>& list) {
  tlm_net::accumulator data, rank;
  for (const broadcast_figures& f : list) {
    if (!f.done) continue;
    data.sample(f.data_completion_ns);
    rank.sample(f.rank_average_ns);
  }
  return {{"count", list.size()},
          {"data_completion_ns", accumulator_json(data)},
          {"rank_average_ns", accumulator_json(rank)}};
}

}  // namespace bcastsim::tb
