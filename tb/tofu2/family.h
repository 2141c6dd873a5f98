// Tofu2's TNIs as an offload family (tb/offload_family.h): every terminal's NIC is a TNI
// (hw/tofu2/tni.h), the k-th terminal of a router being its node's TNI k; every rank of a
// Tofu2 broadcast gets a driver (hw/tofu2/driver.h) running its persistent calls over its
// node's TNIs. result.json gets `tofu2`.
#pragma once

#include "algorithms/tofu2_bcast.h"
#include "hw/tofu2/driver.h"
#include "hw/tofu2/tni.h"
#include "tb/offload_family.h"

namespace bcastsim::tb::tofu2 {

struct settings {
  algorithms::tofu2_options options;  // tofu2.mode, tofu2.segments, build cost
  hw::tofu2::tni_params tni;
  hw::tofu2::driver_params driver;
};

// Reads and checks the tofu2.* keys (throws config_error naming the key).
settings read_settings(const config& cfg, const scenario& s);

offload_family family();

}  // namespace bcastsim::tb::tofu2
