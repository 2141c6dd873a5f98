// CLI11 validators of the bcastsim command line: they see the argument as typed, before CLI11
// converts it, so a bad value is refused with what is allowed (CLI11's own conversion errors
// name no range, and an unsigned option read "-1" as 2^64 - 1).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

namespace bcastsim::tb {

// A path or seed given as '' would otherwise read as "not given" (`run ''` ran the default
// scenario, a fuzz finding): refuse it, naming the argument.
CLI::Validator non_empty();

// A decimal integer from `lo` to `hi` (digits only: no sign, no suffix, no spaces).
CLI::Validator unsigned_in(uint64_t lo, uint64_t hi);

}  // namespace bcastsim::tb
