#include "tb/traffic_report.h"

#include "tlm/units.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

namespace bcastsim::tb {

uint64_t percentile(const std::vector<uint64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(q / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

latency_summary summarize_sorted_runs(const std::vector<const std::vector<uint64_t>*>& runs) {
  latency_summary out;
  for (const auto* r : runs) out.count += r->size();
  if (out.count == 0) return out;
  const auto rank_of = [&](double q) {  // as percentile(): nearest rank, 1-based
    const auto r = static_cast<size_t>(std::ceil(q / 100.0 * static_cast<double>(out.count)));
    return std::clamp<size_t>(r, 1, out.count);
  };
  const size_t r50 = rank_of(50), r90 = rank_of(90), r99 = rank_of(99);
  using head = std::pair<uint64_t, size_t>;  // value, run; the position is kept apart
  std::priority_queue<head, std::vector<head>, std::greater<>> heads;
  std::vector<size_t> next(runs.size(), 0);
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i]->empty()) heads.emplace((*runs[i])[0], i);
  }
  for (size_t rank = 1; !heads.empty(); ++rank) {
    const auto [v, i] = heads.top();
    heads.pop();
    out.sum_ps += static_cast<double>(v);
    if (rank == r50) out.p50 = v;
    if (rank == r90) out.p90 = v;
    if (rank == r99) out.p99 = v;
    out.max = v;
    if (++next[i] < runs[i]->size()) heads.emplace((*runs[i])[next[i]], i);
  }
  return out;
}

nlohmann::json traffic_report(const scenario& s, const fabric& fab) {
  if (s.traffic.kind == "none") return nullptr;
  uint64_t offered = 0, sent = 0, dropped = 0, received = 0, measured = 0, window_bytes = 0;
  uint64_t codes_chunks = 0, codes_chunk_ps = 0;
  std::vector<const std::vector<uint64_t>*> runs;
  runs.reserve(fab.generators.size());
  for (const auto& g : fab.generators) {
    offered += g->messages_offered.value;
    sent += g->messages_sent.value;
    dropped += g->dropped_at_source.value;
    received += g->messages_received.value;
    measured += g->messages_measured.value;
    window_bytes += g->window_bytes.value;
    codes_chunks += g->codes_chunks.value;
    codes_chunk_ps += g->codes_chunk_ps.value;
    g->sort_latency_samples();
    runs.push_back(&g->latency_samples_ps());
  }
  const latency_summary lat = summarize_sorted_runs(runs);

  const double bytes_per_ns =
      units::bytes_per_ns(s.links[network::terminal_class].bandwidth_gib_per_s);
  nlohmann::json j;
  j["kind"] = s.traffic.kind;
  j["generators"] = fab.generators.size();
  j["message_bytes"] = s.traffic.message_bytes;
  j["messages_offered"] = offered;
  j["messages_sent"] = sent;
  j["messages_delivered"] = received;
  j["dropped_at_source"] = dropped;
  if (s.traffic.synthetic()) {
    const double capacity =
        s.traffic.measure_ns * static_cast<double>(fab.nics.size()) * bytes_per_ns;
    j["offered_load"] = s.traffic.load;
    j["accepted_load"] = static_cast<double>(window_bytes) / capacity;
    j["window_ns"] = {s.traffic.warmup_ns, s.traffic.warmup_ns + s.traffic.measure_ns};
    // As CODES reports them (model-net-synthetic; shared/reference/peers): 32-B chunks that
    // arrived before the window's end, packets created at any time, nothing drained; comparable
    // with CODES's figures when traffic.warmup_ns is 0 (CODES has no warm-up).
    const double end_ns = s.traffic.warmup_ns + s.traffic.measure_ns;
    j["codes_latency_ns"] = codes_chunks ? units::ns_from_ps(static_cast<double>(codes_chunk_ps) /
                                                             static_cast<double>(codes_chunks))
                                         : 0.0;
    j["codes_accepted_load"] =
        static_cast<double>(codes_chunks * hw::traffic_params::codes_chunk_bytes) /
        (end_ns * static_cast<double>(fab.nics.size()) * bytes_per_ns);
  } else {
    // Background: every terminal outside the job offers this fraction of its link.
    j["offered_load"] = static_cast<double>(s.traffic.message_bytes) /
                        (s.traffic.mean_interarrival_ns * bytes_per_ns);
  }
  j["messages_measured"] = measured;
  j["packets_measured"] = lat.count;
  using units::ns_from_ps;
  j["latency_ns"] = {
      {"avg", lat.count ? ns_from_ps(lat.sum_ps / static_cast<double>(lat.count)) : 0.0},
      {"p50", ns_from_ps(lat.p50)},
      {"p90", ns_from_ps(lat.p90)},
      {"p99", ns_from_ps(lat.p99)},
      {"max", lat.count ? ns_from_ps(lat.max) : 0.0}};
  return j;
}

}  // namespace bcastsim::tb
