// Test helper shared by the hw benches: records whole messages as a NIC hands them to its
// client, with the time they arrived.
#pragma once

#include "hw/nic/host_nic.h"

#include <systemc>
#include <vector>

namespace bcastsim::test {

class message_log final : public hw::nic_client {
 public:
  struct entry {
    uint64_t at_ps;
    network::terminal_id src;
    uint32_t tag;
    uint64_t offset;
    uint64_t bytes;
    uint32_t seq;
  };
  std::vector<entry> got;
  void on_message(network::terminal_id src, uint32_t /*collective_id*/, uint32_t tag,
                  uint64_t offset, uint64_t bytes, uint32_t seq) override {
    got.push_back(entry{sc_core::sc_time_stamp().value(), src, tag, offset, bytes, seq});
  }
};

}  // namespace bcastsim::test
