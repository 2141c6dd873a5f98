// `bcastsim list`: topologies with their routings and keys, algorithms, block statistics and
// every scenario key, as tables of plain numbers (no exponents), from the declarations.
#pragma once

#include <iosfwd>

namespace bcastsim::tb {

int list_command(std::ostream& os);

}  // namespace bcastsim::tb
