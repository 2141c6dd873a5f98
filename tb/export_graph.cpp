#include "tb/export_graph.h"

#include "network/graph_topology.h"
#include "tb/atomic_file.h"
#include "tb/plan.h"

namespace bcastsim::tb {

void export_graph(const config& cfg, const std::string& path) {
  scenario s = make_scenario(cfg);
  const plan p = make_plan(s);
  std::vector<network::link_class_rates> rates(s.links.size());
  for (size_t c = 0; c < s.links.size(); ++c) {
    rates[c].bandwidth_gib_per_s = s.links[c].bandwidth_gib_per_s;
    rates[c].latency_ns = s.links[c].latency_ns;
    rates[c].vc_buffer_bytes = s.router.vc_buffer_bytes[c];
  }
  const bool yaml = path.size() > 5 && (path.compare(path.size() - 5, 5, ".yaml") == 0 ||
                                        path.compare(path.size() - 4, 4, ".yml") == 0);
  atomic_file out(path, "--file");  // a failed export leaves no half-written graph
  try {
    if (yaml) {
      network::write_graph_yaml(*p.topo, out.stream(), p.topo->graph_costs(), rates);
    } else {
      network::write_graph_edge_list(*p.topo, out.stream(), p.topo->graph_costs(), rates);
    }
  } catch (const std::invalid_argument& e) {
    throw config_error("topology.kind", std::string("cannot write as a graph file: ") + e.what());
  }
  out.commit();
}

}  // namespace bcastsim::tb
