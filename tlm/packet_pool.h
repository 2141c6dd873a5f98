// The memory manager of the network protocol: packets are carved from chunks and recycled
// through a free list, so steady-state simulation allocates nothing per packet.
// One pool per fabric (no globals).
#pragma once

#include "tlm/packet.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace bcastsim::tlm_net {

class packet_pool {
 public:
  explicit packet_pool(uint32_t chunk_packets = 4096) : m_chunk(chunk_packets) {}
  packet_pool(const packet_pool&) = delete;
  packet_pool& operator=(const packet_pool&) = delete;

  // A packet in its default state.
  packet* acquire();
  void release(packet* p);

  uint64_t in_use() const { return m_in_use; }
  uint64_t peak_in_use() const { return m_peak; }
  uint64_t capacity() const { return m_capacity; }
  uint64_t acquired_total() const { return m_acquired; }

 private:
  void grow();

  uint32_t m_chunk;
  std::vector<std::unique_ptr<packet[]>> m_chunks;
  packet* m_free = nullptr;
  uint64_t m_in_use = 0;
  uint64_t m_peak = 0;
  uint64_t m_capacity = 0;
  uint64_t m_acquired = 0;
};

}  // namespace bcastsim::tlm_net
