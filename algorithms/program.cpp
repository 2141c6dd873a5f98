#include "algorithms/program.h"

#include <algorithm>
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
  std::vector<byte_span> own;            // [member]
  std::vector<uint32_t> receives;        // [member]: receive ops (and hardware deliveries)
  std::vector<uint32_t> setup_receives;  // [member]: of them, set-up ones (first repetition)
  uint64_t setup_messages = 0;           // matched set-up sends (first repetition only)
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
                   const network::placement& sub, uint32_t root, uint64_t bytes, ragasa_relay relay,
                   const tofu2_options& tofu2, const std::string& key, uint64_t& messages) {
  collective_request req;
  req.relay = relay;
  req.tofu2 = tofu2;
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
            const network::placement& place, ragasa_relay relay, const tofu2_options& tofu2,
            const std::string& key) {
  built b;
  try {
    b.algo = &find_algorithm(spec.algorithm);
  } catch (const std::invalid_argument& e) {
    throw program_error(key + ".algorithm", rekeyed(e.what(), key));
  }
  // Tofu2's persistent broadcast (Morie et al.) has one root: MPI_Bcast_init binds a plan,
  // its queues on every TNI and the root's readiness reports to that root. Every rank a root
  // would take a persistent request and a queue per TNI for each of the n roots, a use the
  // paper neither describes nor measures; the hosts can run it (tofu2.mode = host).
  if (spec.all_roots && b.algo->kind == collective_kind::broadcast && b.algo->offload == "tofu2" &&
      tofu2.offload) {
    throw program_error(key + ".roots",
                        key + ".roots = all with " + b.algo->name +
                            " and tofu2.mode = offload: the persistent broadcast has one root; "
                            "allowed: " +
                            key + ".roots = one, or tofu2.mode = host");
  }
  b.members = members_of(spec, place.num_ranks(), key);
  const auto m = static_cast<uint32_t>(b.members.size());
  std::vector<network::terminal_id> terminals(m);
  for (uint32_t i = 0; i < m; ++i) terminals[i] = place.terminal_of(b.members[i]);
  const network::placement sub(topo, std::move(terminals));
  // The root of a broadcast with one root, or of an allgather whose root matters.
  const bool rooted =
      b.algo->kind == collective_kind::allgather ? b.algo->allgather_has_root : !spec.all_roots;
  if (rooted && spec.root >= m) {
    const char* of =
        spec.ranks.empty() ? " is not a rank of the job" : " is not a rank of the communicator";
    throw program_error(key + ".root", key + ".root = " + std::to_string(spec.root) + of +
                                           "; allowed: 0 .. " + std::to_string(m - 1));
  }
  if (b.algo->kind == collective_kind::allgather) {
    component c;
    c.sched = make_part(*b.algo, topo, sub, 0, spec.bytes, relay, tofu2, key, b.messages);
    b.buffer_bytes = c.sched.bytes;
    b.own = c.sched.own;
    b.parts.push_back(std::move(c));
  } else if (spec.all_roots) {
    // Every member broadcasts its block: one broadcast per root, block r at r * bytes.
    b.buffer_bytes = spec.bytes * m;
    for (uint32_t r = 0; r < m; ++r) {
      component c;
      c.sched = make_part(*b.algo, topo, sub, r, spec.bytes, relay, tofu2, key, b.messages);
      // Refused before the other roots' schedules are built, not after.
      if (r == 0) check_ops(c.sched.total_ops() * m * spec.repeat, key);
      c.shift = spec.bytes * r;
      b.own.push_back(byte_span{c.shift, c.shift + spec.bytes});
      b.parts.push_back(std::move(c));
    }
  } else {
    component c;
    c.sched = make_part(*b.algo, topo, sub, spec.root, spec.bytes, relay, tofu2, key, b.messages);
    b.buffer_bytes = spec.bytes;
    for (uint32_t r = 0; r < m; ++r) b.own.push_back(c.sched.held_before(r));
    b.parts.push_back(std::move(c));
  }
  b.receives.assign(m, 0);
  b.setup_receives.assign(m, 0);
  for (const component& c : b.parts) {
    for (uint32_t j = 0; j < m; ++j) {
      for (const op& o : c.sched.ranks[j].ops) {
        if (o.kind == op_kind::recv) ++b.receives[j];
        if (o.kind == op_kind::recv && o.setup) ++b.setup_receives[j];
        if (o.kind == op_kind::send && o.setup) ++b.setup_messages;
      }
      if (!c.sched.hardware_receives.empty()) b.receives[j] += c.sched.hardware_receives[j];
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
      const auto first_op = static_cast<uint32_t>(prog.ops.size());
      for (const component& c : b.parts) {
        append(prog, c, static_cast<uint32_t>(j), b.members, context++, entry, sinks, repetition,
               spec.repeat);
      }
      if (spec.compute_ns > 0 && spec.mode == host_mode::overlap) {
        // A persistent collective computes between MPI_Start and MPI_Wait, not during its
        // MPI_*_init: the computation waits for the start call.
        std::vector<uint32_t> from = entry;
        for (uint32_t k = first_op; k < prog.ops.size(); ++k) {
          if (prog.ops[k].kind == op_kind::offload_start) from = {k};
        }
        sinks.push_back(prog.add(make_compute(spec.compute_ns), from));
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
  // A persistent collective is initialised once and freed once: offload_init belongs to the
  // first repetition, offload_free to the last.
  static bool kept(const op& o, uint32_t repetition, uint32_t repetitions) {
    if (o.kind == op_kind::offload_init || o.setup) return repetition == 0;
    if (o.kind == op_kind::offload_free) return repetition + 1 == repetitions;
    return true;
  }

  // Rank j's ops of component c, with job ranks, its context, its buffer shift, and its
  // first ops waiting for `entry`; its ops nothing depends on go to `sinks`. An op this
  // repetition leaves out (kept()) passes its own dependencies on to its dependents.
  static void append(rank_program& prog, const component& c, uint32_t j,
                     const std::vector<uint32_t>& members, uint32_t context,
                     const std::vector<uint32_t>& entry, std::vector<uint32_t>& sinks,
                     uint32_t repetition, uint32_t repetitions) {
    constexpr uint32_t left_out = UINT32_MAX;
    const std::vector<op>& ops = c.sched.ranks[j].ops;
    std::vector<uint32_t> at(ops.size(), left_out);  // [op]: its index in the rank's program
    // The left-out ops (at most an init and a free) and what stands in for each.
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> out;
    const auto add_stand_ins = [&](uint32_t d, std::vector<uint32_t>& to) {
      if (at[d] != left_out) {
        to.push_back(at[d]);
        return;
      }
      for (const auto& [k, v] : out) {
        if (k != d) continue;
        for (const uint32_t x : v) {
          if (std::find(to.begin(), to.end(), x) == to.end()) to.push_back(x);
        }
      }
    };
    std::vector<bool> depended(ops.size(), false);
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const op& o = ops[i];
      std::vector<uint32_t> deps;
      for (const uint32_t d : o.deps) {
        depended[d] = true;
        add_stand_ins(d, deps);
      }
      if (o.deps.empty()) deps = entry;
      if (!kept(o, repetition, repetitions)) {
        out.emplace_back(i, std::move(deps));
        continue;
      }
      op n = o;
      n.context = context;
      if (n.kind == op_kind::send || n.kind == op_kind::recv || n.kind == op_kind::offload_bcast ||
          is_offload_call(n.kind))
        n.peer = members[o.peer];
      if (n.kind == op_kind::send || n.kind == op_kind::recv || n.kind == op_kind::offload_bcast)
        n.offset += c.shift;
      n.deps = std::move(deps);
      at[i] = static_cast<uint32_t>(prog.ops.size());
      prog.ops.push_back(std::move(n));
    }
    for (uint32_t i = 0; i < ops.size(); ++i) {
      if (depended[i]) continue;
      if (at[i] != left_out) {
        sinks.push_back(at[i]);
        continue;
      }
      // Nothing waits for a left-out op: what it waited for ends the component (not what the
      // component's entry is, which belongs to what came before).
      std::vector<uint32_t> ends;
      add_stand_ins(i, ends);
      for (const uint32_t x : ends) {
        if (std::find(entry.begin(), entry.end(), x) == entry.end() &&
            std::find(sinks.begin(), sinks.end(), x) == sinks.end())
          sinks.push_back(x);
      }
    }
  }

  program& m_p;
  uint32_t m_context = 0;
  std::vector<int64_t> m_done;  // [rank]: the op ending its part of the last instance added
};

}  // namespace

program make_program(const std::vector<collective_spec>& specs, const network::topology& topo,
                     const network::placement& place, const std::vector<std::string>& key_prefixes,
                     ragasa_relay relay, const tofu2_options& tofu2) {
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
    const built b = build(spec, topo, place, relay, tofu2, key);
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
      if (k > 0) {  // the set-up messages came with the first repetition
        for (size_t j = 0; j < inst.receives.size(); ++j) inst.receives[j] -= b.setup_receives[j];
      }
      inst.contract = b.algo->contract;
      inst.messages = k > 0 ? b.messages - b.setup_messages : b.messages;
      inst.first_context = comp.next_context();
      inst.contexts = static_cast<uint32_t>(b.parts.size());
      for (uint32_t c = 0; c < inst.contexts; ++c)
        p.context_instance.push_back(static_cast<uint32_t>(p.instances.size()));
      comp.add(b, spec, k, wait_for);
      for (uint32_t rank : b.members) wait_for[rank] = comp.done(rank);
      p.messages += inst.messages;
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
