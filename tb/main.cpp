// The bcastsim command line: run a scenario, analyze it without simulation (link counts and
// the makespan in links), list what can be configured.
// Exit codes: 0 success, 1 the simulation failed (stall, broken invariant), 2 bad input.
#include "algorithms/registry.h"
#include "network/routing.h"
#include "network/topology_kind.h"
#include "tb/analyze.h"
#include "tb/atomic_file.h"
#include "tb/cli_validators.h"
#include "tb/config.h"
#include "tb/cosim/command.h"
#include "tb/export_graph.h"
#include "tb/format.h"
#include "tb/huge_pages.h"
#include "tb/list_command.h"
#include "tb/memory_estimate.h"
#include "tb/offload_family.h"
#include "tb/output_path.h"
#include "tb/simulation.h"
#include "tb/sweep/command.h"
#include "tb/waveforms.h"
#include "tlm/interrupt_cleanup.h"

#include <CLI/CLI.hpp>
#include <systemc>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <new>
#include <sstream>

#ifdef BCASTSIM_PGO_DUMP
extern "C" void __gcov_dump();
#endif

namespace {

using namespace bcastsim;

std::string human_time(double ns) {
  return tb::format_ns(ns);
}

// The traversals' classes in the order the topology kind declares them (dragonfly: terminal,
// local, global), then any the topology brought itself (a graph file's), by name.
std::vector<std::string> class_order(const nlohmann::json& r) {
  std::vector<std::string> order;
  const auto& kind =
      network::find_topology_kind(r["config"]["topology"]["kind"].get<std::string>());
  for (const network::link_class_decl& c : kind.classes) {
    if (r["traversals"].contains(c.name)) order.push_back(c.name);
  }
  for (const auto& [name, value] : r["traversals"].items()) {
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  }
  return order;
}

template <class Row>
void print_traffic_rows(const nlohmann::json& t, Row row) {
  row("traffic messages") << "offered " << t["messages_offered"] << ", sent " << t["messages_sent"]
                          << ", delivered " << t["messages_delivered"] << ", dropped at source "
                          << t["dropped_at_source"] << "\n";
  if (t.contains("accepted_load")) {
    row("traffic load") << "offered " << t["offered_load"].get<double>() << ", accepted "
                        << t["accepted_load"].get<double>() << "\n";
  }
  const auto& l = t["latency_ns"];
  row("traffic latency") << "avg " << human_time(l["avg"].get<double>()) << ", p50 "
                         << human_time(l["p50"].get<double>()) << ", p99 "
                         << human_time(l["p99"].get<double>()) << ", max "
                         << human_time(l["max"].get<double>()) << " (" << t["packets_measured"]
                         << " packets, created to delivered)\n";
}

// "binomial broadcast of 16384 B from rank 3 to 72 ranks", "allgather-ring allgather of
// 1024 B per rank among 72 ranks", "binomial broadcast of 512 B from every rank to 36 ranks".
std::string describe_collective(const nlohmann::json& e) {
  std::ostringstream os;
  os << e["algorithm"].get<std::string>();
  if (e["kind"] == "allgather") {
    os << " allgather of " << e["bytes"] << " B per rank among " << e["ranks"] << " ranks";
  } else if (e["root"] == "all") {
    os << " broadcast of " << e["bytes"] << " B from every rank to " << e["ranks"] << " ranks";
  } else {
    os << " broadcast of " << e["bytes"] << " B from rank " << e["root"] << " to " << e["ranks"]
       << " ranks";
  }
  return os.str();
}

// One row per collective of the list: what it is, and its completion over its repetitions.
template <class Row>
void print_collective_rows(const nlohmann::json& list, const Row& row) {
  for (size_t i = 0; i < list.size();) {
    const std::string name = list[i]["collective"].get<std::string>();
    double lo = 0, hi = 0, sum = 0;
    size_t n = 0;
    for (size_t j = i; j < list.size() && list[j]["collective"] == name; ++j, ++n) {
      const double c = list[j]["completion_ns"].get<double>();
      lo = n == 0 ? c : std::min(lo, c);
      hi = std::max(hi, c);
      sum += c;
    }
    row(name.c_str()) << describe_collective(list[i]);
    if (n == 1) {
      std::cout << ": " << human_time(hi) << "\n";
    } else {
      std::cout << ", " << n << " times: " << human_time(lo) << " / "
                << human_time(sum / static_cast<double>(n)) << " / " << human_time(hi)
                << " (min / mean / max)\n";
    }
    i += n;
  }
}

void print_table(const nlohmann::json& r, const std::string& path) {
  const auto& c = r["collective"];
  const auto& p = r["packets"];
  const auto& t = r["traversals"];
  const auto& perf = r["perf"];
  std::cout << std::fixed << std::setprecision(2);
  const bool collective = c["algorithm"] != "none";
  const auto& list = r.contains("collectives") ? r["collectives"] : nlohmann::json::array();
  if (collective && list.size() == 1) {
    std::cout << describe_collective(list[0]) << " on " << r["topology"].get<std::string>() << "\n";
  } else if (collective) {
    std::cout << list.size() << " collectives (collective x repetition) on "
              << r["topology"].get<std::string>() << "\n";
  } else {
    std::cout << r["traffic"]["kind"].get<std::string>() << " traffic at offered load "
              << r["traffic"]["offered_load"].get<double>() << " on "
              << r["topology"].get<std::string>() << "\n";
  }
  auto row = [](const char* name) -> std::ostream& {
    return std::cout << "  " << std::left << std::setw(22) << name;
  };
  if (collective && list.size() > 1) print_collective_rows(list, row);
  if (collective) {
    row("completion") << human_time(c["completion_ns"].get<double>())
                      << (list.size() > 1 || c.contains("broadcasts")
                              ? " (first start to last completion; rank average "
                              : " (last rank; rank average ")
                      << human_time(c["rank_completion_ns_avg"].get<double>()) << ")\n";
  }
  if (collective && c.contains("broadcasts")) {  // every rank broadcasting: the headline
    const auto& b = c["broadcasts"];
    const auto& d = b["data_completion_ns"];
    row("per broadcast") << b["count"] << " broadcasts, each from its own start to its last "
                         << "receiver: mean " << human_time(d["mean"].get<double>()) << " (min "
                         << human_time(d["min"].get<double>()) << ", max "
                         << human_time(d["max"].get<double>()) << "); rank average mean "
                         << human_time(b["rank_average_ns"]["mean"].get<double>()) << "\n";
  }
  if (r.contains("traffic")) print_traffic_rows(r["traffic"], row);
  row("packets") << "injected " << p["injected"] << " by NICs, delivered " << p["delivered"]
                 << " to NICs\n";
  if (p["offload_copies"] != 0 || p["offload_taken"] != 0) {
    row("packet balance") << p["injected"] << " injected + " << p["offload_copies"]
                          << " copies made in the network = " << p["delivered"] << " delivered + "
                          << p["offload_taken"] << " taken in by offload units\n";
  }
  for (const std::string& cls : class_order(r)) {
    row(("traversals " + cls).c_str())
        << t[cls]["packets"] << " packets, " << t[cls]["messages"] << " messages\n";
  }
  row("hops (routers)") << "avg " << p["hops_avg"].get<double>() << " per delivered packet\n";
  for (const tb::offload_family& f : tb::offload_families()) {
    if (r.contains(f.name) && f.summary) f.summary(r[f.name], row);
  }
  row("packet latency") << "avg " << human_time(p["latency_ns_avg"].get<double>()) << ", max "
                        << human_time(p["latency_ns_max"].get<double>())
                        << " (injecting NIC to delivering NIC)\n";
  row("simulated time") << human_time(r["sim_time_ns"].get<double>()) << "\n";
  row("wall time") << perf["wall_s"].get<double>() << " s\n";
  row("packet-hops/s") << std::setprecision(0) << perf["packet_hops_per_s"].get<double>() << " ("
                       << perf["packet_hops"] << " packet-hops)\n";
  row("peak RSS") << std::setprecision(1) << perf["peak_rss_mb"].get<double>() << " MiB\n";
  row("result") << path << "\n";
}

void print_analyze_table(const nlohmann::json& r, const std::string& path) {
  const auto& c = r["collective"];
  const auto& t = r["traversals"];
  std::cout << std::fixed << std::setprecision(2);
  if (c["collectives"] != 1) {
    std::cout << c["collectives"] << " collectives (collective x repetition)";
  } else {  // as run's table names it: an allgather has no root, roots = all every rank
    const std::string name = c["algorithm"].get<std::string>();
    const bool allgather =
        algorithms::find_algorithm(name).kind == algorithms::collective_kind::allgather;
    const nlohmann::json e = {
        {"algorithm", name},
        {"kind", allgather ? "allgather" : "broadcast"},
        {"root", r["config"]["collective"]["roots"] == "all" ? nlohmann::json("all") : c["root"]},
        {"bytes", c["bytes"]},
        {"ranks", c["ranks"]}};
    std::cout << describe_collective(e);
  }
  std::cout << " on " << r["topology"].get<std::string>() << " (link model, no simulation)\n";
  auto row = [](const char* name) -> std::ostream& {
    return std::cout << "  " << std::left << std::setw(22) << name;
  };
  if (c["makespan_links"].is_null()) {
    row("makespan") << "not modelled (" << c["makespan_not_modelled"].get<std::string>() << ")\n";
  } else {
    row("makespan") << c["makespan_links"] << " links, " << c["makespan_packets"]
                    << " packet times\n";
  }
  row("messages") << c["messages"] << "\n";
  if (c["sends_max"] == 0) {
    row("busiest sender") << "none (no point-to-point sends)\n";
  } else {
    row("busiest sender") << "rank " << c["sends_max_rank"] << ", " << c["sends_max"] << " sends\n";
  }
  for (const std::string& cls : class_order(r)) {
    row(("traversals " + cls).c_str())
        << t[cls]["packets"] << " packets, " << t[cls]["messages"] << " messages\n";
  }
  row("hops (routers)") << "avg " << r["hops_avg"].get<double>() << " per delivered message\n";
  row("wall time") << std::setprecision(3) << r["perf"]["wall_s"].get<double>() << " s\n";
  row("result") << path << "\n";
}

// One stderr line per key the scenario gives but does not read.
void warn_ineffective(const tb::config& cfg) {
  for (const std::string& w : tb::ineffective_keys(cfg)) {
    std::cerr << "bcastsim: warning: " << w << "\n";
  }
}

tb::config load_config(const std::string& scenario_file, const std::vector<std::string>& sets,
                       const std::string& seed) {
  tb::config cfg = scenario_file.empty() ? tb::config() : tb::config::from_yaml_file(scenario_file);
  for (const std::string& s : sets) cfg.set(s);
  if (!seed.empty()) cfg.set("seed", seed);
  return cfg;
}

std::string output_path(const std::string& out_dir, const char* file) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec)
    throw tb::config_error("--out",
                           "cannot create output directory '" + out_dir + "': " + ec.message());
  return (std::filesystem::path(out_dir) / file).string();
}

// Through a temporary file: two runs writing one --out leave one whole result, never a mix.
void write_json(const nlohmann::json& r, const std::string& path) {
  tb::write_file_atomically(path, r.dump(2) + "\n", "--out");
}

int cmd_analyze(const std::string& scenario_file, const std::vector<std::string>& sets,
                const std::string& seed, const std::string& out_dir, bool quiet) {
  tb::check_output_dir(out_dir, "--out", {"analyze.json"});
  const tb::config cfg = load_config(scenario_file, sets, seed);
  tb::check_memory(cfg, tb::memory_use::analyze);
  tb::limit_memory(cfg);
  warn_ineffective(cfg);
  const std::string path = output_path(out_dir, "analyze.json");
  const nlohmann::json r = tb::analyze_scenario(cfg);
  write_json(r, path);
  if (!quiet) print_analyze_table(r, path);
  return 0;
}

int cmd_run(const std::string& scenario_file, const std::vector<std::string>& sets,
            const std::string& seed, const std::string& out_dir, const std::string& vcd,
            const std::string& record_unit_inputs, bool quiet) {
  // Every output before anything runs (output_path.h). The --out folder is made first, as
  // before the checks: `--out res --vcd res/w.vcd` writes into the folder the run makes.
  tb::check_output_dir(out_dir, "--out", {"result.json"});
  tb::config cfg = load_config(scenario_file, sets, seed);
  if (!vcd.empty()) cfg.set("trace.vcd", vcd);
  tb::check_memory(cfg, tb::memory_use::simulate);
  const std::string path = output_path(out_dir, "result.json");
  if (!record_unit_inputs.empty())
    tb::check_output_file(record_unit_inputs, "--record-unit-inputs");
  if (!cfg.text("trace.vcd").empty()) tb::check_vcd_file(cfg.text("trace.vcd"));
  tb::limit_memory(cfg);
  warn_ineffective(cfg);

  tb::run_scenario(
      cfg,
      [&](const nlohmann::json& r) {
        write_json(r, path);
        if (!quiet) print_table(r, path);
        // Done: leave without tearing down the fabric (seconds on large networks, see
        // run_scenario). Nothing else is left to write.
        std::cout.flush();
        std::cerr.flush();
#ifdef BCASTSIM_PGO_DUMP
        __gcov_dump();  // _Exit skips the profile's exit handler
#endif
        std::_Exit(0);
      },
      record_unit_inputs);
  return 0;
}

// What `run`, `analyze` and `graph` read: a scenario, its overrides and where results go.
struct scenario_options {
  std::string scenario_file, seed, out_dir = ".", vcd, record_unit_inputs, graph_file;
  std::vector<std::string> sets;
  bool quiet = false;
};

// `bcastsim run`'s options.
CLI::App* add_run(CLI::App& app, scenario_options& so) {
  CLI::App* run = app.add_subcommand("run",
                                     "simulate a scenario (default: the built-in 72-terminal "
                                     "dragonfly, 16 KiB binomial broadcast)");
  run->add_option("scenario", so.scenario_file, "scenario YAML file")->check(tb::non_empty());
  run->add_option("--set", so.sets, "override a key: --set collective.bytes=1024 (repeatable)");
  run->add_option("--seed", so.seed, "seed of the run (key 'seed')")->check(tb::non_empty());
  run->add_option("--out", so.out_dir, "directory for result.json (default: .)")
      ->check(tb::non_empty());
  run->add_option("--vcd", so.vcd, "write waveforms of trace.blocks to this VCD file")
      ->check(tb::non_empty());
  run->add_option("--record-unit-inputs", so.record_unit_inputs,
                  "write every packet entering every Bcast Unit to this file (JSON lines), "
                  "for `bcastsim cosim --replay` (ragasa and tofu2-* algorithms)")
      ->check(tb::non_empty());
  run->add_flag("-q,--quiet", so.quiet, "print nothing on success");
  return run;
}

// `bcastsim analyze`'s options.
CLI::App* add_analyze(CLI::App& app, scenario_options& so) {
  CLI::App* analyze = app.add_subcommand(
      "analyze",
      "count the links every message crosses and the makespan in links (the paper's "
      "preliminary study), without simulating; writes analyze.json");
  analyze->add_option("scenario", so.scenario_file, "scenario YAML file")->check(tb::non_empty());
  analyze->add_option("--set", so.sets, "override a key: --set job.ranks=1024 (repeatable)");
  analyze->add_option("--seed", so.seed, "seed of the run (key 'seed')")->check(tb::non_empty());
  analyze->add_option("--out", so.out_dir, "directory for analyze.json (default: .)")
      ->check(tb::non_empty());
  analyze->add_flag("-q,--quiet", so.quiet, "print nothing on success");
  return analyze;
}

// `bcastsim graph`'s options.
CLI::App* add_graph(CLI::App& app, scenario_options& so) {
  CLI::App* graph = app.add_subcommand(
      "graph",
      "write the scenario's topology as a graph file (topology.kind: graph reads it back): "
      "YAML for FILE.yaml, else an edge list; rates, buffers and routing costs included");
  graph->add_option("scenario", so.scenario_file, "scenario YAML file")->check(tb::non_empty());
  graph->add_option("--set", so.sets, "override a key: --set topology.a=8 (repeatable)");
  graph->add_option("--file", so.graph_file, "the graph file to write")
      ->required()
      ->check(tb::non_empty());
  return graph;
}

// `bcastsim cosim`'s options.
CLI::App* add_cosim(CLI::App& app, tb::cosim::command_options& co) {
  CLI::App* cosim = app.add_subcommand(
      "cosim",
      "co-simulate a block's model (a Bcast Unit, or with --block tofu2-cq a Tofu2 command "
      "queue) against its SystemC model with the same stimulus and report the first "
      "divergence (exit 0: none, 1: a divergence, 2: bad input)");
  cosim->add_option("--block", co.block,
                    "the block: bcast-unit (default) or tofu2-cq (its --dut: systemc, rtl, "
                    "rtl-fault-pass-scheduling; lock step, cycle by cycle)");
  cosim->add_option("--dut", co.dut,
                    "the model under test: systemc (a self-check), rtl, rtl-fault-unfair, "
                    "rtl-fault-early-free (default: systemc)");
  CLI::Option* seed =
      cosim->add_option("--seed", co.seed, "seed of the random stimulus (default: 1)")
          ->check(tb::unsigned_in(0, UINT64_MAX));
  CLI::Option* seeds = cosim->add_option(
      "--seeds", co.seeds,
      "a seed range A-B: each seed in its own process, one line per seed with its coverage");
  seeds->excludes(seed);
  CLI::Option* cycles = cosim
                            ->add_option("--random-cycles", co.random_cycles,
                                         "clock cycles of random stimulus (default: 30000)")
                            ->check(tb::unsigned_in(1, tb::cosim::max_random_cycles));
  cosim
      ->add_option("--replay", co.replay,
                   "replay what entered every unit (or, tofu2-cq, what every queue was asked) "
                   "in a `run --record-unit-inputs` file")
      ->excludes(cycles)
      ->excludes(seeds);
  cosim
      ->add_option("--tolerance-cycles", co.tolerance_cycles,
                   "timing tolerance of the model against the DUT, in clock cycles (default: " +
                       std::to_string(tb::cosim::default_tolerance_cycles) + ")")
      ->check(tb::unsigned_in(0, UINT32_MAX));
  cosim->add_option("--vcd", co.vcd_dir, "write both sides' waveforms into this directory")
      ->check(tb::non_empty());
  cosim->add_option("--json", co.json_file, "write the report as JSON to this file")
      ->check(tb::non_empty());
  cosim->add_flag("-q,--quiet", co.quiet, "print the report only when there is a divergence");
  return cosim;
}

// `bcastsim sweep`'s options.
CLI::App* add_sweep(CLI::App& app, tb::sweep::sweep_options& so, bool& no_plots) {
  CLI::App* sweep = app.add_subcommand(
      "sweep",
      "run a study: a base scenario and the parameters to vary (STUDY.yaml), each point in its "
      "own process, N at a time or over `mpirun -n K` ranks; writes OUT/results.csv, every "
      "point's result.json and the study's plots (exit 0: all ok, 1: a point or a plot "
      "failed, 2: bad input, 130: interrupted, run again to resume)");
  sweep->add_option("study", so.study_file, "study YAML file (see experiments/sweep-example.yaml)")
      ->required();
  sweep
      ->add_option("-j,--jobs", so.jobs,
                   "points at a time (per MPI rank), 1 to " + std::to_string(tb::sweep::max_jobs) +
                       "; default: one per core, 1 under mpirun")
      ->check(tb::unsigned_in(1, tb::sweep::max_jobs));
  sweep->add_option("--out", so.out_dir, "output directory (default: results/<study name>)")
      ->check(tb::non_empty());
  sweep->add_flag("--retry-failed", so.retry_failed,
                  "run failed points again (a resume skips them by default)");
  sweep
      ->add_option("--only", so.only,
                   "run only the points whose KEY (a key the study varies) has one of these "
                   "values: --only routing.kind=minimal,adaptive (repeatable: every key must "
                   "match); the others wait for a later run, and results.csv keeps every "
                   "finished point")
      ->type_name("KEY=V1,V2")
      ->allow_extra_args(false);
  sweep->add_flag("--list", so.list_only, "print the points with their seeds and exit");
  sweep->add_flag("--no-plots", no_plots, "do not draw the study's plots");
  sweep->add_flag("-q,--quiet", so.quiet, "print only failures");
  return sweep;
}

// Runs one command: bad input exits 2 with its message, a failed simulation 1.
int guarded(const std::function<int()>& command) {
  try {
    return command();
  } catch (const tb::config_error& e) {
    std::cerr << "bcastsim: error: " << e.what() << "\n";
    return 2;
  } catch (const tb::simulation_failure& e) {
    std::cerr << "bcastsim: simulation failed: " << e.what() << "\n";
    return 1;
  } catch (const sc_core::sc_report& e) {
    // A std::bad_alloc inside a SystemC process reaches here as a report.
    if (tb::is_out_of_memory(e)) {
      std::cerr << "bcastsim: " << tb::out_of_memory_message() << "\n";
    } else {
      std::cerr << "bcastsim: simulation failed: " << e.what() << "\n";
    }
    return 1;
  } catch (const std::bad_alloc&) {
    // The estimate checked against sim.max_memory_gib was too low for this scenario.
    std::cerr << "bcastsim: " << tb::out_of_memory_message() << "\n";
    return 1;
  }
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  // A simulation's heap on huge pages: from here, or again from the start with them.
  if (argc > 1 && std::string(argv[1]) == "run") tb::run_on_huge_pages(argv);
  tb::configure_reports();
  tlm_net::install_interrupt_cleanup();

  CLI::App app{
      "bcastsim: a cycle-approximate SystemC/TLM model of broadcast offload hardware "
      "in a packet-level network"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(BCASTSIM_VERSION));

  scenario_options sc;
  CLI::App* run = add_run(app, sc);
  CLI::App* analyze = add_analyze(app, sc);
  CLI::App* list =
      app.add_subcommand("list", "list topologies, routings, algorithms and scenario keys");
  CLI::App* graph = add_graph(app, sc);
  tb::cosim::command_options co;
  CLI::App* cosim = add_cosim(app, co);
  tb::sweep::sweep_options so;
  bool no_plots = false;
  CLI::App* sweep = add_sweep(app, so, no_plots);

  const std::vector<std::string> commands{"run", "analyze", "list", "graph", "cosim", "sweep"};
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
    std::cerr << "bcastsim: error: unknown command '" << argv[1]
              << "'; allowed: run, list, analyze, graph, cosim, sweep\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return guarded([&] {
    if (list->parsed()) return tb::list_command(std::cout);
    if (graph->parsed()) {
      tb::check_output_file(sc.graph_file, "--file");
      const tb::config cfg = load_config(sc.scenario_file, sc.sets, "");
      tb::check_memory(cfg, tb::memory_use::analyze);
      tb::export_graph(cfg, sc.graph_file);
      return 0;
    }
    if (run->parsed()) {
      return cmd_run(sc.scenario_file, sc.sets, sc.seed, sc.out_dir, sc.vcd, sc.record_unit_inputs,
                     sc.quiet);
    }
    if (cosim->parsed()) return tb::cosim::run_command(co, std::cout, std::cerr);
    if (sweep->parsed()) {
      so.plots = !no_plots;
      return tb::sweep::run_command(so, std::cout, std::cerr);
    }
    if (analyze->parsed()) {
      return cmd_analyze(sc.scenario_file, sc.sets, sc.seed, sc.out_dir, sc.quiet);
    }
    return 2;
  });
}

// Our own main (the linker prefers it to libsystemc's): SystemC prints its banner before
// sc_main runs unless this variable is set, and a CLI's output should be its results.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
