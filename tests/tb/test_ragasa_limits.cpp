// What Ragasa's hardware cannot build is refused before the run, by `run` and `analyze`
// alike, naming the key (exit 2): a router without a terminal (its unit is reached through
// one), a management terminal outside the network, and, for the RTL core, a Membership
// entry of no or more than 16 children and a chunk beyond its Working Memory slots.
#include "cli_runner.h"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <string>

using bcastsim::test::contains;
using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;

namespace {

// Both commands refuse `args` with exit 2 and a message holding `text`.
void both_refuse(const std::string& args, const std::string& text) {
  for (const char* cmd : {"run -q ", "analyze -q "}) {
    const std::string dir = fresh_dir();
    const outcome o = run_cli(cmd + args + " --out " + dir);
    BOOST_TEST(o.code == 2, cmd << args << ": " << o.output);
    BOOST_TEST(contains(o.output, text), cmd << args << ": " << o.output);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_router_without_a_terminal_is_refused_naming_the_file) {
  const std::string dir = fresh_dir();
  {
    std::ofstream f(dir + "/g.yaml");
    f << "routers: 3\nterminals: [1, 0, 1]\n"
         "classes: [{name: l, bandwidth_gib_per_s: 5, latency_ns: 10, vc_buffer_bytes: 16384}]\n"
         "links: [[0, 1, l], [1, 2, l]]\n";
  }
  for (const char* relay : {"node", "unit"}) {
    both_refuse("--set topology.kind=graph --set topology.file=" + dir +
                    "/g.yaml --set collective.algorithm=ragasa --set ragasa.relay=" + relay,
                "topology.file");
  }
  // Host-based algorithms run on it.
  const outcome ok = run_cli("run -q --set topology.kind=graph --set topology.file=" + dir +
                             "/g.yaml --out " + fresh_dir());
  BOOST_TEST(ok.code == 0, ok.output);
}

BOOST_AUTO_TEST_CASE(a_management_terminal_outside_the_network_is_refused_by_both) {
  both_refuse("--set collective.algorithm=ragasa --set ragasa.management_terminal=72",
              "ragasa.management_terminal = 72 is not a terminal; allowed: root or 0 .. 71");
}

// Registered in every build (CTest lists cases from the source); without Verilator the RTL
// model itself is refused.
BOOST_AUTO_TEST_CASE(the_rtl_core_refuses_entries_it_cannot_hold) {
#ifdef BCASTSIM_WITH_VERILATOR
  // A one-rank communicator: its root's unit has no child.
  both_refuse("--set collective.algorithm=ragasa --set ragasa.model=rtl --set collective.ranks=7",
              "ragasa.model = rtl: the unit of router 3 has 0 children");
  // 17 terminals on a router: 16 children at most per entry.
  both_refuse("--set collective.algorithm=ragasa --set ragasa.model=rtl --set topology.p=17 "
              "--set topology.g=3 --set topology.a=2 --set topology.h=1",
              "the RTL core holds 1 to 16 per entry");
  // 4097 packets of 64 B in a chunk: 4096 slots.
  both_refuse("--set collective.algorithm=ragasa --set ragasa.model=rtl "
              "--set network.packet_bytes=64 --set ragasa.working_memory_bytes=16MiB "
              "--set ragasa.descriptor_threshold_bytes=262208",
              "makes chunks of 4097 packets");
#else
  both_refuse("--set collective.algorithm=ragasa --set ragasa.model=rtl",
              "needs a build with Verilator");
#endif
}
