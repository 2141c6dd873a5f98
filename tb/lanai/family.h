// LANai NICs on Myrinet (Yu, Panda, Buntinas; hw/lanai/nic.h) as an offload family
// (tb/offload_family.h): a LANai NIC in place of the host NIC of every terminal, for the
// NIC-based all-to-all broadcasts (nic-cb, nic-rd) and, with nic.kind: lanai, for every
// host-based collective too (over GM). result.json gets `lanai`:
//   retransmissions, timeouts, nacks, acks, duplicates, forwards   summed over the NICs
//   pci_bytes_to_nic, pci_bytes_to_host, lanai_busy_ns, pci_busy_ns summed over the NICs
// The hosts' CPU (every run's result.json `host`: cpu_busy_ns per rank, cpu_utilization over
// the simulated time; a host waiting for its NIC is idle there, a real MPI library polls).
#pragma once

#include "tb/offload_family.h"

namespace bcastsim::tb::lanai {

offload_family family();

}  // namespace bcastsim::tb::lanai
