#include "tlm/packet.h"

#include <ostream>

namespace bcastsim::tlm_net {

const char* to_string(packet_kind k) {
  switch (k) {
    case packet_kind::data:
      return "data";
    case packet_kind::control:
      return "control";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, const packet& p) {
  os << "packet{" << to_string(p.kind) << " " << p.src << "->" << p.dst;
  if (p.offload.family != 0) os << " (offload family " << unsigned(p.offload.family) << ")";
  return os << " msg " << p.msg_id << " tag " << p.tag << " pkt " << p.index << "/" << p.count
            << " " << p.size_bytes << " B vc " << static_cast<unsigned>(p.vc) << " routers "
            << p.routers << "}";
}

}  // namespace bcastsim::tlm_net
