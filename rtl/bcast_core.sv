// The core of Ragasa's Bcast Unit, cycle by cycle: Rx-queues, Receive Packet Scheduler,
// Membership Table, Working Memory allocator with back-pressure, descriptor generation, Work
// Queue Element, Dispatcher and Send Packet Scheduler. The Receive Interface (flits -> packet,
// credits) and the Send Interface (packet -> link, credits) are the TLM wrapper's
// (hw/ragasa/bcast_unit_rtl.*); payloads stay in the wrapper too, named by a handle.
//
// One clock edge does what the SystemC model (hw/ragasa/bcast_unit.cpp) does at one time, in
// its order: (1) the stages whose latency ends at this edge complete (store / Mini Packet
// parse / credit return parse, descriptor generated, descriptor dispatched, copy built); (2)
// the SI sends the queued credit return or takes the built copy if the wrapper is ready, and
// the SPS starts the next copy; (3) the Dispatcher; (4) descriptor generation; (5) RI ->
// queues; (6) the Receive Packet Scheduler (the control queue's head first, then round robin
// over the data queues; a head data packet waits for its broadcast's entry and room in its
// reservation; open chunks never close early); (7) RI -> queues into the slot just freed. A
// latency of c cycles started at edge t ends at t + c.
//
// The deadlock-free design (hw/ragasa/README.md): three classes on three VCs, each VC its own
// FIFO in the RI (merged in arrival order, a full queue holds only its own VC); hand-off and
// relayed data in two banks of rx_queues Rx-queues, control in a queue of its own; a Mini
// Packet reserves R = min(P, cfg_res_pkts) x cfg_pkt_bytes of Working Memory for its
// broadcast (cfg_res_pkts = min(reserved_chunks x a chunk's packets, memory / packet), from
// the wrapper) and is admitted while the reservations fit; per entry and unit child, credits
// (packets) start at R's packets, a closed batch takes them all or waits in its broadcast's
// list (after the ones before it), a credit return gives them back; step 10 of a batch whose
// broadcast has a parent unit queues a credit return (cro_*), which the SI sends before the
// next copy.
// Choices where the model's code has no hardware shape: the RI moves at most MOVES packets a
// pass (two passes an edge; the model moves all it can), which differs only when a VC held
// for a full queue frees more than four packets at once; a single credit-return register
// suffices (the SI sends it before the copy that could complete another batch: a second
// would be ERR_CREDIT_FULL); the wait for credits walks the broadcast's list in one edge.
//
// The steps are functions over the next state, in three files included inside this module (so
// the verilated model and its VCD are one module, as before): bcast_core_receive.svh (RI,
// Rx-queues, scheduler, Membership Table, chunks), bcast_core_send.svh (descriptors,
// Dispatcher, SPS, SI) and bcast_core_state.svh (the next state's start, the registers).
//
// Faults for the co-simulation regression to catch (compile-time defines):
//   BCAST_FAULT_UNFAIR      the scheduler starts at Rx-queue 0 every time (no round robin)
//   BCAST_FAULT_EARLY_FREE  a batch's memory is released one copy before its last
//
// Step 10: when a batch's last copy leaves, its bytes go back to Working Memory and its
// packets count towards the collective's Membership Table entry; the entry is freed
// (ev_freed) when the count reaches pl_expect, the packets its Mini Packet announced (0 or
// all ones: kept until the run ends). A stored packet's
// slot returns to the free list after its own last copy: the byte count, not the slots,
// is what the scheduler checks, and slots outnumber the packets Working Memory can hold.
module bcast_core
  import bcast_pkg::*;
(
    input logic clk,
    input logic rst,

    // Configuration: the scenario's ragasa.* values, constant while running.
    input logic [31:0] cfg_rx_queues,
    input logic [31:0] cfg_rx_depth,
    input logic [31:0] cfg_mt_entries,
    input logic [31:0] cfg_wm_bytes,
    input logic [31:0] cfg_threshold,
    input logic [31:0] cfg_wq,
    input logic [31:0] cfg_sq,
    input logic [7:0] cfg_sched_cycles,  // every latency 1 .. 255 cycles
    input logic [7:0] cfg_desc_cycles,
    input logic [7:0] cfg_disp_cycles,
    input logic [7:0] cfg_send_cycles,
    input logic [31:0] cfg_pkt_bytes,  // network.packet_bytes
    input logic [31:0] cfg_res_pkts,  // a reservation's packets when P is larger or unknown


    // RI: a packet assembled at this edge.
    input logic in_valid,
    input logic [HW-1:0] in_handle,
    input logic [1:0] in_cls,
    input logic [1:0] in_vc,
    input logic [QW-1:0] in_queue,  // data: its Rx-queue (0 .. 2 rx_queues-1); control: any
    input logic [31:0] in_coll,
    input logic [15:0] in_bytes,
    input logic [31:0] in_src,
    input logic [31:0] in_msg,
    input logic [31:0] in_count,

    // Payload of the Mini Packet parsed at this edge (its child list), read by handle.
    output logic pl_valid,
    output logic [HW-1:0] pl_handle,
    input logic [31:0] pl_nchild,
    input logic [31:0] pl_expect,  // data packets the collective brings here (~0: keep)
    input logic [31:0] pl_dst[CHILD_MAX],
    input logic [31:0] pl_unit[CHILD_MAX],
    input logic [31:0] pl_parent_dst,  // the unit the data come from (all ones: a host)
    input logic [31:0] pl_parent_unit,

    // SI: the copy on offer, taken at this edge when out_ready (link free, credits cover it).
    output logic out_valid,
    output logic [15:0] out_bytes,
    input logic out_ready,
    // SI: the credit return on offer (it goes before any copy), taken when cr_ready.
    output logic cro_valid,
    output logic [31:0] cro_coll,
    output logic [31:0] cro_count,
    output logic [31:0] cro_dst,
    output logic [31:0] cro_unit,
    input logic cr_ready,

    // What the last edge did.
    output logic [3:0] ev_moved,  // packets that left the RI (their credits go back)
    output logic [2*MOVES-1:0][1:0] ev_moved_vc,  // their VCs, in the order they left
    output logic [31:0] ev_rx_peak,  // the fullest a queue was as one entered it (0: none did)
    output logic ev_sched,
    output logic [HW-1:0] ev_sched_handle,
    output logic [QW-1:0] ev_sched_queue,
    output logic ev_parsed,
    output logic [HW-1:0] ev_parsed_handle,
    output logic ev_credit,  // a credit return was parsed (its handle is done with)
    output logic [HW-1:0] ev_credit_handle,
    output logic ev_batch,  // a chunk closed (at most one an edge: one packet is stored)
    output logic [HW-1:0] ev_batch_handle,
    output logic [15:0] ev_batch_npkts,
    output logic ev_desc,
    output logic [HW-1:0] ev_desc_handle,
    output logic [31:0] ev_desc_dst,
    output logic [31:0] ev_desc_unit,
    output logic ev_disp,
    output logic [HW-1:0] ev_disp_handle,
    output logic [31:0] ev_disp_dst,
    output logic [31:0] ev_disp_unit,
    output logic ev_copy,
    output logic [HW-1:0] ev_copy_handle,
    output logic [31:0] ev_copy_dst,
    output logic [31:0] ev_copy_unit,
    output logic ev_copy_release,  // the copy's stored packet left Working Memory with it
    output logic ev_freed,  // a Membership Table entry was freed (step 10)
    output logic [31:0] ev_freed_coll,

    // Status after the last edge.
    output logic idle,
    output logic [31:0] st_mem_used,
    output logic [31:0] st_ri_packets,
    output logic [31:0] st_rx_packets,
    output logic [31:0] st_rx_max,  // fullest Rx-queue
    output logic [31:0] st_mt_entries,
    output logic [31:0] st_gen_batches,
    output logic [31:0] st_wq,
    output logic [31:0] st_sq,
    output logic st_ri_blocked,
    output logic [NQ-1:0] st_stalled,  // head data packet waits (entry or reservation)
    output logic [NQ-1:0] st_hol,  // and packets wait behind it
    output logic [NQ-1:0] st_mp_wait,  // head Mini Packet waits for an entry and memory
    output logic [31:0] st_resv,  // Working Memory reserved by the entries
    output logic [31:0] st_credit_waits,  // broadcasts with batches waiting for credits
    output logic st_conn_wait,  // the Dispatcher's head descriptor waits for a connection
    output logic [3:0] err_code
);
  localparam logic [1:0] SI_NONE = 2'd0, SI_BUILDING = 2'd1, SI_READY = 2'd2;

  // ---- State: small parts are copied and updated in the next-state logic; memories are
  // written through explicit ports below.
  pkt_t ri_mem[VCS][RI_MAX];  // a FIFO per VC
  logic [15:0] ri_seq_mem[VCS][RI_MAX];  // arrival numbers: the FIFOs merge in arrival order
  logic [RIW-1:0] ri_head[VCS];
  logic [RIW:0] ri_cnt[VCS];
  logic [15:0] ri_seq;  // the next arrival's number
  pkt_t rx_mem[NQ][RXQ_DEPTH_MAX];
  logic [$clog2(RXQ_DEPTH_MAX)-1:0] rx_head[NQ];
  logic [$clog2(RXQ_DEPTH_MAX):0] rx_cnt[NQ];
  logic [NQ-1:0] stalled, hol, mp_wait;
  logic conn_wait;  // the Dispatcher's head descriptor waits for a connection
  logic [QW-1:0] rr;
  logic sched_busy;
  logic [7:0] sched_cnt;
  pkt_t sched_pkt;
  logic [SW-1:0] sched_slot;
  logic [MT_MAX-1:0] mt_valid;
  logic [31:0] mt_coll[MT_MAX];
  logic [KW-1:0] mt_nchild[MT_MAX];
  logic [31:0] mt_expect[MT_MAX];
  logic [31:0] mt_done[MT_MAX];
  logic [31:0] mt_rpk[MT_MAX];  // Working Memory reserved, in packets
  logic [MT_MAX-1:0] mt_ukids;  // some child is a unit: its batches need credits
  child_t mt_child[MT_MAX][CHILD_MAX];
  child_t mt_parent[MT_MAX];  // where credit returns go (unit all ones: none)
  logic [31:0] mt_credit[MT_MAX][CHILD_MAX];  // packets a child unit may still be sent
  logic [31:0] resv_total;  // bytes reserved by the entries
  logic cro_v;  // a credit return waits for the SI
  logic [31:0] cro_c, cro_n;
  child_t cro_p;
  coll_t colls[COLL_MAX];
  // The collectives' valid bits and ids beside their wide state: every lookup reads these
  // (a search of the wide records cost the verilated model most of its time).
  logic [COLL_MAX-1:0] coll_v;
  logic [31:0] coll_id[COLL_MAX];
  batch_t batches[BATCH_MAX];
  logic [BATCH_MAX-1:0] bvalid;
  logic gq_valid;
  logic [BW-1:0] gq_head, gq_tail;
  logic [KW-1:0] gen_child;
  logic gen_busy;
  logic [7:0] gen_cnt;
  desc_t gen_desc;
  desc_t wq_mem[WQ_MAX];
  logic [$clog2(WQ_MAX)-1:0] wq_head;
  logic [$clog2(WQ_MAX):0] wq_cnt;
  logic disp_busy;
  logic [7:0] disp_cnt;
  desc_t disp_desc;
  sps_t sps[SQ_MAX];
  logic [$clog2(SQ_MAX):0] sps_cnt;
  logic [$clog2(SQ_MAX):0] sps_rr;
  logic [1:0] si_state;
  logic [7:0] si_cnt;
  logic [HW-1:0] si_handle;
  child_t si_child;
  logic [15:0] si_bytes;
  logic [SW-1:0] si_slot;
  logic [BW-1:0] si_batch;
  logic [31:0] mem_used;
  logic [HW-1:0] slot_handle[SLOT_MAX];
  logic [15:0] slot_bytes[SLOT_MAX];
  logic [SW-1:0] slot_next[SLOT_MAX];
  logic [15:0] slot_sent[SLOT_MAX];
  logic [SW-1:0] free_mem[SLOT_MAX];
  logic [SW-1:0] free_head;
  logic [SW:0] free_cnt;
  logic [SW:0] fresh;  // slots never used yet: fresh .. SLOT_MAX-1
  logic [3:0] err;

  // ---- Next state.
  logic [RIW-1:0] n_ri_head[VCS];
  logic [RIW:0] n_ri_cnt[VCS];
  logic [15:0] n_ri_seq;
  logic [$clog2(RXQ_DEPTH_MAX)-1:0] n_rx_head[NQ];
  logic [$clog2(RXQ_DEPTH_MAX):0] n_rx_cnt[NQ];
  logic [NQ-1:0] n_stalled, n_hol, n_mp_wait;
  logic n_conn_wait;
  logic [QW-1:0] n_rr;
  logic n_sched_busy;
  logic [7:0] n_sched_cnt;
  pkt_t n_sched_pkt;
  logic [SW-1:0] n_sched_slot;
  logic [MT_MAX-1:0] n_mt_valid;
  logic [31:0] n_mt_coll[MT_MAX];
  logic [KW-1:0] n_mt_nchild[MT_MAX];
  logic [31:0] n_mt_expect[MT_MAX];
  logic [31:0] n_mt_done[MT_MAX];
  logic [31:0] n_mt_rpk[MT_MAX];
  logic [MT_MAX-1:0] n_mt_ukids;
  logic [31:0] n_resv_total;
  logic n_cro_v;
  logic [31:0] n_cro_c, n_cro_n;
  child_t n_cro_p;
  coll_t n_colls[COLL_MAX];
  logic [COLL_MAX-1:0] n_coll_v;
  logic [31:0] n_coll_id[COLL_MAX];
  batch_t n_batches[BATCH_MAX];
  logic [BATCH_MAX-1:0] n_bvalid;
  logic n_gq_valid;
  logic [BW-1:0] n_gq_head, n_gq_tail;
  logic [KW-1:0] n_gen_child;
  logic n_gen_busy;
  logic [7:0] n_gen_cnt;
  desc_t n_gen_desc;
  logic [$clog2(WQ_MAX)-1:0] n_wq_head;
  logic [$clog2(WQ_MAX):0] n_wq_cnt;
  logic n_disp_busy;
  logic [7:0] n_disp_cnt;
  desc_t n_disp_desc;
  sps_t n_sps[SQ_MAX];
  logic [$clog2(SQ_MAX):0] n_sps_cnt;
  logic [$clog2(SQ_MAX):0] n_sps_rr;
  logic [1:0] n_si_state;
  logic [7:0] n_si_cnt;
  logic [HW-1:0] n_si_handle;
  child_t n_si_child;
  logic [15:0] n_si_bytes;
  logic [SW-1:0] n_si_slot;
  logic [BW-1:0] n_si_batch;
  logic [31:0] n_mem_used;
  logic [SW-1:0] n_free_head;
  logic [SW:0] n_free_cnt;
  logic [SW:0] n_fresh;
  logic [3:0] n_err;

  // ---- Memory write ports.
  logic ri_we;
  logic [1:0] ri_wv;
  logic [RIW-1:0] ri_wa;
  logic [2*MOVES-1:0] rx_we;
  logic [QW-1:0] rx_wq[2*MOVES];
  logic [$clog2(RXQ_DEPTH_MAX)-1:0] rx_wa[2*MOVES];
  pkt_t rx_wd[2*MOVES];
  logic mt_we;
  logic [MW-1:0] mt_wa;
  logic crw_we;  // an entry's credits
  logic [MW-1:0] crw_wa;
  logic [31:0] crw_wd[CHILD_MAX];
  logic wq_we;
  logic [$clog2(WQ_MAX)-1:0] wq_wa;
  desc_t wq_wd;
  logic slot_we;  // a packet enters Working Memory
  logic [SW-1:0] slot_wa;
  logic link_we;  // it joins its collective's open chunk
  logic [SW-1:0] link_wa, link_wd;
  logic sent_we;  // a copy of a stored packet left
  logic [SW-1:0] sent_wa;
  logic [15:0] sent_wd;
  logic free_we;
  logic [SW-1:0] free_wa, free_wd;

  // ---- Events of this edge.
  logic [3:0] e_moved;
  logic [2*MOVES-1:0][1:0] e_moved_vc;
  logic [31:0] e_rx_peak;
  logic e_credit;
  logic [HW-1:0] e_credit_handle;
  logic e_sched, e_parsed, e_desc, e_disp, e_copy, e_copy_release, e_freed;
  logic [31:0] e_freed_coll;
  logic [HW-1:0] e_sched_handle, e_parsed_handle, e_desc_handle, e_disp_handle, e_copy_handle;
  logic [QW-1:0] e_sched_queue;
  logic e_batch;
  logic [HW-1:0] e_batch_handle;
  logic [15:0] e_batch_npkts;
  logic [31:0] e_desc_dst, e_desc_unit, e_disp_dst, e_disp_unit, e_copy_dst, e_copy_unit;
  logic e_ri_blocked;

  // The children of the Mini Packet parsed at this edge, for the table write and for a
  // descriptor generated from them at once.
  child_t pl_child[CHILD_MAX];
  always_comb
    for (int k = 0; k < CHILD_MAX; k++) pl_child[k] = '{dst: pl_dst[k], unit: pl_unit[k]};

  assign pl_valid = sched_busy && sched_cnt == 8'd1 && sched_pkt.cls == CLS_MINI;
  assign pl_handle = sched_pkt.handle;
  assign out_valid = si_state == SI_READY || (si_state == SI_BUILDING && si_cnt == 8'd1);
  assign out_bytes = si_bytes;
  assign cro_valid = cro_v;
  assign cro_coll = cro_c;
  assign cro_count = cro_n;
  assign cro_dst = cro_p.dst;
  assign cro_unit = cro_p.unit;

  `include "bcast_core_receive.svh"
  `include "bcast_core_send.svh"
  `include "bcast_core_state.svh"

  // ---- Next state: one edge's steps in the header's order.
  always_comb begin
    hold_state();
    clear_ports_and_events();

    // (1) Stages whose latency ends at this edge.
    if (sched_busy) n_sched_cnt = sched_cnt - 1'b1;
    if (gen_busy) n_gen_cnt = gen_cnt - 1'b1;
    if (disp_busy) n_disp_cnt = disp_cnt - 1'b1;
    if (si_state == SI_BUILDING) n_si_cnt = si_cnt - 1'b1;
    if (in_valid) accept_in();
    if (sched_busy && sched_cnt == 8'd1) complete_schedule();
    if (gen_busy && gen_cnt == 8'd1) complete_descriptor();
    if (disp_busy && disp_cnt == 8'd1) complete_dispatch();
    if (si_state == SI_BUILDING && si_cnt == 8'd1) n_si_state = SI_READY;

    // (2) SI and SPS, (3) Dispatcher, (4) descriptor generation, (5) RI -> Rx-queues,
    // (6) Receive Packet Scheduler, (7) RI -> the Rx-queue slot just freed.
    send_copy();
    build_copy();
    dispatch();
    generate_one();
    move_ri();
    schedule();
    move_ri();
    free_idle_colls();
  end

  // ---- Outputs: what this edge did, and the state after it.
  always_ff @(posedge clk) begin
    ev_moved <= rst ? '0 : e_moved;
    ev_moved_vc <= e_moved_vc;
    ev_rx_peak <= e_rx_peak;
    ev_credit <= !rst && e_credit;
    ev_credit_handle <= e_credit_handle;
    ev_sched <= !rst && e_sched;
    ev_sched_handle <= e_sched_handle;
    ev_sched_queue <= e_sched_queue;
    ev_parsed <= !rst && e_parsed;
    ev_parsed_handle <= e_parsed_handle;
    ev_batch <= !rst && e_batch;
    ev_batch_handle <= e_batch_handle;
    ev_batch_npkts <= e_batch_npkts;
    ev_desc <= !rst && e_desc;
    ev_desc_handle <= e_desc_handle;
    ev_desc_dst <= e_desc_dst;
    ev_desc_unit <= e_desc_unit;
    ev_disp <= !rst && e_disp;
    ev_disp_handle <= e_disp_handle;
    ev_disp_dst <= e_disp_dst;
    ev_disp_unit <= e_disp_unit;
    ev_copy <= !rst && e_copy;
    ev_copy_handle <= e_copy_handle;
    ev_copy_dst <= e_copy_dst;
    ev_copy_unit <= e_copy_unit;
    ev_copy_release <= e_copy_release;
    ev_freed <= !rst && e_freed;
    ev_freed_coll <= e_freed_coll;
    st_ri_blocked <= e_ri_blocked;
  end

  always_comb begin
    logic [31:0] rx_total, rx_max, ri_total, waits;
    rx_total = '0;
    rx_max = '0;
    ri_total = '0;
    waits = '0;
    for (int v = 0; v < VCS; v++) ri_total = ri_total + 32'(ri_cnt[v]);
    for (int c = 0; c < COLL_MAX; c++) waits = waits + 32'(colls[c].valid && colls[c].waiting);
    for (int q = 0; q < NQ; q++) begin
      rx_total = rx_total + 32'(rx_cnt[q]);
      if (32'(rx_cnt[q]) > rx_max) rx_max = 32'(rx_cnt[q]);
    end
    st_rx_packets = rx_total;
    st_rx_max = rx_max;
    st_mem_used = mem_used;
    st_ri_packets = ri_total;
    st_resv = resv_total;
    st_credit_waits = waits;
    st_mt_entries = 32'($countones(mt_valid));
    st_gen_batches = 32'(gq_valid);
    st_wq = 32'(wq_cnt);
    st_sq = 32'(sps_cnt);
    st_stalled = stalled;
    st_hol = hol;
    st_mp_wait = mp_wait;
    st_conn_wait = conn_wait;
    err_code = err;
    idle = ri_total == '0 && rx_total == '0 && !sched_busy && !gq_valid && !gen_busy &&
        wq_cnt == '0 && !disp_busy && sps_cnt == '0 && si_state == SI_NONE && mem_used == '0 &&
        !cro_v;
  end
endmodule
