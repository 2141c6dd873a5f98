// The NIC interface (hw/nic/nic.h): a host needs nothing of the host NIC beyond it, so a
// Tofu2 TNI or a LANai NIC can stand in its place. Here two hosts run an MPICH binomial
// broadcast over a pair of loopback NICs that hand whole messages to each other after a
// fixed delay, without any network.
#include "algorithms/registry.h"
#include "hw/nic/host.h"
#include "hw/nic/nic.h"
#include "network/dragonfly.h"
#include "network/placement.h"
#include "tlm/null_endpoint.h"

#include <boost/test/unit_test.hpp>

#include <deque>
#include <ostream>
#include <systemc>

namespace {

using namespace bcastsim;

// Delivers every message to its peer `delay` after it was handed over, in order.
class loopback_nic final : public hw::nic, public tlm_net::fw_if, public tlm_net::bw_if {
 public:
  SC_HAS_PROCESS(loopback_nic);
  loopback_nic(const sc_core::sc_module_name& name, network::terminal_id terminal,
               sc_core::sc_time delay)
      : hw::nic(name), m_terminal(terminal), m_delay(delay) {
    in.bind(static_cast<tlm_net::fw_if&>(*this));
    out.bind(static_cast<tlm_net::bw_if&>(*this));
    m_stats.declare("messages_sent", "messages", "messages handed to the peer", messages_sent);
    SC_METHOD(deliver);
    sensitive << m_arrival;
    dont_initialize();
  }
  void connect(loopback_nic& peer) { m_peer = &peer; }

  void set_client(hw::nic_client* client) override { m_client = client; }
  network::terminal_id terminal() const override { return m_terminal; }
  void send_message(const hw::message& m) override {
    ++messages_sent;
    m_peer->m_in.push_back({m, m_terminal, sc_core::sc_time_stamp() + m_delay});
    m_peer->m_arrival.notify(m_delay);
  }
  size_t queued_messages() const override { return 0; }
  bool idle() const override { return m_in.empty(); }
  bool describe_stall(std::ostream&) const override { return false; }
  void trace(const tlm_net::trace_window&, const std::string&) override {}

  // No packet ever crosses its sockets: there is no network.
  tlm::tlm_sync_enum nb_transport_fw(tlm_net::packet&, tlm::tlm_phase&,
                                     sc_core::sc_time&) override {
    SC_REPORT_ERROR(name(), "a packet reached a loopback NIC");
    return tlm::TLM_COMPLETED;
  }
  void b_transport(tlm_net::packet&, sc_core::sc_time&) override {}
  bool get_direct_mem_ptr(tlm_net::packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm_net::packet&) override { return 0; }
  tlm::tlm_sync_enum nb_transport_bw(tlm_net::packet&, tlm::tlm_phase&,
                                     sc_core::sc_time&) override {
    SC_REPORT_ERROR(name(), "a credit reached a loopback NIC");
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  struct arrival {
    hw::message m;
    network::terminal_id src;
    sc_core::sc_time at;
  };
  void deliver() {
    while (!m_in.empty() && m_in.front().at <= sc_core::sc_time_stamp()) {
      const arrival a = m_in.front();
      m_in.pop_front();
      ++messages_received;
      m_client->on_message(a.src, a.m.collective_id, a.m.tag, a.m.buf_offset, a.m.bytes, a.m.seq);
    }
  }

  network::terminal_id m_terminal;
  sc_core::sc_time m_delay;
  loopback_nic* m_peer = nullptr;
  hw::nic_client* m_client = nullptr;
  std::deque<arrival> m_in;
  sc_core::sc_event m_arrival;
};

}  // namespace

BOOST_AUTO_TEST_CASE(hosts_run_a_broadcast_over_another_nic) {
  const network::dragonfly topo(network::dragonfly_params{2, 1, 1, 1});  // two terminals
  const network::placement place(topo, network::placement_params{});
  algorithms::collective_spec bcast;
  bcast.bytes = 4096;
  const algorithms::program prog = algorithms::make_program({bcast}, topo, place, {"collective"});
  hw::collective_progress progress;
  progress.reset(prog);

  const sc_core::sc_time delay(1, sc_core::SC_US);
  loopback_nic a("nic_0", 0, delay), b("nic_1", 1, delay);
  a.connect(b);
  b.connect(a);
  tlm_net::null_endpoint unconnected("unconnected");  // no network behind these NICs
  for (hw::nic* n : {static_cast<hw::nic*>(&a), static_cast<hw::nic*>(&b)}) {
    n->out.bind(unconnected.in);
    unconnected.out.bind(n->in);
  }
  hw::host_params hp;  // 300 ns per send and receive call
  hw::host root("host_0", 0, prog, hp, a, place, progress);
  hw::host leaf("host_1", 1, prog, hp, b, place, progress);
  sc_core::sc_start();

  BOOST_TEST(root.finished());
  BOOST_TEST(leaf.finished());
  BOOST_TEST(leaf.covered_bytes(0) == 4096u);
  BOOST_TEST(a.messages_sent.value == 1u);
  BOOST_TEST(b.messages_received.value == 1u);
  // The leaf holds the data when its message arrives: the send call's 300 ns, then the
  // loopback's 1 us (the receive call's 300 ns come after).
  BOOST_TEST(progress.instances[0].rank_done[1].value() == 1'300'000u);
}
