#include "tb/gtkwave_save_file.h"

#include "tb/config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace bcastsim::tb {

namespace {

// GTKWave's window as the save file opens it, and what its panes take of its width.
constexpr int k_window_width = 1600;
constexpr int k_window_height = 1000;
constexpr int k_sst_px = 220;      // the signal search tree, left
constexpr int k_char_px = 8;       // a character of the signal pane's font, about
constexpr int k_pane_margin = 90;  // the panes' borders, the waves' scroll bar, a little room

// Trace flags (GTKWave's analyzer.h): decimal right-justified values, binary wires, and the
// comment rows opening and closing a group.
constexpr const char* k_decimal = "@24";
constexpr const char* k_wire = "@28";
constexpr const char* k_group_begin = "@800200";
constexpr const char* k_group_end = "@1000200";

std::string group_header(const tlm_net::trace_block& b) {
  return b.name + " (" + b.summary + ")";
}

}  // namespace

std::string gtkwave_row_name(const std::string& block, const tlm_net::trace_signal& s) {
  std::string row = block + "/" + s.display;
  std::replace(row.begin(), row.end(), '.', '/');
  return row;
}

std::string gtkwave_vcd_name(const std::string& block, const tlm_net::trace_signal& s) {
  std::string name = "SystemC." + block + "." + s.vcd_name;
  if (s.width > 1) name += "[" + std::to_string(s.width - 1) + ":0]";
  return name;
}

std::string gtkwave_save_file(const tlm_net::trace_catalog& catalog, const gtkwave_view& view) {
  size_t longest = 0;  // the signal pane fits the longest row, comment rows included
  for (const tlm_net::trace_block& b : catalog.blocks) {
    longest = std::max(longest, group_header(b).size() + 2);
    for (const tlm_net::trace_signal& s : b.signals)
      longest = std::max(longest, gtkwave_row_name(b.name, s).size());
  }
  const int signals_px = static_cast<int>(longest) * k_char_px + 40;
  const int waves_px = std::max(200, k_window_width - k_sst_px - signals_px - k_pane_margin);
  // Zoom z shows 2^-z time units (ps) in 200 pixels (GTKWave's zoombuttons.c, zoom to fit):
  // the window fills the waves' pane.
  const uint64_t span_ps =
      std::max<uint64_t>(view.end_ps - std::min(view.start_ps, view.end_ps), 1);
  const double zoom = -std::log2(static_cast<double>(span_ps) / (0.97 * waves_px) * 200.0);

  std::ostringstream os;
  os << "[*] GTKWave save file written by bcastsim run --vcd, from the traced blocks' own\n"
     << "[*] declarations: a group per block, every row named block/stage-or-port(class)/signal,\n"
     << "[*] zoomed to the trace window " << view.start_ps << " .. " << view.end_ps << " ps.\n"
     << "[dumpfile] \"" << view.vcd_file << "\"\n"
     << "[savefile] \"" << view.save_file << "\"\n"
     << "[timestart] " << view.start_ps << "\n"
     << "[size] " << k_window_width << " " << k_window_height << "\n"
     << "[pos] 0 0\n"
     << "*" << std::fixed << std::setprecision(6) << zoom << " -1";
  for (int i = 0; i < 26; ++i) os << " -1";  // no markers
  os << "\n[treeopen] SystemC.\n";
  for (const tlm_net::trace_block& b : catalog.blocks)
    os << "[treeopen] SystemC." << b.name << ".\n";
  os << "[sst_width] " << k_sst_px << "\n"
     << "[signals_width] " << signals_px << "\n"
     << "[sst_expanded] 1\n"
     << "[sst_vpaned_height] 200\n";
  for (const tlm_net::trace_block& b : catalog.blocks) {
    const std::string header = "-" + group_header(b);
    os << k_group_begin << "\n" << header << "\n";
    const char* flags = nullptr;
    for (const tlm_net::trace_signal& s : b.signals) {
      const char* f = s.width > 1 ? k_decimal : k_wire;
      if (f != flags) os << (flags = f) << "\n";
      os << "+{" << gtkwave_row_name(b.name, s) << "} " << gtkwave_vcd_name(b.name, s) << "\n";
    }
    os << k_group_end << "\n" << header << "\n";
  }
  os << "[pattern_trace] 1\n[pattern_trace] 0\n";
  return os.str();
}

}  // namespace bcastsim::tb
