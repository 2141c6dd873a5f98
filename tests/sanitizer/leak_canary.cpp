// A known leak, to show the leak checker of the sanitizer build is alive (tests/CMakeLists.txt,
// BCASTSIM_SANITIZE). Inside a SystemC thread, as the suite's tests run: one block is lost, one
// is held only by a local of the thread's stack while LeakSanitizer checks. A checker that
// scans stacks reports the first and not the second; one told not to (use_stacks=0) reports
// both. Built at -O0 so the locals stay on the stack.
#include <sanitizer/lsan_interface.h>
#include <systemc>

#include <cstdio>
#include <cstdlib>

namespace {

// The names are what the tests look for in the leak report's allocation stacks.
__attribute__((noinline)) void* leak_canary_lost_block() {
  return std::malloc(4096);
}
__attribute__((noinline)) void* leak_canary_held_block() {
  return std::malloc(8192);
}

SC_MODULE(canary){SC_CTOR(canary){SC_THREAD(body);
}  // namespace

void body() {
  void* volatile lost = leak_canary_lost_block();
  lost = nullptr;
  void* volatile held = leak_canary_held_block();
  const int found = __lsan_do_recoverable_leak_check();
  std::printf("leak_canary: the check found leaks: %s\n", found ? "yes" : "no");
  std::free(held);
}
}
;

}  // namespace

int sc_main(int, char*[]) {
  canary c("canary");
  sc_core::sc_start();
  return 0;
}
