#include "tlm/trace_window.h"

#include <fstream>
#include <iterator>

namespace bcastsim::tlm_net {

bool vcd_complete(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return !in.bad() && !text.empty() && text.back() == '\n' &&
         text.find("$enddefinitions") != std::string::npos;
}

}  // namespace bcastsim::tlm_net
