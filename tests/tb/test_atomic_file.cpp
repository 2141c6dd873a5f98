// tb/atomic_file: output files are written whole or not at all (issue 13, reproduction 14):
// a failed write leaves the old file, concurrent writers of one path leave a valid file, and
// two `bcastsim run` writing the same --out at once never leave a broken result.json.
#include <boost/test/unit_test.hpp>

#include "cli_runner.h"
#include "tb/atomic_file.h"
#include "tb/config.h"

#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

using namespace bcastsim::test;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

// A JSON document of about `kib` KiB naming its writer.
std::string document(int writer, size_t kib) {
  nlohmann::json j;
  j["writer"] = writer;
  j["filler"] = std::string(kib * 1024, static_cast<char>('a' + writer % 26));
  return j.dump();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_write_failing_midway_leaves_the_old_file_intact) {
  const std::string dir = fresh_dir(), path = dir + "/result.json";
  bcastsim::tb::write_file_atomically(path, "{\"old\": true}\n", "--out");
  // The file system refuses the write past 64 KiB (as a full disk would): EFBIG, not SIGXFSZ.
  rlimit before{};
  getrlimit(RLIMIT_FSIZE, &before);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = before;
  small.rlim_cur = 64 * 1024;
  BOOST_REQUIRE_EQUAL(setrlimit(RLIMIT_FSIZE, &small), 0);
  bool refused = false;
  try {
    bcastsim::tb::write_file_atomically(path, document(1, 1024), "--out");
  } catch (const bcastsim::tb::config_error& e) {
    refused = true;
    BOOST_TEST_INFO(e.what());
    BOOST_CHECK_EQUAL(e.key, "--out");
    BOOST_CHECK(contains(e.what(), "--out: cannot write '" + path + "'"));
  }
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
  BOOST_CHECK(refused);
  BOOST_CHECK_EQUAL(slurp(path), "{\"old\": true}\n");
  BOOST_CHECK_EQUAL(files_in(dir), 1u);  // no temporary file left behind
}

BOOST_AUTO_TEST_CASE(an_uncommitted_file_leaves_the_target_untouched) {
  const std::string dir = fresh_dir(), path = dir + "/results.csv";
  bcastsim::tb::write_file_atomically(path, "old\n", "--out");
  {
    bcastsim::tb::atomic_file f(path, "--out");
    f.stream() << "half of a ne";  // then an exception unwinds past it
  }
  BOOST_CHECK_EQUAL(slurp(path), "old\n");
  BOOST_CHECK_EQUAL(files_in(dir), 1u);
  BOOST_CHECK_THROW(bcastsim::tb::write_file_atomically(dir + "/no/such/dir/x.json", "{}", "--out"),
                    bcastsim::tb::config_error);
}

// Issue 39, defect 1: the rename replaced whatever the target was; a FIFO, a socket or a
// directory (a device too, where mknod is permitted) is now refused and left as it was.
BOOST_AUTO_TEST_CASE(a_target_that_is_not_a_regular_file_is_refused) {
  const std::string dir = fresh_dir();
  std::vector<std::pair<std::string, fs::file_type>> targets;
  BOOST_REQUIRE(mkfifo((dir + "/fifo").c_str(), 0644) == 0);
  targets.emplace_back(dir + "/fifo", fs::file_type::fifo);
  BOOST_REQUIRE(fs::create_directory(dir + "/folder"));
  targets.emplace_back(dir + "/folder", fs::file_type::directory);
  if (mknod((dir + "/null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    targets.emplace_back(dir + "/null", fs::file_type::character);
  } else {
    BOOST_TEST_MESSAGE("no device case: mknod is not permitted here");
  }
  for (const auto& [path, type] : targets) {
    try {
      bcastsim::tb::write_file_atomically(path, "{}\n", "--file");
      BOOST_ERROR(path << " was written");
    } catch (const bcastsim::tb::config_error& e) {
      BOOST_TEST(e.key == "--file");
      BOOST_TEST(contains(e.what(), "not a regular file"), e.what());
    }
    BOOST_TEST((fs::symlink_status(path).type() == type), path << " was replaced");
  }
  // Also when it becomes one while the file is written: commit() looks again.
  {
    const std::string late = dir + "/late";
    bcastsim::tb::atomic_file f(late, "--json");
    f.stream() << "{}\n";
    BOOST_REQUIRE(mkfifo(late.c_str(), 0644) == 0);
    BOOST_CHECK_THROW(f.commit(), bcastsim::tb::config_error);
    BOOST_TEST((fs::symlink_status(late).type() == fs::file_type::fifo));
  }
  BOOST_CHECK_EQUAL(files_in(dir), targets.size() + 1);  // no temporary file left behind
}

BOOST_AUTO_TEST_CASE(concurrent_writers_always_leave_a_valid_file) {
  const std::string dir = fresh_dir(), path = dir + "/status.json";
  bcastsim::tb::write_file_atomically(path, document(0, 64), "--out");
  std::atomic<bool> stop{false};
  std::atomic<size_t> reads{0}, broken{0};
  std::thread reader([&] {
    while (!stop) {
      const auto j = nlohmann::json::parse(slurp(path), nullptr, false);
      if (j.is_discarded()) ++broken;
      ++reads;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 1; w <= 4; ++w) {
    writers.emplace_back([w, &path] {
      for (int i = 0; i < 50; ++i)
        bcastsim::tb::write_file_atomically(path, document(w, 16 + 16 * (i % 4)), "--out");
    });
  }
  for (std::thread& t : writers) t.join();
  stop = true;
  reader.join();
  BOOST_TEST_MESSAGE(reads << " reads while writing");
  BOOST_CHECK_EQUAL(broken.load(), 0u);
  BOOST_CHECK(!nlohmann::json::parse(slurp(path), nullptr, false).is_discarded());
  BOOST_CHECK_EQUAL(files_in(dir), 1u);
}

// Reproduction 14: runs writing one --out at once, while a reader watches result.json.
BOOST_AUTO_TEST_CASE(concurrent_runs_writing_one_out_leave_a_valid_result) {
  const std::string dir = fresh_dir(), path = dir + "/result.json";
  std::atomic<bool> stop{false};
  std::atomic<size_t> broken{0};
  std::thread reader([&] {
    while (!stop) {
      std::ifstream in(path);
      if (!in) continue;  // not written yet
      std::stringstream ss;
      ss << in.rdbuf();
      if (nlohmann::json::parse(ss.str(), nullptr, false).is_discarded()) ++broken;
    }
  });
  size_t invalid_after = 0;
  for (int round = 0; round < 6; ++round) {
    // Different sizes give results of different lengths, so interleaved writes show.
    std::string cmd = "sh -c '";
    for (int i = 0; i < 4; ++i) {
      cmd += std::string(BCASTSIM_BINARY) + " run -q --out " + dir +
             " --set collective.bytes=" + std::to_string(1024 << i) + " & ";
    }
    cmd += "wait'";
    BOOST_REQUIRE_EQUAL(std::system(cmd.c_str()), 0);
    if (nlohmann::json::parse(slurp(path), nullptr, false).is_discarded()) ++invalid_after;
  }
  stop = true;
  reader.join();
  BOOST_CHECK_EQUAL(invalid_after, 0u);
  BOOST_CHECK_EQUAL(broken.load(), 0u);
  BOOST_CHECK_EQUAL(files_in(dir), 1u);
}
