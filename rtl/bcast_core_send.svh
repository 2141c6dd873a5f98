// Included by bcast_core.sv inside the module: the send side of the next-state logic,
// descriptor generation, the Work Queue Element, the Dispatcher, the Send Packet Scheduler
// and the copy on offer to the SI. Functions over the module's state and next state (n_*),
// called from its always_comb only, in the edge's order (numbered as in bcast_core.sv).

  // (4) One descriptor of the front batch (descriptor_cycles), while the Work Queue
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

  // (1) A generated descriptor enters the Work Queue Element.
  function automatic void complete_descriptor();
    n_gen_busy = 1'b0;
    wq_we = 1'b1;
    wq_wa = wq_head + wq_cnt[$clog2(WQ_MAX)-1:0];
    wq_wd = gen_desc;
    n_wq_cnt = n_wq_cnt + 1'b1;
    e_desc = 1'b1;
    e_desc_handle = n_batches[gen_desc.batch].first;
    e_desc_dst = gen_desc.child.dst;
    e_desc_unit = gen_desc.child.unit;
  endfunction

  // (1) A dispatched descriptor becomes a connection of the Send Packet Scheduler.
  function automatic void complete_dispatch();
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
  endfunction

  // (2) SI: the queued credit return leaves (the wrapper offers nothing else then), or the
  // built copy leaves; its stored packet is released after its last child, and step 10 of
  // its batch queues a credit return to the broadcast's parent unit.
  function automatic void send_copy();
    logic fired, release_it;
    logic [15:0] sent;
    if (cr_ready && n_cro_v) n_cro_v = 1'b0;
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
        if (mt_parent[mt_at].unit != '1) begin  // the parent may send as many again
          if (n_cro_v) n_err = ERR_CREDIT_FULL;
          n_cro_v = 1'b1;
          n_cro_c = n_batches[si_batch].coll;
          n_cro_n = 32'(n_batches[si_batch].npkts);
          n_cro_p = mt_parent[mt_at];
        end
        if (n_mt_done[mt_at] == n_mt_expect[mt_at]) begin
          n_mt_valid[mt_at] = 1'b0;
          n_resv_total = n_resv_total - n_mt_rpk[mt_at] * cfg_pkt_bytes;
          e_freed = 1'b1;
          e_freed_coll = n_batches[si_batch].coll;
        end
      end
      if (n_batches[si_batch].copies_left == '0) n_bvalid[si_batch] = 1'b0;
    end
  endfunction

  // (2) The SPS builds the next copy: round robin over the connections (one per child).
  function automatic void build_copy();
    logic [$clog2(SQ_MAX):0] k;
    logic [SW-1:0] s;
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
  endfunction

  // (3) Dispatcher: the head descriptor's connection is set up when the SPS has one free
  // and its child has none open; else it waits, and the ones behind it.
  function automatic void dispatch();
    logic can;
    desc_t head;
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
  endfunction
