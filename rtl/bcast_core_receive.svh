// Included by bcast_core.sv inside the module: the receive side of the next-state logic, the
// RI, the Rx-queues, the Receive Packet Scheduler, the Membership Table and the chunks that
// become batches. Functions over the module's state and next state (n_*), called from its
// always_comb only, in the edge's order (numbered as in bcast_core.sv's header).

  // ---- Lookups and the chunk a batch is made of (also used by the send side).
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

  // (1) A packet the RI assembled at this edge joins the RI's queue.
  function automatic void accept_in();
    if (ri_cnt == ($clog2(RI_MAX) + 1)'(RI_MAX)) n_err = ERR_RI_FULL;
    else begin
      ri_we = 1'b1;
      ri_wa = ri_head + ri_cnt[$clog2(RI_MAX)-1:0];
      n_ri_cnt = ri_cnt + 1'b1;
    end
  endfunction

  // (1) The scheduled packet is through: a Mini Packet's child list enters the Membership
  // Table, a data packet joins its collective's open chunk.
  function automatic void complete_schedule();
    logic [CW-1:0] c;
    logic msg_hit;
    int mk;
    n_sched_busy = 1'b0;
    if (sched_pkt.control) begin  // Mini Packet: its child list enters the Membership Table
      mt_find(sched_pkt.coll);
      if (!mt_hit) begin
        for (int e = 0; e < MT_MAX; e++)
          if (!mt_hit && !n_mt_valid[e]) begin
            mt_hit = 1'b1;
            mt_at = MW'(e);
          end
        n_mt_done[mt_at] = '0;
      end
      n_mt_valid[mt_at] = 1'b1;
      n_mt_coll[mt_at] = sched_pkt.coll;
      n_mt_nchild[mt_at] = pl_nchild > CHILD_MAX ? KW'(CHILD_MAX) : KW'(pl_nchild);
      n_mt_expect[mt_at] = pl_expect;
      mt_we = 1'b1;
      mt_wa = mt_at;
      if (pl_nchild == 0 || pl_nchild > CHILD_MAX) n_err = ERR_NO_CHILDREN;
      e_parsed = 1'b1;
      e_parsed_handle = sched_pkt.handle;
      coll_find(sched_pkt.coll);
      if (coll_hit && n_colls[coll_at].waiting) begin
        if (!n_gq_valid) begin
          n_gq_head = n_colls[coll_at].wait_head;
          n_gq_valid = 1'b1;
        end else n_batches[n_gq_tail].next = n_colls[coll_at].wait_head;
        n_gq_tail = n_colls[coll_at].wait_tail;
        n_colls[coll_at].waiting = 1'b0;
      end
    end else begin  // data: into its collective's open chunk
      coll_find(sched_pkt.coll);  // allocated when the scheduler reserved its memory
      c = coll_at;
      if (n_colls[c].open_cnt == '0) begin
        n_colls[c].open_head = sched_slot;
        n_colls[c].open_first = sched_pkt.handle;
      end else begin
        link_we = 1'b1;
        link_wa = n_colls[c].open_tail;
        link_wd = sched_slot;
      end
      n_colls[c].open_tail = sched_slot;
      n_colls[c].open_cnt = n_colls[c].open_cnt + 1'b1;
      n_colls[c].open_bytes = n_colls[c].open_bytes + 32'(sched_pkt.bytes);
      msg_hit = 1'b0;
      mk = 0;
      for (int m = 0; m < MSG_MAX; m++)
        if (!msg_hit && n_colls[c].msgs[m].valid && n_colls[c].msgs[m].src == sched_pkt.src &&
            n_colls[c].msgs[m].msg == sched_pkt.msg) begin
          msg_hit = 1'b1;
          mk = m;
        end
      if (!msg_hit)
        for (int m = 0; m < MSG_MAX; m++)
          if (!msg_hit && !n_colls[c].msgs[m].valid) begin
            msg_hit = 1'b1;
            mk = m;
            n_colls[c].msgs[m] = '{
                valid: 1'b1, src: sched_pkt.src, msg: sched_pkt.msg, stored: '0
            };
          end
      if (!msg_hit) n_err = ERR_MSG_FULL;
      else begin
        n_colls[c].msgs[mk].stored = n_colls[c].msgs[mk].stored + 1;
        if (n_colls[c].msgs[mk].stored >= sched_pkt.count) begin
          n_colls[c].msgs[mk].valid = 1'b0;
          close_chunk(c);
        end else if (n_colls[c].open_bytes >= cfg_threshold) close_chunk(c);
      end
    end
  endfunction

  // (6) Receive Packet Scheduler: round robin over the Rx-queues whose head can go.
  function automatic void schedule();
    logic picked, can;
    logic [3:0] qi;
    logic [SW-1:0] s;
    pkt_t p;
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
  endfunction

  // A collective with nothing left in the unit frees its slot.
  function automatic void free_idle_colls();
    logic busy;
    for (int cc = 0; cc < COLL_MAX; cc++) begin
      busy = n_colls[cc].open_cnt != '0 || n_colls[cc].mem_bytes != '0 || n_colls[cc].waiting;
      for (int m = 0; m < MSG_MAX; m++) busy = busy || n_colls[cc].msgs[m].valid;
      if (!busy) n_colls[cc].valid = 1'b0;
    end
  endfunction
