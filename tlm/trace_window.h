// Waveforms of chosen blocks in a time window. SystemC cannot pause a VCD file, so traced
// blocks copy their state into mirror variables only inside the window; outside it the
// mirrors hold still and the VCD records nothing.
//
// A block declares each traced signal once, with trace_signals::add: that registers the
// mirror variable in the VCD and records the signal's display name (block, then stage or
// port class) in the window's catalog, from which the GTKWave save file is written
// (tb/gtkwave_save_file.h).
#pragma once

#include <cstdint>
#include <string>
#include <systemc>
#include <type_traits>
#include <vector>

namespace bcastsim::tlm_net {

// One traced signal as its block declared it.
struct trace_signal {
  std::string vcd_name;  // below the block's scope, scopes joined by dots: "port3.out.busy"
  std::string display;   // with its stage or port class: "port3(global).out.busy"
  unsigned width = 1;    // bits; 1 = a wire
};

// A traced block: its module name (also its scope in the VCD), what it is, and its signals
// in the order it declared them.
struct trace_block {
  std::string name;     // "router_0"
  std::string summary;  // "router, 8 ports"
  std::vector<trace_signal> signals;
};

// A waveform a block writes by itself (a verilated core's VCD). It is written under a
// temporary name and, when the window's owner closes its own VCD, closed and checked, then
// renamed to path() (whole) or removed: a run leaves without destructors, and no file may be
// left half-written.
class own_waveform {
 public:
  virtual ~own_waveform() = default;
  virtual const std::string& path() const = 0;
  virtual bool opened() const = 0;
  // Closes the temporary file: an empty string, or why it is not whole (it is then removed).
  virtual std::string close() = 0;
  // Renames the closed file to path(): an empty string, or why not (it is then removed).
  virtual std::string commit() = 0;
  // Removes the temporary file unless it was committed.
  virtual void discard() noexcept = 0;
};

// Every block traced into one VCD, in the order they were traced, and the files of their own.
struct trace_catalog {
  std::vector<trace_block> blocks;
  std::vector<own_waveform*> own;  // not owned: the blocks hold them, and outlive the catalog
};

// Whether a closed VCD is whole: neither SystemC nor Verilator checks its writes, and a VCD
// cut short by a full disk lacks its header's end or its last line's newline.
bool vcd_complete(const std::string& path);

// The two passes over the files of their own: all closed first, then all renamed, so that
// none is renamed before all are known whole.
enum class own_step : uint8_t { close, commit };

// Takes `step` for every file of `own`: an empty string, or what went wrong with the first
// that failed ("cannot write 'PATH' whole: why"), and then every file is removed that was not
// yet renamed.
inline std::string finish_own_waveforms(const std::vector<own_waveform*>& own, own_step step) {
  for (own_waveform* w : own) {
    const std::string why = step == own_step::commit ? w->commit() : w->close();
    if (why.empty()) continue;
    for (own_waveform* other : own) other->discard();
    return "cannot write '" + w->path() + "' whole: " + why;
  }
  return {};
}

struct trace_window {
  sc_core::sc_trace_file* file = nullptr;  // null: nothing goes into a SystemC VCD
  sc_core::sc_time start = sc_core::SC_ZERO_TIME;
  sc_core::sc_time end = sc_core::sc_max_time();
  // Blocks that write a waveform of their own (verilated RTL) put it in this folder.
  std::string own_vcd_dir = ".";
  // Where the blocks' declarations go, and their own waveforms (may be null: then only the
  // VCD gets the declarations, and a block writes no waveform of its own).
  trace_catalog* catalog = nullptr;
  bool active(const sc_core::sc_time& now) const { return now >= start && now <= end; }
};

// The declarations of one block's traced signals, made in its trace(): every add()
// registers the value in the window's VCD as "<block>.<vcd_name>" and records its display
// name in the window's catalog. Only while trace() runs; the values must outlive the VCD.
class trace_signals {
 public:
  trace_signals(const trace_window& window, const std::string& block, const std::string& summary)
      : m_file(window.file), m_block(block) {
    if (m_file && window.catalog) {
      m_catalog = window.catalog;
      m_index = m_catalog->blocks.size();
      m_catalog->blocks.push_back(trace_block{block, summary, {}});
    }
  }

  template <class T>
  void add(const T& value, const std::string& vcd_name, const std::string& display) {
    static_assert(std::is_integral_v<T>, "traced mirrors are bools or unsigned integers");
    if (!m_file) return;
    sc_core::sc_trace(m_file, value, m_block + "." + vcd_name);
    if (m_catalog)
      m_catalog->blocks[m_index].signals.push_back(
          trace_signal{vcd_name, display, std::is_same_v<T, bool> ? 1u : unsigned(8 * sizeof(T))});
  }
  // A signal whose VCD name already says its stage: shown under the same name.
  template <class T>
  void add(const T& value, const std::string& name) {
    add(value, name, name);
  }

 private:
  sc_core::sc_trace_file* m_file;
  std::string m_block;
  trace_catalog* m_catalog = nullptr;
  size_t m_index = 0;
};

}  // namespace bcastsim::tlm_net
