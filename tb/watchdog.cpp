#include "tb/watchdog.h"

#include <sstream>

namespace bcastsim::tb {

namespace {

// What is left and stuck when the run did not finish: the reason (time limit or nothing
// pending), the packet counts, then the blocks holding work.
void describe_stall(std::ostream& os, const fabric& fab, const scenario& s, uint64_t injected,
                    uint64_t delivered, uint64_t buffered) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (sc_core::sc_pending_activity()) {
    os << "stalled: the simulated-time limit sim.max_time_ns = " << s.max_time_ns
       << " was reached with work left";
  } else {
    os << "stalled at " << now.to_string() << ": no event is pending but work is left (deadlock "
       << "or exhausted resource)";
  }
  uint64_t dropped = 0;
  for (const auto& l : fab.links) dropped += l->dropped.value;
  os << "; packets injected " << injected << ", delivered " << delivered - dropped
     << ", lost by fault injection " << dropped << ", in routers " << buffered
     << ", in the pool " << fab.pool.in_use() << "\n";
  const uint32_t max_blocks = 12;
  uint32_t shown = 0;
  // The offload blocks first, with half the budget: a deadlock of their resources shows
  // there (routers then only hold what waits for them).
  for (const auto& o : fab.offloads) {
    shown += o->describe_stall(os, shown < max_blocks / 2 ? max_blocks / 2 - shown : 0);
  }
  for (const auto& r : fab.routers) {
    if (shown >= max_blocks) break;
    if (r->buffered_packets() && r->describe_stall(os, 4)) ++shown;
  }
  for (const auto& n : fab.nics) {
    if (shown >= max_blocks) break;
    if (n->describe_stall(os)) ++shown;
  }
  for (const auto& h : fab.hosts) {
    if (shown >= max_blocks) break;
    if (h->describe_stall(os)) ++shown;
  }
}

}  // namespace

std::string check_finished(const fabric& fab, const hw::collective_progress& progress,
                           const scenario& s) {
  std::ostringstream os;
  if (!progress.errors.empty()) {
    os << "broken invariant:";
    for (const std::string& e : progress.errors) os << "\n  " << e;
    return os.str();
  }
  // Offload blocks (Bcast Units) take packets out of the network and inject their copies:
  // for conservation they are both a destination and a source.
  uint64_t injected = 0, delivered = 0;
  for (const auto& n : fab.nics) {
    injected += n->packets_injected.value;
    delivered += n->packets_delivered.value;
  }
  bool offloads_idle = true;
  for (const auto& o : fab.offloads) {
    o->count_packets(injected, delivered);
    offloads_idle = offloads_idle && o->idle();
  }
  bool hosts_done = true;
  for (const auto& h : fab.hosts) hosts_done = hosts_done && h->finished();
  uint64_t buffered = 0;
  for (const auto& r : fab.routers) buffered += r->buffered_packets();
  // Packets lost on purpose (fault.*) were injected and will never be delivered.
  uint64_t dropped = 0;
  for (const auto& l : fab.links) dropped += l->dropped.value;
  delivered += dropped;
  bool nics_idle = true;
  for (const auto& n : fab.nics) nics_idle = nics_idle && n->idle();

  if (hosts_done && nics_idle && offloads_idle && buffered == 0 && injected == delivered &&
      fab.pool.in_use() == 0) {
    // Credits are conserved: every byte spent at an output is home or on its way back.
    for (const auto& r : fab.routers) {
      for (uint32_t port = 0; port < r->radix(); ++port) {
        if (r->unreturned_credit_bytes(port) != 0) {
          os << "broken invariant: " << r->name() << " output port " << port << " lost "
             << r->unreturned_credit_bytes(port) << " credit bytes";
          return os.str();
        }
      }
    }
    // Finished: every member of every instance must now hold its whole buffer; under an
    // exactly-once contract it received each byte it did not hold once, and none it held.
    const algorithms::program& prog = *progress.prog;
    for (size_t rank = 0; rank < fab.hosts.size(); ++rank) {
      const hw::host& h = *fab.hosts[rank];
      for (size_t k = 0; k < h.memberships(); ++k) {
        const algorithms::instance_info& inst = prog.instances[h.instance_of(k)];
        const std::string which = prog.instances.size() == 1
                                      ? std::string()
                                      : " of " + s.collective_keys[inst.collective] +
                                            " (repetition " + std::to_string(inst.repetition) + ")";
        if (h.covered_bytes(k) != inst.buffer_bytes) {
          os << "broken invariant: rank " << rank << " holds " << h.covered_bytes(k)
             << " distinct bytes" << which << ", expected " << inst.buffer_bytes;
          return os.str();
        }
        const uint64_t want = inst.buffer_bytes - inst.own[h.member_of(k)].size();
        // Offload hardware owes every byte once too (delivery::hardware).
        if (inst.contract != algorithms::delivery::at_least_once && h.received_bytes(k) != want) {
          os << "broken invariant: rank " << rank << " received " << h.received_bytes(k) << " bytes"
             << which << ", expected " << want << " (each byte exactly once)";
          return os.str();
        }
      }
    }
    return {};
  }

  describe_stall(os, fab, s, injected, delivered, buffered);
  std::string out = os.str();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace bcastsim::tb
