// Included by bcast_core.sv inside the module: the receive side of the next-state logic, the
// RI, the Rx-queues and the control queue, the Receive Packet Scheduler, the Membership Table
// with its reservations and credits, and the chunks that become batches. Functions over the module's state and next state (n_*), called from its
// always_comb only, in the edge's order (numbered as in bcast_core.sv's header).

  // ---- Lookups and the chunk a batch is made of (also used by the send side).
  logic mt_hit;
  logic [MW-1:0] mt_at;
  function automatic void mt_find(input logic [31:0] coll);
    mt_hit = 1'b0;
    mt_at = '0;
    for (int e = 0; e < MT_MAX; e++)
      if (n_mt_valid[e] && n_mt_coll[e] == coll) begin
        mt_hit = 1'b1;
        mt_at = MW'(e);
        break;
      end
  endfunction

  logic coll_hit;
  logic [CW-1:0] coll_at;
  function automatic void coll_find(input logic [31:0] coll);
    coll_hit = 1'b0;
    coll_at = '0;
    for (int c = 0; c < COLL_MAX; c++)
      if (n_coll_v[c] && n_coll_id[c] == coll) begin
        coll_hit = 1'b1;
        coll_at = CW'(c);
        break;
      end
  endfunction

  function automatic void gq_push(input logic [BW-1:0] b);
    if (!n_gq_valid) begin
      n_gq_head = b;
      n_gq_valid = 1'b1;
    end else n_batches[n_gq_tail].next = b;
    n_gq_tail = b;
  endfunction

  // The packets a Mini Packet reserves: min(P, cfg_res_pkts), P its announced data packets
  // (0 or all ones: unknown, not a bound).
  function automatic logic [31:0] resv_pkts(input logic [31:0] announced);
    if (announced == '0 || announced == '1 || announced > cfg_res_pkts) return cfg_res_pkts;
    return announced;
  endfunction

  // An entry's credits, read into crow (the row written back through crw_*), and the fewest
  // any unit child holds.
  logic [31:0] crow[CHILD_MAX];
  function automatic logic [31:0] credit_min(input logic [MW-1:0] e);
    logic [31:0] m;
    m = '1;
    for (int k = 0; k < CHILD_MAX; k++)
      if (k < 32'(n_mt_nchild[e]) && mt_child[e][k].unit != '1 && crow[k] < m) m = crow[k];
    return m;
  endfunction
  function automatic void take_credits(input logic [MW-1:0] e, input logic [31:0] n);
    for (int k = 0; k < CHILD_MAX; k++)
      if (k < 32'(n_mt_nchild[e]) && mt_child[e][k].unit != '1) crow[k] = crow[k] - n;
    crw_we = 1'b1;
    crw_wa = e;
    crw_wd = crow;
  endfunction

  // Mechanism 4: the collective's batches waiting for credits go to descriptor generation, in
  // order, while the credits cover them (crow holds the entry's credits).
  function automatic void release_waiting(input logic [CW-1:0] c, input logic [MW-1:0] e);
    logic [31:0] m, total;
    logic [BW-1:0] b, last;
    logic moved, empty;
    if (!n_colls[c].waiting) return;
    m = credit_min(e);
    total = '0;
    b = n_colls[c].wait_head;
    last = '0;
    moved = 1'b0;
    empty = 1'b0;
    for (int i = 0; i < BATCH_MAX; i++) begin
      if (32'(n_batches[b].npkts) > m) break;
      m = m - 32'(n_batches[b].npkts);
      total = total + 32'(n_batches[b].npkts);
      last = b;
      moved = 1'b1;
      if (b == n_colls[c].wait_tail) begin
        empty = 1'b1;
        break;
      end
      b = n_batches[b].next;
    end
    if (!moved) return;
    if (!n_gq_valid) begin
      n_gq_head = n_colls[c].wait_head;
      n_gq_valid = 1'b1;
    end else n_batches[n_gq_tail].next = n_colls[c].wait_head;
    n_gq_tail = last;
    if (empty) n_colls[c].waiting = 1'b0;
    else n_colls[c].wait_head = b;
    take_credits(e, total);
  endfunction

  // A collective's open chunk becomes a batch; to descriptor generation unless its
  // broadcast has unit children whose credits do not cover it (or batches before it wait for
  // theirs): then onto its waiting list.
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
    mt_find(n_colls[c].coll);  // present: data wait for their Mini Packet
    for (int k = 0; k < CHILD_MAX; k++) crow[k] = mt_credit[mt_at][k];
    if (!mt_hit || !n_mt_ukids[mt_at]) gq_push(b);
    else if (!n_colls[c].waiting && credit_min(mt_at) >= 32'(n_batches[b].npkts)) begin
      take_credits(mt_at, 32'(n_batches[b].npkts));
      gq_push(b);
    end else begin
      if (!n_colls[c].waiting) n_colls[c].wait_head = b;
      else n_batches[n_colls[c].wait_tail].next = b;
      n_colls[c].wait_tail = b;
      n_colls[c].waiting = 1'b1;
    end
  endfunction

  // The packet at the head of VC v's RI FIFO (the one assembled at this edge is behind the
  // others), and its arrival number.
  function automatic pkt_t ri_front(input int v);
    if (ri_we && 32'(ri_wv) == v && n_ri_head[v] == ri_wa)
      return '{
          handle: in_handle,
          cls: in_cls,
          vc: in_vc,
          rxq: in_queue,
          coll: in_coll,
          bytes: in_bytes,
          src: in_src,
          msg: in_msg,
          count: in_count
      };
    return ri_mem[v][n_ri_head[v]];
  endfunction
  function automatic logic [15:0] ri_front_seq(input int v);
    if (ri_we && 32'(ri_wv) == v && n_ri_head[v] == ri_wa) return ri_seq;
    return ri_seq_mem[v][n_ri_head[v]];
  endfunction

  // Heads of the queues as this edge sees them (moved in at this edge included).
  pkt_t rx_first[NQ];
  int moves;
  // Step 5/7: RI -> queues in arrival order, MOVES at most a pass; a packet whose queue is
  // full holds the later packets of its own VC only (the oldest head of the VCs not held goes
  // next).
  function automatic void move_ri();
    logic [VCS-1:0] held;
    logic found;
    int v;
    logic [15:0] oldest, seq;
    pkt_t p;
    logic [QW-1:0] q;
    int pass_moves;
    held = '0;
    pass_moves = 0;
    for (int i = 0; i < MOVES + VCS; i++) begin
      found = 1'b0;
      v = 0;
      oldest = '0;
      for (int w = 0; w < VCS; w++)
        if (!held[w] && n_ri_cnt[w] != '0) begin
          seq = ri_front_seq(w);
          // Arrival numbers wrap: fewer than 2^15 packets are ever in the RI.
          if (!found || $signed(seq - oldest) < 0) begin
            found = 1'b1;
            v = w;
            oldest = seq;
          end
        end
      if (!found || pass_moves >= MOVES) break;
      p = ri_front(v);
      q = p.cls == CLS_MINI || p.cls == CLS_CREDIT ? QW'(CQ) : p.rxq;
      if (32'(n_rx_cnt[q]) >= cfg_rx_depth) begin
        held[v] = 1'b1;
        e_ri_blocked = 1'b1;
      end else begin
        rx_we[moves] = 1'b1;
        rx_wq[moves] = q;
        rx_wa[moves] = n_rx_head[q] + n_rx_cnt[q][$clog2(RXQ_DEPTH_MAX)-1:0];
        rx_wd[moves] = p;
        if (n_rx_cnt[q] == '0) rx_first[q] = p;
        n_rx_cnt[q] = n_rx_cnt[q] + 1'b1;
        if (32'(n_rx_cnt[q]) > e_rx_peak) e_rx_peak = 32'(n_rx_cnt[q]);
        if (n_stalled[q]) n_hol[q] = 1'b1;
        e_moved_vc[moves] = 2'(v);
        moves = moves + 1;
        pass_moves = pass_moves + 1;
        n_ri_head[v] = n_ri_head[v] + 1'b1;
        n_ri_cnt[v] = n_ri_cnt[v] - 1'b1;
        e_moved = e_moved + 1'b1;
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

  // (1) A packet the RI assembled at this edge joins its VC's FIFO.
  function automatic void accept_in();
    if (in_vc >= 2'(VCS) || ri_cnt[in_vc] == (RIW + 1)'(RI_MAX)) n_err = ERR_RI_FULL;
    else begin
      ri_we = 1'b1;
      ri_wv = in_vc;
      ri_wa = ri_head[in_vc] + ri_cnt[in_vc][RIW-1:0];
      n_ri_cnt[in_vc] = ri_cnt[in_vc] + 1'b1;
      n_ri_seq = ri_seq + 1'b1;
    end
  endfunction

  // (1) The scheduled packet is through: a credit return adds to a child unit's credits, a
  // Mini Packet's child list enters the Membership Table with its reservation, a data packet
  // joins its collective's open chunk.
  function automatic void complete_schedule();
    logic [CW-1:0] c;
    logic msg_hit, is_new, kid;
    int mk;
    n_sched_busy = 1'b0;
    if (sched_pkt.cls == CLS_CREDIT) begin
      e_credit = 1'b1;
      e_credit_handle = sched_pkt.handle;
      mt_find(sched_pkt.coll);
      if (mt_hit) begin  // else the last returns came after the last copy
        for (int k = 0; k < CHILD_MAX; k++) crow[k] = mt_credit[mt_at][k];
        kid = 1'b0;
        for (int k = 0; k < CHILD_MAX; k++)
          if (!kid && k < 32'(n_mt_nchild[mt_at]) && mt_child[mt_at][k].unit != '1 &&
              mt_child[mt_at][k].dst == sched_pkt.src) begin
            kid = 1'b1;
            crow[k] = crow[k] + sched_pkt.count;
          end
        crw_we = 1'b1;
        crw_wa = mt_at;
        crw_wd = crow;
        coll_find(sched_pkt.coll);
        if (coll_hit) release_waiting(coll_at, mt_at);
      end
    end else if (sched_pkt.cls == CLS_MINI) begin
      mt_find(sched_pkt.coll);
      is_new = !mt_hit;
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
      if (is_new) begin
        n_mt_rpk[mt_at] = resv_pkts(sched_pkt.count);
        n_resv_total = n_resv_total + n_mt_rpk[mt_at] * cfg_pkt_bytes;
      end
      // A child unit reserved as much: every unit has these parameters.
      kid = 1'b0;
      for (int k = 0; k < CHILD_MAX; k++) begin
        crw_wd[k] = n_mt_rpk[mt_at];
        if (32'(k) < pl_nchild && pl_unit[k] != '1) kid = 1'b1;
      end
      crw_we = 1'b1;
      crw_wa = mt_at;
      n_mt_ukids[mt_at] = kid;
      mt_we = 1'b1;
      mt_wa = mt_at;
      if (pl_nchild == 0 || pl_nchild > CHILD_MAX) n_err = ERR_NO_CHILDREN;
      e_parsed = 1'b1;
      e_parsed_handle = sched_pkt.handle;
    end else begin  // data: into its collective's open chunk
      coll_find(sched_pkt.coll);  // allocated when the scheduler took it
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

  // (6) The scheduler takes the head of queue q (reported as queue `shown`).
  function automatic void take(input logic [QW-1:0] q, input pkt_t p, input logic [QW-1:0] shown);
    n_mp_wait[q] = 1'b0;
    n_stalled[q] = 1'b0;
    n_hol[q] = 1'b0;
    rx_first[q] = rx_second(q);
    n_rx_head[q] = n_rx_head[q] + 1'b1;
    n_rx_cnt[q] = n_rx_cnt[q] - 1'b1;
    e_sched = 1'b1;
    e_sched_handle = p.handle;
    e_sched_queue = shown;
    n_sched_busy = 1'b1;
    n_sched_cnt = cfg_sched_cycles;
    n_sched_pkt = p;
  endfunction

  // (6) A data packet taken: its memory, a slot and its collective's state.
  function automatic void take_memory(input logic [31:0] coll, input logic [15:0] bytes);
    logic [SW-1:0] s;
    n_mem_used = n_mem_used + 32'(bytes);
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
    coll_find(coll);
    if (!coll_hit)
      for (int cc = 0; cc < COLL_MAX; cc++)
        if (!coll_hit && !n_coll_v[cc]) begin
          coll_hit = 1'b1;
          coll_at = CW'(cc);
          n_colls[cc] = '0;
          n_colls[cc].valid = 1'b1;
          n_colls[cc].coll = coll;
          n_coll_v[cc] = 1'b1;
          n_coll_id[cc] = coll;
        end
    if (!coll_hit) n_err = ERR_COLL_FULL;
    else n_colls[coll_at].mem_bytes = n_colls[coll_at].mem_bytes + 32'(bytes);
  endfunction

  // (6) A head data packet goes once its broadcast has an entry and its stored bytes and its
  // own fit the broadcast's reservation; else it waits (stalled, and those behind it).
  function automatic logic data_can_go(input logic [QW-1:0] q, input logic [31:0] coll,
                                       input logic [15:0] bytes);
    logic can;
    logic [31:0] used;
    mt_find(coll);
    coll_hit = 1'b0;
    if (mt_hit) coll_find(coll);  // without an entry it waits whatever it holds
    used = coll_hit ? n_colls[coll_at].mem_bytes : '0;
    can = mt_hit && used + 32'(bytes) <= n_mt_rpk[mt_at] * cfg_pkt_bytes &&
        (n_free_cnt != '0 || n_fresh != (SW + 1)'(SLOT_MAX));
    if (!can && !n_stalled[q]) begin
      n_stalled[q] = 1'b1;
      if (n_rx_cnt[q] > 1) n_hol[q] = 1'b1;
    end
    return can;
  endfunction

  // (6) Receive Packet Scheduler: the control queue's head first if it can go (a credit
  // return always; a Mini Packet with its entry, or a free entry and its reservation
  // unreserved), else round robin over the 2 rx_queues data queues whose head can go.
  function automatic void schedule();
    logic picked, can;
    logic [5:0] qi, nd;
    pkt_t p;
    if (n_sched_busy) return;
    nd = 6'(cfg_rx_queues) << 1;
    if (n_rx_cnt[CQ] != '0) begin
      p = rx_first[CQ];
      if (p.cls == CLS_CREDIT) can = 1'b1;
      else begin
        mt_find(p.coll);
        can = mt_hit || (32'($countones(n_mt_valid)) < cfg_mt_entries &&
            n_resv_total + resv_pkts(p.count) * cfg_pkt_bytes <= cfg_wm_bytes);
        if (!can) n_mp_wait[CQ] = 1'b1;  // the table or the memory back-pressures it
      end
      if (can) begin
        take(QW'(CQ), p, QW'(nd));
        return;
      end
    end
    picked = 1'b0;
    for (int i = 0; i < 2 * RXQ_MAX; i++) begin
`ifdef BCAST_FAULT_UNFAIR
      qi = 6'(i);
`else
      qi = 6'(rr) + 6'(i);
      if (qi >= nd) qi = qi - nd;
`endif
      if (!picked && 32'(i) < cfg_rx_queues << 1 && n_rx_cnt[qi[QW-1:0]] != '0) begin
        p = rx_first[qi[QW-1:0]];
        if (data_can_go(qi[QW-1:0], p.coll, p.bytes)) begin
          picked = 1'b1;
          take(qi[QW-1:0], p, qi[QW-1:0]);
          take_memory(p.coll, p.bytes);
          n_rr = qi + 1'b1 == nd ? '0 : QW'(qi + 1'b1);
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
      if (!busy) begin
        n_colls[cc].valid = 1'b0;
        n_coll_v[cc] = 1'b0;
      end
    end
  endfunction
