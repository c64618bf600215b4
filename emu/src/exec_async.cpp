// Family::Async run (async.hpp): cp.async with its commit/wait groups, cp.async.bulk and
// cp.async.bulk.tensor (TMA) with mbarrier completion, the mbarrier object itself, fences.
//
// How they run, by design (PTX ISA: "cp.async", "cp.async.wait_group", "cp.async.bulk",
// "cp.async.bulk.tensor", "Tensors" (tiled mode, bounding box, traversal stride, out-of-bound
// fill, swizzle modes) and "mbarrier" (phase, pending arrival count, tx-count)):
// - cp.async reads its source at issue and writes shared memory at the wait_group / wait_all
//   that completes its group (a read before the wait sees the old bytes, as it may on a GPU);
//   recorded at issue as the tracer records LDGSTS (kKindCpAsync, each lane's source bank, none
//   for a zero-filling copy).
// - Bulk and tensor copies complete at issue: the bytes land, then complete_tx on the mbarrier
//   (a schedule a GPU may take: the copy done before anyone waits). TMA writes a box where the
//   bank model says (banklab::tma_box_offset, common/include/banklab/hardware.hpp, measured on an
//   H200 for every mode); recorded as the tracer records them (kKindTmaLoad with the box's bytes,
//   swizzle, element bytes and rank; kKindTmaStore counted; kKindBulkCopy / kKindBulkShared).
// - An mbarrier is the 8 bytes in shared memory, in the emulator's encoding (bit 63 the phase,
//   bit 62 initialised, bits 0-19 pending arrivals, 20-39 expected arrivals, 40-61 the signed
//   tx-count); a phase completes when pending arrivals and tx-count are both 0. A wait that finds
//   its phase not complete ends the warp's turn (Yield). What PTX leaves undefined (an operation
//   on an uninitialised barrier, more arrivals than pending, counts out of range) is a Fault.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "async.hpp"
#include "banklab/hardware.hpp"
#include "banklab_emu/tensor_map.hpp"
#include "banklab_trace/format.hpp"

namespace banklab::emu {

namespace {

constexpr std::uint32_t kWindow = trace::kSharedWindowReservedBytes;
constexpr std::int64_t kMaxCount = (1 << 20) - 1;  // arrival and tx counts: PTX's range

using Outcome = AsyncOutcome;
Outcome fault(int lane, const std::string& what) { return {Outcome::Kind::Fault, lane, what}; }
Outcome not_judged(const std::string& what) { return {Outcome::Kind::NotJudged, 0, what}; }
Outcome done() { return {}; }
bool failed(const Outcome& o) { return o.kind == Outcome::Kind::Fault || o.kind == Outcome::Kind::NotJudged; }

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

struct Mbar {
  bool initialised = false, phase = false;
  std::int64_t pending = 0, expected = 0, tx = 0;
};

Mbar unpack(std::uint64_t w) {
  Mbar m;
  m.phase = (w >> 63) & 1u;
  m.initialised = (w >> 62) & 1u;
  m.pending = static_cast<std::int64_t>(w & 0xfffffu);
  m.expected = static_cast<std::int64_t>((w >> 20) & 0xfffffu);
  const std::int64_t tx = static_cast<std::int64_t>((w >> 40) & 0x3fffffu);
  m.tx = tx >= (1 << 21) ? tx - (1 << 22) : tx;
  return m;
}

std::uint64_t pack(const Mbar& m) {
  return (std::uint64_t{m.phase} << 63) | (std::uint64_t{m.initialised} << 62) |
         (static_cast<std::uint64_t>(m.tx) & 0x3fffffu) << 40 | (static_cast<std::uint64_t>(m.expected) & 0xfffffu) << 20 |
         (static_cast<std::uint64_t>(m.pending) & 0xfffffu);
}

void settle(Mbar& m) {
  if (m.pending == 0 && m.tx == 0) {  // the phase completes; the next one expects the same arrivals
    m.phase = !m.phase;
    m.pending = m.expected;
  }
}

class Async {
 public:
  Async(AsyncBlock& b, std::vector<std::uint64_t>& r, int warp, const Inst& in, int pc, std::uint32_t exec)
      : b_(b), r_(r), warp_(warp), in_(in), pc_(pc), exec_(exec) {}

  Outcome run() {
    switch (in_.async) {
      case AsyncOp::Sleep: return Outcome{Outcome::Kind::Yield, 0, ""};  // no time passes: others take their turn
      case AsyncOp::Fence:
      case AsyncOp::BulkCommit:
      case AsyncOp::BulkWait: return done();  // bulk copies complete at issue
      case AsyncOp::CpAsync: return cp_async();
      case AsyncOp::CpAsyncCommit:
      case AsyncOp::CpAsyncWait:
      case AsyncOp::CpAsyncWaitAll: return groups();
      case AsyncOp::CpAsyncMbarrierArrive: return cp_async_arrive();
      case AsyncOp::Bulk: return bulk();
      case AsyncOp::BulkTensor: return tensor();
      case AsyncOp::None: break;
      default: return mbarrier();
    }
    return not_judged("this asynchronous instruction");
  }

 private:
  std::uint64_t& reg(int index, int lane) { return r_[static_cast<std::size_t>(index) * 32 + static_cast<std::size_t>(lane)]; }
  std::uint64_t value(const Operand& o, int lane) {
    if (o.kind == Operand::Kind::Imm) return static_cast<std::uint64_t>(o.imm);
    const std::uint64_t v = reg(o.reg, lane);
    return o.negate ? (v & 1u) ^ 1u : v;
  }
  std::uint64_t address(const Operand& o, int lane) {
    return (o.reg >= 0 ? reg(o.reg, lane) : 0) + static_cast<std::uint64_t>(o.imm);
  }
  // The shared window's bytes [addr, addr + bytes), or nullptr.
  unsigned char* shared(std::uint64_t addr, std::uint64_t bytes) {
    const std::uint64_t size = b_.shared.size();
    if (addr < kWindow || addr > size || bytes > size - addr) return nullptr;
    return b_.shared.data() + addr;
  }
  Outcome outside_shared(int lane, std::uint64_t addr, std::uint64_t bytes, const char* what) {
    return fault(lane, std::string(what) + " " + std::to_string(bytes) + " bytes at " + hex(addr) + ", outside the block's shared memory");
  }
  void record(std::uint8_t kind, std::uint8_t width, std::uint8_t flags, const trace::DeviceRecord& base,
              std::uint32_t mask = 0) {
    if (!b_.trace) return;
    trace::DeviceRecord rec = base;
    rec.pc = static_cast<std::uint64_t>(pc_) * 16;
    rec.mask = mask ? mask : exec_;
    rec.kind = kind;
    rec.width = width;
    rec.flags = flags;
    b_.trace->record(b_.kernel, pc_, rec);
  }
  AsyncState::Thread& thread(int lane) {
    b_.state.used = true;
    return b_.state.threads[static_cast<std::size_t>(warp_ * 32 + lane)];
  }

  // ---- the mbarrier object
  Outcome barrier(int lane, const Operand& o, std::uint64_t*& word, Mbar& m, bool must_be_initialised = true) {
    const std::uint64_t addr = address(o, lane);
    if (addr % 8 != 0) return fault(lane, "an mbarrier at " + hex(addr) + ", not 8-byte aligned");
    unsigned char* p = shared(addr, 8);
    if (!p) return outside_shared(lane, addr, 8, "an mbarrier of");
    word = reinterpret_cast<std::uint64_t*>(p);
    std::uint64_t w = 0;
    std::memcpy(&w, p, 8);
    m = unpack(w);
    if (must_be_initialised && !m.initialised)
      return fault(lane, "an mbarrier at " + hex(addr) + " that mbarrier.init did not initialise (PTX leaves it undefined)");
    return done();
  }
  static void store(std::uint64_t* word, const Mbar& m) {
    const std::uint64_t w = pack(m);
    std::memcpy(word, &w, 8);
  }
  Outcome complete_tx(int lane, const Operand& bar, std::int64_t bytes) {
    std::uint64_t* word = nullptr;
    Mbar m;
    if (Outcome o = barrier(lane, bar, word, m); failed(o)) return o;
    m.tx -= bytes;
    if (m.tx < -kMaxCount) return fault(lane, "an mbarrier's tx-count below -(2^20 - 1) (PTX leaves it undefined)");
    settle(m);
    store(word, m);
    return done();
  }

  Outcome mbarrier() {
    bool incomplete = false;
    for (std::uint32_t left = exec_; left; left &= left - 1) {
      const int lane = __builtin_ctz(left);
      std::uint64_t* word = nullptr;
      Mbar m;
      const AsyncOp op = in_.async;
      const Operand& bar = in_.ops[op == AsyncOp::MbarArrive || op == AsyncOp::MbarTestWait || op == AsyncOp::MbarTryWait ? 1 : 0];
      if (Outcome o = barrier(lane, bar, word, m, op != AsyncOp::MbarInit && op != AsyncOp::MbarInval); failed(o)) return o;
      const int at = op == AsyncOp::MbarArrive || op == AsyncOp::MbarTestWait || op == AsyncOp::MbarTryWait ? 2 : 1;
      const std::int64_t v = at < in_.nops ? static_cast<std::int64_t>(static_cast<std::uint32_t>(value(in_.ops[at], lane))) : 0;
      switch (op) {
        case AsyncOp::MbarInit:
          if (v < 1 || v > kMaxCount) return fault(lane, "mbarrier.init with a count of " + std::to_string(v) + " (1 to 2^20 - 1)");
          m = Mbar{true, false, v, v, 0};
          break;
        case AsyncOp::MbarInval: m = Mbar{}; break;
        case AsyncOp::MbarExpectTx:
        case AsyncOp::MbarCompleteTx:
          m.tx += op == AsyncOp::MbarExpectTx ? v : -v;
          if (m.tx > kMaxCount || m.tx < -kMaxCount) return fault(lane, "an mbarrier's tx-count outside +-(2^20 - 1) (PTX leaves it undefined)");
          settle(m);
          break;
        case AsyncOp::MbarArrive: {
          const bool expect = in_.async_flags & kAsyncExpectTx;
          const std::int64_t count = !expect && in_.nops == 3 ? v : 1, tx = expect ? v : 0;
          if (in_.ops[0].kind == Operand::Kind::Reg) std::memcpy(&reg(in_.ops[0].reg, lane), word, 8);  // the state before
          if (count < 1 || count > kMaxCount) return fault(lane, "mbarrier.arrive with a count of " + std::to_string(count));
          m.tx += tx;
          if (m.tx > kMaxCount) return fault(lane, "an mbarrier's tx-count above 2^20 - 1 (PTX leaves it undefined)");
          if (count > m.pending) return fault(lane, "more arrivals on an mbarrier than its phase has pending (PTX leaves it undefined)");
          m.pending -= count;
          if (in_.async_flags & kAsyncDrop) m.expected -= count;
          if ((in_.async_flags & kAsyncNoComplete) && m.pending == 0 && m.tx == 0)
            return fault(lane, "mbarrier.arrive.noComplete completing the phase (PTX leaves it undefined)");
          settle(m);
          break;
        }
        case AsyncOp::MbarTestWait:
        case AsyncOp::MbarTryWait: {
          // .parity: the phase of that parity has completed when the current one has the other
          // parity; a state from mbarrier.arrive: when the current phase is not the state's.
          const std::uint64_t s = value(in_.ops[2], lane);
          const bool waited = (in_.async_flags & kAsyncParity) ? (s & 1u) : (s >> 63) & 1u;
          const bool complete = m.phase != waited;
          reg(in_.ops[0].reg, lane) = complete ? 1u : 0u;
          incomplete = incomplete || !complete;
          continue;  // nothing written
        }
        default: return not_judged("this mbarrier operation");
      }
      store(word, m);
    }
    return incomplete ? Outcome{Outcome::Kind::Yield, 0, ""} : done();
  }

  // ---- cp.async (LDGSTS)
  Outcome cp_async() {
    const unsigned size = static_cast<unsigned>(in_.ops[2].imm);
    const bool hint = in_.async_flags & kAsyncCacheHint;
    const bool fourth = in_.nops - (hint ? 1 : 0) == 4;
    trace::DeviceRecord rec{};
    for (std::uint32_t left = exec_; left; left &= left - 1) {
      const int lane = __builtin_ctz(left);
      const std::uint64_t dst = address(in_.ops[0], lane), src = address(in_.ops[1], lane);
      std::uint64_t src_size = size;
      if (fourth) {
        const Operand& o = in_.ops[3];
        if (o.kind == Operand::Kind::Reg && o.predicate) src_size = (value(o, lane) & 1u) ? 0 : size;  // ignore-src
        else src_size = static_cast<std::uint32_t>(value(o, lane));  // src-size
      }
      if (src_size > size) return fault(lane, "cp.async with src-size " + std::to_string(src_size) + " above its cp-size " + std::to_string(size) + " (PTX leaves it undefined)");
      if (dst % size != 0 || src % size != 0)
        return fault(lane, "cp.async of " + std::to_string(size) + " bytes from " + hex(src) + " to " + hex(dst) + ", a misaligned address");
      unsigned char* to = shared(dst, size);
      if (!to) return outside_shared(lane, dst, size, "cp.async wrote");
      PendingCopy copy;
      copy.dst = static_cast<std::uint32_t>(dst);
      copy.size = static_cast<std::uint8_t>(size);
      if (src_size > 0) {
        const unsigned char* from = b_.device.at(src, src_size);
        if (!from) return fault(lane, "cp.async read " + std::to_string(src_size) + " bytes at " + hex(src) + ", outside every allocation of global memory");
        std::memcpy(copy.bytes, from, src_size);
      }
      thread(lane).open.push_back(copy);
      // The tracer's record: the shared offset, and the source bank above bit 24 (none when the
      // copy reads nothing: the callback gives no source for a zero-filling copy, measured).
      rec.offset[lane] = copy.dst | (src_size > 0 ? trace::kSourceKnownBit | static_cast<std::uint32_t>((src >> 2) & 31u) << trace::kSourceBankShift : 0u);
    }
    record(trace::kKindCpAsync, static_cast<std::uint8_t>(size), trace::kFlagSourceBanks, rec);
    return done();
  }

  void land(const std::vector<PendingCopy>& group) {
    for (const PendingCopy& c : group) std::memcpy(b_.shared.data() + c.dst, c.bytes, c.size);  // checked at issue
  }
  void flush(AsyncState::Thread& t) {
    for (const auto& g : t.committed) land(g);
    land(t.open);
    t.committed.clear();
    t.open.clear();
  }

  Outcome groups() {
    for (std::uint32_t left = exec_; left; left &= left - 1) {
      AsyncState::Thread& t = thread(__builtin_ctz(left));
      if (in_.async == AsyncOp::CpAsyncCommit) {
        t.committed.push_back(std::move(t.open));
        t.open.clear();
      } else if (in_.async == AsyncOp::CpAsyncWaitAll) {
        flush(t);
      } else {  // wait_group N: every group but the N most recent has landed
        const std::size_t keep = static_cast<std::size_t>(in_.ops[0].imm);
        std::size_t n = 0;
        for (; t.committed.size() - n > keep; ++n) land(t.committed[n]);
        t.committed.erase(t.committed.begin(), t.committed.begin() + static_cast<std::ptrdiff_t>(n));
      }
    }
    return done();
  }

  // cp.async.mbarrier.arrive{.noinc}: an arrive-on once the thread's copies so far have landed
  // (here: they land now); without .noinc the pending count is raised by one first (no net change).
  Outcome cp_async_arrive() {
    for (std::uint32_t left = exec_; left; left &= left - 1) {
      const int lane = __builtin_ctz(left);
      std::uint64_t* word = nullptr;
      Mbar m;
      if (Outcome o = barrier(lane, in_.ops[0], word, m); failed(o)) return o;
      flush(thread(lane));
      if (!(in_.async_flags & kAsyncNoInc)) continue;
      if (m.pending < 1) return fault(lane, "more arrivals on an mbarrier than its phase has pending (PTX leaves it undefined)");
      --m.pending;
      settle(m);
      store(word, m);
    }
    return done();
  }

  // ---- cp.async.bulk: global -> shared, shared -> shared (mbarrier), shared -> global (bulk group)
  // Its SASS (UBLKCP) takes uniform operands: ptxas runs it in a loop over the lanes' distinct
  // operands, one pass for the lanes that share them, and the tracer records each pass. Recorded
  // so: one record a distinct (destination, source, size), with its lanes (lanes copying each their
  // own 128 bytes: 32 records a warp instruction, as the H200 traced lab 07's cheat
  // tiles_read_back_from_global_memory_07, 3072 for its 96 warp instructions).
  Outcome bulk() {
    const bool to_global = in_.async_flags & kAsyncToGlobal, from_shared = in_.async_flags & kAsyncFromShared;
    trace::DeviceRecord rec{};
    std::vector<std::pair<std::array<std::uint64_t, 3>, std::uint32_t>> passes;  // operands, their lanes
    for (std::uint32_t left = exec_; left; left &= left - 1) {
      const int lane = __builtin_ctz(left);
      const std::uint64_t dst = address(in_.ops[0], lane), src = address(in_.ops[1], lane);
      const std::uint64_t size = static_cast<std::uint32_t>(value(in_.ops[2], lane));
      if (size % 16 != 0 || dst % 16 != 0 || src % 16 != 0)
        return fault(lane, "cp.async.bulk of " + std::to_string(size) + " bytes from " + hex(src) + " to " + hex(dst) +
                               " (addresses and size must be multiples of 16)");
      unsigned char* to = to_global ? b_.device.at(dst, size) : shared(dst, size);
      const unsigned char* from = to_global || from_shared ? shared(src, size) : b_.device.at(src, size);
      if (!to) return to_global ? fault(lane, "cp.async.bulk wrote " + std::to_string(size) + " bytes at " + hex(dst) + ", outside every allocation of global memory")
                                : outside_shared(lane, dst, size, "cp.async.bulk wrote");
      if (!from) return to_global || from_shared ? outside_shared(lane, src, size, "cp.async.bulk read")
                                                 : fault(lane, "cp.async.bulk read " + std::to_string(size) + " bytes at " + hex(src) + ", outside every allocation of global memory");
      if (!to_global) {
        std::uint64_t* word = nullptr;
        Mbar m;
        if (Outcome o = barrier(lane, in_.ops[3], word, m); failed(o)) return o;
      }
      std::memmove(to, from, size);
      if (!to_global)
        if (Outcome o = complete_tx(lane, in_.ops[3], static_cast<std::int64_t>(size)); failed(o)) return o;
      rec.offset[lane] = static_cast<std::uint32_t>(to_global ? src : dst);  // the tracer's: the shared side
      const std::array<std::uint64_t, 3> ops{dst, src, size};
      auto pass = std::find_if(passes.begin(), passes.end(), [&](const auto& p) { return p.first == ops; });
      if (pass == passes.end()) passes.push_back({ops, 1u << lane});
      else pass->second |= 1u << lane;
    }
    for (const auto& [ops, lanes] : passes) {
      trace::DeviceRecord one{};
      for (std::uint32_t m = lanes; m; m &= m - 1) one.offset[__builtin_ctz(m)] = rec.offset[__builtin_ctz(m)];
      record(from_shared ? trace::kKindBulkShared : trace::kKindBulkCopy, 0, 0, one, lanes);
    }
    return done();
  }

  // ---- cp.async.bulk.tensor (TMA), tiled mode
  Outcome tensor() {
    const bool store = in_.async_flags & kAsyncToGlobal;
    const Operand& t = in_.ops[store ? 0 : 1];
    trace::DeviceRecord rec{};
    bool first = true;
    for (std::uint32_t left = exec_; left; left &= left - 1) {
      const int lane = __builtin_ctz(left);
      const std::uint64_t at = reg(t.reg, lane);
      if (at % 64 != 0) return fault(lane, "a tensor map at " + hex(at) + ", not 64-byte aligned");
      // In global memory, or a __grid_constant__ param (its generic address, cvta.param).
      const bool param = at >= kGenericParamBase && at - kGenericParamBase <= b_.params.size() &&
                         sizeof(TensorMap) <= b_.params.size() - (at - kGenericParamBase);
      const unsigned char* bytes = param ? b_.params.data() + (at - kGenericParamBase) : b_.device.at(at, sizeof(TensorMap));
      if (!bytes) return fault(lane, "read a tensor map at " + hex(at) + ", outside every allocation of global memory and the params");
      TensorMap map;
      std::string why;
      if (!decode_tensor_map(bytes, map, &why)) return not_judged(why);
      if (map.rank != in_.async_dims)
        return not_judged("a ." + std::to_string(in_.async_dims) + "d copy through a tensor map of rank " + std::to_string(map.rank));
      if (map.interleave != tma::kInterleaveNone) return not_judged("an interleaved tensor map");
      if (map.swizzle > tma::kSwizzle128B) return not_judged("the swizzle mode " + std::to_string(map.swizzle) + " (128B_ATOM_*)");
      if (map.element_bytes == 0) return not_judged("a packed tensor data type");
      std::int64_t coord[5] = {};
      for (int d = 0; d < map.rank; ++d) coord[d] = static_cast<std::int32_t>(reg(t.regs[d], lane));
      const Operand& sh = in_.ops[store ? 1 : 0];
      if (Outcome o = box(lane, map, coord, address(sh, lane), store); failed(o)) return o;
      if (first) {  // the tracer's record: one per warp instruction, the first lane's box
        first = false;
        if (store) {
          record(trace::kKindTmaStore, 0, trace::kFlagTmaUnknownMap, rec);
        } else {
          std::uint64_t elements = 1;
          for (int d = 0; d < map.rank; ++d) elements *= (map.box_dim[d] + map.element_stride[d] - 1u) / map.element_stride[d];
          trace::DeviceRecord r{};
          r.offset[trace::kTmaBytes] = static_cast<std::uint32_t>(elements * map.element_bytes);
          r.offset[trace::kTmaSwizzle] = map.swizzle;
          r.offset[trace::kTmaElementBytes] = map.element_bytes;
          r.offset[trace::kTmaRank] = map.rank;
          record(trace::kKindTmaLoad, in_.async_dims, trace::kFlagTmaBytes, r);
        }
      }
    }
    return done();
  }

  // One box between global memory and the shared bytes at `base`: dim 0's box elements in a row
  // (TMA takes no stride along dim 0), ceil(box / element stride) along the others; rows one
  // after another, each where tma_box_offset() says; out-of-bound elements read as 0 and are
  // not written back.
  Outcome box(int lane, const TensorMap& map, const std::int64_t* coord, std::uint64_t base, bool store) {
    const TmaSwizzle mode = map.swizzle == 1 ? TmaSwizzle::Bytes32 : map.swizzle == 2 ? TmaSwizzle::Bytes64
                            : map.swizzle == 3 ? TmaSwizzle::Bytes128 : TmaSwizzle::None;
    const unsigned eb = map.element_bytes;
    std::uint64_t n[5] = {map.box_dim[0], 1, 1, 1, 1}, rows = 1;
    for (int d = 1; d < map.rank; ++d) {
      n[d] = (map.box_dim[d] + map.element_stride[d] - 1u) / map.element_stride[d];
      rows *= n[d];
    }
    const std::uint32_t row_bytes = static_cast<std::uint32_t>(n[0] * eb), pitch = tma_box_pitch(mode, row_bytes);
    if (base % 128 != 0) return fault(lane, "a tensor copy to shared memory at " + hex(base) + ", not 128-byte aligned");
    if (mode != TmaSwizzle::None && base % tma_swizzle_period(mode) != 0)
      return not_judged("a swizzled box at a shared address not aligned to its pattern's " + std::to_string(tma_swizzle_period(mode)) +
                        " bytes (where TMA puts it then is not measured)");
    unsigned char* tile = shared(base, rows * pitch);
    if (!tile) return outside_shared(lane, base, rows * pitch, store ? "a tensor store read" : "a tensor load wrote");
    const Operand& bar = in_.ops[2];
    if (!store) {
      std::uint64_t* word = nullptr;
      Mbar m;
      if (Outcome o = barrier(lane, bar, word, m); failed(o)) return o;
    }
    for (std::uint64_t row = 0; row < rows; ++row) {
      std::uint64_t rest = row, offset = 0;
      bool inside = true;
      for (int d = 1; d < map.rank; ++d) {
        const std::int64_t c = coord[d] + static_cast<std::int64_t>(rest % n[d]) * map.element_stride[d];
        rest /= n[d];
        std::uint64_t term = 0;
        if (c < 0 || static_cast<std::uint64_t>(c) >= map.global_dim[d]) inside = false;
        else if (__builtin_mul_overflow(static_cast<std::uint64_t>(c), map.global_stride[d - 1], &term) ||
                 __builtin_add_overflow(offset, term, &offset))
          return fault(lane, "a tensor copy's global address past 2^64");
      }
      for (std::uint64_t j = 0; j < n[0]; ++j) {
        unsigned char* s = tile + tma_box_offset(mode, row_bytes, static_cast<std::uint32_t>(row), static_cast<std::uint32_t>(j * eb));
        const std::int64_t c0 = coord[0] + static_cast<std::int64_t>(j);
        const bool in_bounds = inside && c0 >= 0 && static_cast<std::uint64_t>(c0) < map.global_dim[0];
        if (!in_bounds) {
          if (store) continue;
          if (map.oob_fill != tma::kOobFillNone) return not_judged("the NaN fill of out-of-bound elements");
          std::memset(s, 0, eb);
          continue;
        }
        std::uint64_t g = 0;
        if (__builtin_add_overflow(offset, static_cast<std::uint64_t>(c0) * eb, &g) || __builtin_add_overflow(g, map.global_address, &g))
          return fault(lane, "a tensor copy's global address past 2^64");
        unsigned char* p = b_.device.at(g, eb);
        if (!p)
          return fault(lane, std::string(store ? "a tensor store wrote " : "a tensor load read ") + std::to_string(eb) + " bytes at " + hex(g) +
                                 ", outside every allocation of global memory");
        if (store) std::memcpy(p, s, eb);
        else std::memcpy(s, p, eb);
      }
    }
    if (!store) return complete_tx(lane, bar, static_cast<std::int64_t>(rows * row_bytes));
    return done();
  }

  AsyncBlock& b_;
  std::vector<std::uint64_t>& r_;
  int warp_;
  const Inst& in_;
  int pc_;
  std::uint32_t exec_;
};

}  // namespace

AsyncOutcome exec_async(AsyncBlock& block, std::vector<std::uint64_t>& r, int warp, const Inst& in, int pc,
                        std::uint32_t exec) {
  return Async(block, r, warp, in, pc, exec).run();
}

}  // namespace banklab::emu
