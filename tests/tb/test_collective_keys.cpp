// The collectives of a scenario (tb/collective_keys.h): collective.* alone, the list
// collectives:, --set into its entries, and every refusal naming the entry key at fault.
#include "tb/collective_keys.h"

#include "cli_runner.h"
#include "network/placement.h"
#include "network/routing.h"
#include "tb/config.h"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using bcastsim::algorithms::host_mode;
using bcastsim::tb::config;
using bcastsim::tb::config_error;
using bcastsim::tb::make_scenario;

namespace {

// Runs f, expects a config_error whose key is `key` and whose message contains every `texts`.
template <class F>
void expect_error(F f, const std::string& key, const std::vector<std::string>& texts) {
  try {
    f();
  } catch (const config_error& e) {
    BOOST_TEST(e.key == key, "message: " << e.what());
    for (const std::string& t : texts) {
      BOOST_TEST(std::string(e.what()).find(t) != std::string::npos,
                 "'" << t << "' not in: " << e.what());
    }
    return;
  }
  BOOST_FAIL("expected a config_error for " + key);
}

config with(const std::vector<std::string>& assignments) {
  config c;
  for (const std::string& a : assignments) c.set(a);
  return c;
}

void expect_scenario_error(const std::vector<std::string>& assignments, const std::string& key,
                           const std::vector<std::string>& texts) {
  expect_error([&] { make_scenario(with(assignments)); }, key, texts);
}

const char* const three = R"(
collective: {bytes: 1KiB, repeat: 2}
collectives:
  - {name: big, algorithm: binomial, bytes: 64KiB, ranks: 0-7, root: 3}
  - {name: small-1, ranks: "8-11, 20,30-31", after: big, mode: overlap, compute_ns: 500,
     start_ns: 100}
  - {roots: all, ranks: [0-3, 40], after: 1, repeat: 5}
)";

std::vector<uint32_t> seq(uint32_t first, uint32_t last) {
  std::vector<uint32_t> v;
  for (uint32_t r = first; r <= last; ++r) v.push_back(r);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(single_form_gives_one_spec_with_todays_values) {
  auto s = make_scenario(config());
  BOOST_TEST_REQUIRE(s.collectives.size() == 1u);
  BOOST_TEST(s.collective_keys == std::vector<std::string>{"collective"});
  BOOST_TEST(s.collective_names == std::vector<std::string>{"collective"});
  const auto& d = s.collectives[0];
  BOOST_TEST(d.algorithm == "binomial");
  BOOST_TEST(d.ranks.empty());
  BOOST_TEST(!d.all_roots);
  BOOST_TEST(d.root == 0u);
  BOOST_TEST(d.bytes == 16384u);
  BOOST_TEST(d.start_ns == 0u);
  BOOST_TEST(d.after == -1);
  BOOST_TEST(d.repeat == 1u);
  BOOST_TEST(d.compute_ns == 0u);
  BOOST_TEST((d.mode == host_mode::blocking));

  s = make_scenario(
      with({"collective.algorithm=forest", "collective.root=5", "collective.bytes=4KiB",
            "collective.roots=all", "collective.ranks=2-9", "collective.start_ns=70",
            "collective.repeat=3", "collective.compute_ns=900", "collective.mode=overlap",
            "collective.name=main"}));
  BOOST_TEST_REQUIRE(s.collectives.size() == 1u);
  const auto& c = s.collectives[0];
  BOOST_TEST(c.algorithm == "forest");
  BOOST_TEST(c.root == 5u);
  BOOST_TEST(c.bytes == 4096u);
  BOOST_TEST(c.all_roots);
  BOOST_TEST(c.ranks == seq(2, 9));
  BOOST_TEST(c.start_ns == 70u);
  BOOST_TEST(c.repeat == 3u);
  BOOST_TEST(c.compute_ns == 900u);
  BOOST_TEST((c.mode == host_mode::overlap));
  BOOST_TEST(s.collective_names == std::vector<std::string>{"main"});
  BOOST_TEST(s.algorithm == "forest");
  BOOST_TEST(s.root == 5u);
  BOOST_TEST(s.bytes == 4096u);

  // No collective: no spec.
  s = make_scenario(with({"collective.algorithm=none", "traffic.kind=uniform"}));
  BOOST_TEST(s.collectives.empty());
  BOOST_TEST(s.collective_keys.empty());
}

// The single form draws exactly as before lists existed (results stay bit-identical); list
// entries draw within their own communicator, each its own root.
BOOST_AUTO_TEST_CASE(random_roots_are_drawn_per_collective_within_its_communicator) {
  bool entries_differ = false;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const std::string sd = "seed=" + std::to_string(seed);
    const auto single = make_scenario(with({sd, "collective.random_root=on"}));
    // The default dragonfly: 72 terminals, a rank on each.
    bcastsim::network::rng rng(bcastsim::network::splitmix64(seed ^ 0x726f6f74ull));
    BOOST_TEST(single.collectives[0].root == rng.below(72));
    BOOST_TEST(single.root == single.collectives[0].root);
    BOOST_TEST(single.random_root);
    const auto list = make_scenario(with(
        {sd, "collective.random_root=on", "collectives.0.bytes=1", "collectives.1.ranks=10-19"}));
    BOOST_TEST(list.collectives[0].root == single.collectives[0].root);
    BOOST_TEST(list.collectives[1].root < 10u);
    const auto two = make_scenario(
        with({sd, "collective.random_root=on", "collectives.0.bytes=1", "collectives.1.bytes=1"}));
    entries_differ = entries_differ || two.collectives[0].root != two.collectives[1].root;
  }
  BOOST_TEST(entries_differ);
}

BOOST_AUTO_TEST_CASE(yaml_list_of_three_collectives) {
  const config c = config::from_yaml_text(three, "three.yaml");
  const auto s = make_scenario(c);
  BOOST_TEST_REQUIRE(s.collectives.size() == 3u);
  BOOST_TEST((s.collective_keys ==
              std::vector<std::string>{"collectives.0", "collectives.1", "collectives.2"}));
  BOOST_TEST((s.collective_names == std::vector<std::string>{"big", "small-1", "collectives.2"}));
  const auto& a = s.collectives[0];
  BOOST_TEST(a.bytes == 65536u);
  BOOST_TEST(a.repeat == 2u);  // from collective.repeat
  BOOST_TEST(a.ranks == seq(0, 7));
  BOOST_TEST(a.root == 3u);
  BOOST_TEST(a.after == -1);
  const auto& b = s.collectives[1];
  BOOST_TEST(b.ranks == (std::vector<uint32_t>{8, 9, 10, 11, 20, 30, 31}));
  BOOST_TEST(b.after == 0);  // by name
  BOOST_TEST((b.mode == host_mode::overlap));
  BOOST_TEST(b.compute_ns == 500u);
  BOOST_TEST(b.start_ns == 100u);
  BOOST_TEST(b.bytes == 1024u);  // from collective.bytes
  BOOST_TEST(b.root == 0u);
  const auto& x = s.collectives[2];
  BOOST_TEST(x.all_roots);
  BOOST_TEST(x.ranks == (std::vector<uint32_t>{0, 1, 2, 3, 40}));  // a YAML list of items
  BOOST_TEST(x.after == 1);                                        // by index
  BOOST_TEST(x.repeat == 5u);
  BOOST_TEST((x.mode == host_mode::blocking));
  // The first collective is mirrored for the code that reads one.
  BOOST_TEST(s.bytes == 65536u);
  BOOST_TEST(s.root == 3u);
  BOOST_TEST(s.algorithm == "binomial");
  // values(): every entry's keys, given or from collective.*; not name or after.
  const auto v = c.values();
  BOOST_TEST(v.at("collectives.1.bytes") == "1024");
  BOOST_TEST(v.at("collectives.0.name") == "big");
  BOOST_TEST(v.at("collectives.2.name") == "");
  BOOST_TEST(v.at("collectives.2.after") == "1");
  BOOST_TEST(v.at("collectives.0.after") == "");
  BOOST_TEST(v.count("collectives.3.bytes") == 0u);
  BOOST_TEST(v.at("collective.bytes") == "1024");
}

BOOST_AUTO_TEST_CASE(set_reaches_list_entries) {
  config c = config::from_yaml_text(three, "three.yaml");
  c.set("collectives.1.bytes=4KiB");
  c.set("collectives.2.algorithm='forest'");
  BOOST_TEST(c.given().at("collectives.1.bytes") == "4096");
  auto s = make_scenario(c);
  BOOST_TEST(s.collectives[1].bytes == 4096u);
  BOOST_TEST(s.collectives[2].algorithm == "forest");
  BOOST_TEST(s.collectives[0].algorithm == "binomial");
  // A list from --set alone; dotted keys in a file read the same.
  s = make_scenario(with({"collectives.0.bytes=8", "collectives.1.after=0"}));
  BOOST_TEST_REQUIRE(s.collectives.size() == 2u);
  BOOST_TEST(s.collectives[0].bytes == 8u);
  BOOST_TEST(s.collectives[1].bytes == 16384u);
  BOOST_TEST(s.collectives[1].after == 0);
  s = make_scenario(config::from_yaml_text("collectives.0.bytes: 8\n", "dotted.yaml"));
  BOOST_TEST(s.collectives.size() == 1u);
  BOOST_TEST(s.collective_keys == std::vector<std::string>{"collectives.0"});
}

BOOST_AUTO_TEST_CASE(bad_entry_keys_name_the_key_and_what_is_allowed) {
  for (const char* key : {"collectives.01.bytes", "collectives.999.bytes", "collectives.x.bytes",
                          "collectives..bytes", "collectives.-1.bytes"}) {
    expect_error([&] { config().set(std::string(key) + "=1"); }, key,
                 {"is not an entry index", "0 .. 998", "without leading zeros"});
  }
  BOOST_CHECK_NO_THROW(config().set("collectives.998.bytes=1"));
  const std::vector<std::string> fields = {
      "allowed keys under 'collective'",
      "algorithm, root, random_root, bytes, roots, ranks, start_ns, after, repeat, compute_ns, "
      "mode, name"};
  expect_error([] { config().set("collectives.0.bytez=1"); }, "collectives.0.bytez", fields);
  expect_error([] { config().set("collectives.3=1"); }, "collectives.3", fields);
  expect_error([] { config::from_yaml_text("collectives:\n  - {bytez: 1}\n", "s.yaml"); },
               "collectives.0.bytez", {"(in s.yaml)", fields[0]});
  expect_error([] { config::from_yaml_text("collectives:\n  - {bytes: {a: 1}}\n", "s.yaml"); },
               "collectives.0.bytes.a", {fields[0]});
  // Values are checked against collective.X's declaration, under the entry's key.
  expect_error([] { config().set("collectives.1.repeat=0"); }, "collectives.1.repeat",
               {"an integer in [1, 1000000]"});
  expect_error([] { config().set("collectives.0.mode=lazy"); }, "collectives.0.mode",
               {"allowed: blocking, overlap"});
  expect_error([] { config().set("collectives.0.roots=some"); }, "collectives.0.roots",
               {"allowed: one, all"});
  expect_error([] { config().set("collectives.2.bytes=1KB"); }, "collectives.2.bytes",
               {"binary suffix"});
}

BOOST_AUTO_TEST_CASE(collectives_must_be_a_list_of_mappings) {
  for (const char* yaml : {"collectives: 3\n", "collectives: {a: {bytes: 1}}\n",
                           "collectives: []\n", "collectives:\n"}) {
    expect_error([&] { config::from_yaml_text(yaml, "s.yaml"); }, "collectives",
                 {"must be a non-empty list", "allowed: a list of mappings"});
  }
  for (const char* yaml :
       {"collectives: [1, 2]\n", "collectives:\n  - {}\n", "collectives:\n  - [bytes, 1]\n"}) {
    expect_error([&] { config::from_yaml_text(yaml, "s.yaml"); }, "collectives.0",
                 {"must be a mapping with at least one key", "allowed: a list of mappings"});
  }
  expect_error(
      [] {
        config::from_yaml_text("collectives: [{bytes: 1}]\ncollectives.0.bytes: 2\n", "s.yaml");
      },
      "collectives.0.bytes", {"given twice"});
}

BOOST_AUTO_TEST_CASE(gaps_in_the_list_are_refused_naming_the_missing_entry) {
  expect_scenario_error({"collectives.0.bytes=1", "collectives.2.bytes=1"}, "collectives.1",
                        {"collectives.1 is missing", "without gaps"});
  expect_scenario_error({"collectives.3.bytes=1"}, "collectives.0", {"collectives.0 is missing"});
  expect_error([] { with({"collectives.1.bytes=1"}).values(); }, "collectives.0", {"without gaps"});
}

BOOST_AUTO_TEST_CASE(after_must_name_an_earlier_entry) {
  const std::vector<std::string> list = {"collectives.0.name=first", "collectives.1.bytes=1",
                                         "collectives.2.name=third"};
  const auto with_after = [&](const std::string& after) {
    std::vector<std::string> a = list;
    a.push_back(after);
    return a;
  };
  const std::string allowed = "allowed: empty, or the index or name of an earlier entry: 0 (first)";
  expect_scenario_error(with_after("collectives.1.after=2"), "collectives.1.after",
                        {"is not an earlier entry", allowed});
  expect_scenario_error(with_after("collectives.1.after=third"), "collectives.1.after",
                        {"is not an earlier entry", allowed});
  expect_scenario_error(with_after("collectives.1.after=1"), "collectives.1.after",
                        {"is this entry itself", allowed});
  expect_scenario_error(with_after("collectives.1.after=nosuch"), "collectives.1.after",
                        {"names no collective", allowed});
  expect_scenario_error(with_after("collectives.1.after=7"), "collectives.1.after",
                        {"is not an entry index", allowed});
  expect_scenario_error(with_after("collectives.0.after=0"), "collectives.0.after",
                        {"(collectives.0 has none)"});
  expect_scenario_error(with_after("collectives.2.after=01"), "collectives.2.after",
                        {"is not an entry index", "0 (first), 1 (collectives.1)"});
  // An earlier entry by index, by given name and by default name.
  for (const char* ok : {"0", "first", "collectives.1"}) {
    const auto s = make_scenario(with(with_after(std::string("collectives.2.after=") + ok)));
    BOOST_TEST(s.collectives[2].after == (std::string(ok) == "collectives.1" ? 1 : 0));
  }
  // after belongs to list entries: refused in the single form, not inherited.
  expect_scenario_error({"collective.after=0"}, "collective.after",
                        {"only an entry of collectives: follows another", "allowed: empty"});
  expect_scenario_error({"collective.after=0", "collectives.0.bytes=1", "collectives.1.bytes=1"},
                        "collective.after", {"collectives.N.after"});
}

BOOST_AUTO_TEST_CASE(ranks_are_all_or_ranks_and_ranges_each_once) {
  using bcastsim::tb::parse_ranks;
  BOOST_TEST(parse_ranks("k", "all").empty());
  BOOST_TEST(parse_ranks("k", "0-35,40,42-47").size() == 36u + 1 + 6);
  BOOST_TEST(parse_ranks("k", "5,3,4") == (std::vector<uint32_t>{5, 3, 4}));  // as written
  BOOST_TEST(parse_ranks("k", "7-7") == std::vector<uint32_t>{7});
  const std::string allowed = "allowed: all, or ranks and inclusive ranges";
  expect_scenario_error({"collective.ranks=0-5,3"}, "collective.ranks",
                        {"rank 3 is given twice", allowed});
  expect_scenario_error({"collective.ranks=1,1"}, "collective.ranks", {"rank 1 is given twice"});
  expect_scenario_error({"collective.ranks=8-10,0-8"}, "collective.ranks",
                        {"rank 8 is given twice"});
  expect_scenario_error({"collective.ranks=5-3"}, "collective.ranks",
                        {"the range 5-3 is reversed", allowed});
  for (const char* bad :
       {"", "a", "1-", "-1", "1--3", "1,,2", "1-2-3", "0x10", "4294967296", "All", "1;2"}) {
    expect_scenario_error({std::string("collective.ranks=") + bad}, "collective.ranks",
                          {"is not a rank or a range", allowed});
  }
  // Beyond the job: refused before any range is expanded.
  expect_scenario_error({"collective.ranks=0-4294967295"}, "collective.ranks",
                        {"names rank 4294967295, not a rank of the job; allowed: 0 .. 71"});
  expect_scenario_error({"collective.ranks=0-99999999,100000000"}, "collective.ranks",
                        {"names rank 99999999, not a rank of the job"});
  // In an entry: its own key; inherited from collective.ranks: that key.
  expect_scenario_error({"collectives.0.bytes=1", "collectives.1.ranks=2,2"}, "collectives.1.ranks",
                        {"rank 2 is given twice"});
  expect_scenario_error({"collective.ranks=x", "collectives.0.ranks=1", "collectives.1.bytes=1"},
                        "collective.ranks", {"is not a rank"});
}

BOOST_AUTO_TEST_CASE(names_are_plain_and_unique) {
  expect_scenario_error({"collectives.0.name=a", "collectives.1.name=a"}, "collectives.1.name",
                        {"also the name of collectives.0", "allowed: a name no other"});
  // A given name that is another entry's default name.
  expect_scenario_error({"collectives.0.name=collectives.1", "collectives.1.bytes=1"},
                        "collectives.0.name", {"also the name of collectives.1"});
  for (const char* bad : {"", "1st", "a b", "a/b", "-a", "é"}) {
    expect_scenario_error({std::string("collectives.0.name=") + bad}, "collectives.0.name",
                          {"is not a name", "allowed: letters, digits"});
    expect_scenario_error({std::string("collective.name=") + bad}, "collective.name",
                          {"is not a name"});
  }
  const auto s = make_scenario(with({"collectives.0.name=Bcast_1.x-y", "collectives.1.bytes=2"}));
  BOOST_TEST((s.collective_names == std::vector<std::string>{"Bcast_1.x-y", "collectives.1"}));
}

BOOST_AUTO_TEST_CASE(lists_refuse_algorithm_none_and_synthetic_traffic) {
  expect_scenario_error({"collectives.0.bytes=1", "collectives.1.algorithm=none"},
                        "collectives.1.algorithm",
                        {"none in collectives:", "allowed: an algorithm"});
  expect_scenario_error(
      {"collective.algorithm=none", "traffic.kind=background", "collectives.0.bytes=1"},
      "collectives.0.algorithm", {"none (from collective.algorithm)"});
  expect_scenario_error({"traffic.kind=uniform", "collectives.0.bytes=1"}, "traffic.kind",
                        {"allowed with a collectives: list: none, background"});
  // The single form as before.
  expect_scenario_error({"traffic.kind=uniform"}, "traffic.kind",
                        {"allowed with collective.algorithm = binomial: none, background"});
  expect_scenario_error({"collective.algorithm=none"}, "collective.algorithm",
                        {"needs synthetic traffic"});
}

BOOST_AUTO_TEST_CASE(collective_keys_without_effect_warn) {
  const auto warnings = [](const std::vector<std::string>& a) {
    std::string all;
    for (const std::string& w : bcastsim::tb::ineffective_keys(with(a))) all += w + "\n";
    return all;
  };
  const auto has = [](const std::string& all, const std::string& part) {
    return all.find(part) != std::string::npos;
  };
  // Computation after the only collective delays the hosts' end (sim_time_ns): an effect.
  BOOST_TEST(warnings({"collective.compute_ns=5"}).empty());
  BOOST_TEST(warnings({"collective.compute_ns=5", "collective.repeat=2"}).empty());
  BOOST_TEST(warnings({"collective.compute_ns=5", "collective.mode=overlap"}).empty());
  BOOST_TEST(has(warnings({"collective.root=3", "collective.roots=all"}),
                 "collective.root = 3 has no effect: collective.roots = all"));
  BOOST_TEST(has(warnings({"collective.root=3", "collective.random_root=on"}),
                 "collective.root = 3 has no effect: collective.random_root = on draws the root"));
  BOOST_TEST(has(warnings({"collectives.0.root=3", "collectives.0.roots=all"}),
                 "collectives.0.root = 3 has no effect: collectives.0.roots = all"));
  BOOST_TEST(has(warnings({"collective.root=3", "collectives.0.root=1"}),
                 "collective.root = 3 has no effect: every entry of collectives: gives its own "
                 "root"));
  BOOST_TEST(
      warnings({"collective.root=3", "collectives.0.root=1", "collectives.1.bytes=1"}).empty());
  BOOST_TEST(has(warnings({"collective.name=x", "collectives.0.bytes=1"}),
                 "collective.name = x has no effect"));
  // An offload family's keys apply when any entry uses it.
  BOOST_TEST(has(warnings({"ragasa.working_memory_bytes=4096", "collectives.0.bytes=1"}),
                 "no entry of collectives: uses the ragasa offload"));
  BOOST_TEST(warnings({"ragasa.working_memory_bytes=4096", "collectives.0.bytes=1",
                       "collectives.1.algorithm=ragasa"})
                 .empty());
}

BOOST_AUTO_TEST_CASE(cli_refuses_bad_collective_keys_with_exit_2) {
  using bcastsim::test::contains;
  using bcastsim::test::run_cli;
  auto o = run_cli("analyze -q --out " + bcastsim::test::fresh_dir() +
                   " --set collectives.0.bytes=1 --set collectives.1.after=1");
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "collectives.1.after = '1' is this entry itself"), o.output);
  o = run_cli("analyze -q --out " + bcastsim::test::fresh_dir() + " --set collective.ranks=3-1");
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "the range 3-1 is reversed"), o.output);
  o = run_cli("list");
  BOOST_TEST(o.code == 0, o.output);
  for (const char* key : {"collective.roots", "collective.ranks", "collective.after",
                          "collective.mode", "collective.name"}) {
    BOOST_TEST(contains(o.output, key), key);
  }
}
