// The GTKWave save file `bcastsim run --vcd FILE.vcd` writes beside the VCD (FILE.gtkw),
// generated from the traced blocks' declarations (tlm/trace_window.h): one group per block,
// headed by a comment row naming it ("router_0 (router, 8 ports)"), a row per signal whose
// name says its block and its stage or port class, zoomed to the trace window.
//
// GTKWave shows a name only after its last dot unless told otherwise in its rc file, which
// a save file cannot do; so each row is an alias that joins the block and the declared
// display name with '/' instead of '.' ("router_0/port3(global)/out/vc1/credit_bytes"), and
// GTKWave shows it whole.
#pragma once

#include "tlm/trace_window.h"

#include <cstdint>
#include <string>

namespace bcastsim::tb {

struct gtkwave_view {
  std::string vcd_file;   // the VCD's file name, as [dumpfile] (the save file lies beside it)
  std::string save_file;  // the save file's own name, as [savefile]
  uint64_t start_ps = 0;  // the trace window
  uint64_t end_ps = 0;
};

// The row GTKWave shows for `s` of `block`: "router_0/port3(global)/out/busy".
std::string gtkwave_row_name(const std::string& block, const tlm_net::trace_signal& s);

// The signal's name in the VCD as GTKWave looks it up: "SystemC.router_0.packets[63:0]".
std::string gtkwave_vcd_name(const std::string& block, const tlm_net::trace_signal& s);

// The text of the save file.
std::string gtkwave_save_file(const tlm_net::trace_catalog& catalog, const gtkwave_view& view);

}  // namespace bcastsim::tb
