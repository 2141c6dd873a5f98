// The study's `plots` list, checked while the study is read (before any point runs): each plot
// has a kind scripts/plot_sweep.py draws, only the keys that kind reads, the keys it needs, and
// names columns results.csv can have. A typo then exits 2 at once instead of after the sweep.
#pragma once

#include "tb/sweep/study.h"

namespace bcastsim::tb::sweep {

// Throws config_error naming plots[i].key and what is allowed.
void check_plots(const study& s);

}  // namespace bcastsim::tb::sweep
