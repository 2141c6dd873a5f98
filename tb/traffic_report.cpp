#include "tb/traffic_report.h"

#include "tlm/units.h"

#include <algorithm>
#include <cmath>

namespace bcastsim::tb {

uint64_t percentile(const std::vector<uint64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(q / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

nlohmann::json traffic_report(const scenario& s, const fabric& fab) {
  if (s.traffic.kind == "none") return nullptr;
  uint64_t offered = 0, sent = 0, dropped = 0, received = 0, measured = 0, window_bytes = 0;
  uint64_t codes_chunks = 0, codes_chunk_ps = 0;
  size_t samples = 0;
  for (const auto& g : fab.generators) samples += g->latency_samples_ps().size();
  std::vector<uint64_t> all;
  all.reserve(samples);
  for (const auto& g : fab.generators) {
    offered += g->messages_offered.value;
    sent += g->messages_sent.value;
    dropped += g->dropped_at_source.value;
    received += g->messages_received.value;
    measured += g->messages_measured.value;
    window_bytes += g->window_bytes.value;
    codes_chunks += g->codes_chunks.value;
    codes_chunk_ps += g->codes_chunk_ps.value;
    all.insert(all.end(), g->latency_samples_ps().begin(), g->latency_samples_ps().end());
  }
  std::sort(all.begin(), all.end());
  double sum = 0;
  for (const uint64_t v : all) sum += static_cast<double>(v);

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
  j["packets_measured"] = all.size();
  using units::ns_from_ps;
  j["latency_ns"] = {{"avg", all.empty() ? 0.0 : ns_from_ps(sum / static_cast<double>(all.size()))},
                     {"p50", ns_from_ps(percentile(all, 50))},
                     {"p90", ns_from_ps(percentile(all, 90))},
                     {"p99", ns_from_ps(percentile(all, 99))},
                     {"max", all.empty() ? 0.0 : ns_from_ps(all.back())}};
  return j;
}

}  // namespace bcastsim::tb
