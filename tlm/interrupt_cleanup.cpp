#include "tlm/interrupt_cleanup.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>

namespace bcastsim::tlm_net {

namespace {

// A signal handler can reach only static storage, and may only call async-signal-safe
// functions (unlink, raise; lock-free atomics): fixed slots, each a path and its state, so
// writers on several threads (concurrent atomic_files) never share one.
enum slot_state : int { k_free, k_claimed, k_ready };
struct slot {
  std::atomic<int> state{k_free};
  char path[4096] = {};
};
static_assert(std::atomic<int>::is_always_lock_free);
std::array<slot, 64> g_slots;

extern "C" void on_stop_signal(int sig) {
  for (slot& s : g_slots) {
    if (s.state.load() == k_ready) unlink(s.path);
  }
  // SA_RESETHAND restored the default action: the signal, raised again, ends the process
  // once this handler returns, as it would have without one.
  raise(sig);
}

}  // namespace

void install_interrupt_cleanup() {
  const int signals[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (const int sig : signals) sigaddset(&sa.sa_mask, sig);  // one handler at a time
  for (const int sig : signals) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (old.sa_handler != SIG_IGN) sigaction(sig, &sa, nullptr);  // under nohup: stay immune
  }
}

removed_if_interrupted::removed_if_interrupted(const std::string& path) {
  if (path.size() >= sizeof(slot::path)) return;
  for (size_t i = 0; i < g_slots.size(); ++i) {
    slot& s = g_slots[i];
    int expected = k_free;
    if (!s.state.compare_exchange_strong(expected, k_claimed)) continue;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.state.store(k_ready);
    m_slot = static_cast<int>(i);
    return;
  }
}

void removed_if_interrupted::release() {
  if (m_slot < 0) return;
  g_slots[static_cast<size_t>(m_slot)].state.store(k_free);
  m_slot = -1;
}

}  // namespace bcastsim::tlm_net
