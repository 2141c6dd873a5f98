// A Tofu2 TNI command queue, cycle by cycle: the TOQ ring and its producer, consumer and
// scheduling pointers (Morie et al., Figs. 2 and 3; FACTS §4). The SystemC twin is
// hw/tofu2/command_queue.*; the descriptors stay in the wrapper, named by a handle.
//
// One clock edge does what command_queue::cycle does, in its order: (1) the host's enqueue,
// refused when the ring is full before the edge; (2) an arriving packet's SPS advances the
// scheduling pointer (session mode; a normal-mode queue counts it as ignored); (3) the engine
// retires the head, which it may only ask for while head_valid. Pointers are free-running
// 32-bit counts; a slot is a count's low LOG2_ENTRIES bits.
//
// Fault for the co-simulation regression to catch (compile-time define):
//   TOFU2_CQ_FAULT_PASS_SCHEDULING  the consumer may pass the scheduling pointer by one
module tofu2_cq #(
    parameter int LOG2_ENTRIES = 11,  // the smallest TOQ, 2^11 entries (FACTS §4)
    parameter int HW = 32             // descriptor handle width
) (
    input logic clk,
    input logic rst,

    // Configuration, constant while running.
    input logic        cfg_session,  // 1: session mode (SMCQ), 0: normal mode
    input logic [31:0] cfg_entries,  // ring entries in use: a power of two, up to 2^LOG2_ENTRIES
    input logic [31:0] cfg_start,    // the count every pointer starts from (a bench sets it near
                                     // 2^32 to see the counts wrap)

    // Host: one descriptor per edge.
    input  logic          enq_valid,
    input  logic [HW-1:0] enq_handle,
    output logic          enq_ready,

    // An arriving RDMA packet designating this queue.
    input logic       sps_valid,
    input logic [3:0] sps,

    // Engine: the head, and its retirement at this edge.
    output logic          head_valid,
    output logic [HW-1:0] head_handle,
    input  logic          retire,

    // State, for the scoreboard and the waveforms.
    output logic [31:0] producer,
    output logic [31:0] consumer,
    output logic [31:0] scheduling,
    output logic        waits,     // the head is enqueued but held by the scheduling pointer
    output logic [31:0] refused,   // enqueues refused on a full ring
    output logic [31:0] occupancy,
    output logic        overflow   // the session lead passed the 25-bit offset
);
  localparam int ENTRIES = 1 << LOG2_ENTRIES;
  localparam logic [31:0] MAX_LEAD = 32'h01ff_ffff;

  logic [HW-1:0] ring[ENTRIES];
  logic [31:0] slots_used;
  logic scheduled;

  assign slots_used = producer - consumer;
  assign occupancy = slots_used;
  assign enq_ready = slots_used < cfg_entries;
  // The scheduling pointer's lead over the consumer, as a signed distance: 32-bit counts wrap,
  // so the pointers themselves cannot be compared (the lead stays below 2^25: overflow).
  logic signed [31:0] lead;
  assign lead = scheduling - consumer;
`ifdef TOFU2_CQ_FAULT_PASS_SCHEDULING
  assign scheduled = !cfg_session || lead >= 0;
`else
  assign scheduled = !cfg_session || lead > 0;
`endif
  assign head_valid = slots_used != 0 && scheduled;
  assign waits = slots_used != 0 && !scheduled;
  assign head_handle = ring[slot(consumer)];

  // A count's ring slot: the TOQ's sizes are powers of two (FACTS §4), so a mask, and the
  // slots stay in order when the 32-bit counts wrap.
  function automatic logic [LOG2_ENTRIES-1:0] slot(input logic [31:0] count);
    slot = LOG2_ENTRIES'(count & (cfg_entries - 1));
  endfunction

  logic [31:0] sched_next;
  always_comb begin
    sched_next = scheduling;
    if (sps_valid && cfg_session) sched_next = scheduling + {28'd0, sps};
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      producer <= cfg_start;
      consumer <= cfg_start;
      scheduling <= cfg_start;
      refused <= '0;
      overflow <= 1'b0;
    end else begin
      if (enq_valid) begin
        if (enq_ready) begin
          ring[slot(producer)] <= enq_handle;
          producer <= producer + 1;
        end else begin
          refused <= refused + 1;
        end
      end
      scheduling <= sched_next;
      if (retire && head_valid) consumer <= consumer + 1;
      if (sps_valid && cfg_session && sched_next - consumer > MAX_LEAD) overflow <= 1'b1;
    end
  end
endmodule
