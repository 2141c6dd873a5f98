// The memory a scenario will need, estimated from its keys before anything is allocated, so a
// topology too large for the machine is refused (exit 2, naming the keys) instead of growing
// until std::bad_alloc. Rough by design: bytes per router, per router port and per terminal,
// measured on dragonflies and tori (peak RSS of `run` and `analyze`, see the .cpp), rounded up.
#pragma once

#include "tb/config.h"

#include <string>

namespace sc_core {
class sc_report;
}

namespace bcastsim::tb {

enum class memory_use { analyze, simulate };

// Estimated peak bytes; 0 when the topology's size is not known before building it (a graph
// file's, bounded by the file).
double estimate_memory_bytes(const config& cfg, memory_use use);

// The limit sim.max_memory_gib gives, in bytes: the key, or (0) default_memory_limit_bytes().
double memory_limit_bytes(const config& cfg);

// Three quarters of the machine's physical memory, or of the address space this process may
// use when that is less: the cap of a command that has no scenario (cosim).
double default_memory_limit_bytes();

// Throws config_error("sim.max_memory_gib") naming the topology keys and the estimate when
// the estimate exceeds the limit.
void check_memory(const config& cfg, memory_use use);

// Caps this process's further growth of address space at memory_limit_bytes(cfg) (RLIMIT_AS,
// never raised), so what the estimate cannot foresee (an n-squared allgather's schedule)
// ends in std::bad_alloc, reported with exit 1, instead of the kernel's OOM killer. Nothing
// under AddressSanitizer, whose shadow memory is terabytes of address space.
void limit_memory(const config& cfg);

// The same cap at `budget_bytes` beyond what is mapped now: limit_memory without a scenario.
void limit_address_space(double budget_bytes);

// True when the report is SystemC's wrapping of a std::bad_alloc thrown inside a process
// (sc_handle_exception keeps only what()), so it can be told as running out of memory.
bool is_out_of_memory(const sc_core::sc_report& report);

// What the user is told when memory ran out, wherever it did.
std::string out_of_memory_message();

}  // namespace bcastsim::tb
