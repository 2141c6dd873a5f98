// The study's table: one CSV row per point with every varied parameter, the point's seed and
// status, and the key results, read from the points' files. Only deterministic figures go in
// (no wall time), so the same study gives the same CSV, byte for byte, however it was run.
#pragma once

#include "tb/sweep/runner.h"
#include "tb/sweep/study.h"

#include <optional>
#include <string>
#include <vector>

namespace bcastsim::tb::sweep {

// Result columns as dotted result.json paths: the defaults of the study's command, the
// Ragasa and traffic figures when a result has them, then the study's own `columns`.
std::vector<std::string> result_columns(const study& s,
                                        const std::vector<std::optional<point_outcome>>& outcomes);

// Machine figures (perf.* but packet_hops and pool_packets_peak: wall time, memory) differ from
// run to run; a study's columns naming them go to perf.csv, so results.csv stays byte-identical.
bool deterministic_column(const std::string& path);
// Whether results.csv can have this column (checked before the points run: the family and
// traffic columns appear only when a result has them).
bool possible_column(const study& s, const std::string& name);
// perf.csv: point, values, seed, status, wall_s, host, the study's machine columns; empty when
// the study lists none.
std::string make_perf_csv(const study& s, const std::vector<point>& points,
                          const std::vector<std::optional<point_outcome>>& outcomes);

// A point without an outcome (interrupted) gets status `pending`.
std::string make_csv(const study& s, const std::vector<point>& points,
                     const std::vector<std::optional<point_outcome>>& outcomes);

// The fields of a point's row after its index: its values (not a varied seed), the replicate
// when there are several, the seed. Unquoted: what a CSV reader gives back.
std::vector<std::string> row_fields(const study& s, const point& p);

// One CSV field, quoted when it must be (RFC 4180).
std::string csv_field(const std::string& v);

}  // namespace bcastsim::tb::sweep
