// A FIFO of trivially copyable items on a power-of-two ring that only grows: after warm-up
// a queue of packets costs no allocation per push.
#pragma once

#include <cstdint>
#include <memory>

namespace bcastsim::tlm_net {

template <class T>
class ring {
 public:
  bool empty() const { return m_head == m_tail; }
  uint32_t size() const { return m_tail - m_head; }
  T& front() { return m_data[m_head & m_mask]; }
  const T& front() const { return m_data[m_head & m_mask]; }
  T& at(uint32_t i) { return m_data[(m_head + i) & m_mask]; }
  const T& at(uint32_t i) const { return m_data[(m_head + i) & m_mask]; }
  void push(const T& v) {
    if (size() == m_cap) grow();
    m_data[m_tail++ & m_mask] = v;
  }
  T pop() { return m_data[m_head++ & m_mask]; }

 private:
  void grow() {
    const uint32_t cap = m_cap ? 2 * m_cap : 8;
    std::unique_ptr<T[]> data(new T[cap]);
    for (uint32_t i = 0; i < size(); ++i) data[i] = at(i);
    m_tail = size();
    m_head = 0;
    m_data = std::move(data);
    m_cap = cap;
    m_mask = cap - 1;
  }
  std::unique_ptr<T[]> m_data;
  uint32_t m_cap = 0, m_mask = 0, m_head = 0, m_tail = 0;
};

}  // namespace bcastsim::tlm_net
