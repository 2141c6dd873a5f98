#include "algorithms/program.h"

#include <limits>
#include <stdexcept>

namespace bcastsim::algorithms {

namespace {

// One verified component of a collective: an algorithm's schedule over the communicator,
// whose offsets land at `shift` in the instance's buffer.
struct component {
  schedule sched;
  uint64_t shift = 0;
};

// A collective's components and buffer, built once and reused by every repetition.
struct built {
  const algorithm_info* algo = nullptr;
  std::vector<uint32_t> members;  // job ranks
  std::vector<component> parts;
  uint64_t buffer_bytes = 0;
  std::vector<byte_span> own;  // [member]
  std::vector<uint32_t> receives;  // [member]: receive ops
  uint64_t messages = 0;
};

// An algorithm's message names collective.algorithm; a list entry's key is its own.
std::string rekeyed(const std::string& what, const std::string& key) {
  const std::string plain = "collective.algorithm";
  if (key == "collective" || what.rfind(plain, 0) != 0) return what;
  return key + ".algorithm" + what.substr(plain.size());
}

std::vector<uint32_t> members_of(const collective_spec& spec, uint32_t job_ranks,
                                 const std::string& key) {
  if (spec.ranks.empty()) {
    std::vector<uint32_t> all(job_ranks);
    for (uint32_t r = 0; r < job_ranks; ++r) all[r] = r;
    return all;
  }
  for (uint32_t r : spec.ranks) {
    if (r >= job_ranks) {
      throw program_error(key + ".ranks", key + ".ranks names rank " + std::to_string(r) +
                                              ", not a rank of the job; allowed: 0 .. " +
                                              std::to_string(job_ranks - 1));
    }
  }
  return spec.ranks;
}

schedule make_part(const algorithm_info& algo, const network::topology& topo,
                   const network::placement& sub, uint32_t root, uint64_t bytes,
                   ragasa_relay relay, const std::string& key, uint64_t& messages) {
  collective_request req;
  req.relay = relay;
  req.topo = &topo;
  req.place = &sub;
  req.num_ranks = sub.num_ranks();
  req.root = root;
  req.bytes = bytes;
  schedule s;
  try {
    s = algo.make(req);
  } catch (const std::invalid_argument& e) {
    throw program_error(key + ".algorithm", rekeyed(e.what(), key));  // e.g. a power of two
  }
  const verify_result v = verify_schedule(s, algo.contract);
  if (!v.ok) {
    std::string msg = "algorithm '" + algo.name + "' produced an invalid schedule:";
    for (const std::string& e : v.errors) msg += "\n  " + e;
    throw std::logic_error(msg);
  }
  messages += v.messages;
  return s;
}

void check_ops(uint64_t ops, const std::string& key) {
  if (ops <= max_program_ops) return;
  throw program_error(key + ".repeat", key + ".repeat: the collectives up to " + key +
                                           " make more than " + std::to_string(max_program_ops) +
                                           " operations; allowed: fewer repetitions, ranks or "
                                           "roots");
}

built build(const collective_spec& spec, const network::topology& topo,
            const network::placement& place, ragasa_relay relay, const std::string& key) {
  built b;
  try {
    b.algo = &find_algorithm(spec.algorithm);
  } catch (const std::invalid_argument& e) {
    throw program_error(key + ".algorithm", rekeyed(e.what(), key));
  }
  b.members = members_of(spec, place.num_ranks(), key);
  const auto m = static_cast<uint32_t>(b.members.size());
  std::vector<network::terminal_id> terminals(m);
  for (uint32_t i = 0; i < m; ++i) terminals[i] = place.terminal_of(b.members[i]);
  const network::placement sub(topo, std::move(terminals));
  if (b.algo->kind == collective_kind::allgather) {
    component c;
    c.sched = make_part(*b.algo, topo, sub, 0, spec.bytes, relay, key, b.messages);
    b.buffer_bytes = c.sched.bytes;
    b.own = c.sched.own;
    b.parts.push_back(std::move(c));
  } else if (spec.all_roots) {
    // Every member broadcasts its block: one broadcast per root, block r at r * bytes.
    b.buffer_bytes = spec.bytes * m;
    for (uint32_t r = 0; r < m; ++r) {
      component c;
      c.sched = make_part(*b.algo, topo, sub, r, spec.bytes, relay, key, b.messages);
      // Refused before the other roots' schedules are built, not after.
      if (r == 0) check_ops(c.sched.total_ops() * m * spec.repeat, key);
      c.shift = spec.bytes * r;
      b.own.push_back(byte_span{c.shift, c.shift + spec.bytes});
      b.parts.push_back(std::move(c));
    }
  } else {
    if (spec.root >= m) {
      const char* of =
          spec.ranks.empty() ? " is not a rank of the job" : " is not a rank of the communicator";
      throw program_error(key + ".root", key + ".root = " + std::to_string(spec.root) + of +
                                             "; allowed: 0 .. " + std::to_string(m - 1));
    }
    component c;
    c.sched = make_part(*b.algo, topo, sub, spec.root, spec.bytes, relay, key, b.messages);
    b.buffer_bytes = spec.bytes;
    for (uint32_t r = 0; r < m; ++r) b.own.push_back(c.sched.held_before(r));
    b.parts.push_back(std::move(c));
  }
  b.receives.assign(m, 0);
  for (const component& c : b.parts) {
    for (uint32_t j = 0; j < m; ++j) {
      for (const op& o : c.sched.ranks[j].ops) {
        if (o.kind == op_kind::recv) ++b.receives[j];
      }
    }
  }
  return b;
}

// Composes the instances into the job's rank programs (see program.h).
class composer {
 public:
  composer(program& p, uint32_t job_ranks) : m_p(p), m_done(job_ranks, -1) {}

  // Appends instance `inst` of collective `b`; `entry_deps(rank)`: what the rank's entry
  // waits for; returns nothing, records each member's `done` op.
  void add(const built& b, const collective_spec& spec, uint32_t repetition,
           const std::vector<int64_t>& wait_for) {
    for (size_t j = 0; j < b.members.size(); ++j) {
      const uint32_t rank = b.members[j];
      rank_program& prog = m_p.sched.ranks[rank];
      std::vector<uint32_t> entry;
      if (wait_for[rank] >= 0) entry.push_back(static_cast<uint32_t>(wait_for[rank]));
      if (repetition == 0 && spec.start_ns > 0) {
        entry.push_back(prog.add(make_wait_until(spec.start_ns), entry));
        entry = {entry.back()};
      }
      if (entry.size() > 1) entry = {prog.add(make_join(), entry)};
      std::vector<uint32_t> sinks;
      uint32_t context = m_context;
      for (const component& c : b.parts)
        append(prog, c, static_cast<uint32_t>(j), b.members, context++, entry, sinks);
      if (spec.compute_ns > 0 && spec.mode == host_mode::overlap) {
        sinks.push_back(prog.add(make_compute(spec.compute_ns), entry));
      }
      int64_t done = -1;
      if (sinks.size() == 1) done = sinks.front();
      if (sinks.size() > 1) done = prog.add(make_join(), sinks);
      if (spec.compute_ns > 0 && spec.mode == host_mode::blocking) {
        std::vector<uint32_t> d;
        if (done >= 0) d.push_back(static_cast<uint32_t>(done));
        done = prog.add(make_compute(spec.compute_ns), d);
      }
      m_done[rank] = done;
    }
    m_context += static_cast<uint32_t>(b.parts.size());
  }

  uint32_t next_context() const { return m_context; }
  int64_t done(uint32_t rank) const { return m_done[rank]; }

 private:
  // Rank j's ops of component c, with job ranks, its context, its buffer shift, and its
  // first ops waiting for `entry`; its ops nothing depends on go to `sinks`.
  static void append(rank_program& prog, const component& c, uint32_t j,
                     const std::vector<uint32_t>& members, uint32_t context,
                     const std::vector<uint32_t>& entry, std::vector<uint32_t>& sinks) {
    const std::vector<op>& ops = c.sched.ranks[j].ops;
    const auto base = static_cast<uint32_t>(prog.ops.size());
    std::vector<bool> depended(ops.size(), false);
    for (const op& o : ops) {
      op n = o;
      n.context = context;
      if (n.kind == op_kind::send || n.kind == op_kind::recv || n.kind == op_kind::offload_bcast)
        n.peer = members[o.peer];
      if (n.kind == op_kind::send || n.kind == op_kind::recv || n.kind == op_kind::offload_bcast)
        n.offset += c.shift;
      for (uint32_t& d : n.deps) {
        depended[d] = true;
        d += base;
      }
      if (o.deps.empty()) n.deps = entry;
      prog.ops.push_back(std::move(n));
    }
    for (uint32_t i = 0; i < ops.size(); ++i) {
      if (!depended[i]) sinks.push_back(base + i);
    }
  }

  program& m_p;
  uint32_t m_context = 0;
  std::vector<int64_t> m_done;  // [rank]: the op ending its part of the last instance added
};

}  // namespace

program make_program(const std::vector<collective_spec>& specs, const network::topology& topo,
                     const network::placement& place,
                     const std::vector<std::string>& key_prefixes, ragasa_relay relay) {
  program p;
  const uint32_t n = place.num_ranks();
  p.sched = schedule(n);
  composer comp(p, n);
  // [spec]: each rank's op ending its part of the spec's last repetition (-1: none).
  std::vector<std::vector<int64_t>> done_of(specs.size());
  uint64_t total_ops = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const collective_spec& spec = specs[i];
    const std::string& key = key_prefixes[i];
    const built b = build(spec, topo, place, relay, key);
    for (const component& c : b.parts) total_ops += c.sched.total_ops() * spec.repeat;
    // One component once is the schedule a run always had (sized by the job, as the memory
    // estimate counts it); the cap bounds what repetitions, roots and lists multiply.
    if (specs.size() > 1 || spec.repeat > 1 || b.parts.size() > 1) check_ops(total_ops, key);
    std::vector<int64_t> wait_for(n, -1);
    if (spec.after >= 0) wait_for = done_of[static_cast<size_t>(spec.after)];
    for (uint32_t k = 0; k < spec.repeat; ++k) {
      instance_info inst;
      inst.collective = static_cast<uint32_t>(i);
      inst.repetition = k;
      inst.algorithm = b.algo;
      inst.ranks = b.members;
      inst.all_roots = spec.all_roots || b.algo->kind == collective_kind::allgather;
      inst.root =
          b.members.empty() ? 0 : b.members[std::min<size_t>(spec.root, b.members.size() - 1)];
      inst.buffer_bytes = b.buffer_bytes;
      inst.own = b.own;
      inst.receives = b.receives;
      inst.contract = b.algo->contract;
      inst.messages = b.messages;
      inst.first_context = comp.next_context();
      inst.contexts = static_cast<uint32_t>(b.parts.size());
      for (uint32_t c = 0; c < inst.contexts; ++c)
        p.context_instance.push_back(static_cast<uint32_t>(p.instances.size()));
      comp.add(b, spec, k, wait_for);
      for (uint32_t rank : b.members) wait_for[rank] = comp.done(rank);
      p.messages += b.messages;
      p.instances.push_back(std::move(inst));
    }
    done_of[i] = wait_for;
  }
  p.memberships.assign(n, {});
  for (uint32_t i = 0; i < p.instances.size(); ++i) {
    const std::vector<uint32_t>& ranks = p.instances[i].ranks;
    for (uint32_t m = 0; m < ranks.size(); ++m) p.memberships[ranks[m]].emplace_back(i, m);
  }
  if (!p.instances.empty()) {
    p.sched.root = p.instances.front().root;
    p.sched.bytes = p.instances.front().buffer_bytes;
  }
  return p;
}

}  // namespace bcastsim::algorithms
