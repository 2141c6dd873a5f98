// Transparent huge pages for a run's heap. A network's blocks lie spread over tens to hundreds
// of MiB that every packet-hop touches almost at random; on 4 KiB pages most of those touches
// miss the TLB. glibc's malloc puts its heap on transparent huge pages when its tunable
// glibc.malloc.hugetlb=1 asks, which it reads only at start-up; so `run` executes itself again
// once with the tunable set (measured in bench/README.md: 13 to 24 % less time on the
// 5,256-terminal dragonfly with background traffic; results the same).
#pragma once

namespace bcastsim::tb {

// Executes /proc/self/exe again with the same arguments and glibc.malloc.hugetlb=1 added to
// GLIBC_TUNABLES. It does nothing, and returns, when GLIBC_TUNABLES already names
// glibc.malloc.hugetlb (the user's choice, or the process is that second execution), the
// kernel has transparent huge pages off, the process runs under valgrind or was built with a
// sanitizer (their allocators are not glibc's), or the execution fails.
void run_on_huge_pages(char* argv[]);

// Whether this process's heap is on transparent huge pages: glibc.malloc.hugetlb=1 in
// GLIBC_TUNABLES and the kernel offering them (result.json's perf.heap_huge_pages).
bool heap_on_huge_pages();

}  // namespace bcastsim::tb
