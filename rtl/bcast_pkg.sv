// Types and capacities of the Bcast Unit core (rtl/bcast_core.sv). The capacities are the
// largest values the verilated core supports; the scenario's values (ragasa.*) arrive on the
// cfg_* ports and must fit (the TLM wrapper checks them).
package bcast_pkg;
  localparam int VCS = 3;  // the unit port's VCs: hand-off data, relayed data, control
  localparam int RI_MAX = 64;  // packets held by the Receive Interface, per VC
  localparam int RXQ_MAX = 8;  // Rx-queues of each data bank (ragasa.rx_queues)
  // Queues: the hand-off bank (0 .. rx_queues-1), the relayed bank (rx_queues ..
  // 2 rx_queues-1) and the control queue, kept at index CQ whatever rx_queues is.
  localparam int NQ = 2 * RXQ_MAX + 1;
  localparam int CQ = NQ - 1;
  localparam int RXQ_DEPTH_MAX = 16;  // packets per queue
  localparam int MT_MAX = 128;  // Membership Table entries
  localparam int CHILD_MAX = 16;  // children per entry
  // Collectives with data in the unit at once: as many as the Membership Table holds (72
  // broadcasts cross every unit when all nodes of the paper's dragonfly broadcast).
  localparam int COLL_MAX = 128;
  localparam int MSG_MAX = 4;  // messages in progress per collective
  localparam int BATCH_MAX = 256;  // closed chunks (batches) alive at once
  localparam int SLOT_MAX = 4096;  // packets held in Working Memory
  localparam int WQ_MAX = 64;  // Work Queue Element
  localparam int SQ_MAX = 16;  // descriptors at the Send Packet Scheduler
  localparam int MOVES = 4;  // RI -> Rx-queue moves per pass

  localparam int HW = 16;  // packet handle: the wrapper's index of the stored packet
  localparam int SW = $clog2(SLOT_MAX);
  localparam int BW = $clog2(BATCH_MAX);
  localparam int QW = $clog2(NQ);
  localparam int RIW = $clog2(RI_MAX);
  localparam int CW = $clog2(COLL_MAX);
  localparam int MW = $clog2(MT_MAX);
  localparam int KW = $clog2(CHILD_MAX + 1);

  // Packet classes (hw/ragasa/packet_fields.h, packet_class): 0 hand-off data, 1 relayed
  // data (both only choose the RI's VC and the bank, which the wrapper computes), and:
  localparam logic [1:0] CLS_MINI = 2'd2, CLS_CREDIT = 2'd3;

  // A packet as the RI hands it on (header fields the core needs).
  typedef struct packed {
    logic [HW-1:0] handle;
    logic [1:0] cls;  // CLS_*: control is CLS_MINI or CLS_CREDIT
    logic [1:0] vc;  // the unit port's VC it came on
    logic [QW-1:0] rxq;  // its queue, computed by the RI (CQ for control)
    logic [31:0] coll;
    logic [15:0] bytes;
    logic [31:0] src;  // a credit return's: the child unit's terminal
    logic [31:0] msg;
    // Data: packets in its message; a Mini Packet: the data packets it announces (its
    // payload, 0 or all ones when unknown); a credit return: the packets freed.
    logic [31:0] count;
  } pkt_t;

  typedef struct packed {
    logic [31:0] dst;
    logic [31:0] unit;  // router of the child's Bcast Unit, or all ones for a terminal
  } child_t;

  typedef struct packed {
    logic [BW-1:0] batch;
    child_t child;
  } desc_t;

  // A dispatched descriptor: the next packet of its batch to copy for its child.
  typedef struct packed {
    logic [BW-1:0] batch;
    child_t child;
    logic [SW-1:0] ptr;
    logic [15:0] sent;
  } sps_t;

  typedef struct packed {
    logic [31:0] coll;
    logic [HW-1:0] first;  // handle of its first packet
    logic [SW-1:0] head;
    logic [15:0] npkts;
    logic [31:0] bytes;  // released together at its completion (step 10)
    logic [KW-1:0] nchild;
    logic [31:0] copies_left;
    logic [BW-1:0] next;  // generation queue or the collective's waiting list
  } batch_t;

  typedef struct packed {
    logic valid;
    logic [31:0] src;
    logic [31:0] msg;
    logic [31:0] stored;
  } msg_t;

  typedef struct packed {
    logic valid;
    logic [31:0] coll;
    logic [HW-1:0] open_first;
    logic [SW-1:0] open_head;
    logic [SW-1:0] open_tail;
    logic [15:0] open_cnt;
    logic [31:0] open_bytes;
    logic [31:0] mem_bytes;
    logic waiting;  // closed batches wait for credits at child units, in order
    logic [BW-1:0] wait_head;
    logic [BW-1:0] wait_tail;
    msg_t [MSG_MAX-1:0] msgs;
  } coll_t;

  // Sticky error codes (err_code): the stimulus exceeded a capacity of this core.
  localparam logic [3:0] ERR_NONE = 4'd0;
  localparam logic [3:0] ERR_RI_FULL = 4'd1;
  localparam logic [3:0] ERR_COLL_FULL = 4'd2;
  localparam logic [3:0] ERR_MSG_FULL = 4'd3;
  localparam logic [3:0] ERR_BATCH_FULL = 4'd4;
  localparam logic [3:0] ERR_NO_CHILDREN = 4'd5;
  localparam logic [3:0] ERR_CREDIT_FULL = 4'd6;
endpackage
