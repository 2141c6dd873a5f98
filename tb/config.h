// Scenario configuration: one schema of every key (type, default, range or allowed values,
// unit in the name, description), a YAML loader and `--set key=value` overrides checked
// against it, and the typed scenario the rest of the program reads.
// Any bad input throws config_error naming the key; the CLI turns it into exit code 2.
#pragma once

#include "algorithms/program.h"
#include "hw/nic/host.h"
#include "hw/nic/host_nic.h"
#include "hw/router/router.h"
#include "network/params.h"
#include "network/placement.h"
#include "tlm/link.h"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace bcastsim::tb {

struct config_error : std::runtime_error {
  config_error(std::string key, const std::string& what)
      : std::runtime_error(what), key(std::move(key)) {}
  std::string key;
};

using value_type = params::value_type;
using key_info = params::decl;

// Every key bcastsim understands, in documentation order: the keys of every kind of
// topology (owner = the kind; a key such as routing.kind or link.terminal.latency_ns is
// declared by each kind, with that kind's default and allowed values), then the rest
// (owner empty), made from the declarations beside the blocks.
const std::vector<key_info>& schema();
// The declaration of `key` for topology kind `kind`; nullptr if that kind has no such key.
// An entry key collectives.N.X is declared by collective.X (tb/collective_keys.h).
const key_info* find_key(const std::string& key, const std::string& kind);
// The keys that apply to a scenario of topology kind `kind`, each once, in schema order.
std::vector<const key_info*> keys_of_kind(const std::string& kind);

// A configuration: the keys given (file, --set) as text; every other key reads as its
// default for the scenario's topology kind.
class config final : public params::values {
 public:
  config() = default;  // all defaults
  static config from_yaml_file(const std::string& path);
  static config from_yaml_text(const std::string& text, const std::string& origin);

  // `key=value`, value as YAML scalar text.
  void set(const std::string& assignment);
  void set(const std::string& key, const std::string& value);

  const std::string& text(const std::string& key) const override;
  using params::values::real;
  using params::values::uint;

  // topology.kind as given, else the default.
  const std::string& kind() const;
  // Every given key must belong to the scenario's topology kind and hold a value allowed
  // for it; throws config_error naming the key (and the kind the key belongs to).
  void check() const;
  // Every key of the scenario's kind with its value (given or default), and with
  // collectives: every entry's keys collectives.N.X (given or from collective.X).
  std::map<std::string, std::string> values() const;
  const std::map<std::string, std::string>& given() const { return m_given; }

 private:
  std::map<std::string, std::string> m_given;
};

// Traffic generators (hw/traffic): background traffic beside a broadcast, or synthetic
// traffic (uniform, adversarial) without a collective.
struct traffic_config {
  std::string kind = "none";  // none | background | uniform | adversarial
  uint64_t message_bytes = 1024;
  double mean_interarrival_ns = 750;  // background
  double load = 0.1;                  // synthetic: fraction of the terminal link bandwidth
  double warmup_ns = 10000;
  double measure_ns = 50000;
  uint64_t max_queue_messages = 10000;
  bool synthetic() const { return kind == "uniform" || kind == "adversarial"; }

  // The scenario keys, declared once: see network/params.h.
  template <class V>
  void visit(V& v) {
    v.choice("traffic.kind", kind, {"none", "background", "uniform", "adversarial"},
             "traffic generators: background = terminals outside the job send to each other "
             "until the broadcast completes; uniform = every terminal to a random other "
             "terminal; adversarial = group i to a random terminal of group i+1 (both need "
             "collective.algorithm = none)");
    v.field("traffic.message_bytes", message_bytes, 1, 1073741824.0,
            "bytes of each traffic message");
    v.field("traffic.mean_interarrival_ns", mean_interarrival_ns, 1e-3, 1e12,
            "background: mean of the exponential time between a terminal's messages");
    v.field("traffic.load", load, 1e-6, 1,
            "uniform/adversarial: offered load per terminal, fraction of the terminal link "
            "bandwidth (Poisson arrivals)");
    v.field("traffic.warmup_ns", warmup_ns, 0, 1e15,
            "uniform/adversarial: time before the measurement window");
    v.field("traffic.measure_ns", measure_ns, 1e-3, 1e15,
            "uniform/adversarial: measurement window; generation stops at its end, then the "
            "network drains");
    v.field("traffic.max_queue_messages", max_queue_messages, 1, 1e9,
            "a terminal offering a message while this many wait in its NIC drops it "
            "(traffic.dropped_at_source)");
  }
};

// Everything a run needs, typed; built from a config after cross-key validation.
struct scenario {
  uint64_t seed = 1;
  config cfg;  // the checked configuration: the topology kind builds its topology from it
  std::string topology_kind = "dragonfly";
  std::string routing = "minimal";
  network::placement_params job;
  std::string algorithm = "binomial";
  uint32_t root = 0;  // communicator rank; drawn from the seed when random_root = on
  bool random_root = false;
  uint64_t bytes = 16384;
  // The run's collectives: collective.* alone (one), or the list collectives: (its entries
  // keys collectives.N.*, see tb/collective_keys.h); algorithm/root/random_root/bytes above
  // mirror the first. Empty with algorithm none. collective_keys[i]: spec i's key prefix
  // ("collective" or "collectives.i"), for messages; collective_names[i]: its label for
  // results (collective.name, else the prefix).
  std::vector<algorithms::collective_spec> collectives;
  std::vector<std::string> collective_keys;
  std::vector<std::string> collective_names;
  // [link class]: the classes the kind declares, completed by make_plan with those its
  // topology brings (a graph file's).
  std::vector<tlm_net::link_params> links;
  hw::router_params router;
  hw::nic_params nic;
  std::string nic_kind = "host";  // nic.kind: host, or a family standing in for every NIC
  hw::host_params host;
  traffic_config traffic;
  double max_time_ns = 0;
  double fault_drop_rate = 0;     // fault.drop_rate
  std::string fault_drop_packet;  // fault.drop_packet
  bool faults() const { return fault_drop_rate > 0 || !fault_drop_packet.empty(); }
  std::string vcd_file;
  std::vector<std::string> trace_blocks;
  double trace_start_ns = 0;
  double trace_end_ns = 0;
  bool block_stats = false;
  bool link_traffic = false;  // output.link_traffic
};

// The keys `cfg` gives that the scenario does not read, one line each naming the key and
// why (a ragasa.* key with a binomial broadcast, traffic keys without traffic, ...): for
// warnings, not errors.
std::vector<std::string> ineffective_keys(const config& cfg);

// Cross-key checks that need no topology (buffer >= packet, ...). Throws config_error.
scenario make_scenario(const config& cfg);

}  // namespace bcastsim::tb
