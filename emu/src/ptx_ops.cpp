// The PTX grammar as data: which mnemonics the emulator knows (their family and operand count)
// and what each dot-suffix means. An instruction with an unknown mnemonic or suffix is kept as
// Family::Unsupported, with the reason: it ends the launch that reaches it, "not judged".
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "async.hpp"
#include "banklab_emu/ptx.hpp"
#include "ptx_lex.hpp"

namespace banklab::emu {

namespace {

struct Mnemonic {
  const char* name;
  Family family;
  int operands;  ///< operands it takes (-1: depends on the suffixes)
};

// The mnemonics (base names). setp takes 3 or 4 operands (with .and/.or/.xor), mad/fma 4.
constexpr Mnemonic kMnemonics[] = {
    {"ld", Family::Ld, 2},       {"st", Family::St, 2},       {"mov", Family::Mov, 2},
    {"cvt", Family::Cvt, 2},     {"cvta", Family::Cvta, 2},   {"add", Family::Add, 3},
    {"sub", Family::Sub, 3},     {"mul", Family::Mul, 3},     {"mad", Family::Mad, 4},
    {"fma", Family::Fma, 4},     {"div", Family::Div, 3},     {"rem", Family::Rem, 3},
    {"min", Family::Min, 3},     {"max", Family::Max, 3},     {"abs", Family::Abs, 2},
    {"neg", Family::Neg, 2},     {"and", Family::And, 3},     {"or", Family::Or, 3},
    {"xor", Family::Xor, 3},     {"not", Family::Not, 2},     {"shl", Family::Shl, 3},
    {"shr", Family::Shr, 3},     {"popc", Family::Popc, 2},   {"clz", Family::Clz, 2},
    {"brev", Family::Brev, 2},   {"setp", Family::Setp, -1},  {"selp", Family::Selp, 4},
    {"bra", Family::Bra, 1},     {"bar", Family::BarSync, -1}, {"barrier", Family::BarSync, -1},
    {"ret", Family::Ret, 0},     {"exit", Family::Exit, 0},
    // Warp-wide, matrix and atomic families: their suffixes in kSubOps and decode_warp_suffix().
    {"shfl", Family::Shfl, 5},   {"vote", Family::Vote, 3},   {"match", Family::Match, 3},
    {"activemask", Family::Activemask, 1},                    {"redux", Family::Redux, 3},
    {"ldmatrix", Family::Ldmatrix, 2}, {"stmatrix", Family::Stmatrix, 2}, {"mma", Family::Mma, 4},
    {"atom", Family::Atom, -1},  {"red", Family::Red, 2},    {"call", Family::Call, -1},
    {"bfi", Family::Bfi, 5},     {"bfe", Family::Bfe, 4},
};

// The operations of the warp-wide and atomic families (Inst::sub), by family: a name means
// something only in the families listed with it (`and` of atom is not setp's `.and`).
struct SubName { const char* name; SubOp sub; Family families[3]; };
constexpr SubName kSubOps[] = {
    {"up", SubOp::Up, {Family::Shfl}},        {"down", SubOp::Down, {Family::Shfl}},
    {"bfly", SubOp::Bfly, {Family::Shfl}},    {"idx", SubOp::Idx, {Family::Shfl}},
    {"all", SubOp::All, {Family::Vote, Family::Match}}, {"any", SubOp::Any, {Family::Vote, Family::Match}},
    {"uni", SubOp::Uni, {Family::Vote}},      {"ballot", SubOp::Ballot, {Family::Vote}},
    {"add", SubOp::Add, {Family::Atom, Family::Red, Family::Redux}},
    {"min", SubOp::Min, {Family::Atom, Family::Red, Family::Redux}},
    {"max", SubOp::Max, {Family::Atom, Family::Red, Family::Redux}},
    {"and", SubOp::And, {Family::Atom, Family::Red, Family::Redux}},
    {"or", SubOp::Or, {Family::Atom, Family::Red, Family::Redux}},
    {"xor", SubOp::Xor, {Family::Atom, Family::Red, Family::Redux}},
    {"inc", SubOp::Inc, {Family::Atom, Family::Red}}, {"dec", SubOp::Dec, {Family::Atom, Family::Red}},
    {"exch", SubOp::Exch, {Family::Atom}},    {"cas", SubOp::Cas, {Family::Atom}},
};

// The suffixes of the warp-wide, matrix and atomic families other than their operation: true
// when `p` is one (and recorded in `inst`).
bool decode_warp_suffix(const std::string& p, Inst& inst) {
  const Family f = inst.family;
  for (const SubName& s : kSubOps)
    for (Family g : s.families)
      if (g == f && p == s.name && f != Family::Unsupported) { inst.sub = s.sub; return true; }
  if (f == Family::Ldmatrix || f == Family::Stmatrix) {
    if (p == "m8n8") return true;
    if (p == "x1" || p == "x2" || p == "x4") { inst.matrices = p[1] - '0'; return true; }
    if (p == "trans") { inst.trans = true; return true; }
    if (p == "shared::cta") { inst.space = Space::Shared; return true; }
  }
  if (f == Family::Mma) {
    if (p == "m16n8k16" || p == "m16n8k8") { inst.matrices = p == "m16n8k16" ? 16 : 8; return true; }
    if (p == "row" || p == "col") return true;  // checked below: only .row.col exists for these shapes
  }
  // Memory order and scope of atomics (the emulator's warps see each other's stores in turn order).
  if ((f == Family::Atom || f == Family::Red) && (p == "acquire" || p == "release" || p == "acq_rel"))
    return true;
  if ((f == Family::Atom || f == Family::Red) && p == "shared::cta") { inst.space = Space::Shared; return true; }
  if (f == Family::Call && p == "uni") return true;
  return false;
}

template <class T>
bool in(T t, std::initializer_list<T> list) {
  for (T u : list)
    if (t == u) return true;
  return false;
}

// The combinations of the warp-wide, matrix and atomic families the executor computes ("" when
// this is one); PTX ISA 9.0, sections 9.7.9.10 (shfl.sync), 9.7.13.8 (vote.sync), 9.7.13.9
// (match.sync), 9.7.13.10 (activemask), 9.7.13.11 (redux.sync), 9.7.14.5.15-16 (ldmatrix,
// stmatrix), 9.7.14.5.14 (mma), 9.7.13.5-6 (atom, red).
std::string check_warp_family(const Inst& inst) {
  using T = Type;
  const T t = inst.type;
  const SubOp o = inst.sub;
  switch (inst.family) {
    case Family::Shfl:
      return o != SubOp::None && t == T::B32 ? "" : "a shfl other than .up/.down/.bfly/.idx of .b32";
    case Family::Vote:
      if (o == SubOp::Ballot) return t == T::B32 ? "" : "vote.ballot of a type other than .b32";
      return o != SubOp::None && t == T::Pred ? "" : "a vote other than .all/.any/.uni of .pred or .ballot of .b32";
    case Family::Match: return (o == SubOp::Any || o == SubOp::All) && in(t, {T::B32, T::B64}) ? "" : "a match other than .any/.all of .b32/.b64";
    case Family::Activemask: return t == T::B32 ? "" : "activemask of a type other than .b32";
    case Family::Redux:
      if (in(o, {SubOp::And, SubOp::Or, SubOp::Xor})) return t == T::B32 ? "" : "redux.and/.or/.xor of a type other than .b32";
      return in(o, {SubOp::Add, SubOp::Min, SubOp::Max}) && in(t, {T::U32, T::S32}) ? "" : "a redux other than .add/.min/.max of .u32/.s32";
    case Family::Ldmatrix:
    case Family::Stmatrix:
      return inst.matrices && t == T::B16 && inst.space == Space::Shared ? "" : "a matrix load or store other than .m8n8.x1/.x2/.x4[.trans].shared.b16";
    case Family::Mma: {
      const bool f16 = inst.types[1] == T::F16 && inst.types[2] == T::F16;
      const bool acc = in(inst.types[0], {T::F32, T::F16}) && in(inst.types[3], {T::F32, T::F16});
      return inst.matrices && f16 && acc ? "" : "an mma other than .m16n8k16/.m16n8k8.row.col with f16 inputs and f16/f32 accumulators";
    }
    case Family::Atom:
    case Family::Red: {
      if (!in(inst.space, {Space::Shared, Space::Global, Space::Generic})) return "an atomic outside shared, global or generic memory";
      const bool atom = inst.family == Family::Atom;
      switch (o) {
        case SubOp::Add: return in(t, {T::U32, T::S32, T::U64, T::F32, T::F64}) ? "" : "an atomic add of this type";
        case SubOp::Min:
        case SubOp::Max: return in(t, {T::U32, T::S32, T::U64, T::S64}) ? "" : "an atomic min/max of this type";
        case SubOp::And:
        case SubOp::Or:
        case SubOp::Xor: return in(t, {T::B32, T::B64}) ? "" : "an atomic and/or/xor of this type";
        case SubOp::Inc:
        case SubOp::Dec: return t == T::U32 ? "" : "an atomic inc/dec of a type other than .u32";
        case SubOp::Exch:
        case SubOp::Cas: return atom && in(t, {T::B32, T::B64}) ? "" : "an atomic exch/cas of this type";
        default: return "an atomic without an operation";
      }
    }
    default: return "";
  }
}

struct TypeName { const char* name; Type type; };
constexpr TypeName kTypes[] = {
    {"b8", Type::B8},   {"b16", Type::B16}, {"b32", Type::B32}, {"b64", Type::B64}, {"u8", Type::U8},
    {"u16", Type::U16}, {"u32", Type::U32}, {"u64", Type::U64}, {"s8", Type::S8},   {"s16", Type::S16},
    {"s32", Type::S32}, {"s64", Type::S64}, {"f16", Type::F16}, {"f32", Type::F32}, {"f64", Type::F64},
    {"pred", Type::Pred},
};

struct SpaceName { const char* name; Space space; };
constexpr SpaceName kSpaces[] = {{"param", Space::Param}, {"global", Space::Global}, {"shared", Space::Shared},
                                 {"local", Space::Local}, {"const", Space::Const}};

struct CmpName { const char* name; Cmp cmp; };
constexpr CmpName kCmps[] = {{"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},   {"le", Cmp::Le},
                             {"gt", Cmp::Gt},   {"ge", Cmp::Ge},   {"lo", Cmp::Lo},   {"ls", Cmp::Ls},
                             {"hi", Cmp::Hi},   {"hs", Cmp::Hs},   {"equ", Cmp::Equ}, {"neu", Cmp::Neu},
                             {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu}, {"geu", Cmp::Geu},
                             {"num", Cmp::Num}, {"nan", Cmp::Nan}};

struct RoundName { const char* name; Round round; };
constexpr RoundName kRounds[] = {{"rn", Round::Rn},   {"rz", Round::Rz},   {"rm", Round::Rm},   {"rp", Round::Rp},
                                 {"rni", Round::Rni}, {"rzi", Round::Rzi}, {"rmi", Round::Rmi}, {"rpi", Round::Rpi}};

// Suffixes that change nothing the emulator computes: cache and ordering hints (a CPU in
// lockstep sees every store of the warps before it), .approx/.full/.ftz of float arithmetic (the
// CPU computes exactly, subnormals kept: a difference only for such inputs), .aligned/.sync of
// barriers (all the block's warps arrive), .uni of a branch (the SIMT stack finds it uniform).
constexpr const char* kIgnored[] = {"relaxed", "weak",  "ca",   "cg",   "cs",   "lu",     "cv",
                                    "nc",      "wb",    "wt",   "approx", "full", "ftz",  "aligned",
                                    "sync",    "cta",   "gpu",  "sys"};

bool one_of(const char* s, const char* const* list, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (std::strcmp(s, list[i]) == 0) return true;
  return false;
}

void unsupported(Inst& inst, const std::string& why) {
  inst.family = Family::Unsupported;
  if (inst.why.empty()) inst.why = why;
}

}  // namespace

int bits_of(Type t) noexcept {
  switch (t) {
    case Type::B8: case Type::U8: case Type::S8: return 8;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: return 16;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: return 32;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 64;
    case Type::Pred: return 1;
    case Type::None: break;
  }
  return 0;
}
bool is_signed(Type t) noexcept { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }
bool is_float(Type t) noexcept { return t == Type::F16 || t == Type::F32 || t == Type::F64; }

void decode_mnemonic(const std::string& mnemonic, Inst& inst) {
  if (decode_async(mnemonic, inst)) return;  // cp.async*, mbarrier, fence, membar: ptx_async.cpp
  // bar.red: a barrier that also reduces a predicate over the block (__syncthreads_or/_and/_count).
  struct BarRed { const char* mnemonic; SubOp op; Type type; };
  static const BarRed kBarRed[] = {{"bar.red.or.pred", SubOp::Or, Type::Pred}, {"bar.red.and.pred", SubOp::And, Type::Pred},
                                   {"bar.red.popc.u32", SubOp::Add, Type::U32}, {"barrier.red.or.pred", SubOp::Or, Type::Pred},
                                   {"barrier.red.and.pred", SubOp::And, Type::Pred}, {"barrier.red.popc.u32", SubOp::Add, Type::U32}};
  for (const BarRed& b : kBarRed)
    if (mnemonic == b.mnemonic) {
      inst.family = Family::BarSync;
      inst.sub = b.op;
      inst.type = b.type;
      return;
    }
  const std::vector<std::string> parts = lex::split_dots(mnemonic);
  const std::string& base = parts[0];
  int operands = -2;
  for (const Mnemonic& m : kMnemonics)
    if (base == m.name) {
      inst.family = m.family;
      operands = m.operands;
    }
  if (operands == -2) return unsupported(inst, "the instruction `" + base + "`");
  int types = 0;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    const char* s = p.c_str();
    bool known = false;
    for (const TypeName& t : kTypes)
      if (p == t.name) {
        // cvt.<dst>.<src>: the first type is the destination's.
        if (types < 4) inst.types[types] = t.type;  // mma.<d>.<a>.<b>.<c>
        if (types++ == 0) inst.type = t.type; else inst.type2 = t.type;
        known = true;
      }
    if (!known && decode_warp_suffix(p, inst)) continue;
    for (const SpaceName& sp : kSpaces)
      if (p == sp.name) { inst.space = sp.space; known = true; }
    if (!known && inst.family == Family::Setp)
      for (const CmpName& c : kCmps)
        if (p == c.name) { inst.cmp = c.cmp; known = true; }
    if (!known && (inst.family == Family::Setp) && (p == "and" || p == "or" || p == "xor")) {
      inst.boolop = p == "and" ? BoolOp::And : p == "or" ? BoolOp::Or : BoolOp::Xor;
      known = true;
    }
    for (const RoundName& r : kRounds)
      if (!known && p == r.name) { inst.round = r.round; known = true; }
    if (known) continue;
    if (p == "v2" || p == "v4") { inst.vec = p[1] - '0'; continue; }
    if (p == "volatile") { inst.volatile_ = true; continue; }
    if (p == "wide") { inst.wide = true; continue; }
    if (p == "hi") { inst.hi = true; continue; }
    if (p == "lo" && inst.family != Family::Setp) { inst.lo = true; continue; }
    if (p == "uni") { inst.uni = true; continue; }
    if (p == "to" && inst.family == Family::Cvta) { inst.to = true; continue; }
    if (p == "warp" && inst.family == Family::BarSync) { inst.family = Family::BarWarpSync; continue; }
    if (p.rfind("L1::", 0) == 0 || p.rfind("L2::", 0) == 0) continue;  // cache hints
    if (one_of(s, kIgnored, sizeof kIgnored / sizeof kIgnored[0])) continue;
    return unsupported(inst, "the suffix ." + p + " of `" + mnemonic + "`");
  }
  // The combinations the executor computes; anything else is named, not guessed.
  if (inst.family == Family::BarSync && mnemonic != "bar.sync" && mnemonic != "barrier.sync" &&
      mnemonic != "bar.sync.aligned" && mnemonic != "barrier.sync.aligned")
    return unsupported(inst, "`" + mnemonic + "` (only bar.sync / barrier.sync and bar.warp.sync)");
  if (inst.family == Family::Setp && inst.cmp == Cmp::None) return unsupported(inst, "`" + mnemonic + "` without a comparison");
  if (inst.vec > 1 && inst.family != Family::Ld && inst.family != Family::St)
    return unsupported(inst, "`" + mnemonic + "` (vectors only in ld/st)");
  if (const std::string why = check_warp_family(inst); !why.empty()) return unsupported(inst, why + " (`" + mnemonic + "`)");
  if (inst.family != Family::Mma && (inst.type == Type::F16 || inst.type2 == Type::F16) &&
      !(inst.family == Family::Cvt && (inst.type == Type::F32 || inst.type2 == Type::F32 || inst.type == Type::F64)))
    return unsupported(inst, "half precision in `" + mnemonic + "`");
  const bool float_op = is_float(inst.type);
  if (float_op && inst.round != Round::None && inst.round != Round::Rn && inst.family != Family::Cvt)
    return unsupported(inst, "the rounding of `" + mnemonic + "` (only .rn)");
  if (inst.family == Family::Cvta && inst.space != Space::Global && inst.space != Space::Shared && inst.space != Space::Local &&
      inst.space != Space::Param)
    return unsupported(inst, "`" + mnemonic + "` (only the global, shared and local windows)");
  (void)operands;  // checked once the operands are read: check_operands()
}

void check_operands(Inst& inst) {
  if (inst.family == Family::Unsupported) return;
  if (inst.family == Family::Async) {
    if (!async_operands_ok(inst)) unsupported(inst, "the operands of `" + inst.text + "`");
    return;
  }
  using K = Operand::Kind;
  auto is = [&](int i, K k) { return i < inst.nops && inst.ops[i].kind == k; };
  auto value = [&](int i) {
    // A name (K::Label before resolve()) is a variable's address there, or Unsupported.
    return i < inst.nops && (inst.ops[i].kind == K::Reg || inst.ops[i].kind == K::Imm || inst.ops[i].kind == K::Special ||
                             (inst.ops[i].kind == K::Label && inst.family != Family::Bra));
  };
  for (int i = 0; i < inst.nops; ++i)  // `%r|%p`: only shfl and match.all write a predicate beside
    if (inst.ops[i].pred >= 0 && (i != 0 || (inst.family != Family::Shfl && inst.family != Family::Match)))
      return unsupported(inst, "the operands of `" + inst.text + "`");
  int want = 0;
  for (const Mnemonic& m : kMnemonics)
    if (m.family == inst.family || (inst.family == Family::BarWarpSync && m.family == Family::BarSync)) want = m.operands;
  bool ok = true;
  switch (inst.family) {
    case Family::Ld:
      ok = inst.nops == 2 && (is(0, K::Reg) || is(0, K::Vector)) && is(1, K::Address) &&
           (inst.vec == 1) == is(0, K::Reg) && (inst.vec == 1 || inst.ops[0].count == inst.vec);
      break;
    case Family::St:
      ok = inst.nops == 2 && is(0, K::Address) && (value(1) || is(1, K::Vector)) &&
           (inst.vec == 1) == !is(1, K::Vector) && (inst.vec == 1 || inst.ops[1].count == inst.vec);
      break;
    case Family::Bra: ok = inst.nops == 1 && is(0, K::Label); break;
    case Family::BarSync:  // bar.red d, a, {!}c (a thread count as well: not judged)
      ok = inst.sub == SubOp::None ? inst.nops >= 1 && inst.nops <= 2 && value(0)
                                   : inst.nops == 3 && is(0, K::Reg) && value(1) && is(2, K::Reg) && inst.ops[2].predicate;
      break;
    case Family::BarWarpSync: ok = inst.nops == 1 && value(0); break;
    case Family::Setp:
      ok = (inst.nops == 3 && inst.boolop == BoolOp::None) || (inst.nops == 4 && inst.boolop != BoolOp::None);
      ok = ok && is(0, K::Reg) && value(1) && value(2) && (inst.nops == 3 || value(3));
      break;
    case Family::Mov:
      // mov d, a (a register, immediate, special register or variable's address); mov.b64 d, {lo, hi}
      // packs and mov.b64 {lo, hi}, d unpacks (32-bit halves; .b32 with 16-bit halves).
      ok = inst.nops == 2 && ((is(0, K::Reg) && (value(1) || is(1, K::Vector))) || (is(0, K::Vector) && is(1, K::Reg)));
      if (ok && (is(0, K::Vector) || is(1, K::Vector)))
        ok = (inst.type == Type::B64 || inst.type == Type::B32) && inst.ops[is(0, K::Vector) ? 0 : 1].count == 2;
      break;
    case Family::Shfl:
    case Family::Vote:
    case Family::Match:
    case Family::Activemask:
    case Family::Redux:
      ok = inst.nops == want && is(0, K::Reg) && (inst.ops[0].pred < 0 || inst.family == Family::Shfl ||
                                                   (inst.family == Family::Match && inst.sub == SubOp::All));
      for (int i = 1; ok && i < inst.nops; ++i) ok = value(i);
      break;
    case Family::Ldmatrix:
      ok = inst.nops == 2 && is(0, K::Vector) && inst.ops[0].count == inst.matrices && is(1, K::Address);
      break;
    case Family::Stmatrix:
      ok = inst.nops == 2 && is(0, K::Address) && is(1, K::Vector) && inst.ops[1].count == inst.matrices;
      break;
    case Family::Mma: {
      // Registers a lane holds (PTX ISA 9.0, 9.7.14.5.8-9): D and C 4 f32 or 2 f16x2; A 4 (k16)
      // or 2 (k8) f16x2; B 2 or 1.
      const int acc_d = inst.types[0] == Type::F32 ? 4 : 2, acc_c = inst.types[3] == Type::F32 ? 4 : 2;
      const int a = inst.matrices == 16 ? 4 : 2, b = inst.matrices == 16 ? 2 : 1;
      const int want_n[4] = {acc_d, a, b, acc_c};
      ok = inst.nops == 4;
      for (int i = 0; ok && i < 4; ++i) ok = is(i, K::Vector) && inst.ops[i].count == want_n[i];
      for (int i = 0; ok && i < 4; ++i)
        for (int e = 0; ok && e < inst.ops[i].count; ++e) ok = inst.ops[i].regs[e] >= 0;
      break;
    }
    case Family::Atom:
      ok = inst.nops == (inst.sub == SubOp::Cas ? 4 : 3) && is(0, K::Reg) && is(1, K::Address) && value(2) &&
           (inst.nops == 3 || value(3));
      break;
    case Family::Red: ok = inst.nops == 2 && is(0, K::Address) && value(1); break;
    case Family::Call: ok = !inst.callee.empty(); break;  // its names: read by the parser, bound by inline_calls()
    default:
      ok = inst.nops == want && (want == 0 || is(0, K::Reg));
      for (int i = 1; ok && i < inst.nops; ++i) ok = value(i);
      break;
  }
  if (!ok) unsupported(inst, "the operands of `" + inst.text + "`");
}

}  // namespace banklab::emu
