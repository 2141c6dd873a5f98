// Points finished by an earlier run whose directories are gone. A checkout that keeps a study's
// results.csv and study.json but not its points/ (this repository's .gitignore drops them, as
// they are large) still resumes: a row stands for a point when study.json shows the same study
// (command, fixed keys, replicates, varied keys, and the base scenario by content), the row
// the point's values and seed, and study.json's record of the files the point reads (a graph
// file) their content now. Its cells become the point's result again, so results.csv, its
// plots and a later resume come out as if the point had run here. Like a point's own files,
// a row does not say which bcastsim made it: after a change to the model, run it again.
#pragma once

#include "tb/sweep/runner.h"
#include "tb/sweep/study.h"

#include <optional>
#include <string>
#include <vector>

namespace bcastsim::tb::sweep {

struct carried_rows {
  // Indexed like `points`: the outcome an ok or failed row records (point_outcome::carried
  // set), or nothing (no such row, or a pending one).
  std::vector<std::optional<point_outcome>> outcomes;
  // Why results.csv's rows were all refused ("study.json's seed is another"); "" when they were
  // not (or there is no results.csv).
  std::string refused;
  // Rows not taken because a file their point reads changed since (or study.json does not
  // say which it read): tb/sweep/inputs.h.
  size_t changed_inputs = 0;
};
carried_rows carried_outcomes(const study& s, const std::vector<point>& points,
                              const point_store& store);

// RFC 4180 records (quoted fields may hold commas, quotes and line breaks).
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

}  // namespace bcastsim::tb::sweep
