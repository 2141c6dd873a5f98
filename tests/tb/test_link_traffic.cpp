// output.link_traffic (tb/link_traffic): the per-link traffic in result.json agrees with the
// traversals, joins the right routers, and is absent unless asked for. Each case runs the
// real binary in a fresh directory.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>
#include "cli_runner.h"

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>

using bcastsim::test::fresh_dir;
using bcastsim::test::outcome;
using bcastsim::test::run_cli;

namespace {

nlohmann::json run_json(const std::string& args) {
  const std::string dir = fresh_dir();
  const outcome o = run_cli("run -q --out " + dir + " " + args);
  BOOST_REQUIRE_MESSAGE(o.code == 0, args << " -> " << o.code << ": " << o.output);
  std::ifstream in(dir + "/result.json");
  BOOST_REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

// Per class, the links' sums equal traversals.<class>; every link is well formed.
void check_consistent(const nlohmann::json& r) {
  const nlohmann::json& lt = r.at("link_traffic");
  const uint32_t a = lt.at("routers_per_group");
  const uint32_t p = lt.at("terminals_per_router");
  const uint32_t routers = lt.at("groups").get<uint32_t>() * a;
  const uint32_t terminals = routers * p;
  const auto group = [a](uint32_t router) { return router / a; };
  std::map<std::string, std::pair<uint64_t, uint64_t>> sums;  // class -> messages, packets
  std::set<std::string> seen;                                 // each direction of each cable once
  for (const nlohmann::json& l : lt.at("links")) {
    const std::string cls = l.at("class");
    const uint64_t m = l.at("messages"), n = l.at("packets");
    BOOST_TEST((m > 0 || n > 0), l.dump());
    BOOST_TEST(n >= m, l.dump());  // a message is at least one packet
    sums[cls].first += m;
    sums[cls].second += n;
    if (cls == "terminal") {
      const bool down = l.contains("from_router");
      const uint32_t t = down ? l.at("to_terminal") : l.at("from_terminal");
      const uint32_t rt = down ? l.at("from_router") : l.at("to_router");
      BOOST_TEST(t < terminals);
      BOOST_TEST(rt == t / p, l.dump());  // terminal t hangs on router t / p
      BOOST_TEST(down != l.contains("from_terminal"), l.dump());
    } else {
      BOOST_TEST((cls == "local" || cls == "global"), cls);
      const uint32_t from = l.at("from_router"), to = l.at("to_router");
      BOOST_TEST(from < routers);
      BOOST_TEST(to < routers);
      if (cls == "global") BOOST_TEST(group(from) != group(to), l.dump());
      if (cls == "local") BOOST_TEST(group(from) == group(to), l.dump());
    }
    BOOST_TEST(seen.insert(l.dump()).second, "listed twice: " << l.dump());
  }
  for (const char* cls : {"terminal", "local", "global"}) {
    BOOST_TEST(sums[cls].first == r["traversals"][cls]["messages"].get<uint64_t>(), cls);
    BOOST_TEST(sums[cls].second == r["traversals"][cls]["packets"].get<uint64_t>(), cls);
  }
  const nlohmann::json& ranks = lt.at("ranks_terminals");
  BOOST_TEST(ranks.size() == r["collective"]["ranks"].get<size_t>());
  const uint32_t root = r["collective"]["root"];
  BOOST_TEST(lt.at("root_terminal") == ranks.at(root));
}

}  // namespace

BOOST_AUTO_TEST_CASE(default_scenario_links_sum_to_traversals) {
  const nlohmann::json r = run_json("--set output.link_traffic=on");
  const nlohmann::json& lt = r.at("link_traffic");
  BOOST_TEST(lt["groups"] == 9);
  BOOST_TEST(lt["routers_per_group"] == 4);
  BOOST_TEST(lt["terminals_per_router"] == 2);
  BOOST_TEST(lt["root_terminal"] == 0);
  for (size_t rank = 0; rank < 72; ++rank) BOOST_TEST(lt["ranks_terminals"][rank] == rank);
  BOOST_TEST(r["traversals"]["global"]["messages"].get<uint64_t>() > 0);
  check_consistent(r);
  // Binomial from rank 0 to every terminal: the root's NIC sends, its down link receives none.
  bool root_up = false;
  for (const nlohmann::json& l : lt["links"]) {
    if (l.value("from_terminal", -1) == 0) root_up = true;
    BOOST_TEST(l.value("to_terminal", -1) != 0, "the root receives: " << l.dump());
  }
  BOOST_TEST(root_up);
}

BOOST_AUTO_TEST_CASE(random_placement_and_root_forest) {
  const nlohmann::json r = run_json(
      "--seed 7 --set output.link_traffic=on --set collective.algorithm=forest "
      "--set job.placement=random --set job.ranks=24 --set collective.random_root=on");
  const nlohmann::json& lt = r.at("link_traffic");
  std::set<uint32_t> distinct;
  for (const nlohmann::json& t : lt["ranks_terminals"]) distinct.insert(t.get<uint32_t>());
  BOOST_TEST(distinct.size() == 24u);
  check_consistent(r);
  // Only the job's terminals send or receive broadcast data.
  for (const nlohmann::json& l : lt["links"]) {
    if (l["class"] != "terminal") continue;
    const uint32_t t = l.contains("to_terminal") ? l["to_terminal"] : l["from_terminal"];
    BOOST_TEST(distinct.count(t) == 1u, l.dump());
  }
}

BOOST_AUTO_TEST_CASE(off_by_default) {
  const nlohmann::json r = run_json("");
  BOOST_TEST(!r.contains("link_traffic"));
  BOOST_TEST(r["config"]["output"]["link_traffic"] == "off");
}
