// Included by bcast_core.sv inside the module: every edge's next state starts as the state
// (nothing written, no events), and the registers and memories that take it at the edge.

  function automatic void hold_state();
    n_ri_head = ri_head;
    n_ri_cnt = ri_cnt;
    n_ri_seq = ri_seq;
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
    n_mt_rpk = mt_rpk;
    n_mt_ukids = mt_ukids;
    n_resv_total = resv_total;
    n_cro_v = cro_v;
    n_cro_c = cro_c;
    n_cro_n = cro_n;
    n_cro_p = cro_p;
    n_colls = colls;
    n_coll_v = coll_v;
    n_coll_id = coll_id;
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
  endfunction

  function automatic void clear_ports_and_events();
    ri_we = 1'b0;
    ri_wv = '0;
    ri_wa = '0;
    rx_we = '0;
    for (int m = 0; m < 2 * MOVES; m++) begin
      rx_wq[m] = '0;
      rx_wa[m] = '0;
      rx_wd[m] = '0;
    end
    mt_we = 1'b0;
    mt_wa = '0;
    crw_we = 1'b0;
    crw_wa = '0;
    for (int k = 0; k < CHILD_MAX; k++) crw_wd[k] = '0;
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
    e_moved_vc = '0;
    e_rx_peak = '0;
    e_credit = 1'b0;
    e_credit_handle = '0;
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
    for (int k = 0; k < CHILD_MAX; k++) crow[k] = '0;
    for (int q = 0; q < NQ; q++) rx_first[q] = rx_mem[q][rx_head[q]];
  endfunction

  // ---- Registers and memories.
  always_ff @(posedge clk) begin
    if (rst) begin
      for (int v = 0; v < VCS; v++) begin
        ri_head[v] <= '0;
        ri_cnt[v] <= '0;
      end
      ri_seq <= '0;
      for (int q = 0; q < NQ; q++) begin
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
      mt_ukids <= '0;
      resv_total <= '0;
      cro_v <= 1'b0;
      cro_c <= '0;
      cro_n <= '0;
      cro_p <= '0;
      colls <= '{default: '0};
      coll_v <= '0;
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
      ri_seq <= n_ri_seq;
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
      mt_rpk <= n_mt_rpk;
      mt_ukids <= n_mt_ukids;
      resv_total <= n_resv_total;
      cro_v <= n_cro_v;
      cro_c <= n_cro_c;
      cro_n <= n_cro_n;
      cro_p <= n_cro_p;
      colls <= n_colls;
      coll_v <= n_coll_v;
      coll_id <= n_coll_id;
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
      if (ri_we) begin
        ri_seq_mem[ri_wv][ri_wa] <= ri_seq;
        ri_mem[ri_wv][ri_wa] <= '{
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
      end
      for (int m = 0; m < 2 * MOVES; m++) if (rx_we[m]) rx_mem[rx_wq[m]][rx_wa[m]] <= rx_wd[m];
      if (mt_we) begin
        for (int k = 0; k < CHILD_MAX; k++) mt_child[mt_wa][k] <= pl_child[k];
        mt_parent[mt_wa] <= '{dst: pl_parent_dst, unit: pl_parent_unit};
      end
      if (crw_we) for (int k = 0; k < CHILD_MAX; k++) mt_credit[crw_wa][k] <= crw_wd[k];
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
