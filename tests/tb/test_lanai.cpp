// LANai NICs on Myrinet in whole runs (issue 17): NIC-CB and NIC-RD deliver every block to
// every rank (the watchdog checks it, exit 1 otherwise) with the packet counts their
// algorithms imply; host-based collectives run over GM with nic.kind: lanai, every data
// packet acknowledged once; the LANai's and the PCI bus's costs sit on the critical path
// exactly where the code flow says; GM's send and receive tokens bound what is outstanding;
// runs are deterministic; bad input exits 2 naming the key.
//
// Every case runs the real binary (one SystemC design per process).
#include "cli_result.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

using namespace bcastsim;
using test::contains;
using test::fresh_dir;
using test::run_cli;

namespace {

using test::run_result;

run_result run_lanai(const std::vector<std::string>& sets, uint32_t nodes = 16) {
  return test::run_for_json("run", "--set topology.kind=myrinet --set topology.nodes=" +
                                       std::to_string(nodes) + test::set_args(sets));
}

uint64_t u(const nlohmann::json& j) {
  return j.get<uint64_t>();
}

double completion(const run_result& r) {
  return r.result["collective"]["completion_ns"].get<double>();
}

}  // namespace

BOOST_AUTO_TEST_CASE(nic_cb_sends_each_origin_down_its_binomial_tree) {
  // 16 NICs: every operation moves 16 x 15 packets; a root sends to 4 children, so the other
  // 11 sends per origin are forwards from receive buffers. 5,000 B per rank is two operations
  // (4,096 + 904 B); 0 B is one empty packet per edge.
  for (const uint64_t bytes : {0u, 4u, 5000u}) {
    BOOST_TEST_CONTEXT(bytes << " B") {
      const run_result r =
          run_lanai({"collective.algorithm=nic-cb", "collective.bytes=" + std::to_string(bytes)});
      BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
      const uint64_t ops = bytes > 4096 ? 2 : 1;
      BOOST_TEST(u(r.result["packets"]["injected"]) == 16u * 15u * ops);
      BOOST_TEST(u(r.result["packets"]["delivered"]) == 16u * 15u * ops);
      const nlohmann::json& l = r.result["lanai"];
      BOOST_TEST(u(l["forwards"]) == 16u * 11u * ops);
      BOOST_TEST(u(l["duplicates"]) == 0u);
      BOOST_TEST(u(l["acks"]) == 0u);  // receiver-driven: no ACKs
      // Each NIC reads its block from host memory once and writes the other 15 once.
      BOOST_TEST(u(l["pci_bytes_to_nic"]) == 16u * (bytes + 32u));         // + the request event
      BOOST_TEST(u(l["pci_bytes_to_host"]) == 16u * (15u * bytes + 32u));  // + the event
      BOOST_TEST(r.result["collective"]["ranks_complete"] == 16);
      // The host posts one request and takes one event: a send's and a receive's CPU, at any
      // size (the paper's Figure 8).
      BOOST_TEST(r.result["host"]["cpu_busy_ns"].get<double>() == 600.0);
    }
  }
}

BOOST_AUTO_TEST_CASE(analyze_gives_the_nic_based_account) {
  // Without SystemC, the same packet counts the runs above make.
  const std::string dir = fresh_dir();
  const test::outcome o = run_cli("analyze -q --out " + dir +
                                  " --set topology.kind=myrinet --set topology.nodes=16 "
                                  "--set collective.algorithm=nic-cb --set collective.bytes=5000");
  BOOST_TEST_REQUIRE(o.code == 0, o.output);
  std::ifstream in(dir + "/analyze.json");
  const nlohmann::json a = nlohmann::json::parse(in)["lanai"];
  BOOST_TEST(a["packets"] == 16 * 15 * 2);
  BOOST_TEST(a["forwards"] == 16 * 11 * 2);
  BOOST_TEST(a["peers_per_nic"] == 7);
  const std::string rd = fresh_dir();
  BOOST_TEST_REQUIRE(run_cli("analyze -q --out " + rd +
                             " --set topology.kind=myrinet --set topology.nodes=16 "
                             "--set collective.algorithm=nic-rd --set collective.bytes=4096")
                         .code == 0);
  std::ifstream rin(rd + "/analyze.json");
  const nlohmann::json b = nlohmann::json::parse(rin)["lanai"];
  BOOST_TEST(b["packets"] == 16 * 15);
  BOOST_TEST(b["steps_staged_in_host"] == 2);
}

BOOST_AUTO_TEST_CASE(nic_rd_combines_small_blocks_and_stages_large_ones) {
  // 16 NICs, 4 B: four steps of one packet each per NIC, all kept in the NIC.
  const run_result small = run_lanai({"collective.algorithm=nic-rd", "collective.bytes=4"});
  BOOST_TEST_REQUIRE(small.out.code == 0, small.out.output);
  BOOST_TEST(u(small.result["packets"]["injected"]) == 16u * 4u);
  BOOST_TEST(u(small.result["lanai"]["pci_bytes_to_nic"]) == 16u * (4u + 32u));
  BOOST_TEST(u(small.result["lanai"]["pci_bytes_to_host"]) == 16u * (15u * 4u + 32u));
  // 4 KiB: steps of 1, 2, 4, 8 packets; after step 1 the 16 KiB held overflow the 8 KiB
  // staging buffer, so steps 1 and 2 write what arrives to the host and read the next step's
  // 16 KiB and 32 KiB back.
  const run_result large = run_lanai({"collective.algorithm=nic-rd", "collective.bytes=4096"});
  BOOST_TEST_REQUIRE(large.out.code == 0, large.out.output);
  BOOST_TEST(u(large.result["packets"]["injected"]) == 16u * 15u);
  BOOST_TEST(u(large.result["lanai"]["pci_bytes_to_nic"]) == 16u * (4096u + 16384u + 32768u + 32u));
  BOOST_TEST(u(large.result["lanai"]["pci_bytes_to_host"]) == 16u * (15u * 4096u + 32u));
  // Combining is what makes NIC-RD the faster of the two for small messages (the paper's
  // Figure 4a), and staging the slower for large ones (Figure 4b).
  const run_result cb_small = run_lanai({"collective.algorithm=nic-cb", "collective.bytes=4"});
  const run_result cb_large = run_lanai({"collective.algorithm=nic-cb", "collective.bytes=4096"});
  BOOST_TEST(completion(small) < completion(cb_small));
  BOOST_TEST(completion(large) > completion(cb_large));
  // Not a power of two: refused.
  const run_result twelve = run_lanai({"collective.algorithm=nic-rd"}, 12);
  BOOST_TEST(twelve.out.code == 2);
  BOOST_TEST(contains(twelve.out.output,
                      "collective.algorithm = 'nic-rd' needs a power-of-two number of ranks"),
             twelve.out.output);
}

BOOST_AUTO_TEST_CASE(lanai_costs_sit_on_the_critical_path) {
  // Two NICs, 4 B, NIC-CB: request event across PCI, the LANai takes it, reads the block, builds
  // the packet; the peer takes it and writes it to the host, then the event. One more
  // microsecond (133 cycles) of packet handling costs two (build here, take there); of event
  // handling one; a slower PCI bus every crossing on the path.
  const std::vector<std::string> two = {"collective.algorithm=nic-cb", "collective.bytes=4"};
  const run_result base = run_lanai(two, 2);
  std::vector<std::string> more = two;
  more.push_back("lanai.packet_cycles=283");
  const run_result packet = run_lanai(more, 2);
  more = two;
  more.push_back("lanai.event_cycles=333");
  const run_result event = run_lanai(more, 2);
  for (const run_result* r : {&base, &packet, &event}) BOOST_TEST_REQUIRE(r->out.code == 0);
  BOOST_TEST(completion(packet) - completion(base) == 2000.0, boost::test_tools::tolerance(1e-4));
  BOOST_TEST(completion(event) - completion(base) == 1000.0, boost::test_tools::tolerance(1e-4));
  // PCI crossings on the path: request event (to the NIC, 32 B + 8 read-latency + 4 overhead
  // = 20 cycles), the block (4 B: 1 + 8 + 4 = 13), at the peer the data (1 + 4 = 5) and the
  // event (8 + 4 = 12): 50 cycles; at 16.5 MHz instead of 33 each takes twice as long.
  more = two;
  more.push_back("lanai.pci_clock_mhz=16.5");
  const run_result slow = run_lanai(more, 2);
  BOOST_TEST_REQUIRE(slow.out.code == 0);
  BOOST_TEST(completion(slow) - completion(base) == 50 * 1e3 / 33,
             boost::test_tools::tolerance(1e-3));
}

// GM's resend timer runs from when a copy leaves the NIC: with a timeout shorter than the
// round trip every timeout resends (go-back-N), and none fires again for copies still queued
// behind the burst (timed from building they did: 2,880 timeouts for 960 resends here).
BOOST_AUTO_TEST_CASE(a_gm_timeout_fires_only_for_copies_that_have_left) {
  const run_result r = run_lanai({"nic.kind=lanai", "collective.algorithm=binomial",
                                  "collective.bytes=262144", "lanai.resend_timeout_us=5"},
                                 16);
  BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
  const nlohmann::json& l = r.result["lanai"];
  BOOST_TEST(u(l["timeouts"]) > 0u);
  BOOST_TEST(u(l["timeouts"]) <= u(l["retransmissions"]));
  BOOST_TEST(r.result["collective"]["ranks_complete"] == 16);
}

BOOST_AUTO_TEST_CASE(host_collectives_run_over_gm_with_every_packet_acknowledged) {
  for (const std::string a : {"allgather-ring", "allgather-mpich", "binomial"}) {
    BOOST_TEST_CONTEXT(a) {
      const run_result r =
          run_lanai({"nic.kind=lanai", "collective.algorithm=" + a, "collective.bytes=10000"}, 16);
      BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
      const nlohmann::json& l = r.result["lanai"];
      // Every GM data packet comes back as one ACK: the packets are data plus ACKs.
      BOOST_TEST(u(r.result["packets"]["injected"]) == 2 * u(l["acks"]));
      BOOST_TEST(u(l["retransmissions"]) == 0u);
      BOOST_TEST(u(l["timeouts"]) == 0u);
      BOOST_TEST(r.result["collective"]["ranks_complete"] == 16);
      // Host-based: every byte sent crosses the sender's PCI bus and every byte received the
      // receiver's.
      BOOST_TEST(u(l["pci_bytes_to_nic"]) > 0u);
      BOOST_TEST(u(l["pci_bytes_to_host"]) > 0u);
    }
  }
  // Without nic.kind the same run has the plain host NIC and no lanai section.
  const run_result plain = run_lanai({"collective.algorithm=allgather-ring"});
  BOOST_TEST_REQUIRE(plain.out.code == 0);
  BOOST_TEST(!plain.result.contains("lanai"));
}

BOOST_AUTO_TEST_CASE(nic_based_beats_host_based_on_large_messages) {
  // The paper's central result (Figures 4b and 6): NIC-CB's forwarding keeps received data off
  // the PCI bus on the way out; host-based forwarding crosses it twice.
  const run_result cb = run_lanai({"collective.algorithm=nic-cb", "collective.bytes=4096"});
  const run_result host =
      run_lanai({"nic.kind=lanai", "collective.algorithm=allgather-ring", "collective.bytes=4096"});
  BOOST_TEST_REQUIRE(cb.out.code == 0);
  BOOST_TEST_REQUIRE(host.out.code == 0);
  BOOST_TEST(completion(host) > 1.5 * completion(cb));
}

BOOST_AUTO_TEST_CASE(lanai_runs_on_a_clos_and_repeat_exactly) {
  const std::vector<std::string> sets = {"collective.algorithm=nic-cb", "collective.bytes=1000",
                                         "job.placement=random", "seed=5"};
  const run_result a = run_lanai(sets, 64);
  const run_result b = run_lanai(sets, 64);
  BOOST_TEST_REQUIRE(a.out.code == 0, a.out.output);
  BOOST_TEST_REQUIRE(b.out.code == 0);
  nlohmann::json x = a.result, y = b.result;
  x.erase("perf");
  y.erase("perf");
  BOOST_TEST(x == y);
  BOOST_TEST(u(a.result["traversals"]["clos"]["packets"]) > 0u);
  // A long operation (4 KiB on 128 NICs takes about 4 ms, longer than the 1-ms NACK timeout)
  // draws no NACK while its packets keep arriving.
  const run_result big = run_lanai({"collective.algorithm=nic-cb", "collective.bytes=4096"}, 128);
  BOOST_TEST_REQUIRE(big.out.code == 0, big.out.output);
  BOOST_TEST(completion(big) > 3e6);
  BOOST_TEST(u(big.result["lanai"]["nacks"]) == 0u);
  BOOST_TEST(u(big.result["lanai"]["timeouts"]) == 0u);
  BOOST_TEST(u(big.result["lanai"]["retransmissions"]) == 0u);
}

BOOST_AUTO_TEST_CASE(lanai_bad_input_exits_2_naming_the_key) {
  struct bad {
    std::vector<std::string> sets;
    const char* text;
  };
  for (const bad& b : std::vector<bad>{
           {{"collective.algorithm=nic-cb", "lanai.pci_width_bytes=0"}, "lanai.pci_width_bytes"},
           {{"collective.algorithm=nic-cb", "lanai.clock_mhz=0"}, "lanai.clock_mhz"},
           {{"nic.kind=tofu2"}, "nic.kind"},
           {{"nic.kind=lanai", "collective.algorithm=ragasa"}, "collective.algorithm"},
           {{"collective.algorithm=nic-cb", "collective.repeat=2"}, "collective.repeat"},
       }) {
    const run_result r = run_lanai(b.sets, 8);
    BOOST_TEST(r.out.code == 2, r.out.output);
    BOOST_TEST(contains(r.out.output, b.text), r.out.output);
  }
}

BOOST_AUTO_TEST_CASE(lanai_recovers_lost_packets_exactly_once) {
  // 1 % of the packets on every link lost: GM resends (ACK timeouts, NACKed gaps), the
  // NIC-based collectives NACK receiver-driven; every rank still gets every block exactly
  // once (the watchdog checks each byte), and a run repeats exactly.
  for (const std::string a : {"nic-cb", "nic-rd", "allgather-ring"}) {
    BOOST_TEST_CONTEXT(a) {
      const std::vector<std::string> sets = {"nic.kind=lanai", "collective.algorithm=" + a,
                                             "collective.bytes=4096", "fault.drop_rate=0.01"};
      const run_result r = run_lanai(sets);
      BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
      const nlohmann::json& p = r.result["packets"];
      BOOST_TEST(u(p["dropped"]) > 0u);
      BOOST_TEST(u(p["injected"]) == u(p["delivered"]) + u(p["dropped"]));
      const nlohmann::json& l = r.result["lanai"];
      BOOST_TEST(u(l["retransmissions"]) > 0u);
      BOOST_TEST(u(l["timeouts"]) > 0u);
      if (a != "allgather-ring") BOOST_TEST(u(l["nacks"]) > 0u);  // GM may recover by timeout
      BOOST_TEST(r.result["collective"]["ranks_complete"] == 16);
      const run_result again = run_lanai(sets);
      nlohmann::json x = r.result, y = again.result;
      x.erase("perf");
      y.erase("perf");
      BOOST_TEST(x == y);
    }
  }
}

BOOST_AUTO_TEST_CASE(one_chosen_lost_packet_is_nacked_and_sent_again) {
  // The first packet into NIC 5 (from its switch's port 5) is lost: NIC 5 waits for its NACK
  // timeout, NACKs its parent in that packet's tree, and gets it again; nothing else is lost.
  const run_result r = run_lanai(
      {"collective.algorithm=nic-cb", "collective.bytes=4", "fault.drop_packet=link_r0_5:1"});
  BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
  BOOST_TEST(u(r.result["packets"]["dropped"]) == 1u);
  const nlohmann::json& l = r.result["lanai"];
  BOOST_TEST(u(l["retransmissions"]) >= 1u);
  BOOST_TEST(u(l["nacks"]) >= 1u);
  BOOST_TEST(u(l["timeouts"]) >= 1u);
  // The recovery costs at least the timeout (1 ms) on top of the lossless 26 us.
  BOOST_TEST(completion(r) > 1e6);
  BOOST_TEST(completion(r) < 1.2e6);
  // The same loss under GM (host-based ring): recovered by a NACKed gap or the resend timer.
  const run_result gm = run_lanai({"nic.kind=lanai", "collective.algorithm=allgather-ring",
                                   "collective.bytes=4", "fault.drop_packet=link_nic_0:1"});
  BOOST_TEST_REQUIRE(gm.out.code == 0, gm.out.output);
  BOOST_TEST(u(gm.result["packets"]["dropped"]) == 1u);
  BOOST_TEST(u(gm.result["lanai"]["retransmissions"]) >= 1u);
}

BOOST_AUTO_TEST_CASE(faults_need_nics_that_resend) {
  // The plain host NIC would stall on a lost packet (and with background traffic not even
  // stop): refused up front, naming the key.
  const test::outcome o =
      run_cli("run -q --out " + fresh_dir() + " --set fault.drop_packet=link_nic_0:1");
  BOOST_TEST(o.code == 2);
  BOOST_TEST(contains(o.output, "fault.drop_packet loses packets"), o.output);
  BOOST_TEST(contains(o.output, "allowed with nic.kind = lanai"), o.output);
  for (const std::string bad :
       {"link_nic_0", "link_nic_0:0", "link_nic_0:x", "link_nic_0:-1", "nowhere:3"}) {
    const test::outcome b = run_cli("run -q --out " + fresh_dir() +
                                    " --set nic.kind=lanai --set fault.drop_packet=" + bad);
    BOOST_TEST(b.code == 2, bad << ": " << b.output);
    BOOST_TEST(contains(b.output, "fault.drop_packet: '"), b.output);
  }
  const test::outcome rate = run_cli("run -q --out " + fresh_dir() + " --set fault.drop_rate=2");
  BOOST_TEST(rate.code == 2);
  BOOST_TEST(contains(rate.output, "fault.drop_rate"), rate.output);
  // With LANai NICs, traffic alone (no collective) runs over GM and recovers its losses.
  const run_result traffic =
      run_lanai({"nic.kind=lanai", "collective.algorithm=none", "traffic.kind=uniform",
                 "traffic.measure_ns=20000", "fault.drop_rate=0.05"});
  BOOST_TEST_REQUIRE(traffic.out.code == 0, traffic.out.output);
  BOOST_TEST(u(traffic.result["packets"]["dropped"]) > 0u);
  BOOST_TEST(u(traffic.result["lanai"]["retransmissions"]) > 0u);
}

BOOST_AUTO_TEST_CASE(short_timeouts_stay_bounded) {
  // A timeout far below a packet's time on the wire resends and NACKs often, but never queues
  // a second copy behind one that has not left: the runs end, deliver everything once.
  for (const std::vector<std::string>& sets : std::vector<std::vector<std::string>>{
           {"collective.algorithm=nic-cb", "lanai.nack_timeout_us=1", "fault.drop_rate=0.05"},
           {"collective.algorithm=nic-rd", "lanai.nack_timeout_us=1", "fault.drop_rate=0.05"},
           {"nic.kind=lanai", "collective.algorithm=allgather-ring",
            "lanai.resend_timeout_us=1"}}) {
    std::vector<std::string> all = sets;
    all.push_back("collective.bytes=512");
    const run_result r = run_lanai(all);
    BOOST_TEST_CONTEXT(sets[sets.size() - 2]) {
      BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
      BOOST_TEST(r.result["collective"]["ranks_complete"] == 16);
      BOOST_TEST(r.result["perf"]["peak_rss_mb"].get<double>() < 500.0);
    }
  }
}

BOOST_AUTO_TEST_CASE(gm_tokens_bound_sends_and_receives) {
  // Send tokens: MPICH's binomial broadcast on 16 ranks posts its children's sends back to
  // back (root 4, then 3, 2, 1 children on 1, 2, 4 ranks). A send beyond the tokens waits in
  // the host library until an earlier message is all acknowledged: with one token every
  // second child waits (15 sends from 8 senders: 7 waits), with two only the root's third and
  // fourth and the 3-child rank's third (3 waits), with GM's 61 none.
  const std::vector<std::pair<uint32_t, uint64_t>> cases = {{61, 0}, {2, 3}, {1, 7}};
  std::vector<double> times;
  for (const auto& [tokens, waits] : cases) {
    const run_result r =
        run_lanai({"nic.kind=lanai", "collective.algorithm=binomial", "collective.bytes=4",
                   "lanai.send_tokens=" + std::to_string(tokens)});
    BOOST_TEST_CONTEXT(tokens << " send tokens") {
      BOOST_TEST_REQUIRE(r.out.code == 0, r.out.output);
      BOOST_TEST(u(r.result["lanai"]["send_token_waits"]) == waits);
      BOOST_TEST(r.result["collective"]["ranks_complete"] == 16);
      times.push_back(completion(r));
    }
  }
  BOOST_TEST(times[0] != times[2]);  // the waits are on the critical path
  // Receive tokens: with one, a message arriving while the host has not yet taken the last
  // one's receive event finds no token and is dropped unacknowledged; the sender's timeout
  // sends it again, and every message is still received once (the watchdog's conservation,
  // the traffic counts).
  const std::vector<std::string> traffic = {"nic.kind=lanai", "collective.algorithm=none",
                                            "traffic.kind=uniform", "traffic.measure_ns=50000",
                                            "traffic.load=0.3"};
  std::vector<std::string> one = traffic;
  one.push_back("lanai.recv_tokens=1");
  const run_result full = run_lanai(traffic);
  const run_result scarce = run_lanai(one);
  BOOST_TEST_REQUIRE(full.out.code == 0, full.out.output);
  BOOST_TEST_REQUIRE(scarce.out.code == 0, scarce.out.output);
  BOOST_TEST(u(full.result["lanai"]["recv_token_drops"]) == 0u);
  const nlohmann::json& l = scarce.result["lanai"];
  BOOST_TEST(u(l["recv_token_drops"]) > 0u);
  BOOST_TEST(u(l["retransmissions"]) == u(l["recv_token_drops"]));
  BOOST_TEST(u(l["duplicates"]) == 0u);
  const nlohmann::json& t = scarce.result["traffic"];
  BOOST_TEST(u(t["messages_delivered"]) == u(t["messages_sent"]));
  // Only host data is the traffic's: not ACKs, nor packets dropped for want of a token.
  BOOST_TEST(u(t["packets_measured"]) == u(full.result["traffic"]["packets_measured"]));
  BOOST_TEST(t["latency_ns"]["avg"].get<double>() >
             full.result["traffic"]["latency_ns"]["avg"].get<double>());
}
