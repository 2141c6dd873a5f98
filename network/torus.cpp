#include "network/torus.h"

#include <cctype>
#include <string>

namespace bcastsim::network {

namespace {

std::string allowed_dims() {
  std::string s;
  for (const char* name : torus_dim_names) s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

std::string trim(const std::string& s) {
  size_t first = 0;
  size_t last = s.size();
  while (first < last && std::isspace(static_cast<unsigned char>(s[first]))) ++first;
  while (last > first && std::isspace(static_cast<unsigned char>(s[last - 1]))) --last;
  return s.substr(first, last - first);
}

// One list item: a dimension name, maybe quoted ('x' or "x"), either case.
uint32_t parse_dim(const std::string& text, const std::string& item) {
  std::string name = item;
  if (name.size() >= 2 && (name.front() == '"' || name.front() == '\'') &&
      name.back() == name.front()) {
    name = trim(name.substr(1, name.size() - 2));
  }
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (uint32_t d = 0; d < torus_num_dims; ++d) {
    if (name == torus_dim_names[d]) return d;
  }
  throw topology_error("topology.mesh", "topology.mesh = '" + text + "': '" + item +
                                            "' is not a dimension; allowed: " + allowed_dims());
}

// Checks one size and multiplies it into `count`, throwing with `key` when 32-bit ids
// could no longer number the result.
uint64_t times(uint64_t count, uint64_t factor, const std::string& key, const char* what) {
  const uint64_t product = count * factor;  // both < 2^32: cannot wrap 64 bits
  if (product > invalid_id) {
    throw topology_error(key, key + " makes " + std::to_string(product) + " " + what +
                                  ", more than 32-bit ids hold (at most " +
                                  std::to_string(invalid_id) + ")");
  }
  return product;
}

}  // namespace

std::array<bool, torus_num_dims> parse_torus_mesh(const std::string& text) {
  std::array<bool, torus_num_dims> mesh{};
  std::string list = trim(text);
  if (list.size() >= 2 && list.front() == '[' && list.back() == ']') {
    list = trim(list.substr(1, list.size() - 2));
  }
  if (list.empty()) return mesh;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string item = trim(list.substr(start, comma - start));
    const uint32_t d = parse_dim(text, item);
    if (mesh[d]) {  // "x,x": a typo for another dimension, not a line twice
      throw topology_error("topology.mesh", "topology.mesh = '" + text + "' names " +
                                                torus_dim_names[d] + " twice; allowed: each of " +
                                                allowed_dims() + " at most once");
    }
    mesh[d] = true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return mesh;
}

torus::torus(const torus_params& params) : m_params(params) {
  const std::array<uint32_t, 3> xyz = {params.x, params.y, params.z};
  // The ABC unit first, so an overflow names the x, y or z that caused it.
  uint64_t routers = torus_a * torus_b * torus_c;
  for (uint32_t d = 0; d < 3; ++d) {
    const std::string key = std::string("topology.") + torus_dim_names[d];
    if (xyz[d] == 0) {
      throw topology_error(key, key +
                                    " = 0 is out of range: a torus dimension holds at least "
                                    "1 node, so it must be >= 1 (Tofu: 1..32)");
    }
    routers = times(routers, xyz[d], key, "routers");
  }
  if (params.terminals_per_node == 0) {
    throw topology_error("topology.terminals_per_node",
                         "topology.terminals_per_node = 0 is out of range: it must be >= 1");
  }
  const uint64_t terminals =
      times(routers, params.terminals_per_node, "topology.terminals_per_node", "terminals");

  m_size = {params.x, params.y, params.z, torus_a, torus_b, torus_c};
  uint32_t stride = 1;
  port_id next_port = params.terminals_per_node;
  for (uint32_t d = 0; d < torus_num_dims; ++d) {
    m_stride[d] = stride;
    stride *= m_size[d];
    m_plus_port[d] = m_size[d] >= 2 ? next_port : invalid_id;
    m_minus_port[d] = m_size[d] >= 3 ? next_port + 1 : m_plus_port[d];
    next_port += m_size[d] >= 3 ? 2 : m_size[d] - 1;
  }
  m_num_groups = params.x * params.y * params.z;

  m_classes = {"terminal"};
  for (const char* name : torus_dim_names) m_classes.push_back(name);
  m_ports.assign(routers, std::vector<port_info>(next_port));
  m_terminals.resize(terminals);
  for (terminal_id t = 0; t < terminals; ++t) {
    const router_id r = t / params.terminals_per_node;
    const port_id port = t % params.terminals_per_node;
    m_terminals[t] = {r, port};
    m_ports[r][port] = {port_info::kind::terminal, terminal_class, t, invalid_id};
  }
  for (router_id r = 0; r < routers; ++r) {
    for (uint32_t d = 0; d < torus_num_dims; ++d) wire_dimension(r, d);
  }
}

// Router r's ports along `dim`; the peer's ports are wired when the loop reaches the peer.
void torus::wire_dimension(router_id r, uint32_t dim) {
  const uint32_t k = m_size[dim];
  if (k < 2) return;
  const uint32_t c = coord(r, dim);
  const router_id base = r - c * m_stride[dim];  // the node at coordinate 0 of this line
  const link_class cls = torus_class(dim);
  if (k == 2) {
    // One cable to the other node; ring and line coincide.
    m_ports[r][m_plus_port[dim]] = {port_info::kind::router, cls, base + (1 - c) * m_stride[dim],
                                    m_plus_port[dim]};
    return;
  }
  port_info& plus = m_ports[r][m_plus_port[dim]];
  port_info& minus = m_ports[r][m_minus_port[dim]];
  plus = {port_info::kind::unused, cls, invalid_id, invalid_id};
  minus = plus;
  const bool ring = !m_params.mesh[dim];
  if (c + 1 < k || ring) {
    plus = {port_info::kind::router, cls, base + (c + 1) % k * m_stride[dim], m_minus_port[dim]};
  }
  if (c > 0 || ring) {
    minus = {port_info::kind::router, cls, base + (c + k - 1) % k * m_stride[dim],
             m_plus_port[dim]};
  }
}

std::string torus::describe() const {
  std::string shape;
  for (uint32_t d = 0; d < torus_num_dims; ++d) {
    shape += (d == 0 ? "" : "x") + std::to_string(m_size[d]);
  }
  std::string mesh;
  for (uint32_t d = 0; d < torus_num_dims; ++d) {
    if (m_params.mesh[d]) mesh += (mesh.empty() ? "" : ",") + std::string(torus_dim_names[d]);
  }
  return "torus " + shape + " (x,y,z,a,b,c" + (mesh.empty() ? "" : "; mesh: " + mesh) + ") (" +
         std::to_string(num_routers()) + " routers, " + std::to_string(num_terminals()) +
         " terminals)";
}

torus_coords torus::coords(router_id r) const {
  torus_coords c{};
  for (uint32_t d = 0; d < torus_num_dims; ++d) c[d] = coord(r, d);
  return c;
}

router_id torus::router_at(const torus_coords& c) const {
  router_id r = 0;
  for (uint32_t d = 0; d < torus_num_dims; ++d) r += c[d] * m_stride[d];
  return r;
}

}  // namespace bcastsim::network
