// The collectives of a scenario: the keys collective.* describe one, or the list
// `collectives:` describes several. Entry i's key X is the flat key collectives.i.X (YAML
// list entries, `--set collectives.1.bytes=4KiB`), declared as collective.X (same type,
// range, allowed values); an entry's key not given takes the value of collective.X (given or
// default), except `name` and `after`, which belong to their entry.
// make_collectives turns them into the scenario's algorithms::collective_spec list.
#pragma once

#include "tb/config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bcastsim::tb {

constexpr uint32_t max_collective_entries = 999;
constexpr uint64_t max_communicator_ranks = 100000000;  // collective.ranks, expanded

// Whether `key` belongs to the list (begins with "collectives.").
bool is_collective_entry_key(const std::string& key);

// The declaration of collective.X for the entry key collectives.N.X; nullptr when `key` is
// not one (a bad index, an unknown X).
const key_info* collective_entry_declaration(const std::string& key);

// As collective_entry_declaration, but throws config_error naming `key` and what is allowed
// (the index form, or the keys under 'collective'); `origin` as " (in s.yaml)" or "".
const key_info& checked_collective_entry_declaration(const std::string& key,
                                                     const std::string& origin);

// The entries the list gives: 0 for the single form. Throws config_error naming the first
// missing entry (collectives.1 when only 0 and 2 are given).
uint32_t collective_entries(const config& cfg);

// Every key of every entry, collectives.N.X for each declared collective.X, in entry order.
std::vector<std::string> collective_entry_keys(const config& cfg);

// collective.ranks: "all" (empty) or comma-separated ranks and inclusive ranges "0-35,40".
// Throws config_error naming `key` for malformed text, a reversed range, a duplicate rank or
// more than max_communicator_ranks ranks.
// job_size > 0: a rank beyond the job is refused before any range is expanded.
// Simulated time is 64-bit picoseconds (about 1.8e16 ns): the collectives' starts and
// computations must fit, and no collective may start after sim.max_time_ns. Throws
// config_error naming the key.
void check_collective_times(const scenario& s);

std::vector<uint32_t> parse_ranks(const std::string& key, const std::string& text,
                                  uint32_t job_size = 0);

// Fills s.collectives, s.collective_keys, s.collective_names and the first spec's mirrors
// (s.algorithm, root, random_root, bytes), with the cross-key checks (after, names,
// algorithm none, synthetic traffic). s.seed, topology_kind, job and traffic must be set.
void make_collectives(const config& cfg, scenario& s);

}  // namespace bcastsim::tb
