// Transparent huge pages for a run's heap. A network's blocks lie spread over tens to hundreds
// of MiB that every packet-hop touches almost at random; on 4 KiB pages most of those touches
// miss the TLB. glibc's malloc puts its heap on transparent huge pages when its tunable
// glibc.malloc.hugetlb=1 asks, which it reads only at start-up; so `run` executes itself again
// once with the tunable set (measured in bench/README.md: about 15 % less time on the
// 5,256-terminal dragonfly with background traffic, 4 to 6 % on the 16,512-terminal
// broadcasts; results the same).
#pragma once

namespace bcastsim::tb {

// Executes this program again, under its own name, with the same arguments and
// glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES. It does nothing, and returns, when
// GLIBC_TUNABLES already names glibc.malloc.hugetlb (the user's choice), the process is
// already that second execution, the kernel has transparent huge pages off, the process runs
// under valgrind or was built with a sanitizer (their allocators are not glibc's), or the
// execution fails.
void run_on_huge_pages(char* argv[]);

// The process's anonymous memory on transparent huge pages now, in MiB (AnonHugePages of
// /proc/self/smaps_rollup; 0 when it cannot be read): result.json's perf.huge_pages_mb.
double huge_pages_mb();

}  // namespace bcastsim::tb
