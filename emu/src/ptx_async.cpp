// The grammar of Family::Async as data: cp.async and its groups, cp.async.bulk{.tensor} and their
// bulk groups, mbarrier, fence and membar (PTX ISA: "Data Movement and Conversion Instructions"
// cp.async, cp.async.commit_group, cp.async.wait_group, cp.async.mbarrier.arrive, cp.async.bulk,
// cp.async.bulk.tensor, cp.async.bulk.commit_group/wait_group; "Parallel Synchronization and
// Communication Instructions" mbarrier, membar/fence). A form the emulator does not run (multicast,
// im2col, a reduction) is kept Unsupported with its reason.
#include <cstring>
#include <string>
#include <vector>

#include "async.hpp"
#include "ptx_lex.hpp"

namespace banklab::emu {

namespace {

bool one_of(const std::string& s, std::initializer_list<const char*> list) {
  for (const char* x : list)
    if (s == x) return true;
  return false;
}

// Memory-order and scope suffixes: nothing to order on the emulator (its warps take turns and see
// every store of the warps before them).
bool ordering(const std::string& p) {
  return one_of(p, {"sc", "acq_rel", "release", "acquire", "relaxed", "cta", "cluster", "gpu", "sys"});
}

struct Reader {
  Inst& inst;
  std::string mnemonic;
  bool fail(const std::string& why) {
    inst.family = Family::Unsupported;
    inst.async = AsyncOp::None;
    if (inst.why.empty()) inst.why = why;
    return true;
  }
  bool suffix(const std::string& p) { return fail("the suffix ." + p + " of `" + mnemonic + "`"); }
};

// cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::64B|128B|256B}
bool read_cp_async(Reader& rd, const std::vector<std::string>& parts) {
  Inst& in = rd.inst;
  in.async = AsyncOp::CpAsync;
  int level = 0, dst = 0, src = 0;
  for (std::size_t i = 2; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p == "ca" || p == "cg") { ++level; if (p == "cg") in.async_flags |= kAsyncCg; }
    else if ((p == "shared" || p == "shared::cta") && dst == 0 && src == 0) ++dst;
    else if (p == "global" && dst == 1) ++src;
    else if (p == "L2::cache_hint") in.async_flags |= kAsyncCacheHint;
    else if (one_of(p, {"L2::64B", "L2::128B", "L2::256B"})) continue;  // a prefetch size: changes no byte
    else return rd.suffix(p);
  }
  if (level != 1 || dst != 1 || src != 1) return rd.fail("`" + rd.mnemonic + "` (cp.async.ca/cg.shared.global only)");
  return true;
}

// cp.async.bulk{.tensor.Nd}.<dst>.<src>{.tile}.<completion>{.L2::cache_hint}, and the bulk groups.
bool read_bulk(Reader& rd, const std::vector<std::string>& parts) {
  Inst& in = rd.inst;
  std::size_t i = 3;
  if (parts.size() == 3) return rd.fail("`" + rd.mnemonic + "`");
  if (parts[3] == "commit_group" && parts.size() == 4) { in.async = AsyncOp::BulkCommit; return true; }
  if (parts[3] == "wait_group") {
    in.async = AsyncOp::BulkWait;
    for (std::size_t j = 4; j < parts.size(); ++j)
      if (parts[j] != "read") return rd.suffix(parts[j]);
    return true;
  }
  in.async = AsyncOp::Bulk;
  if (parts[3] == "tensor") {
    in.async = AsyncOp::BulkTensor;
    if (parts.size() < 5 || parts[4].size() != 2 || parts[4][1] != 'd' || parts[4][0] < '1' || parts[4][0] > '5')
      return rd.fail("`" + rd.mnemonic + "` (a tensor copy names its dimensions, .1d to .5d)");
    in.async_dims = static_cast<std::uint8_t>(parts[4][0] - '0');
    i = 5;
  }
  std::vector<std::string> spaces;
  for (; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (one_of(p, {"shared::cluster", "shared::cta", "global"})) spaces.push_back(p);
    else if (p == "mbarrier::complete_tx::bytes") in.async_flags |= kAsyncMbarrier;
    else if (p == "bulk_group") in.async_flags |= kAsyncBulkGroup;
    else if (p == "L2::cache_hint") in.async_flags |= kAsyncCacheHint;
    else if (p == "tile" && in.async == AsyncOp::BulkTensor) continue;  // the default load mode
    else if (p.rfind("multicast", 0) == 0) return rd.fail("`" + rd.mnemonic + "` (multicast: clusters are not emulated)");
    else if (p.rfind("im2col", 0) == 0 || p.rfind("tile::", 0) == 0) return rd.fail("the load mode ." + p + " of `" + rd.mnemonic + "`");
    else return rd.suffix(p);
  }
  const bool mbar = in.async_flags & kAsyncMbarrier, group = in.async_flags & kAsyncBulkGroup;
  if (spaces.size() != 2 || mbar == group) return rd.fail("`" + rd.mnemonic + "` (a destination, a source and one completion)");
  const bool to_shared = spaces[0] != "global" && spaces[1] == "global" && mbar;
  const bool shared_to_shared = in.async == AsyncOp::Bulk && spaces[0] == "shared::cluster" && spaces[1] == "shared::cta" && mbar;
  const bool to_global = spaces[0] == "global" && spaces[1] == "shared::cta" && group;
  if (shared_to_shared) in.async_flags |= kAsyncFromShared;
  if (to_global) in.async_flags |= kAsyncToGlobal;
  if (!to_shared && !shared_to_shared && !to_global) return rd.fail("`" + rd.mnemonic + "` (these state spaces)");
  return true;
}

bool read_cp(Reader& rd, const std::vector<std::string>& parts) {
  Inst& in = rd.inst;
  if (parts.size() < 3 || parts[1] != "async") return rd.fail("the instruction `" + rd.mnemonic + "`");
  in.family = Family::Async;
  in.space = Space::Shared;  // the operands named by a shared variable are shared addresses
  const std::string& what = parts[2];
  if (what == "commit_group" && parts.size() == 3) { in.async = AsyncOp::CpAsyncCommit; return true; }
  if (what == "wait_group" && parts.size() == 3) { in.async = AsyncOp::CpAsyncWait; return true; }
  if (what == "wait_all" && parts.size() == 3) { in.async = AsyncOp::CpAsyncWaitAll; return true; }
  if (what == "mbarrier") {
    in.async = AsyncOp::CpAsyncMbarrierArrive;
    if (parts.size() < 4 || parts[3] != "arrive") return rd.fail("`" + rd.mnemonic + "`");
    for (std::size_t i = 4; i < parts.size(); ++i) {
      if (parts[i] == "noinc") in.async_flags |= kAsyncNoInc;
      else if (!one_of(parts[i], {"shared", "shared::cta", "b64"})) return rd.suffix(parts[i]);
    }
    return true;
  }
  if (what == "bulk") return read_bulk(rd, parts);
  return read_cp_async(rd, parts);
}

struct MbarOp { const char* name; AsyncOp op; std::uint16_t flags; };
constexpr MbarOp kMbarOps[] = {
    {"init", AsyncOp::MbarInit, 0},          {"inval", AsyncOp::MbarInval, 0},
    {"arrive", AsyncOp::MbarArrive, 0},      {"arrive_drop", AsyncOp::MbarArrive, kAsyncDrop},
    {"expect_tx", AsyncOp::MbarExpectTx, 0}, {"complete_tx", AsyncOp::MbarCompleteTx, 0},
    {"test_wait", AsyncOp::MbarTestWait, 0}, {"try_wait", AsyncOp::MbarTryWait, 0},
};

bool read_mbarrier(Reader& rd, const std::vector<std::string>& parts) {
  Inst& in = rd.inst;
  in.family = Family::Async;
  in.space = Space::Shared;
  if (parts.size() < 2) return rd.fail("`" + rd.mnemonic + "`");
  for (const MbarOp& m : kMbarOps)
    if (parts[1] == m.name) {
      in.async = m.op;
      in.async_flags = m.flags;
    }
  if (in.async == AsyncOp::None) return rd.fail("`" + rd.mnemonic + "` (the operation ." + parts[1] + ")");
  bool b64 = false;
  for (std::size_t i = 2; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    const bool arrive = in.async == AsyncOp::MbarArrive, wait = in.async == AsyncOp::MbarTestWait || in.async == AsyncOp::MbarTryWait;
    if (p == "b64") b64 = true;
    else if (p == "shared" || p == "shared::cta" || p == "shared::cluster") continue;  // a block's own barrier either way
    else if (ordering(p)) continue;
    else if (p == "parity" && wait) in.async_flags |= kAsyncParity;
    else if (p == "expect_tx" && arrive) in.async_flags |= kAsyncExpectTx;
    else if (p == "noComplete" && arrive) in.async_flags |= kAsyncNoComplete;
    else return rd.suffix(p);
  }
  if (!b64) return rd.fail("`" + rd.mnemonic + "` (an mbarrier is .b64)");
  return true;
}

// fence{.sem}{.scope}, fence.proxy.*, fence.mbarrier_init.*; membar.{cta,gl,sys}.
bool read_fence(Reader& rd, const std::vector<std::string>& parts) {
  Inst& in = rd.inst;
  in.family = Family::Async;
  in.async = AsyncOp::Fence;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (parts[0] == "membar" ? one_of(p, {"cta", "gl", "sys"})
                             : ordering(p) || one_of(p, {"proxy", "async", "alias", "tensormap::generic", "mbarrier_init",
                                                         "shared", "shared::cta", "shared::cluster", "global"}))
      continue;
    return rd.suffix(p);
  }
  return true;
}

}  // namespace

bool decode_async(const std::string& mnemonic, Inst& inst) {
  const std::vector<std::string> parts = lex::split_dots(mnemonic);
  Reader rd{inst, mnemonic};
  if (parts[0] == "cp") return read_cp(rd, parts);
  if (parts[0] == "mbarrier") return read_mbarrier(rd, parts);
  if (parts[0] == "fence" || parts[0] == "membar") return read_fence(rd, parts);
  if (parts[0] == "nanosleep") {  // nanosleep.u32 t (PTX ISA: a hint; the thread may wake at any time)
    inst.family = Family::Async;
    inst.async = AsyncOp::Sleep;
    if (parts.size() != 2 || parts[1] != "u32") return rd.fail("`" + mnemonic + "` (nanosleep.u32 only)");
    return true;
  }
  return false;
}

bool async_operands_ok(const Inst& in) {
  using K = Operand::Kind;
  auto is = [&](int i, K k) { return i < in.nops && in.ops[i].kind == k; };
  auto addr = [&](int i) { return is(i, K::Address); };
  auto value = [&](int i) { return is(i, K::Reg) || is(i, K::Imm); };
  auto reg = [&](int i) { return is(i, K::Reg) && !in.ops[i].predicate; };
  const bool hint = in.async_flags & kAsyncCacheHint;
  // The operands before a cache policy (the last, a 64-bit register).
  const int n = in.nops - (hint ? 1 : 0);
  if (hint && !reg(in.nops - 1)) return false;
  switch (in.async) {
    case AsyncOp::CpAsync: {
      if (n < 3 || n > 4 || !addr(0) || !addr(1) || !is(2, K::Imm)) return false;
      const std::int64_t size = in.ops[2].imm;
      if (size != 4 && size != 8 && size != 16) return false;
      if ((in.async_flags & kAsyncCg) && size != 16) return false;  // .cg copies 16 bytes only
      return n == 3 || value(3);  // src-size (an integer) or ignore-src (a predicate register)
    }
    case AsyncOp::CpAsyncCommit:
    case AsyncOp::CpAsyncWaitAll:
    case AsyncOp::BulkCommit:
    case AsyncOp::Fence: return in.nops == 0;
    case AsyncOp::Sleep: return in.nops == 1 && value(0);
    case AsyncOp::CpAsyncWait:
    case AsyncOp::BulkWait: return in.nops == 1 && is(0, K::Imm) && in.ops[0].imm >= 0;
    case AsyncOp::CpAsyncMbarrierArrive: return in.nops == 1 && addr(0);
    case AsyncOp::Bulk:
      if (in.async_flags & kAsyncToGlobal) return n == 3 && addr(0) && addr(1) && value(2);
      return n == 4 && addr(0) && addr(1) && value(2) && addr(3);
    case AsyncOp::BulkTensor:
      if (in.async_flags & kAsyncToGlobal) return n == 2 && is(0, K::Tensor) && in.ops[0].count == in.async_dims && addr(1);
      return n == 3 && addr(0) && is(1, K::Tensor) && in.ops[1].count == in.async_dims && addr(2);
    case AsyncOp::MbarInit:
    case AsyncOp::MbarExpectTx:
    case AsyncOp::MbarCompleteTx: return in.nops == 2 && addr(0) && value(1);
    case AsyncOp::MbarInval: return in.nops == 1 && addr(0);
    case AsyncOp::MbarArrive: {
      const bool counted = in.async_flags & (kAsyncExpectTx | kAsyncNoComplete);  // a third operand is required
      return (reg(0) || is(0, K::Sink)) && addr(1) && (counted ? in.nops == 3 && value(2) : in.nops == 2 || (in.nops == 3 && value(2)));
    }
    case AsyncOp::MbarTestWait:
    case AsyncOp::MbarTryWait:
      return is(0, K::Reg) && in.ops[0].predicate && addr(1) && value(2) &&
             (in.nops == 3 || (in.nops == 4 && in.async == AsyncOp::MbarTryWait && value(3)));
    case AsyncOp::None: break;
  }
  return false;
}

}  // namespace banklab::emu
