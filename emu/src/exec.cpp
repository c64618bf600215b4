// The executor: blocks one after another, the warps of a block taking turns (each runs until a
// barrier, its end or a slice of instructions), each warp's 32 lanes in lockstep. Divergence: a
// SIMT stack per warp; a divergent branch runs the taken lanes, then the others, each up to the
// branch's immediate post-dominator (cfg.cpp), where they continue together.
#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "alu.hpp"
#include "async.hpp"
#include "exec_families.hpp"
#include "banklab_emu/emulator.hpp"
#include "banklab_trace/format.hpp"

namespace banklab::emu {

namespace {

constexpr std::uint64_t kGenericSharedBase = 0x600000000000ull;  // where cvta puts a block's shared window
constexpr std::uint64_t kGenericLocalBase = 0x500000000000ull;   // and a thread's local memory
constexpr std::uint32_t kWindow = banklab::trace::kSharedWindowReservedBytes;
constexpr int kSlice = 4096;  // warp instructions a warp runs before the next takes its turn

struct Entry {
  int pc, rpc;
  std::uint32_t mask;
};

struct Warp {
  int index = 0;
  std::uint32_t valid = 0;  // lanes that are threads of the block
  std::vector<std::uint64_t> r;  // register x 32 + lane
  std::vector<unsigned char> local;  // lane x Kernel::local_bytes: each thread's local memory
  std::vector<Entry> stack;
  std::uint32_t exited = 0;
  bool at_barrier = false, done = false;
  std::uint32_t reduced = 0;  // bar.red: the lanes whose register `reduced_into` gets the block's result
  int reduced_into = -1;
  SubOp reduce = SubOp::None;
};

class Runner {
 public:
  Runner(const Module& m, const Kernel& k, const LaunchConfig& c, const std::vector<unsigned char>& p, Device& d,
         EmuTrace* t)
      : mod_(m), k_(k), cfg_(c), params_(p), dev_(d), trace_(t) {}

  LaunchResult run() {
    const unsigned long long threads = cfg_.block.count();
    if (threads == 0 || threads > 1024 || cfg_.grid.count() == 0) {
      stop(LaunchResult::Status::Fault, "invalid launch configuration (" + std::to_string(threads) + " threads a block)");
      return res_;
    }
    if (params_.size() < k_.param_bytes) {
      stop(LaunchResult::Status::Fault, "the launch gives fewer param bytes than the kernel takes");
      return res_;
    }
    std::uint32_t dyn_end = k_.static_shared_bytes;
    for (const SharedVar& v : k_.shared)
      if (v.dynamic) dyn_end = std::max(dyn_end, v.offset + cfg_.dynamic_shared_bytes);
    shared_.assign(kWindow + dyn_end, 0);
    // .global/.const: the device's, kept across the launches of one loaded copy of the module
    const void* instance = cfg_.module_instance ? cfg_.module_instance : &mod_;
    for (std::size_t i = 0; i < mod_.variables.size(); ++i)
      var_base_.push_back(dev_.variable(instance, static_cast<int>(i), mod_.variables[i].size, mod_.variables[i].init));
    for (unsigned z = 0; z < cfg_.grid.z; ++z)
      for (unsigned y = 0; y < cfg_.grid.y; ++y)
        for (unsigned x = 0; x < cfg_.grid.x; ++x) {
          ctaid_ = {x, y, z};
          if (!run_block()) return res_;
        }
    return res_;
  }

 private:
  bool run_block() {
    red_any_ = red_count_ = 0;
    red_all_ = 1;
    std::fill(shared_.begin(), shared_.end(), 0);
    const unsigned threads = static_cast<unsigned>(cfg_.block.count());
    async_.reset(threads);
    const int nwarps = static_cast<int>((threads + 31) / 32);
    warps_.assign(static_cast<std::size_t>(nwarps), Warp{});
    for (int w = 0; w < nwarps; ++w) {
      Warp& wp = warps_[static_cast<std::size_t>(w)];
      wp.index = w;
      const unsigned left = threads - 32u * static_cast<unsigned>(w);
      wp.valid = left >= 32 ? 0xffffffffu : (1u << left) - 1u;
      wp.r.assign(static_cast<std::size_t>(k_.registers) * 32, 0);
      wp.local.assign(static_cast<std::size_t>(k_.local_bytes) * 32, 0);
      wp.stack.push_back({0, static_cast<int>(k_.code.size()), wp.valid});
    }
    for (;;) {
      bool all_done = true;
      for (Warp& w : warps_) {
        if (w.done || w.at_barrier) continue;
        if (!run_warp(w)) return false;
      }
      bool waiting = false;
      for (const Warp& w : warps_) {
        if (!w.done) all_done = false;
        if (w.at_barrier) waiting = true;
      }
      if (all_done) return true;
      bool all_waiting = true;
      for (const Warp& w : warps_) all_waiting = all_waiting && (w.done || w.at_barrier);
      if (waiting && all_waiting) {  // every live warp reached the barrier: bar.red's results, then on
        for (Warp& w : warps_) {
          w.at_barrier = false;
          const std::uint64_t v = w.reduce == SubOp::Or ? red_any_ : w.reduce == SubOp::And ? red_all_ : red_count_;
          for (std::uint32_t m = w.reduced; m; m &= m - 1)
            w.r[static_cast<std::size_t>(w.reduced_into) * 32 + static_cast<std::size_t>(__builtin_ctz(m))] = v;
          w.reduced = 0;
        }
        red_any_ = red_count_ = 0;
        red_all_ = 1;
      }
    }
  }

  std::string where(const Inst& in) const {
    std::ostringstream os;
    os << "PTX line " << in.ptx_line;
    if (in.line > 0) {
      auto f = mod_.files.find(in.file);
      std::string file = f == mod_.files.end() ? "?" : f->second;
      if (const std::size_t slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
      os << ", " << file << ":" << in.line;
    }
    return os.str();
  }

  bool stop(LaunchResult::Status s, const std::string& message, bool ret = false) {
    res_.status = s;
    res_.message = message;
    return ret;
  }

  bool not_judged(const Inst& in, const std::string& what) {
    return stop(LaunchResult::Status::NotJudged, "not judged (emulator: " + what + " at " + where(in) +
                                                     " is not emulated; `" + in.text + "`)");
  }

  bool fault(const Warp& w, int lane, const Inst& in, const std::string& what) {
    std::ostringstream os;
    os << "block (" << ctaid_.x << "," << ctaid_.y << "," << ctaid_.z << "), thread " << w.index * 32 + lane << ": "
       << what << " (" << where(in) << ": `" << in.text << "`)";
    return stop(LaunchResult::Status::Fault, os.str());
  }

  std::uint64_t special(const Warp& w, Special s, int lane) const {
    const unsigned t = static_cast<unsigned>(w.index * 32 + lane), bx = cfg_.block.x, by = cfg_.block.y;
    switch (s) {
      case Special::TidX: return t % bx;
      case Special::TidY: return (t / bx) % by;
      case Special::TidZ: return t / (bx * by);
      case Special::NtidX: return bx;
      case Special::NtidY: return by;
      case Special::NtidZ: return cfg_.block.z;
      case Special::CtaidX: return ctaid_.x;
      case Special::CtaidY: return ctaid_.y;
      case Special::CtaidZ: return ctaid_.z;
      case Special::NctaidX: return cfg_.grid.x;
      case Special::NctaidY: return cfg_.grid.y;
      case Special::NctaidZ: return cfg_.grid.z;
      case Special::LaneId: return static_cast<unsigned>(lane);
      case Special::WarpId: return static_cast<unsigned>(w.index);
      case Special::NwarpId: return warps_.size();
      case Special::LanemaskEq: return 1u << lane;
      case Special::LanemaskLt: return (1u << lane) - 1u;
      case Special::LanemaskLe: return lane == 31 ? 0xffffffffu : (2u << lane) - 1u;
      case Special::LanemaskGt: return lane == 31 ? 0u : ~((2u << lane) - 1u);
      case Special::LanemaskGe: return ~((1u << lane) - 1u);
      // No time passes on the emulator: a clock is the launch's warp instructions so far, so it
      // increases, and a kernel's difference of two readings counts its instructions, not cycles.
      case Special::Clock: return res_.warp_instructions & 0xffffffffu;
      case Special::Clock64: return res_.warp_instructions;
    }
    return 0;
  }

  std::uint64_t get(const Warp& w, const Operand& o, int lane) const {
    std::uint64_t v = 0;
    switch (o.kind) {
      case Operand::Kind::Reg: v = w.r[static_cast<std::size_t>(o.reg) * 32 + static_cast<std::size_t>(lane)]; break;
      case Operand::Kind::Imm: v = static_cast<std::uint64_t>(o.imm) + var_base(o); break;
      case Operand::Kind::Special: v = special(w, o.special, lane); break;
      default: break;
    }
    return o.negate ? (v & 1u) ^ 1u : v;
  }
  std::uint64_t var_base(const Operand& o) const { return o.var >= 0 ? var_base_[static_cast<std::size_t>(o.var)] : 0; }
  void set(Warp& w, int reg, int lane, std::uint64_t v) {
    if (reg >= 0) w.r[static_cast<std::size_t>(reg) * 32 + static_cast<std::size_t>(lane)] = v;
  }

  // One lane's bytes for an access of `width` at `addr` in `space`; nullptr after a fault.
  // `shared` says whether it is the block's shared memory through its own window (recorded).
  unsigned char* memory(Warp& w, const Inst& in, int lane, std::uint64_t addr, unsigned width, bool write,
                        bool& recorded_shared) {
    recorded_shared = false;
    const char* verb = write ? "wrote" : "read";
    auto bad = [&](const char* what) {
      std::ostringstream os;
      os << verb << " " << width << " bytes at 0x" << std::hex << addr << std::dec << ", " << what;
      fault(w, lane, in, os.str());
      return nullptr;
    };
    if (addr % width != 0) return bad("a misaligned address");
    Space space = in.space;
    if (space == Space::Generic && addr >= kGenericLocalBase && addr - kGenericLocalBase < k_.local_bytes) {
      space = Space::Local;
      addr -= kGenericLocalBase;
    }
    if (space == Space::Generic && addr >= kGenericSharedBase && addr < kGenericSharedBase + shared_.size()) {
      space = Space::Shared;
      addr -= kGenericSharedBase;  // a generic access to shared memory: done, not recorded (the tracer sees only LDS/STS)
    } else if (space == Space::Generic) {
      space = Space::Global;
    } else if (space == Space::Shared) {
      recorded_shared = true;
    }
    switch (space) {
      case Space::Shared:
        if (addr < kWindow || addr > shared_.size() || width > shared_.size() - addr) return bad("outside the block's shared memory");
        return shared_.data() + addr;
      case Space::Global:
        if (unsigned char* p = dev_.at(addr, width)) return p;
        return bad("outside every allocation of global memory");
      case Space::Const:  // the module's .const variables, in the device's memory
        if (write) return bad("into constant memory");
        if (unsigned char* p = dev_.at(addr, width)) return p;
        return bad("outside constant memory");
      case Space::Local:
        if (addr > k_.local_bytes || width > k_.local_bytes - addr) return bad("outside the thread's local memory");
        return w.local.data() + static_cast<std::size_t>(lane) * k_.local_bytes + addr;
      case Space::Param:
        if (write) return bad("into the kernel's params");
        if (addr > params_.size() || width > params_.size() - addr) return bad("outside the kernel's params");
        return const_cast<unsigned char*>(params_.data()) + addr;
      default: return bad("in a state space the emulator does not model");
    }
  }

  bool memory_op(Warp& w, const Inst& in, int pc, std::uint32_t exec) {
    const bool write = in.family == Family::St;
    const Operand& a = in.ops[write ? 0 : 1];
    const Operand& v = in.ops[write ? 1 : 0];
    const unsigned elem = static_cast<unsigned>(std::max(1, bits_of(in.type) / 8));
    const unsigned width = elem * static_cast<unsigned>(in.vec);
    if (bits_of(in.type) < 8) return not_judged(in, "a predicate load or store");
    trace::DeviceRecord rec{};
    bool any_shared = false;
    for (std::uint32_t m = exec; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      const std::uint64_t addr = (a.reg >= 0 ? w.r[static_cast<std::size_t>(a.reg) * 32 + static_cast<std::size_t>(lane)] : 0) +
                                 static_cast<std::uint64_t>(a.imm) + var_base(a);
      bool shared = false;
      unsigned char* p = memory(w, in, lane, addr, width, write, shared);
      if (!p) return false;
      if (shared) {
        any_shared = true;
        rec.offset[lane] = static_cast<std::uint32_t>(addr);
      }
      for (int e = 0; e < in.vec; ++e) {
        unsigned char* q = p + static_cast<unsigned>(e) * elem;
        if (write) {
          const std::uint64_t x = in.vec == 1 ? get(w, v, lane)
                                              : (v.regs[e] >= 0 ? w.r[static_cast<std::size_t>(v.regs[e]) * 32 + static_cast<std::size_t>(lane)] : 0);
          std::memcpy(q, &x, elem);  // little-endian: the low bytes
        } else {
          std::uint64_t x = 0;
          std::memcpy(&x, q, elem);
          if (is_signed(in.type) && elem < 8) {
            const std::uint64_t sign = 1ull << (8 * elem - 1);
            x = (x ^ sign) - sign;
          }
          set(w, in.vec == 1 ? v.reg : v.regs[e], lane, x);
        }
      }
    }
    if (any_shared && trace_) {
      rec.pc = static_cast<std::uint64_t>(pc) * 16;
      rec.mask = exec;
      rec.kind = trace::kKindAccess;
      rec.width = static_cast<std::uint8_t>(width);
      rec.flags = write ? trace::kFlagWrite : trace::kFlagRead;
      trace_->record(k_, pc, rec);
    }
    return true;
  }

  bool compute(Warp& w, const Inst& in, std::uint32_t exec) {
    if (in.family == Family::Mov && (in.ops[0].kind == Operand::Kind::Vector || in.ops[1].kind == Operand::Kind::Vector)) {
      const int half = in.type == Type::B64 ? 32 : 16;
      const std::uint64_t lo_mask = (1ull << half) - 1;
      for (std::uint32_t m = exec; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        if (in.ops[1].kind == Operand::Kind::Vector) {  // pack {lo, hi}
          const Operand& v = in.ops[1];
          auto part = [&](int i) { return v.regs[i] < 0 ? 0 : w.r[static_cast<std::size_t>(v.regs[i]) * 32 + static_cast<std::size_t>(lane)] & lo_mask; };
          set(w, in.ops[0].reg, lane, part(0) | part(1) << half);
        } else {  // unpack
          const std::uint64_t x = get(w, in.ops[1], lane);
          set(w, in.ops[0].regs[0], lane, x & lo_mask);
          set(w, in.ops[0].regs[1], lane, (x >> half) & lo_mask);
        }
      }
      return true;
    }
    if (in.family == Family::Cvta) {
      const bool shared = in.space == Space::Shared, local = in.space == Space::Local;
      const std::uint64_t cut = bits_of(in.type) == 32 ? 0xffffffffull : ~0ull;
      for (std::uint32_t m = exec; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        std::uint64_t x = get(w, in.ops[1], lane);
        if (shared) x = in.to ? x - kGenericSharedBase : x + kGenericSharedBase;
        if (local) x = in.to ? x - kGenericLocalBase : x + kGenericLocalBase;
        if (in.space == Space::Param) x = in.to ? x - kGenericParamBase : x + kGenericParamBase;  // async.hpp
        set(w, in.ops[0].reg, lane, x & cut);
      }
      return true;
    }
    const Operand* src[4] = {nullptr, nullptr, nullptr, nullptr};
    for (int i = 1; i < in.nops && i < 5; ++i) src[i - 1] = &in.ops[i];
    for (std::uint32_t m = exec; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      std::uint64_t x[4] = {0, 0, 0, 0};
      for (int i = 0; i < 4; ++i)
        if (src[i]) x[i] = get(w, *src[i], lane);
      std::uint64_t out = 0;
      if (!alu(in, x[0], x[1], x[2], x[3], out)) return not_judged(in, "this type or modifier of the instruction");
      set(w, in.ops[0].reg, lane, out);
    }
    return true;
  }

  // The warp-wide, matrix and atomic families (exec_warp.cpp, exec_mma.cpp, exec_atom.cpp), through
  // a view of this warp and the executor's own reads, memory, records and refusals.
  bool run_family(Warp& w, const Inst& in, int pc, std::uint32_t active, std::uint32_t exec) {
    WarpView v;
    v.r = w.r.data();
    v.var_base = var_base_.data();
    v.live = w.valid & ~w.exited;
    v.active = active;
    v.exec = exec;
    v.pc = pc;
    v.get = [&](const Operand& o, int lane) { return get(w, o, lane); };
    v.memory = [&](int lane, std::uint64_t addr, unsigned width, bool write, bool& shared) {
      return memory(w, in, lane, addr, width, write, shared);
    };
    v.record = [&](const trace::DeviceRecord& rec) {
      if (trace_) trace_->record(k_, pc, rec);
    };
    v.not_judged = [&](const std::string& what) { return not_judged(in, what); };
    switch (in.family) {
      case Family::Ldmatrix:
      case Family::Stmatrix:
      case Family::Mma: return exec_matrix(in, v);
      case Family::Atom:
      case Family::Red: return exec_atomic(in, v);
      default: return exec_warp(in, v);
    }
  }

  // Runs a warp until it waits at a barrier, ends, or has run its slice; false: the launch stops.
  bool run_warp(Warp& w) {
    const int n = static_cast<int>(k_.code.size());
    for (int slice = 0; slice < kSlice; ++slice) {
      while (!w.stack.empty() && ((w.stack.back().mask & ~w.exited) == 0 || w.stack.back().pc == w.stack.back().rpc))
        w.stack.pop_back();
      if (w.stack.empty()) {
        w.done = true;
        return true;
      }
      Entry& top = w.stack.back();
      const int pc = top.pc;
      if (pc >= n) {  // fell off the end: the lanes are done
        w.exited |= top.mask;
        continue;
      }
      const Inst& in = k_.code[static_cast<std::size_t>(pc)];
      const std::uint32_t active = top.mask & ~w.exited;
      std::uint32_t exec = active;
      if (in.guard >= 0) {
        std::uint32_t g = 0;
        for (std::uint32_t m = active; m; m &= m - 1) {
          const int lane = __builtin_ctz(m);
          if (((w.r[static_cast<std::size_t>(in.guard) * 32 + static_cast<std::size_t>(lane)] & 1u) != 0) != in.guard_negate) g |= 1u << lane;
        }
        exec = g;
      }
      if (++res_.warp_instructions > cfg_.max_warp_instructions)
        return stop(LaunchResult::Status::RanTooLong,
                    "ran more than " + std::to_string(cfg_.max_warp_instructions) + " warp instructions (last at " + where(in) + ")");
      res_.lane_instructions += static_cast<std::uint64_t>(__builtin_popcount(exec));
      top.pc = pc + 1;
      switch (in.family) {
        case Family::Unsupported: return not_judged(in, in.why);
        case Family::Bra: {
          const int target = static_cast<int>(in.ops[0].imm);
          const std::uint32_t taken = exec, rest = active & ~exec;
          if (rest == 0) {
            top.pc = target;
          } else if (taken != 0) {
            const int rpc = k_.reconverge[static_cast<std::size_t>(pc)];
            top.pc = rpc;  // where both sides continue together
            w.stack.push_back({pc + 1, rpc, rest});
            w.stack.push_back({target, rpc, taken});
          }
          break;
        }
        case Family::Ret:
        case Family::Exit: w.exited |= exec; break;
        case Family::BarSync:
          if (exec == 0) break;
          if (in.sub == SubOp::None && in.nops > 1) return not_judged(in, "a barrier with a thread count");
          if (in.sub != SubOp::None) {  // bar.red: this warp's lanes' predicates into the block's reduction
            for (std::uint32_t m = exec; m; m &= m - 1) {
              const bool p = (get(w, in.ops[2], __builtin_ctz(m)) & 1u) != 0;
              red_any_ |= p ? 1u : 0u;
              red_all_ &= p ? 1u : 0u;
              red_count_ += p ? 1u : 0u;
            }
            w.reduced = exec;
            w.reduced_into = in.ops[0].reg;
            w.reduce = in.sub;
          }
          w.at_barrier = true;
          return true;
        case Family::BarWarpSync: break;  // the warp runs in lockstep: nothing to wait for
        case Family::Ld:
        case Family::St:
          if (exec && !memory_op(w, in, pc, exec)) return false;
          break;
        case Family::Async: {  // cp.async, bulk and tensor copies, mbarrier, fence: exec_async.cpp
          if (!exec) break;
          AsyncBlock block{k_, shared_, dev_, params_, trace_, async_};
          const AsyncOutcome o = exec_async(block, w.r, w.index, in, pc, exec);
          if (o.kind == AsyncOutcome::Kind::Fault) return fault(w, o.lane, in, o.what);
          if (o.kind == AsyncOutcome::Kind::NotJudged) return not_judged(in, o.what);
          if (o.kind == AsyncOutcome::Kind::Yield) return true;  // a wait not complete yet: the others run
          break;
        }
        case Family::Shfl: case Family::Vote: case Family::Match: case Family::Activemask: case Family::Redux:
        case Family::Ldmatrix: case Family::Stmatrix: case Family::Mma: case Family::Atom: case Family::Red:
          if (exec && !run_family(w, in, pc, active, exec)) return false;
          break;
        default:
          if (exec && !compute(w, in, exec)) return false;
          break;
      }
    }
    return true;
  }

  const Module& mod_;
  const Kernel& k_;
  const LaunchConfig& cfg_;
  const std::vector<unsigned char>& params_;
  Device& dev_;
  EmuTrace* trace_;
  LaunchResult res_;
  Dim3 ctaid_;
  std::vector<unsigned char> shared_;
  std::vector<Warp> warps_;
  AsyncState async_;  // the block's pending cp.async groups
  std::vector<std::uint64_t> var_base_;  // Module::variables' addresses in the device
  std::uint64_t red_any_ = 0, red_all_ = 1, red_count_ = 0;  // bar.red over the block, until its barrier releases
};

}  // namespace

std::vector<unsigned char> pack_params(const Kernel& kernel, void* const* args) {
  std::vector<unsigned char> out(kernel.param_bytes, 0);
  for (std::size_t i = 0; i < kernel.params.size(); ++i)
    std::memcpy(out.data() + kernel.params[i].offset, args[i], kernel.params[i].size);
  return out;
}

LaunchResult launch(const Module& module, const Kernel& kernel, const LaunchConfig& config,
                    const std::vector<unsigned char>& params, Device& device, EmuTrace* trace) {
  if (trace) trace->set_files(module.files);
  return Runner(module, kernel, config, params, device, trace).run();
}

}  // namespace banklab::emu
