#include "tb/cosim/recorder.h"
#include "hw/ragasa/packet_fields.h"

#include "tb/cosim/stimulus.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace bcastsim::tb::cosim {

unit_input_recorder::unit_input_recorder(const std::string& path)
    : m_path(path), m_file(path, "--record-unit-inputs"), m_out(m_file.stream()) {}

void unit_input_recorder::add_unit(const std::string& unit, network::router_id router,
                                   network::terminal_id terminal,
                                   const hw::ragasa::bcast_unit_params& params,
                                   const tlm_net::link_params& port,
                                   const hw::router_params& router_params) {
  const nlohmann::json j = {
      {"type", "unit"},
      {"unit", unit},
      {"router", router},
      {"terminal", terminal},
      {"params", to_json(params)},
      {"port",
       {{"bandwidth_gib_per_s", port.bandwidth_gib_per_s},
        {"latency_ns", port.latency_ns},
        {"flit_bytes", port.flit_bytes}}},
      {"credit_delay_ps", replay_credit_delay_ps(router_params.clock_mhz,
                                                 router_params.delay_cycles, port.latency_ns)}};
  m_out << j.dump() << "\n";
}

void unit_input_recorder::add_membership(const std::string& unit, uint32_t collective_id,
                                         const std::vector<hw::ragasa::membership_child>& children,
                                         uint64_t packets,
                                         const hw::ragasa::membership_child& parent) {
  nlohmann::json kids = nlohmann::json::array();
  for (const hw::ragasa::membership_child& c : children) kids.push_back({c.dst, c.unit_router});
  nlohmann::json j = {
      {"type", "membership"}, {"unit", unit}, {"collective_id", collective_id}, {"children", kids}};
  if (parent.unit_router != network::invalid_id) j["parent"] = {parent.dst, parent.unit_router};
  if (packets != hw::ragasa::membership_source::keep_entry) j["packets"] = packets;
  m_out << j.dump() << "\n";
}

void unit_input_recorder::add_packet(const std::string& unit, const tlm_net::packet& p,
                                     const sc_core::sc_time& head) {
  arrival a;
  a.send_ps = sc_core::sc_time_stamp().value();
  a.head_ps = head.value();
  a.tail_ps = p.tail_time.value();
  a.kind = p.kind;
  a.cls = hw::ragasa::unit_class(p);
  a.src = p.src;
  a.dst = p.dst;
  a.unit_router = hw::ragasa::unit_router(p);
  a.collective_id = p.collective_id;
  a.msg_id = p.msg_id;
  a.tag = p.tag;
  a.index = p.index;
  a.count = p.count;
  a.size_bytes = p.size_bytes;
  a.msg_bytes = p.msg_bytes;
  a.buf_offset = p.buf_offset;
  nlohmann::json j = to_json(a);
  j["type"] = "packet";
  j["unit"] = unit;
  m_out << j.dump() << "\n";
}

void unit_input_recorder::finish() {
  m_file.commit();
}

unit_input_tap::unit_input_tap(const sc_core::sc_module_name& name, unit_input_recorder& recorder,
                               std::string unit, const hw::ragasa::membership_source& membership)
    : sc_core::sc_module(name),
      in("in"),
      out("out"),
      m_recorder(recorder),
      m_unit(std::move(unit)),
      m_membership(membership) {
  in.bind(*this);
  out.bind(*this);
}

tlm::tlm_sync_enum unit_input_tap::nb_transport_fw(tlm_net::packet& p, tlm::tlm_phase& ph,
                                                   sc_core::sc_time& t) {
  if (ph == tlm::BEGIN_REQ) {
    if (m_collectives_written.insert(p.collective_id).second) {
      if (const auto* kids = m_membership.find(p.collective_id))
        m_recorder.add_membership(m_unit, p.collective_id, *kids,
                                  m_membership.packets(p.collective_id),
                                  m_membership.parent(p.collective_id));
    }
    m_recorder.add_packet(m_unit, p, sc_core::sc_time_stamp() + t);
  }
  return out->nb_transport_fw(p, ph, t);
}

tlm::tlm_sync_enum unit_input_tap::nb_transport_bw(tlm_net::packet& p, tlm::tlm_phase& ph,
                                                   sc_core::sc_time& t) {
  return in->nb_transport_bw(p, ph, t);
}

void unit_input_tap::b_transport(tlm_net::packet&, sc_core::sc_time&) {
  SC_REPORT_ERROR(name(), "the unit's port carries packets with nb_transport only");
}

}  // namespace bcastsim::tb::cosim
