// The watchdog: a fabric that stops having events while work is left (deadlock, exhausted
// resource), or that is still busy at the simulated-time limit, has stalled. Idle blocks cost
// nothing, so the check runs once, when sc_start returns, and names what is stuck: block,
// port, VC, credits, the rank and the message it waits for.
#pragma once

#include "hw/nic/host.h"
#include "tb/config.h"
#include "tb/fabric.h"

#include <string>

namespace bcastsim::tb {

// Empty when the run finished cleanly: every op of every rank done, every rank holding
// every byte (exactly once when the algorithm's contract says so), every injected packet delivered,
// no packet left in the pool. Otherwise the diagnosis.
std::string check_finished(const fabric& fab, const hw::collective_progress& progress,
                           const scenario& s);

}  // namespace bcastsim::tb
