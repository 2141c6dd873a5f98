// Tofu frames: how the put engine cuts a put into packets and how many bytes each takes on a
// link (FACTS §4, from tof_icc.h): an 8-B routing header, then a TLP of (len + 1) x 32 B with
// len <= 61, so at most 1984 B, which ends with a 4-B ECRC: at most 1980 B of payload. The
// smallest frame is 8 + 3 x 32 B. The sources give no RDMA header inside the TLP, so none is
// counted: a full frame is 1992 B on the wire for 1980 B of payload (99.4 %).
#pragma once

#include <cstdint>

namespace bcastsim::hw::tofu2 {

struct frame_format {
  uint32_t routing_header_bytes = 8;
  uint32_t ecrc_bytes = 4;
  uint32_t align_bytes = 32;
  uint32_t max_tlp_bytes = 1984;
  uint32_t min_tlp_bytes = 96;

  uint32_t max_payload_bytes() const { return max_tlp_bytes - ecrc_bytes; }
  // Frames of a put of `length` bytes: at least one (an empty put still carries its SPS).
  uint64_t frames(uint64_t length) const {
    return length == 0 ? 1 : (length + max_payload_bytes() - 1) / max_payload_bytes();
  }
  // Payload of frame k of a put of `length` bytes: full frames, then the rest.
  uint32_t payload(uint64_t length, uint64_t k) const {
    const uint64_t left = length - k * max_payload_bytes();
    return static_cast<uint32_t>(left < max_payload_bytes() ? left : max_payload_bytes());
  }
  // Bytes on the wire of a frame carrying `payload` bytes.
  uint32_t wire_bytes(uint32_t payload) const {
    uint32_t tlp = (payload + ecrc_bytes + align_bytes - 1) / align_bytes * align_bytes;
    if (tlp < min_tlp_bytes) tlp = min_tlp_bytes;
    return routing_header_bytes + tlp;
  }
};

}  // namespace bcastsim::hw::tofu2
