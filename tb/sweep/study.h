// A study: a base scenario and the parameters to vary, read from one YAML file and expanded
// into points. Crossed parameters give every combination; a zipped group's keys advance
// together. By default the points of one replicate share their seed (common random numbers),
// so points that differ only in non-random choices (algorithm, routing, sizes, unit
// parameters) draw the same placement, root and traffic, and compare in pairs; with
// `random_draws: per_point` each point's seed comes from its values as well. Either way a point
// keeps its seed when values are added to the study (and a resumed study stays valid).
// Bad input throws config_error naming the study key; the CLI turns it into exit code 2.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bcastsim::tb::sweep {

// One varied dimension: one key (crossed) or several keys of equal length (a zipped group).
struct dimension {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  // values[step][key]
  size_t size() const { return values.size(); }
};

struct point {
  size_t index = 0;
  std::vector<std::pair<std::string, std::string>> values;  // varied key -> value, study order
  uint32_t replicate = 0;
  uint64_t seed = 0;
  std::string dir;  // relative to the study's output directory: points/0007
};

// Which points share their random draws (placement, root, traffic, routing entropy): the seed
// of a run is the only source of them, and each purpose draws from its own stream of it.
enum class random_draws : uint8_t {
  common,     // every point of a replicate: paired comparisons (the default)
  per_point,  // none: each point's values pick its seed too
};

struct study {
  std::string name;
  std::string file;             // the study file, as given
  std::string scenario;         // base scenario file (absolute or relative to cwd); empty: built-in
  std::string command = "run";  // run | analyze
  uint64_t seed = 1;
  uint32_t replicates = 1;
  random_draws draws = random_draws::common;
  std::vector<std::pair<std::string, std::string>> fixed;  // `set:` overrides, file order
  std::vector<dimension> dimensions;                       // file order; the last varies fastest
  std::vector<std::string> columns;                        // result paths beyond the defaults
  nlohmann::json plots = nlohmann::json::array();          // for scripts/plot_sweep.py

  std::vector<std::string> parameters() const;  // varied keys, dimension order
  size_t num_points() const;
};

study parse_study_text(const std::string& text, const std::string& file);
study load_study(const std::string& file);

// Every point, in order: the first dimension outermost, replicates innermost.
std::vector<point> expand(const study& s);

// The point's seed: the study seed mixed with the replicate, and with `per_point` draws also
// with the point's values (sorted by key); the value of `seed` when the study varies it.
// Below 2^53, so JSON and CSV readers keep it.
uint64_t derive_seed(uint64_t study_seed,
                     const std::vector<std::pair<std::string, std::string>>& values,
                     uint32_t replicate, random_draws draws);
const char* to_string(random_draws draws);

// `bcastsim sweep --only KEY=V1,V2` (repeatable): the points whose value of every named key is
// one of the values named for it, the others left for a later run. No keys: every point.
struct selection {
  std::vector<std::pair<std::string, std::vector<std::string>>> keys;  // key -> values wanted
  bool contains(const point& p) const;
};

// Each argument a key the study varies and values it lists; else config_error naming them.
selection parse_selection(const study& s, const std::vector<std::string>& args);

}  // namespace bcastsim::tb::sweep
