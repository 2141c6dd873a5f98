#include "hw/ragasa/unit_factory.h"

#include "hw/ragasa/bcast_unit.h"

#ifdef BCASTSIM_WITH_VERILATOR
#include "hw/ragasa/bcast_unit_rtl.h"
#endif

namespace bcastsim::hw::ragasa {

namespace {
struct model_name {
  unit_model model;
  const char* name;
};
constexpr model_name k_names[] = {{unit_model::systemc, "systemc"},
                                  {unit_model::rtl, "rtl"},
                                  {unit_model::rtl_fault_unfair, "rtl-fault-unfair"},
                                  {unit_model::rtl_fault_early_free, "rtl-fault-early-free"}};
}  // namespace

const char* to_string(unit_model m) {
  for (const model_name& n : k_names)
    if (n.model == m) return n.name;
  return "?";
}

bool parse_unit_model(const std::string& name, unit_model& out) {
  for (const model_name& n : k_names) {
    if (name == n.name) {
      out = n.model;
      return true;
    }
  }
  return false;
}

std::vector<std::string> unit_model_names() {
  std::vector<std::string> names;
  for (const model_name& n : k_names) names.emplace_back(n.name);
  return names;
}

bool unit_model_available(unit_model m) {
#ifdef BCASTSIM_WITH_VERILATOR
  (void)m;
  return true;
#else
  return m == unit_model::systemc;
#endif
}

std::unique_ptr<bcast_unit_base> make_bcast_unit(unit_model m, const sc_core::sc_module_name& name,
                                                 network::terminal_id terminal,
                                                 const bcast_unit_params& params,
                                                 tlm_net::packet_pool& pool,
                                                 const membership_source& membership,
                                                 const network::routing_policy* routing) {
  switch (m) {
    case unit_model::systemc:
      return std::make_unique<bcast_unit>(name, terminal, params, pool, membership, routing);
#ifdef BCASTSIM_WITH_VERILATOR
    case unit_model::rtl:
    case unit_model::rtl_fault_unfair:
    case unit_model::rtl_fault_early_free:
      return make_bcast_unit_rtl(m, name, terminal, params, pool, membership, routing);
#endif
    default:
      SC_REPORT_ERROR("make_bcast_unit", "this build has no Verilator: no RTL Bcast Unit");
      return nullptr;
  }
}

}  // namespace bcastsim::hw::ragasa
