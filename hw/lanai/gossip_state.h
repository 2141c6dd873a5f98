// The collective engine's state inside one LANai NIC (hw/lanai/nic.h, hw/lanai/gossip.cpp):
// one gm_gossip request at a time, NIC-CB or NIC-RD (algorithms/lanai_gossip.h).
#pragma once

#include "algorithms/lanai_gossip.h"
#include "hw/lanai/nic.h"
#include "tlm/ring.h"

#include <cstdint>
#include <vector>

namespace bcastsim::hw::lanai {

struct nic::gossip_state {
  // A packet the LANai is to send: its destination, fields and which bytes of the buffer.
  struct pending {
    network::terminal_id to = network::invalid_id;
    packet_fields fields;
    uint32_t payload = 0;
    uint64_t offset = 0;  // in the collective buffer
    uint32_t index = 0, count = 1;
    bool forward = false;  // from a receive buffer (NIC-CB's fast forwarding)
    bool resend = false;   // in answer to a NACK
  };

  gossip_request req;
  gossip_client* client = nullptr;
  bool active = false;
  bool done_event = false;  // the completion event is on its way to the host
  uint32_t n = 0;
  uint32_t me = 0;
  uint32_t dma_writes = 0;  // received data on its way to host memory
  tlm_net::ring<pending> sends;
  // Receiver-driven recovery: when this NIC NACKs what it still misses of the running
  // operation or step (sc_max_time: no timer), and what it passed up the tree this round.
  sc_core::sc_time deadline = sc_core::sc_max_time();
  std::vector<bool> nacked_up;  // [origin] (NIC-CB)
  // Recovery traffic not yet on the link: no new NACK round while this NIC's NACKs wait, and
  // no resend to a NIC while one to it waits (a short timeout would queue them without bound).
  uint32_t queued_nacks = 0;
  std::vector<uint32_t> queued_resends;  // [member]

  // NIC-CB: the block in operations of at most one packet each (the paper: "larger all-to-all
  // broadcast messages have to be fragmented and completed with multiple all-to-all broadcast
  // operations"); each has its arrival record and runs once the previous one completed here.
  uint32_t ops = 1;
  uint32_t op = 0;
  bool own_sent = false;  // this operation's own packet is on its way
  std::vector<algorithms::lanai::arrival_record> arrived;  // [op]
  algorithms::lanai::buffer_channels channels;

  // NIC-RD.
  std::vector<algorithms::lanai::rd_step> steps;
  uint32_t step = 0;
  bool own_ready = false;  // the host's block is in SRAM
  bool step_sent = false;
  std::vector<uint32_t> step_packets;  // [step] packets received from the step's peer
  std::vector<algorithms::lanai::arrival_record> step_got;  // [step] by packet index
  uint64_t unflushed_bytes = 0;  // received data kept in the NIC, not yet in host memory

  uint64_t frag_bytes(uint32_t k) const {
    const uint64_t mtu = mtu_bytes;
    const uint64_t first = uint64_t{k} * mtu;
    if (first >= req.block_bytes) return 0;
    const uint64_t left = req.block_bytes - first;
    return left < mtu ? left : mtu;
  }
  uint32_t mtu_bytes = 4096;
};

}  // namespace bcastsim::hw::lanai
