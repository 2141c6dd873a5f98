// The core of Ragasa's Bcast Unit, cycle by cycle: Rx-queues, Receive Packet Scheduler,
// Membership Table, Working Memory allocator with back-pressure, descriptor generation, Work
// Queue Element, Dispatcher and Send Packet Scheduler. The Receive Interface (flits -> packet,
// credits) and the Send Interface (packet -> link, credits) are the TLM wrapper's
// (hw/ragasa/bcast_unit_rtl.*); payloads stay in the wrapper too, named by a handle.
//
// One clock edge does what the SystemC model (hw/ragasa/bcast_unit.cpp) does at one time, in
// its order: (1) the stages whose latency ends at this edge complete (store / Mini Packet
// parse, descriptor generated, descriptor dispatched, copy built); (2) the SI takes the built
// copy if the wrapper is ready, and the SPS starts the next copy; (3) the Dispatcher; (4)
// descriptor generation; (5) RI -> Rx-queues; (6) the Receive Packet Scheduler (a head data
// packet without room in Working Memory waits; open chunks never close early); (7) RI ->
// Rx-queues into the slot just freed. A latency of c cycles started at edge t ends at t + c.
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

    // RI: a packet assembled at this edge.
    input logic in_valid,
    input logic [HW-1:0] in_handle,
    input logic in_control,
    input logic [QW-1:0] in_queue,
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

    // SI: the copy on offer, taken at this edge when out_ready (link free, credits cover it).
    output logic out_valid,
    output logic [15:0] out_bytes,
    input logic out_ready,

    // What the last edge did.
    output logic [3:0] ev_moved,  // packets that left the RI (their credits go back)
    output logic ev_sched,
    output logic [HW-1:0] ev_sched_handle,
    output logic [QW-1:0] ev_sched_queue,
    output logic ev_parsed,
    output logic [HW-1:0] ev_parsed_handle,
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
    output logic [RXQ_MAX-1:0] st_stalled,  // head data packet waits for memory
    output logic [RXQ_MAX-1:0] st_hol,  // and packets wait behind it
    output logic [RXQ_MAX-1:0] st_mp_wait,  // head Mini Packet waits for a free entry
    output logic st_conn_wait,  // the Dispatcher's head descriptor waits for a connection
    output logic [3:0] err_code
);
  localparam logic [1:0] SI_NONE = 2'd0, SI_BUILDING = 2'd1, SI_READY = 2'd2;

  // ---- State: small parts are copied and updated in the next-state logic; memories are
  // written through explicit ports below.
  pkt_t ri_mem[RI_MAX];
  logic [$clog2(RI_MAX)-1:0] ri_head;
  logic [$clog2(RI_MAX):0] ri_cnt;
  pkt_t rx_mem[RXQ_MAX][RXQ_DEPTH_MAX];
  logic [$clog2(RXQ_DEPTH_MAX)-1:0] rx_head[RXQ_MAX];
  logic [$clog2(RXQ_DEPTH_MAX):0] rx_cnt[RXQ_MAX];
  logic [RXQ_MAX-1:0] stalled, hol, mp_wait;
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
  child_t mt_child[MT_MAX][CHILD_MAX];
  coll_t colls[COLL_MAX];
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
  logic [$clog2(RI_MAX)-1:0] n_ri_head;
  logic [$clog2(RI_MAX):0] n_ri_cnt;
  logic [$clog2(RXQ_DEPTH_MAX)-1:0] n_rx_head[RXQ_MAX];
  logic [$clog2(RXQ_DEPTH_MAX):0] n_rx_cnt[RXQ_MAX];
  logic [RXQ_MAX-1:0] n_stalled, n_hol, n_mp_wait;
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
  coll_t n_colls[COLL_MAX];
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
  logic [$clog2(RI_MAX)-1:0] ri_wa;
  logic [2*MOVES-1:0] rx_we;
  logic [QW-1:0] rx_wq[2*MOVES];
  logic [$clog2(RXQ_DEPTH_MAX)-1:0] rx_wa[2*MOVES];
  pkt_t rx_wd[2*MOVES];
  logic mt_we;
  logic [MW-1:0] mt_wa;
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

  assign pl_valid = sched_busy && sched_cnt == 8'd1 && sched_pkt.control;
  assign pl_handle = sched_pkt.handle;
  assign out_valid = si_state == SI_READY || (si_state == SI_BUILDING && si_cnt == 8'd1);
  assign out_bytes = si_bytes;

  // ---- Helpers over the next state (called from the always_comb below only).
  logic mt_hit;
  logic [MW-1:0] mt_at;
  function automatic void mt_find(input logic [31:0] coll);
    mt_hit = 1'b0;
    mt_at = '0;
    for (int e = 0; e < MT_MAX; e++)
      if (!mt_hit && n_mt_valid[e] && n_mt_coll[e] == coll) begin
        mt_hit = 1'b1;
        mt_at = MW'(e);
      end
  endfunction

  logic coll_hit;
  logic [CW-1:0] coll_at;
  function automatic void coll_find(input logic [31:0] coll);
    coll_hit = 1'b0;
    coll_at = '0;
    for (int c = 0; c < COLL_MAX; c++)
      if (!coll_hit && n_colls[c].valid && n_colls[c].coll == coll) begin
        coll_hit = 1'b1;
        coll_at = CW'(c);
      end
  endfunction

  function automatic void gq_push(input logic [BW-1:0] b);
    if (!n_gq_valid) begin
      n_gq_head = b;
      n_gq_valid = 1'b1;
    end else n_batches[n_gq_tail].next = b;
    n_gq_tail = b;
  endfunction

  // A collective's open chunk becomes a batch; to descriptor generation if its Mini Packet
  // has been parsed, else onto the collective's waiting list.
  function automatic void close_chunk(input logic [CW-1:0] c);
    logic found;
    logic [BW-1:0] b;
    found = 1'b0;
    b = '0;
    for (int i = 0; i < BATCH_MAX; i++)
      if (!found && !n_bvalid[i]) begin
        found = 1'b1;
        b = BW'(i);
      end
    if (!found) begin
      n_err = ERR_BATCH_FULL;
      return;
    end
    n_bvalid[b] = 1'b1;
    n_batches[b] = '{
        coll: n_colls[c].coll,
        first: n_colls[c].open_first,
        head: n_colls[c].open_head,
        npkts: n_colls[c].open_cnt,
        bytes: n_colls[c].open_bytes,
        nchild: '0,
        copies_left: '0,
        next: '0
    };
    e_batch = 1'b1;
    e_batch_handle = n_colls[c].open_first;
    e_batch_npkts = n_colls[c].open_cnt;
    n_colls[c].open_cnt = '0;
    n_colls[c].open_bytes = '0;
    mt_find(n_colls[c].coll);
    if (mt_hit) gq_push(b);
    else begin
      if (!n_colls[c].waiting) n_colls[c].wait_head = b;
      else n_batches[n_colls[c].wait_tail].next = b;
      n_colls[c].wait_tail = b;
      n_colls[c].waiting = 1'b1;
    end
  endfunction

  // Step 4: one descriptor of the front batch (descriptor_cycles), while the Work Queue
  // Element has room.
  function automatic void generate_one();
    logic [BW-1:0] b;
    logic [KW-1:0] n;
    child_t child;
    if (n_gen_busy || !n_gq_valid) return;
    b = n_gq_head;
    mt_find(n_batches[b].coll);  // present: batches wait for their Mini Packet
    n = n_mt_nchild[mt_at];
    if (n == '0) begin
      n_err = ERR_NO_CHILDREN;
      return;
    end
    if (n_gen_child == '0) begin
      n_batches[b].nchild = n;
      n_batches[b].copies_left = 32'(n_batches[b].npkts) * 32'(n);
    end
    if (32'(n_wq_cnt) >= cfg_wq) return;
    // The table entry may be written at this very edge: read the payload then.
    if (mt_we && mt_wa == mt_at) child = pl_child[n_gen_child[$clog2(CHILD_MAX)-1:0]];
    else child = mt_child[mt_at][n_gen_child[$clog2(CHILD_MAX)-1:0]];
    n_gen_busy = 1'b1;
    n_gen_cnt = cfg_desc_cycles;
    n_gen_desc = '{batch: b, child: child};
    n_gen_child = n_gen_child + 1'b1;
    if (n_gen_child == n) begin
      n_gen_child = '0;
      if (n_gq_head == n_gq_tail) n_gq_valid = 1'b0;
      else n_gq_head = n_batches[b].next;
    end
  endfunction

  // The packet at the head of the RI (the one assembled at this edge is behind the others).
  function automatic pkt_t ri_front();
    if (ri_we && n_ri_head == ri_wa)
      return '{
          handle: in_handle,
          control: in_control,
          rxq: in_queue,
          coll: in_coll,
          bytes: in_bytes,
          src: in_src,
          msg: in_msg,
          count: in_count
      };
    return ri_mem[n_ri_head];
  endfunction

  // Heads of the Rx-queues as this edge sees them (moved in at this edge included).
  pkt_t rx_first[RXQ_MAX];
  int moves;
  // Step 5/7: RI -> Rx-queues in arrival order; a full Rx-queue blocks the RI.
  function automatic void move_ri();
    logic stop;
    pkt_t p;
    logic [QW-1:0] q;
    stop = 1'b0;
    for (int i = 0; i < MOVES; i++) begin
      if (!stop && n_ri_cnt != '0) begin
        p = ri_front();
        q = p.rxq;
        if (32'(n_rx_cnt[q]) >= cfg_rx_depth) begin
          stop = 1'b1;
          e_ri_blocked = 1'b1;
        end else begin
          rx_we[moves] = 1'b1;
          rx_wq[moves] = q;
          rx_wa[moves] = n_rx_head[q] + n_rx_cnt[q][$clog2(RXQ_DEPTH_MAX)-1:0];
          rx_wd[moves] = p;
          if (n_rx_cnt[q] == '0) rx_first[q] = p;
          n_rx_cnt[q] = n_rx_cnt[q] + 1'b1;
          if (n_stalled[q]) n_hol[q] = 1'b1;
          moves = moves + 1;
          n_ri_head = n_ri_head + 1'b1;
          n_ri_cnt = n_ri_cnt - 1'b1;
          e_moved = e_moved + 1'b1;
        end
      end
    end
  endfunction

  // The head of Rx-queue q after a pop: the next stored entry, or one moved in at this edge.
  function automatic pkt_t rx_second(input logic [QW-1:0] q);
    logic [$clog2(RXQ_DEPTH_MAX)-1:0] a;
    a = n_rx_head[q] + 1'b1;
    for (int m = 0; m < 2 * MOVES; m++)
      if (rx_we[m] && rx_wq[m] == q && rx_wa[m] == a) return rx_wd[m];
    return rx_mem[q][a];
  endfunction

  always_comb begin
    logic sched_done, gen_done, disp_done, built, fired, picked, can, release_it, busy;
    logic [CW-1:0] c;
    logic [15:0] sent;
    logic [$clog2(SQ_MAX):0] k;
    logic [SW-1:0] s;
    logic [3:0] qi;
    logic msg_hit;
    int mk;
    pkt_t p;
    desc_t head;

    p = '0;
    head = '0;
    c = '0;
    busy = 1'b0;
    picked = 1'b0;
    msg_hit = 1'b0;
    mk = 0;
    fired = 1'b0;
    sent = '0;
    release_it = 1'b0;
    k = '0;
    can = 1'b0;
    s = '0;
    qi = '0;
    n_ri_head = ri_head;
    n_ri_cnt = ri_cnt;
    n_rx_head = rx_head;
    n_rx_cnt = rx_cnt;
    n_stalled = stalled;
    n_hol = hol;
    n_mp_wait = mp_wait;
    n_conn_wait = 1'b0;
    n_rr = rr;
    n_sched_busy = sched_busy;
    n_sched_cnt = sched_cnt;
    n_sched_pkt = sched_pkt;
    n_sched_slot = sched_slot;
    n_mt_valid = mt_valid;
    n_mt_coll = mt_coll;
    n_mt_nchild = mt_nchild;
    n_mt_expect = mt_expect;
    n_mt_done = mt_done;
    n_colls = colls;
    n_batches = batches;
    n_bvalid = bvalid;
    n_gq_valid = gq_valid;
    n_gq_head = gq_head;
    n_gq_tail = gq_tail;
    n_gen_child = gen_child;
    n_gen_busy = gen_busy;
    n_gen_cnt = gen_cnt;
    n_gen_desc = gen_desc;
    n_wq_head = wq_head;
    n_wq_cnt = wq_cnt;
    n_disp_busy = disp_busy;
    n_disp_cnt = disp_cnt;
    n_disp_desc = disp_desc;
    n_sps = sps;
    n_sps_cnt = sps_cnt;
    n_sps_rr = sps_rr;
    n_si_state = si_state;
    n_si_cnt = si_cnt;
    n_si_handle = si_handle;
    n_si_child = si_child;
    n_si_bytes = si_bytes;
    n_si_slot = si_slot;
    n_si_batch = si_batch;
    n_mem_used = mem_used;
    n_free_head = free_head;
    n_free_cnt = free_cnt;
    n_fresh = fresh;
    n_err = err;
    ri_we = 1'b0;
    ri_wa = '0;
    rx_we = '0;
    for (int m = 0; m < 2 * MOVES; m++) begin
      rx_wq[m] = '0;
      rx_wa[m] = '0;
      rx_wd[m] = '0;
    end
    mt_we = 1'b0;
    mt_wa = '0;
    wq_we = 1'b0;
    wq_wa = '0;
    wq_wd = '0;
    slot_we = 1'b0;
    slot_wa = '0;
    link_we = 1'b0;
    link_wa = '0;
    link_wd = '0;
    sent_we = 1'b0;
    sent_wa = '0;
    sent_wd = '0;
    free_we = 1'b0;
    free_wa = '0;
    free_wd = '0;
    e_moved = '0;
    e_sched = 1'b0;
    e_sched_handle = '0;
    e_sched_queue = '0;
    e_parsed = 1'b0;
    e_parsed_handle = '0;
    e_batch = 1'b0;
    e_batch_handle = '0;
    e_batch_npkts = '0;
    e_desc = 1'b0;
    e_desc_handle = '0;
    e_desc_dst = '0;
    e_desc_unit = '0;
    e_disp = 1'b0;
    e_disp_handle = '0;
    e_disp_dst = '0;
    e_disp_unit = '0;
    e_copy = 1'b0;
    e_copy_handle = '0;
    e_copy_dst = '0;
    e_copy_unit = '0;
    e_copy_release = 1'b0;
    e_freed = 1'b0;
    e_freed_coll = '0;
    e_ri_blocked = 1'b0;
    moves = 0;
    mt_hit = 1'b0;
    mt_at = '0;
    coll_hit = 1'b0;
    coll_at = '0;
    for (int q = 0; q < RXQ_MAX; q++) rx_first[q] = rx_mem[q][rx_head[q]];

    // (1) Stages whose latency ends at this edge.
    sched_done = sched_busy && sched_cnt == 8'd1;
    gen_done = gen_busy && gen_cnt == 8'd1;
    disp_done = disp_busy && disp_cnt == 8'd1;
    built = si_state == SI_BUILDING && si_cnt == 8'd1;
    if (sched_busy) n_sched_cnt = sched_cnt - 1'b1;
    if (gen_busy) n_gen_cnt = gen_cnt - 1'b1;
    if (disp_busy) n_disp_cnt = disp_cnt - 1'b1;
    if (si_state == SI_BUILDING) n_si_cnt = si_cnt - 1'b1;
    if (in_valid) begin  // assembled: into the RI
      if (ri_cnt == ($clog2(RI_MAX) + 1)'(RI_MAX)) n_err = ERR_RI_FULL;
      else begin
        ri_we = 1'b1;
        ri_wa = ri_head + ri_cnt[$clog2(RI_MAX)-1:0];
        n_ri_cnt = ri_cnt + 1'b1;
      end
    end
    if (sched_done) begin
      n_sched_busy = 1'b0;
      p = sched_pkt;
      if (p.control) begin  // Mini Packet: its child list enters the Membership Table
        mt_find(p.coll);
        if (!mt_hit) begin
          for (int e = 0; e < MT_MAX; e++)
            if (!mt_hit && !n_mt_valid[e]) begin
              mt_hit = 1'b1;
              mt_at = MW'(e);
            end
          n_mt_done[mt_at] = '0;
        end
        n_mt_valid[mt_at] = 1'b1;
        n_mt_coll[mt_at] = p.coll;
        n_mt_nchild[mt_at] = pl_nchild > CHILD_MAX ? KW'(CHILD_MAX) : KW'(pl_nchild);
        n_mt_expect[mt_at] = pl_expect;
        mt_we = 1'b1;
        mt_wa = mt_at;
        if (pl_nchild == 0 || pl_nchild > CHILD_MAX) n_err = ERR_NO_CHILDREN;
        e_parsed = 1'b1;
        e_parsed_handle = p.handle;
        coll_find(p.coll);
        if (coll_hit && n_colls[coll_at].waiting) begin
          if (!n_gq_valid) begin
            n_gq_head = n_colls[coll_at].wait_head;
            n_gq_valid = 1'b1;
          end else n_batches[n_gq_tail].next = n_colls[coll_at].wait_head;
          n_gq_tail = n_colls[coll_at].wait_tail;
          n_colls[coll_at].waiting = 1'b0;
        end
      end else begin  // data: into its collective's open chunk
        coll_find(p.coll);  // allocated when the scheduler reserved its memory
        c = coll_at;
        if (n_colls[c].open_cnt == '0) begin
          n_colls[c].open_head = sched_slot;
          n_colls[c].open_first = p.handle;
        end else begin
          link_we = 1'b1;
          link_wa = n_colls[c].open_tail;
          link_wd = sched_slot;
        end
        n_colls[c].open_tail = sched_slot;
        n_colls[c].open_cnt = n_colls[c].open_cnt + 1'b1;
        n_colls[c].open_bytes = n_colls[c].open_bytes + 32'(p.bytes);
        msg_hit = 1'b0;
        mk = 0;
        for (int m = 0; m < MSG_MAX; m++)
          if (!msg_hit && n_colls[c].msgs[m].valid && n_colls[c].msgs[m].src == p.src &&
              n_colls[c].msgs[m].msg == p.msg) begin
            msg_hit = 1'b1;
            mk = m;
          end
        if (!msg_hit)
          for (int m = 0; m < MSG_MAX; m++)
            if (!msg_hit && !n_colls[c].msgs[m].valid) begin
              msg_hit = 1'b1;
              mk = m;
              n_colls[c].msgs[m] = '{valid: 1'b1, src: p.src, msg: p.msg, stored: '0};
            end
        if (!msg_hit) n_err = ERR_MSG_FULL;
        else begin
          n_colls[c].msgs[mk].stored = n_colls[c].msgs[mk].stored + 1;
          if (n_colls[c].msgs[mk].stored >= p.count) begin
            n_colls[c].msgs[mk].valid = 1'b0;
            close_chunk(c);
          end else if (n_colls[c].open_bytes >= cfg_threshold) close_chunk(c);
        end
      end
    end
    if (gen_done) begin  // descriptor into the Work Queue Element
      n_gen_busy = 1'b0;
      wq_we = 1'b1;
      wq_wa = wq_head + wq_cnt[$clog2(WQ_MAX)-1:0];
      wq_wd = gen_desc;
      n_wq_cnt = n_wq_cnt + 1'b1;
      e_desc = 1'b1;
      e_desc_handle = n_batches[gen_desc.batch].first;
      e_desc_dst = gen_desc.child.dst;
      e_desc_unit = gen_desc.child.unit;
    end
    if (disp_done) begin  // descriptor to the Send Packet Scheduler
      n_disp_busy = 1'b0;
      n_sps[n_sps_cnt[$clog2(SQ_MAX)-1:0]] = '{
          batch: disp_desc.batch,
          child: disp_desc.child,
          ptr: n_batches[disp_desc.batch].head,
          sent: '0
      };
      n_sps_cnt = n_sps_cnt + 1'b1;
      e_disp = 1'b1;
      e_disp_handle = n_batches[disp_desc.batch].first;
      e_disp_dst = disp_desc.child.dst;
      e_disp_unit = disp_desc.child.unit;
    end
    if (built) n_si_state = SI_READY;

    // (2) SI: the built copy leaves; its stored packet is released after its last child.
    fired = n_si_state == SI_READY && out_ready;
    if (fired) begin
      n_si_state = SI_NONE;
      e_copy = 1'b1;
      e_copy_handle = si_handle;
      e_copy_dst = si_child.dst;
      e_copy_unit = si_child.unit;
      sent = slot_sent[si_slot] + 1'b1;
      sent_we = 1'b1;
      sent_wa = si_slot;
      sent_wd = sent;
      if (sent == 16'(n_batches[si_batch].nchild)) begin  // the slot's last copy
        e_copy_release = 1'b1;
        free_we = 1'b1;
        free_wa = free_head + free_cnt[SW-1:0];
        free_wd = si_slot;
        n_free_cnt = n_free_cnt + 1'b1;
      end
      n_batches[si_batch].copies_left = n_batches[si_batch].copies_left - 1;
`ifdef BCAST_FAULT_EARLY_FREE
      release_it = n_batches[si_batch].copies_left == 32'd1;
`else
      release_it = n_batches[si_batch].copies_left == '0;
`endif
      if (release_it) begin  // step 10: the batch's memory, and its packets to the table
        n_mem_used = n_mem_used - n_batches[si_batch].bytes;
        coll_find(n_batches[si_batch].coll);
        n_colls[coll_at].mem_bytes = n_colls[coll_at].mem_bytes - n_batches[si_batch].bytes;
        mt_find(n_batches[si_batch].coll);
        n_mt_done[mt_at] = n_mt_done[mt_at] + 32'(n_batches[si_batch].npkts);
        if (n_mt_done[mt_at] == n_mt_expect[mt_at]) begin
          n_mt_valid[mt_at] = 1'b0;
          e_freed = 1'b1;
          e_freed_coll = n_batches[si_batch].coll;
        end
      end
      if (n_batches[si_batch].copies_left == '0) n_bvalid[si_batch] = 1'b0;
    end
    // The SPS builds the next copy: round robin over the connections (one per child).
    if (n_si_state == SI_NONE && n_sps_cnt != '0) begin
      k = n_sps_rr >= n_sps_cnt ? '0 : n_sps_rr;
      s = n_sps[k[$clog2(SQ_MAX)-1:0]].ptr;
      n_si_state = SI_BUILDING;
      n_si_cnt = cfg_send_cycles;
      n_si_handle = slot_handle[s];
      n_si_bytes = slot_bytes[s];
      n_si_child = n_sps[k[$clog2(SQ_MAX)-1:0]].child;
      n_si_slot = s;
      n_si_batch = n_sps[k[$clog2(SQ_MAX)-1:0]].batch;
      n_sps[k[$clog2(SQ_MAX)-1:0]].ptr = slot_next[s];
      n_sps[k[$clog2(SQ_MAX)-1:0]].sent = n_sps[k[$clog2(SQ_MAX)-1:0]].sent + 1'b1;
      if (n_sps[k[$clog2(SQ_MAX)-1:0]].sent == n_batches[n_si_batch].npkts) begin
        for (int i = 0; i < SQ_MAX - 1; i++) if (i >= 32'(k)) n_sps[i] = n_sps[i+1];
        n_sps_cnt = n_sps_cnt - 1'b1;
        n_sps_rr = k;
      end else n_sps_rr = k + 1'b1;
    end

    // (3) Dispatcher: the head descriptor's connection is set up when the SPS has one free
    // and its child has none open; else it waits, and the ones behind it.
    if (n_wq_cnt != '0 && !n_disp_busy) begin
      head = wq_cnt == '0 ? gen_desc : wq_mem[wq_head];
      can = 32'(n_sps_cnt) < cfg_sq;
      for (int j = 0; j < SQ_MAX; j++)
        if (j < 32'(n_sps_cnt) && n_sps[j].child == head.child) can = 1'b0;
      n_conn_wait = !can;
      if (can) begin
        n_disp_busy = 1'b1;
        n_disp_cnt = cfg_disp_cycles;
        n_disp_desc = head;
        n_wq_head = n_wq_head + 1'b1;
        n_wq_cnt = n_wq_cnt - 1'b1;
      end
    end

    // (4) Descriptor generation.
    generate_one();

    // (5) RI -> Rx-queues.
    move_ri();

    // (6) Receive Packet Scheduler: round robin over the Rx-queues whose head can go.
    picked = 1'b0;
    if (!n_sched_busy) begin
      for (int i = 0; i < RXQ_MAX; i++) begin
`ifdef BCAST_FAULT_UNFAIR
        qi = 4'(i);
`else
        qi = 4'(rr) + 4'(i);
        if (qi >= cfg_rx_queues[3:0]) qi = qi - cfg_rx_queues[3:0];
`endif
        if (!picked && 32'(i) < cfg_rx_queues && n_rx_cnt[qi[QW-1:0]] != '0) begin
          p = rx_first[qi[QW-1:0]];
          if (p.control) begin
            mt_find(p.coll);
            can = mt_hit || 32'($countones(n_mt_valid)) < cfg_mt_entries;
            if (!can) n_mp_wait[qi[QW-1:0]] = 1'b1;  // a full table back-pressures it
          end else begin
            can = n_mem_used + 32'(p.bytes) <= cfg_wm_bytes &&
                (n_free_cnt != '0 || n_fresh != (SW + 1)'(SLOT_MAX));
            if (!can) begin
              if (!n_stalled[qi[QW-1:0]]) begin
                n_stalled[qi[QW-1:0]] = 1'b1;
                if (n_rx_cnt[qi[QW-1:0]] > 1) n_hol[qi[QW-1:0]] = 1'b1;
              end
            end
          end
          if (can) begin
            picked = 1'b1;
            n_mp_wait[qi[QW-1:0]] = 1'b0;
            n_stalled[qi[QW-1:0]] = 1'b0;
            n_hol[qi[QW-1:0]] = 1'b0;
            rx_first[qi[QW-1:0]] = rx_second(qi[QW-1:0]);
            n_rx_head[qi[QW-1:0]] = n_rx_head[qi[QW-1:0]] + 1'b1;
            n_rx_cnt[qi[QW-1:0]] = n_rx_cnt[qi[QW-1:0]] - 1'b1;
            e_sched = 1'b1;
            e_sched_handle = p.handle;
            e_sched_queue = qi[QW-1:0];
            if (!p.control) begin  // reserve its memory now
              n_mem_used = n_mem_used + 32'(p.bytes);
              if (n_free_cnt != '0) begin
                s = free_cnt == '0 ? free_wd : free_mem[free_head];
                n_free_head = n_free_head + 1'b1;
                n_free_cnt = n_free_cnt - 1'b1;
              end else begin
                s = n_fresh[SW-1:0];
                n_fresh = n_fresh + 1'b1;
              end
              slot_we = 1'b1;
              slot_wa = s;
              n_sched_slot = s;
              coll_find(p.coll);
              if (!coll_hit)
                for (int cc = 0; cc < COLL_MAX; cc++)
                  if (!coll_hit && !n_colls[cc].valid) begin
                    coll_hit = 1'b1;
                    coll_at = CW'(cc);
                    n_colls[cc] = '0;
                    n_colls[cc].valid = 1'b1;
                    n_colls[cc].coll = p.coll;
                  end
              if (!coll_hit) n_err = ERR_COLL_FULL;
              else n_colls[coll_at].mem_bytes = n_colls[coll_at].mem_bytes + 32'(p.bytes);
            end
            n_sched_busy = 1'b1;
            n_sched_cnt = cfg_sched_cycles;
            n_sched_pkt = p;
            n_rr = qi + 1'b1 == cfg_rx_queues[3:0] ? '0 : QW'(qi + 1'b1);
          end
        end
      end
    end

    // (7) Into the slot the scheduler just freed.
    move_ri();

    // A collective with nothing left in the unit frees its slot.
    for (int cc = 0; cc < COLL_MAX; cc++) begin
      busy = n_colls[cc].open_cnt != '0 || n_colls[cc].mem_bytes != '0 || n_colls[cc].waiting;
      for (int m = 0; m < MSG_MAX; m++) busy = busy || n_colls[cc].msgs[m].valid;
      if (!busy) n_colls[cc].valid = 1'b0;
    end
  end

  // ---- Registers and memories.
  always_ff @(posedge clk) begin
    if (rst) begin
      ri_head <= '0;
      ri_cnt <= '0;
      for (int q = 0; q < RXQ_MAX; q++) begin
        rx_head[q] <= '0;
        rx_cnt[q] <= '0;
      end
      stalled <= '0;
      hol <= '0;
      mp_wait <= '0;
      conn_wait <= 1'b0;
      rr <= '0;
      sched_busy <= 1'b0;
      sched_cnt <= '0;
      sched_pkt <= '0;
      sched_slot <= '0;
      mt_valid <= '0;  // an entry's fields are read only while it is valid
      colls <= '{default: '0};
      bvalid <= '0;
      gq_valid <= 1'b0;
      gq_head <= '0;
      gq_tail <= '0;
      gen_child <= '0;
      gen_busy <= 1'b0;
      gen_cnt <= '0;
      gen_desc <= '0;
      wq_head <= '0;
      wq_cnt <= '0;
      disp_busy <= 1'b0;
      disp_cnt <= '0;
      disp_desc <= '0;
      for (int i = 0; i < SQ_MAX; i++) sps[i] <= '0;
      sps_cnt <= '0;
      sps_rr <= '0;
      si_state <= SI_NONE;
      si_cnt <= '0;
      si_handle <= '0;
      si_child <= '0;
      si_bytes <= '0;
      si_slot <= '0;
      si_batch <= '0;
      mem_used <= '0;
      free_head <= '0;
      free_cnt <= '0;
      fresh <= '0;
      err <= ERR_NONE;
    end else begin
      ri_head <= n_ri_head;
      ri_cnt <= n_ri_cnt;
      rx_head <= n_rx_head;
      rx_cnt <= n_rx_cnt;
      stalled <= n_stalled;
      hol <= n_hol;
      mp_wait <= n_mp_wait;
      conn_wait <= n_conn_wait;
      rr <= n_rr;
      sched_busy <= n_sched_busy;
      sched_cnt <= n_sched_cnt;
      sched_pkt <= n_sched_pkt;
      sched_slot <= n_sched_slot;
      mt_valid <= n_mt_valid;
      mt_coll <= n_mt_coll;
      mt_nchild <= n_mt_nchild;
      mt_expect <= n_mt_expect;
      mt_done <= n_mt_done;
      colls <= n_colls;
      batches <= n_batches;
      bvalid <= n_bvalid;
      gq_valid <= n_gq_valid;
      gq_head <= n_gq_head;
      gq_tail <= n_gq_tail;
      gen_child <= n_gen_child;
      gen_busy <= n_gen_busy;
      gen_cnt <= n_gen_cnt;
      gen_desc <= n_gen_desc;
      wq_head <= n_wq_head;
      wq_cnt <= n_wq_cnt;
      disp_busy <= n_disp_busy;
      disp_cnt <= n_disp_cnt;
      disp_desc <= n_disp_desc;
      sps <= n_sps;
      sps_cnt <= n_sps_cnt;
      sps_rr <= n_sps_rr;
      si_state <= n_si_state;
      si_cnt <= n_si_cnt;
      si_handle <= n_si_handle;
      si_child <= n_si_child;
      si_bytes <= n_si_bytes;
      si_slot <= n_si_slot;
      si_batch <= n_si_batch;
      mem_used <= n_mem_used;
      free_head <= n_free_head;
      free_cnt <= n_free_cnt;
      fresh <= n_fresh;
      err <= n_err;
      if (ri_we)
        ri_mem[ri_wa] <= '{
            handle: in_handle,
            control: in_control,
            rxq: in_queue,
            coll: in_coll,
            bytes: in_bytes,
            src: in_src,
            msg: in_msg,
            count: in_count
        };
      for (int m = 0; m < 2 * MOVES; m++) if (rx_we[m]) rx_mem[rx_wq[m]][rx_wa[m]] <= rx_wd[m];
      if (mt_we) for (int k = 0; k < CHILD_MAX; k++) mt_child[mt_wa][k] <= pl_child[k];
      if (wq_we) wq_mem[wq_wa] <= wq_wd;
      if (link_we) slot_next[link_wa] <= link_wd;
      if (sent_we) slot_sent[sent_wa] <= sent_wd;
      // After the copy's count: a slot freed by this edge's copy may be taken again at once.
      if (slot_we) begin
        slot_handle[slot_wa] <= n_sched_pkt.handle;
        slot_bytes[slot_wa] <= n_sched_pkt.bytes;
        slot_sent[slot_wa] <= '0;
      end
      if (free_we) free_mem[free_wa] <= free_wd;
    end
  end

  // ---- Outputs: what this edge did, and the state after it.
  always_ff @(posedge clk) begin
    ev_moved <= rst ? '0 : e_moved;
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
    logic [31:0] rx_total, rx_max;
    rx_total = '0;
    rx_max = '0;
    for (int q = 0; q < RXQ_MAX; q++) begin
      rx_total = rx_total + 32'(rx_cnt[q]);
      if (32'(rx_cnt[q]) > rx_max) rx_max = 32'(rx_cnt[q]);
    end
    st_rx_packets = rx_total;
    st_rx_max = rx_max;
    st_mem_used = mem_used;
    st_ri_packets = 32'(ri_cnt);
    st_mt_entries = 32'($countones(mt_valid));
    st_gen_batches = 32'(gq_valid);
    st_wq = 32'(wq_cnt);
    st_sq = 32'(sps_cnt);
    st_stalled = stalled;
    st_hol = hol;
    st_mp_wait = mp_wait;
    st_conn_wait = conn_wait;
    err_code = err;
    idle = ri_cnt == '0 && rx_total == '0 && !sched_busy && !gq_valid && !gen_busy &&
        wq_cnt == '0 && !disp_busy && sps_cnt == '0 && si_state == SI_NONE && mem_used == '0;
  end
endmodule
