// Ragasa's in-router broadcast offload as an offload family (tb/offload_family.h): every
// router gets a Bcast Unit (hw/ragasa) on its attached port, joined by a link each way, with
// Ragasa's routing hook; a management node sends each participating router its Mini Packet
// (the tree of algorithms/ragasa_tree.h); the hosts' offload ops wait for that set-up.
// result.json gets `ragasa.setup`, `ragasa.units` and `ragasa.broadcasts` (each broadcast's
// set-up beside its data, tb/ragasa/report.h).
#pragma once

#include "algorithms/ragasa_tree.h"
#include "hw/ragasa/bcast_unit_base.h"
#include "hw/ragasa/manager.h"
#include "hw/ragasa/unit_factory.h"
#include "tb/offload_family.h"
#include "tlm/link.h"

namespace bcastsim::tb::ragasa {

// The family's settings, read from the ragasa.* keys and the network's.
struct settings {
  hw::ragasa::unit_model model = hw::ragasa::unit_model::systemc;
  hw::ragasa::bcast_unit_params unit;
  tlm_net::link_params port;  // each direction of the unit's router port
  hw::ragasa::manager_params manager;
  // Terminal of the management node; invalid_id = the root rank's terminal.
  uint32_t management_terminal = network::invalid_id;
  algorithms::ragasa_relay relay = algorithms::ragasa_relay::node;  // ragasa.relay
};

// Reads and checks the settings (throws config_error naming the key). `used`: the scenario's
// algorithm needs the units, so their sizes must fit the network.
settings read_settings(const config& cfg, const scenario& s, bool used = true);

offload_family family();

}  // namespace bcastsim::tb::ragasa
