// One Tofu2 network interface (TNI), an RDMA engine with its command queues, standing in
// place of the host NIC of one terminal (the NIC interface, hw/nic/nic.h). A Tofu (K) node
// has four and a TofuD node six (FACTS §4); Tofu2's count is not published. Each TNI gets its
// own terminal, so each injects at a link's rate.
//
// Code flow:
//   host -> enqueue(queue, descriptor) -> the queue's TOQ (command_queue.h; refused when full)
//   engine: round robin over the queues whose head may run (and over send_message()'s FIFO,
//           the host's own puts), one put at a time: descriptor_ns to fetch the descriptor and
//           start the DMA read, then the put's frames (frames.h) onto the terminal link as
//           credits allow. When the last frame is handed to the link, the queue's consumer
//           pointer moves on and its queue client hears of it (tni_client::on_put_done, the
//           TCQ),
//           and the engine fetches the next descriptor (that fetch overlaps the frame). Not
//           published; our choice: one put at a time, no prefetch of descriptors the
//           scheduling pointer has not released, so a released put always pays the fetch.
//   receive: frames reassembled per put (any order). When the last byte is in, receive_ns
//           later (DMA write and notice) the put's SPS advances the scheduling pointer of the
//           queue it designates and the queue client hears of it (tni_client::on_put_arrived,
//           the MRQ); a host message is reassembled and goes to the host (nic_client).
//
// The put's fields travel in the packet's family header (put_fields); nothing outside the
// Tofu2 family reads them.
//
// SPS releases "the next" descriptors, not named ones, so a session pipeline is right only if
// a sender's puts complete at the receiver in the order they were sent: true on the torus,
// whose dimension-order routing gives a flow one path and one VC sequence. Adaptive routing
// could complete put k+1 first and release the forwarding of segment k before it is in.
#pragma once

#include "hw/nic/nic.h"
#include "hw/tofu2/command_queue.h"
#include "hw/tofu2/frames.h"
#include "network/routing.h"
#include "tlm/credit_output.h"
#include "tlm/packet.h"
#include "tlm/packet_pool.h"
#include "tlm/ring.h"
#include "tlm/timed_queue.h"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

namespace bcastsim::hw::tofu2 {

inline constexpr uint8_t family_id = 2;  // tlm_net::family_header::family (Ragasa's is 1)
inline constexpr uint8_t no_queue = 0xff;

// What a put's frames carry besides the message fields (8 bytes: the family header).
struct put_fields {
  uint8_t queue = no_queue;  // the receiver's queue its SPS advances; no_queue: none
  uint8_t sps = 0;
  uint8_t tni = 0;         // the sending TNI's index in its node
  uint8_t from_queue = 0;  // 1: a command queue's put (the MRQ); 0: a host message
  uint32_t put = 0;        // per sending TNI, in issue order
};

struct tni_params {
  uint32_t index = 0;  // the TNI's index in its node (a descriptor's ri)
  // TOQ entries: the smallest size the hardware offers, 2^11 (FACTS §4: 2^(2s+11)).
  uint64_t toq_entries = 2048;
  // Command queues per TNI: TofuD's TOF_ICC_NCQS (FACTS §4); Tofu2's count is not published.
  uint32_t queues = 12;
  // Descriptor fetch and DMA-read start per put, and DMA write plus notice at the receiver
  // before the SPS applies. Not published: together 600 ns, about what is left of Tofu2's
  // 8-B put latency, 0.71 µs (FACTS §4, inferred from TofuD's 0.49 µs being 31 % lower),
  // after one hop of links and router; split evenly between the two ends.
  uint64_t descriptor_ns = 300;
  uint64_t receive_ns = 300;
  frame_format frames;
  uint32_t inject_buffer_bytes = 16384;  // the router's terminal VC buffer (initial credits)
  uint32_t eject_buffer_bytes = 16384;
  uint32_t vcs = 2;
  uint64_t seed = 1;
};

// Hears of the TNI's command-queue puts: the TCQ (local completions) and the MRQ (arrivals).
class tni_client {
 public:
  virtual ~tni_client() = default;
  // Queue `queue`'s put `d` has left (its last frame is on the link).
  virtual void on_put_done(uint32_t queue, const toq_descriptor& d) = 0;
  // A command-queue put from the TNI at `src` is in memory here, after its SPS was applied:
  // its edata, buffer offset and length.
  virtual void on_put_arrived(network::terminal_id src, uint32_t edata, uint64_t offset,
                              uint64_t bytes) = 0;
};

class tni final : public nic {
 public:
  tni(const sc_core::sc_module_name& name, network::terminal_id terminal, const tni_params& params,
      tlm_net::packet_pool& pool, const network::routing_policy& routing);
  ~tni() override;
  SC_HAS_PROCESS(tni);

  // Command queues. open_queue returns the new queue's index; throws std::length_error when
  // all `queues` are open.
  uint32_t open_queue(queue_mode mode);
  // The host writes one descriptor (remote_terminal set; remote_queue a queue number of the
  // receiving TNI, or toq_no_queue); false when the TOQ is full. Throws std::invalid_argument
  // for a queue not open, an SPS above 4 bits or a remote queue the header cannot carry.
  bool enqueue(uint32_t queue, const toq_descriptor& d);
  const command_queue& queue(uint32_t q) const { return *m_queues[q]; }
  // MPI_Request_free: queue q's pointers go back to 0 (it must be empty).
  void reset_queue(uint32_t q);
  // Records every request to every queue from now on, one cq_cycle each (enqueues a full TOQ
  // refused included), until the queue is reset: a stimulus the co-simulation replays
  // (`bcastsim run --record-unit-inputs`, tb/cosim/cq_replay.h).
  void record_queues() { m_recording = true; }
  const std::vector<cq_cycle>& recorded(uint32_t q) const { return m_recorded[q]; }
  uint32_t open_queues() const { return static_cast<uint32_t>(m_queues.size()); }
  void set_queue_client(tni_client* c) { m_queue_client = c; }

  // nic: the host's own messages go as puts of the host's normal-mode FIFO (no SPS).
  void set_client(nic_client* client) override { m_client = client; }
  network::terminal_id terminal() const override { return m_terminal; }
  void send_message(const message& m) override;
  size_t queued_messages() const override { return m_messages.size(); }
  bool idle() const override;
  bool describe_stall(std::ostream& os) const override;
  // The queues open now (the family opens them before tracing starts) and the engine.
  void trace(const tlm_net::trace_window& window, const std::string& prefix) override;

  tlm::tlm_sync_enum nb_transport_fw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_bw(uint32_t, tlm_net::packet& p, tlm::tlm_phase& ph,
                                     sc_core::sc_time& t);

  // Besides the counters every NIC keeps (packets are frames, messages are puts):
  tlm_net::counter wire_bytes_sent;  // frame bytes, headers included
  tlm_net::counter enqueue_refused;  // host enqueues refused on a full TOQ (back-pressure)

 private:
  enum class action_kind : uint8_t { wake, deliver, notice };
  struct action {
    action_kind kind = action_kind::wake;
    tlm_net::packet* pkt = nullptr;
  };
  // The put being sent: from a queue, or a host message.
  struct current_put {
    bool active = false;
    uint32_t queue = 0;  // no_queue: the host's FIFO
    toq_descriptor d;
    message msg;  // the fields the frames carry
    put_fields fields;
    uint64_t id = 0;
    uint32_t frames = 0;
    uint32_t next_frame = 0;
    sc_core::sc_time start;  // when the first frame may leave (descriptor fetched)
    sc_core::sc_time queued;
  };
  struct partial {
    network::terminal_id src;
    uint64_t msg_id;
    uint64_t received;
  };
  struct notice {  // a put fully received, applied receive_ns later
    network::terminal_id src;
    message msg;
    put_fields fields;
  };
  struct trace_mirror;

  void on_wakeup();
  bool pick_put(const sc_core::sc_time& now);
  void inject(const sc_core::sc_time& now);
  void finish_put();
  void deliver(tlm_net::packet* p);
  void apply_notice();
  void sample_trace();

  network::terminal_id m_terminal;
  tni_params m_params;
  tlm_net::packet_pool& m_pool;
  const network::routing_policy& m_routing;
  nic_client* m_client = nullptr;
  tni_client* m_queue_client = nullptr;

  std::vector<std::unique_ptr<command_queue>> m_queues;
  tlm_net::ring<message> m_messages;  // the host's own puts, in order
  uint32_t m_next_queue = 0;          // round robin: the queue looked at first
  current_put m_put;
  uint64_t m_next_put = 0;
  uint64_t m_next_packet = 0;

  tlm_net::tagged_fw<tni> m_fw;
  tlm_net::tagged_bw<tni> m_bw;
  tlm_net::credit_output m_inject;
  std::vector<uint32_t> m_eject_bytes;  // [vc]
  std::vector<partial> m_partial;
  tlm_net::ring<notice> m_notices;  // in arrival order; each due receive_ns after it
  tlm_net::packet m_credit_token;

  sc_core::sc_event m_wakeup;
  tlm_net::timed_queue<action> m_agenda;
  std::unique_ptr<trace_mirror> m_trace;
  bool m_recording = false;
  std::vector<std::vector<cq_cycle>> m_recorded;  // [queue] while recording
  std::vector<bool> m_record_closed;              // [queue] reset: its recording ended
  void record(uint32_t q, const cq_cycle& c) {
    if (!m_recording || m_record_closed[q]) return;
    m_recorded[q].push_back(c);
  }
};

}  // namespace bcastsim::hw::tofu2
