// tb/yaml_input: the careful loader of scenario and study files, alone and through the CLI
// (issue 13: reproductions 7, 8, 10 and the duplicate-key, multi-document and /dev/zero
// points). Every refusal is a config_error (exit 2) naming the file and what is allowed.
#include "tb/config.h"
#include "tb/yaml_input.h"
#include "tests/tb/cli_runner.h"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <string>

using bcastsim::tb::config;
using bcastsim::tb::config_error;
using bcastsim::tb::load_yaml;
using bcastsim::test::contains;
using bcastsim::test::run_cli;

namespace {

// The message load_yaml refuses `text` with; fails the test when it accepts it.
std::string refusal(const std::string& text) {
  try {
    load_yaml(text, "s.yaml", "KEY");
  } catch (const config_error& e) {
    BOOST_TEST(e.key == "KEY");
    return e.what();
  }
  BOOST_ERROR("accepted: " << text);
  return "";
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = bcastsim::test::fresh_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// A study of a few hundred bytes whose aliases expand to 10^9 nodes.
std::string billion_laughs() {
  std::string t = "plots:\n  - a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    const std::string p = "*a" + std::to_string(i - 1);
    t += "    a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + p + ", " + p + ", " + p +
         ", " + p + ", " + p + ", " + p + ", " + p + ", " + p + ", " + p + ", " + p + "]\n";
  }
  return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(complex_keys_are_refused_with_their_position) {
  const std::string m = refusal("a: 1\n? [a, b]\n: 1\n");
  BOOST_TEST(contains(m, "s.yaml: line 2, column 3"), m);
  BOOST_TEST(contains(m, "a key must be a plain name"), m);
  BOOST_TEST(contains(refusal("? {a: 1}\n: 2\n"), "complex key"));
  BOOST_TEST(contains(refusal("x:\n  ? [a]\n  : 2\n"), "line 2"));
}

BOOST_AUTO_TEST_CASE(duplicate_keys_are_refused_naming_the_key_and_both_lines) {
  const std::string m = refusal("collective:\n  bytes: 1\n  root: 0\n  bytes: 2\n");
  BOOST_TEST(contains(m, "collective.bytes is given twice (lines 2 and 4)"), m);
  // The same name in two different mappings is no duplicate.
  BOOST_TEST(load_yaml("a: {x: 1}\nb: {x: 1}\n", "s.yaml", "").IsMap());
}

BOOST_AUTO_TEST_CASE(a_second_document_is_refused) {
  BOOST_TEST(contains(refusal("a: 1\n---\nb: 2\n"), "line 2, column 1: a second YAML document"));
  BOOST_TEST(load_yaml("---\na: 1\n...\n", "s.yaml", "").IsMap());
  BOOST_TEST(load_yaml("", "s.yaml", "").IsNull());
}

BOOST_AUTO_TEST_CASE(aliases_are_bounded_once_expanded) {
  BOOST_TEST(contains(refusal(billion_laughs()), "more than 1000000 YAML nodes"));
  BOOST_TEST(contains(refusal("a: &x [1, *x]\n"), "an alias refers to a node that contains it"));
  // A few aliases stay allowed.
  const YAML::Node n = load_yaml("a: &x [1, 2]\nb: *x\n", "s.yaml", "");
  BOOST_TEST(n["b"].size() == 2u);
}

BOOST_AUTO_TEST_CASE(parse_errors_name_the_file_and_position) {
  const std::string m = refusal("a: [1, 2\n");
  BOOST_TEST(contains(m, "cannot parse s.yaml: line"), m);
}

BOOST_AUTO_TEST_CASE(scenario_files_must_be_bounded_regular_files) {
  auto refused = [](const std::string& path, const std::string& why) {
    try {
      config::from_yaml_file(path);
      BOOST_ERROR("accepted " << path);
    } catch (const config_error& e) {
      BOOST_TEST(contains(e.what(), "cannot read scenario file '" + path + "': " + why), e.what());
    }
  };
  refused("/tmp", "it is a directory");
  refused("/dev/zero", "not a regular file");
  refused("/proc/self/mem", "");  // regular by stat, but reading it fails
  refused("/nonexistent/s.yaml", "no such file");
  const std::string big = write_file("big.yaml", "# " + std::string(17 << 20, 'x') + "\n");
  refused(big, "larger than 16 MiB");
}

BOOST_AUTO_TEST_CASE(cli_refuses_bad_scenario_files_with_exit_2) {
  for (const char* path : {"/tmp", "/proc/self/mem", "/dev/zero"}) {
    const auto o = run_cli(std::string("run -q --out ") + bcastsim::test::fresh_dir() + " " + path);
    BOOST_TEST(o.code == 2, path << ": " << o.output);
    BOOST_TEST(contains(o.output, "cannot read scenario file"), o.output);
  }
  // The fuzzer's finding: '' read as "no scenario" and ran the default.
  for (const char* args : {"run ''", "analyze ''", "run --seed ''", "run --out ''", "run --vcd ''",
                           "graph '' --file g.yaml"}) {
    const auto o = run_cli(std::string(args) + " -q");
    BOOST_TEST(o.code == 2, args << ": " << o.output);
    BOOST_TEST(contains(o.output, "empty; allowed: a non-empty value"), args << ": " << o.output);
  }
  const std::string complex = write_file("c.yaml", "? [a, b]\n: 1\n");
  auto o = run_cli("analyze -q --out " + bcastsim::test::fresh_dir() + " " + complex);
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "line 1, column 3"), o.output);
  const std::string twice = write_file("d.yaml", "collective:\n  bytes: 1\ncollective.bytes: 2\n");
  o = run_cli("analyze -q --out " + bcastsim::test::fresh_dir() + " " + twice);
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "collective.bytes is given twice"), o.output);
}

BOOST_AUTO_TEST_CASE(cli_refuses_bad_study_files_with_exit_2) {
  const std::string laughs = write_file("laughs.yaml", billion_laughs());
  auto o = run_cli("sweep --list " + laughs);
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "YAML nodes"), o.output);
  const std::string complex = write_file("c.yaml", "cross:\n  ? [a, b]\n  : [1]\n");
  o = run_cli("sweep --list " + complex);
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "line 2, column 5"), o.output);
  o = run_cli("sweep --list /tmp");
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "cannot read study file '/tmp': it is a directory"), o.output);
}

// The fuzzer's finding: a non-UTF-8 byte in trace.blocks, a study name or a plot title passed
// every check, then escaped from the JSON writer as an uncaught type_error (exit 1).
BOOST_AUTO_TEST_CASE(text_that_is_not_utf8_is_refused_naming_the_key) {
  using bcastsim::tb::invalid_utf8_at;
  BOOST_TEST(invalid_utf8_at("router_0, \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") ==
             std::string::npos);
  BOOST_TEST(invalid_utf8_at("router_0\xdf") == 8u);      // cut short
  BOOST_TEST(invalid_utf8_at("a\xc0\xaf") == 1u);         // overlong '/'
  BOOST_TEST(invalid_utf8_at("ab\xed\xa0\x80") == 2u);    // a surrogate
  BOOST_TEST(invalid_utf8_at("\xf4\x90\x80\x80") == 0u);  // past U+10FFFF
  BOOST_TEST(invalid_utf8_at("x\x80") == 1u);             // a lone continuation byte
  BOOST_TEST(contains(refusal("trace:\n  blocks: \"router_0\xdf\"\n"),
                      "s.yaml: line 2, column 11: a value is not UTF-8 text (byte 0xdf at "
                      "position 8); allowed: UTF-8 text"));
  const std::string out = bcastsim::test::fresh_dir();
  auto o = run_cli("run -q --out " + out +
                   " --set \"trace.blocks=$(printf 'router_0\\337')\"");  // sh: 0337 = 0xdf
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "--set trace.blocks is not UTF-8 text (byte 0xdf"), o.output);
  BOOST_TEST(!std::ifstream(out + "/result.json").good(), "a result.json was written");
  const std::string study = write_file("s.yaml",
                                       "cross:\n  seed: [1]\nplots:\n  - {kind: lines, x: seed, "
                                       "y: sim_time_ns, title: \"\xff\"}\n");
  o = run_cli("sweep --list " + study);
  BOOST_TEST(o.code == 2, o.output);
  BOOST_TEST(contains(o.output, "not UTF-8 text (byte 0xff"), o.output);
}

// A file a scenario file names is relative to the scenario's folder (issue 39); only
// topology.file names one.
BOOST_AUTO_TEST_CASE(input_files_resolve_against_the_folder_of_the_file_naming_them) {
  using bcastsim::tb::is_input_file_key;
  using bcastsim::tb::resolve_input_path;
  BOOST_TEST(is_input_file_key("topology.file"));
  BOOST_TEST(!is_input_file_key("trace.vcd"));  // written, not read
  BOOST_TEST(resolve_input_path("g.yaml", "exp") == "exp/g.yaml");
  BOOST_TEST(resolve_input_path("../graphs/g.yaml", "exp/a") == "exp/graphs/g.yaml");
  BOOST_TEST(resolve_input_path("/abs/g.yaml", "exp") == "/abs/g.yaml");
  BOOST_TEST(resolve_input_path("g.yaml", "") == "g.yaml");  // the working directory's
  BOOST_TEST(resolve_input_path("", "exp").empty());         // none given stays none

  const std::string dir = bcastsim::test::fresh_dir();
  std::ofstream(dir + "/base.yaml") << "topology: {kind: graph, file: sub/g.yaml}\n";
  BOOST_TEST(config::from_yaml_file(dir + "/base.yaml").text("topology.file") ==
             dir + "/sub/g.yaml");
  BOOST_TEST(config::from_yaml_text("topology: {kind: graph, file: g.yaml}\n", "text")
                 .text("topology.file") == "g.yaml");
}
