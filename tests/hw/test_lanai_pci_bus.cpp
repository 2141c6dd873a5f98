// The LANai NIC's PCI bus (hw/lanai/pci_bus.h) on a bench: burst timing by hand at 32 bits and
// 33 MHz, DMAs of one direction in order, the bus shared by both directions (alternating
// bursts: each gets half, the two together take as long as one after the other), zero-byte
// DMAs, and the statistics. One SystemC design per test case (one process each).
#include "hw/lanai/pci_bus.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

using namespace bcastsim::hw::lanai;

namespace {

struct done {
  pci_direction d;
  uint64_t id;
  uint64_t at_ps;
};

class recorder final : public pci_client {
 public:
  std::vector<done> log;
  pci_bus* bus = nullptr;
  // A DMA to queue when `after` completes (a chain, as a NIC's next send).
  uint64_t after = ~uint64_t{0};
  void on_dma_done(pci_direction d, uint64_t id) override {
    log.push_back({d, id, sc_core::sc_time_stamp().value()});
    if (id == after) bus->dma(pci_direction::to_host, 100, 99);
  }
};

// 33 MHz: a cycle is 1e6 / 33 ps; a burst's time is rounded once.
uint64_t burst_ps(uint64_t cycles) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(cycles) * 1e6 / 33));
}

}  // namespace

BOOST_AUTO_TEST_CASE(pci_bursts_take_overhead_latency_and_a_cycle_per_word) {
  recorder r;
  pci_bus bus("pci", pci_params{}, r);
  r.bus = &bus;
  // 4096 B each way: 16 bursts of 256 B, 64 data cycles each; reads pay 4 + 8, writes 4.
  bus.dma(pci_direction::to_nic, 4096, 1);
  sc_core::sc_start();
  BOOST_REQUIRE(r.log.size() == 1u);
  BOOST_TEST(r.log[0].at_ps == 16 * burst_ps(4 + 8 + 64));
  BOOST_TEST(bus.burst_time(pci_direction::to_host, 256).value() == burst_ps(4 + 64));
  BOOST_TEST(bus.burst_time(pci_direction::to_host, 3).value() == burst_ps(4 + 1));
  BOOST_TEST(bus.burst_time(pci_direction::to_nic, 0).value() == burst_ps(4 + 8));
  BOOST_TEST(bus.bytes_to_nic.value == 4096u);
  BOOST_TEST(bus.bursts.value == 16u);
  BOOST_TEST(bus.busy_ps.value == r.log[0].at_ps);
  BOOST_TEST(bus.idle());
  // Long writes reach 256 B per 68 cycles, 124 MB/s of the bus's 132.
  const double mb_per_s = 256.0 / (burst_ps(68) * 1e-12) / 1e6;
  BOOST_TEST(mb_per_s == 124.2, boost::test_tools::tolerance(0.01));
}

BOOST_AUTO_TEST_CASE(pci_dmas_of_one_direction_complete_in_order) {
  recorder r;
  pci_bus bus("pci", pci_params{}, r);
  r.bus = &bus;
  bus.dma(pci_direction::to_host, 1000, 1);
  bus.dma(pci_direction::to_host, 10, 2);
  bus.dma(pci_direction::to_host, 0, 3);  // an event without data: one burst's overhead
  sc_core::sc_start();
  BOOST_REQUIRE(r.log.size() == 3u);
  const uint64_t first = 3 * burst_ps(4 + 64) + burst_ps(4 + 58);  // 256 + 256 + 256 + 232
  BOOST_TEST(r.log[0].id == 1u);
  BOOST_TEST(r.log[0].at_ps == first);
  BOOST_TEST(r.log[1].id == 2u);
  BOOST_TEST(r.log[1].at_ps == first + burst_ps(4 + 3));
  BOOST_TEST(r.log[2].id == 3u);
  BOOST_TEST(r.log[2].at_ps == first + burst_ps(4 + 3) + burst_ps(4));
  BOOST_TEST(bus.dmas.value == 3u);
  BOOST_TEST(bus.queue_peak.value == 3u);
}

BOOST_AUTO_TEST_CASE(pci_bus_is_shared_by_both_directions) {
  recorder r;
  pci_bus bus("pci", pci_params{}, r);
  r.bus = &bus;
  // 64 KiB each way at once: the bursts alternate, so the read ends one write burst before
  // the write, and both together take what the two would take one after the other.
  bus.dma(pci_direction::to_nic, 65536, 1);
  bus.dma(pci_direction::to_host, 65536, 2);
  sc_core::sc_start();
  BOOST_REQUIRE(r.log.size() == 2u);
  const uint64_t read_burst = burst_ps(76);
  const uint64_t write_burst = burst_ps(68);
  BOOST_TEST(r.log[0].id == 1u);
  BOOST_TEST(r.log[0].at_ps == 256 * read_burst + 255 * write_burst);
  BOOST_TEST(r.log[1].id == 2u);
  BOOST_TEST(r.log[1].at_ps == 256 * (read_burst + write_burst));
  // Each direction got about half: a write alone would have ended at 256 write bursts.
  BOOST_TEST(r.log[1].at_ps > 2 * 256 * write_burst * 0.9);
  BOOST_TEST(bus.bytes_to_nic.value == 65536u);
  BOOST_TEST(bus.bytes_to_host.value == 65536u);
  BOOST_TEST(bus.busy_ps.value == r.log[1].at_ps);  // never idle while work waited
}

BOOST_AUTO_TEST_CASE(pci_a_dma_queued_on_completion_starts_at_once) {
  recorder r;
  pci_bus bus("pci", pci_params{}, r);
  r.bus = &bus;
  r.after = 7;
  bus.dma(pci_direction::to_nic, 256, 7);
  sc_core::sc_start();
  BOOST_REQUIRE(r.log.size() == 2u);
  BOOST_TEST(r.log[1].id == 99u);
  BOOST_TEST(r.log[1].at_ps == burst_ps(76) + burst_ps(4 + 25));
  std::ostringstream os;
  BOOST_TEST(!bus.describe_stall(os));
  BOOST_TEST(os.str().empty());
}

BOOST_AUTO_TEST_CASE(pci_describes_what_waits) {
  recorder r;
  pci_bus bus("pci", pci_params{}, r);
  r.bus = &bus;
  bus.dma(pci_direction::to_nic, 4096, 1);
  bus.dma(pci_direction::to_host, 64, 2);
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
  std::ostringstream os;
  BOOST_TEST(bus.describe_stall(os));
  BOOST_TEST(os.str().find("pci: 1 DMA(s) to the NIC and 1 to the host waiting; a 256-B burst "
                           "to_nic on the bus") != std::string::npos,
             os.str());
}

BOOST_AUTO_TEST_CASE(pci_refuses_a_zero_clock_width_or_burst) {
  const char* keys[] = {"lanai.pci_clock_mhz", "lanai.pci_width_bytes", "lanai.pci_burst_bytes"};
  for (int field = 0; field < 3; ++field) {
    pci_params bad;
    if (field == 0) bad.clock_mhz = 0;
    if (field == 1) bad.width_bytes = 0;
    if (field == 2) bad.burst_bytes = 0;
    try {
      pci_bus::check(bad);
      BOOST_FAIL("must throw");
    } catch (const std::invalid_argument& e) {
      BOOST_TEST(std::string(e.what()).find(keys[field]) != std::string::npos, e.what());
    }
  }
  pci_bus::check(pci_params{});
}
