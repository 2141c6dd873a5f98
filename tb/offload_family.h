// The registry of offload families: the hardware that takes a collective off the hosts
// (Ragasa's Bcast Units in the routers today; Tofu2's TNI and a LANai NIC next). A family
// declares its keys, checks them, attaches its blocks to the fabric (to a router's attached
// port through a routing hook, beside a NIC, or in place of the host NIC through the NIC
// interface), and says what the run reports of it: its result.json section, its terms in the
// watchdog's packet conservation, its stall diagnosis, its sweep columns, its CLI summary
// rows, its statistics and its traceable blocks. A new family is its own folders (hw/NAME/,
// tb/NAME/) plus one line in offload_family.cpp; nothing in the fabric, the simulation, the
// watchdog, the sweep or the CLI changes for it.
#pragma once

#include "algorithms/program.h"
#include "algorithms/ragasa_tree.h"
#include "hw/nic/host.h"
#include "hw/nic/nic.h"
#include "hw/router/router.h"
#include "network/params.h"
#include "network/placement.h"
#include "network/routing.h"
#include "tlm/packet_pool.h"
#include "tlm/statistics.h"
#include "tlm/trace_window.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace bcastsim::tb {

class config;
class fabric;
struct scenario;

// What one family adds to one run; lives as long as the fabric.
class offload_instance {
 public:
  virtual ~offload_instance() = default;
  // The family's name: its result.json section.
  virtual std::string name() const = 0;

  // How the family's block hangs on every router; `present` false: it attaches none.
  virtual hw::router_params::attached_port router_attachment() const { return {}; }
  // The NIC of terminal t, when the family's stands in place of the host NIC (through the
  // NIC interface, hw/nic/nic.h); nullptr: the host NIC.
  virtual std::unique_ptr<hw::nic> make_nic(const char* /*name*/, network::terminal_id /*t*/,
                                            tlm_net::packet_pool& /*pool*/) {
    return nullptr;
  }
  // Elaboration, once routers, NICs and hosts exist: makes and binds the family's blocks.
  // Throws config_error for a scenario the family cannot build.
  virtual void attach(fabric& fab) = 0;
  // End of simulation (e.g. a recording to finish). Throws config_error.
  virtual void finish() {}
  // A terminal without a rank that the family's hardware uses (Tofu2: a rank's other TNIs):
  // background traffic leaves it alone.
  virtual bool uses_terminal(network::terminal_id /*t*/) const { return false; }

  // Packet conservation: the family's blocks take packets out of the network (delivered)
  // and put copies in (injected).
  virtual void count_packets(uint64_t& injected, uint64_t& delivered) const = 0;
  // No work left in the family's blocks (set-up included).
  virtual bool idle() const = 0;
  // What is stuck, one line per block, at most `max` blocks; returns how many it wrote.
  virtual uint32_t describe_stall(std::ostream& os, uint32_t max) const = 0;
  // Packet-hops on the family's own links (perf.packet_hops).
  virtual uint64_t packet_hops() const = 0;

  // result.json's section named after the family.
  virtual nlohmann::json report() const = 0;
  // output.block_stats: every block's declared statistics, by block name.
  virtual void add_block_stats(nlohmann::json& blocks) const = 0;
  // `bcastsim list`: one block of each kind, (kind, statistics).
  virtual void list_statistics(
      const std::function<void(const char*, const tlm_net::stat_group&)>& show) const = 0;

  // Waveforms: traces block `name` if it is the family's; false if it is not.
  virtual bool trace(const tlm_net::trace_window& window, const std::string& name) = 0;
  // The block names trace() accepts, for the error naming the allowed ones.
  virtual std::string traceable() const = 0;
};

// What a family is built from.
struct offload_context {
  const scenario& s;
  const network::topology& topo;
  const network::routing_policy& routing;
  const network::placement& place;
  const algorithms::schedule& sched;  // prog.sched
  const algorithms::program& prog;
  // When each instance started and each member came to hold every byte (the hosts fill it).
  const hw::collective_progress& progress;
  // `bcastsim run --record-unit-inputs FILE`: record what enters the family's units (a
  // family without units refuses it).
  const std::string& record_inputs;
};

using summary_row = std::function<std::ostream&(const char* name)>;

// `bcastsim analyze`: where a family reports the messages its hardware sends by itself.
struct hardware_sink {
  // One message of `packets` packets from terminal src to terminal dst, routed as the NICs
  // route it (Tofu2's puts, the LANai NICs' gossip packets).
  std::function<void(network::terminal_id src, network::terminal_id dst, uint64_t packets)>
      between_terminals;
  // `packets` packets, each its own message, over the cable between neighbouring routers
  // (the Galaxyfly engines' forwards); no terminal link and no delivered packet.
  std::function<void(network::router_id from, network::router_id to, uint64_t packets)>
      between_routers;
};

struct offload_family {
  std::string name;  // its keys' section (NAME.*) and its result.json section
  std::string description;
  // `nic.kind: NAME` puts the family's NIC in place of every host NIC, whatever the
  // collectives (host-based ones then run over it too): a family whose make_nic() serves
  // every terminal.
  bool nic_kind = false;
  // `bcastsim run --record-unit-inputs FILE` records what enters the family's units (for
  // `bcastsim cosim --replay`); a family without it refuses the flag.
  bool records_unit_inputs = false;
  std::vector<params::decl> params;  // NAME.* keys
  // Cross-key checks of a scenario whose algorithm uses the family (before elaboration).
  // Throws config_error naming the key.
  void (*check)(const config& cfg, const scenario& s) = nullptr;
  std::unique_ptr<offload_instance> (*create)(const offload_context& ctx) = nullptr;
  // result.json paths the sweep's CSV adds when a result has the family's section.
  std::vector<std::string> sweep_columns;
  // The CLI summary rows, from the family's result.json section.
  void (*summary)(const nlohmann::json& section, const summary_row& row) = nullptr;
  // `bcastsim analyze`: the tree along which the family's hardware replicates the
  // offload_bcast of communicator rank `sender` in the broadcast rooted at communicator rank
  // `root` over `place` (the communicator's placement). Each edge carries the data once;
  // a terminal child not attached to its router is reached by routing (Ragasa's nodes
  // relaying). algorithms/ragasa_tree.h for the form. Throws std::invalid_argument if it
  // cannot be built. nullptr: analyze refuses the family's schedules.
  algorithms::ragasa_tree (*replication_tree)(const scenario& s, const network::topology& topo,
                                              const network::placement& place, uint32_t root,
                                              uint32_t sender) = nullptr;
  // `bcastsim analyze`: the checks `run` makes when it builds the family's hardware for
  // the program (e.g. Ragasa: every Mini Packet fits one packet, the Membership Tables hold
  // the run's broadcasts), so both refuse the same scenario with the same message. Throws
  // config_error. nullptr: none.
  void (*check_hardware)(const scenario& s, const network::topology& topo,
                         const network::placement& place,
                         const algorithms::program& prog) = nullptr;
  // `bcastsim analyze`: the family's own account of the scenario's collectives, without
  // SystemC (e.g. galaxy: its plan's deliveries and redundant packets), under its name in
  // analyze's result; an empty object: nothing to add. Throws config_error. nullptr: none.
  nlohmann::json (*analyze)(const scenario& s, const network::topology& topo,
                            const network::placement& place,
                            const algorithms::program& prog) = nullptr;
  // `bcastsim analyze`: every message the family's hardware sends by itself, which no host
  // op shows, so analyze's traversals count them as run's do (its link model does not time
  // them: the makespans are then not given). nullptr: none.
  void (*hardware_messages)(const scenario& s, const network::topology& topo,
                            const network::placement& place, const algorithms::program& prog,
                            const hardware_sink& sink) = nullptr;
  // `bcastsim analyze`: the most data bytes one packet of the family's NICs carries, where
  // they cut messages otherwise than the host NIC (a LANai's GM MTU, a Tofu frame). nullptr:
  // network.packet_bytes.
  uint64_t (*nic_payload_bytes)(const scenario& s) = nullptr;
};

// Every registered family.
const std::vector<offload_family>& offload_families();
// The family the algorithm's schedules need (algorithm_info::offload); nullptr: none.
const offload_family* family_of_algorithm(const std::string& algorithm);
// The family the scenario needs: the one nic.kind names, else the first its collectives
// name; nullptr: none.
const offload_family* family_of_scenario(const scenario& s);
// Refuses --record-unit-inputs (config_error naming it, with the algorithms that record)
// unless `f` records its units' inputs. `algorithm`: the scenario's, for the message.
void check_records_unit_inputs(const offload_family* f, const std::string& algorithm);

}  // namespace bcastsim::tb
