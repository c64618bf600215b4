/// @file ptx.hpp
/// @brief A PTX module as the emulator reads it: the kernels (`.entry`) of what
///        `nvcc -ptx -arch=sm_90 -lineinfo` writes for a lab's kernel.cu, each a list of decoded
///        instructions with their PTX line and their source line (`.loc`).
///
/// The grammar is small and data-driven (src/ptx_ops.cpp: one table of mnemonics, one of
/// modifiers). A line the reader does not know never fails the read: an unknown instruction
/// is kept as Family::Unsupported with its text, and ends the launch that reaches it
/// ("not judged (emulator: ...)", emulator.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace banklab::emu {

/// The value types of PTX (`.u32`, `.f32`, ...). Registers hold raw bits.
enum class Type : std::uint8_t { None, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F16, F32, F64, Pred };
int bits_of(Type t) noexcept;           ///< 8, 16, 32, 64; 1 for Pred; 0 for None
bool is_signed(Type t) noexcept;        ///< .s8 .. .s64
bool is_float(Type t) noexcept;         ///< .f16 .f32 .f64

/// State spaces of ld/st/cvta.
enum class Space : std::uint8_t { Generic, Param, Global, Shared, Local, Const };

/// What an instruction does; the mnemonic table (ptx_ops.cpp) maps names to these.
enum class Family : std::uint8_t {
  Unsupported,
  Ld, St, Mov, Cvt, Cvta,
  Add, Sub, Mul, Mad, Fma, Div, Rem, Min, Max, Abs, Neg,
  And, Or, Xor, Not, Shl, Shr, Popc, Clz, Brev, Bfi, Bfe,
  Setp, Selp,
  Bra, BarSync, BarWarpSync, Ret, Exit,
  // Warp-wide (exec_warp.cpp), matrix (exec_mma.cpp) and atomic (exec_atom.cpp) families.
  Shfl, Vote, Match, Activemask, Redux,
  Ldmatrix, Stmatrix, Mma,
  Atom, Red,
  Call,  ///< only while a kernel is read: every call is replaced by its callee's code (inline_calls.cpp)
  Async,  ///< cp.async, bulk and tensor copies, mbarrier, fence, membar: Inst::async says which (exec_async.cpp)
};

/// The instructions of Family::Async (ptx_async.cpp decodes them, exec_async.cpp runs them).
enum class AsyncOp : std::uint8_t {
  None,
  CpAsync, CpAsyncCommit, CpAsyncWait, CpAsyncWaitAll, CpAsyncMbarrierArrive,  ///< cp.async (non-bulk)
  Bulk, BulkTensor, BulkCommit, BulkWait,  ///< cp.async.bulk{.tensor}, its bulk groups
  MbarInit, MbarInval, MbarArrive, MbarExpectTx, MbarCompleteTx, MbarTestWait, MbarTryWait,
  Fence,  ///< fence.* and membar.*: nothing to order on the emulator
  Sleep,  ///< nanosleep.u32 t: no time passes; the warp's turn ends, so that the block's others run
};

/// The operation of a warp-wide or atomic family (Inst::sub): shfl's mode, vote's mode,
/// match's mode, atom/red/redux's operation.
enum class SubOp : std::uint8_t { None, Up, Down, Bfly, Idx, All, Any, Uni, Ballot,
                                  Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };

/// Comparisons of setp.
enum class Cmp : std::uint8_t { None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
/// How setp combines its result with a fourth predicate operand (.and/.or/.xor).
enum class BoolOp : std::uint8_t { None, And, Or, Xor };
/// Rounding of cvt and float arithmetic: .rn (or none) is the CPU's own.
enum class Round : std::uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi };

/// Special registers (%tid.x ...).
enum class Special : std::uint8_t { TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ,
                                    NctaidX, NctaidY, NctaidZ, LaneId, WarpId, NwarpId,
                                    LanemaskEq, LanemaskLt, LanemaskLe, LanemaskGt, LanemaskGe,
                                    Clock, Clock64 };  ///< %clock, %clock64: the launch's warp instructions so far

struct Operand {
  enum class Kind : std::uint8_t { None, Reg, Imm, Special, Address, Vector, Label,
                                   Sink,     ///< `_`: a result nobody reads (mbarrier.arrive's state)
                                   Tensor }; ///< `[map, {c0, ...}]`: reg (or symbol) the tensor map, regs the coordinates
  Kind kind = Kind::None;
  bool negate = false;        ///< `!%p` (a predicate read negated)
  Special special = Special::TidX;
  int reg = -1;               ///< Reg; Address: the base register (-1: an absolute address or symbol)
  std::int64_t imm = 0;       ///< Imm: the raw bits; Address: the offset (symbols resolved); Label: the target index
  int count = 0;              ///< Vector: elements in `regs`
  int regs[5] = {-1, -1, -1, -1, -1};  ///< Vector (4 at most): registers (-1: `_`, a sink); Tensor: up to 5 coordinates
  std::string symbol;         ///< a name the reader resolves after the kernel is read (label, variable, param)
  int pred = -1;              ///< Reg written as `%r|%p` (shfl, match.all): the predicate register beside it
  int var = -1;               ///< Imm/Address naming a module variable (Module::variables): its address, known at launch, is added to imm
  bool predicate = false;     ///< Reg: a register declared `.pred` (cp.async's ignore-src is one, src-size is not)
};

/// One PTX instruction.
struct Inst {
  Family family = Family::Unsupported;
  Type type = Type::None;     ///< the (last) type suffix; cvt: the destination's
  Type type2 = Type::None;    ///< cvt: the source's type
  Space space = Space::Generic;  ///< ld/st/cvta
  bool to = false;            ///< cvta.to.<space> (generic -> space); without: space -> generic
  bool wide = false, hi = false, lo = false, uni = false, volatile_ = false;
  int vec = 1;                ///< ld/st .v2 / .v4
  Cmp cmp = Cmp::None;
  BoolOp boolop = BoolOp::None;
  Round round = Round::None;
  AsyncOp async = AsyncOp::None;  ///< Family::Async: which instruction
  std::uint8_t async_dims = 0;    ///< cp.async.bulk.tensor: .1d .. .5d
  std::uint16_t async_flags = 0;  ///< Family::Async: its suffixes (kAsync* of src/async.hpp)
  int guard = -1;             ///< @%p: the predicate register (-1: none)
  bool guard_negate = false;  ///< @!%p
  SubOp sub = SubOp::None;    ///< Shfl/Vote/Match/Redux/Atom/Red: the family's operation
  int matrices = 0;           ///< Ldmatrix/Stmatrix: .x1/.x2/.x4; Mma: k of .m16n8k<k>
  bool trans = false;         ///< Ldmatrix/Stmatrix .trans
  Type types[4] = {Type::None, Type::None, Type::None, Type::None};  ///< Mma: the types of d, a, b, c
  bool result_unused = false; ///< Atom: no instruction of the kernel reads its destination (mark_unused_results())
  bool address_uniform = false;  ///< Atom/Red: its address is the same in every thread (depends on no thread's own value)
  int nops = 0;
  Operand ops[5];             ///< in PTX order (destination first)
  int ptx_line = 0;           ///< line of the PTX text
  int file = 0, line = 0;     ///< the latest .loc (file index of .file, source line)
  std::string callee;         ///< Call: the function's name, its return and argument params (call-site names)
  std::vector<std::string> call_rets, call_args;
  std::string text;           ///< the instruction as written (for messages)
  std::string why;            ///< Unsupported: what the reader does not know
};

/// A `.shared` (or `.extern .shared`) variable of a kernel.
struct SharedVar {
  std::string name;
  std::uint32_t size = 0, align = 1;
  bool dynamic = false;       ///< `.extern .shared ... name[]`: sized at launch
  std::uint32_t offset = 0;   ///< from the first byte of the kernel's shared memory
};

struct Param {
  std::string name;
  std::uint32_t size = 0, align = 1, offset = 0;
};

/// A `.global` or `.const` variable of the module (`.global .align 4 .u32 n = 7;`), with its
/// initial bytes (the rest zero). It lives in the Device's global memory (Device::variable()).
struct ModuleVar {
  std::string name;
  Space space = Space::Global;
  std::uint32_t size = 0, align = 1;
  std::vector<unsigned char> init;
};

struct Kernel {
  std::string name;           ///< as the module spells it (mangled)
  std::vector<SharedVar> locals;  ///< `.local` variables (and the `.param` ones of call sites): each thread's own, from offset 0
  std::uint32_t local_bytes = 0;
  std::vector<Param> params;
  std::uint32_t param_bytes = 0;
  std::vector<SharedVar> shared;
  std::uint32_t static_shared_bytes = 0;   ///< the static variables' extent (dynamic ones start here, aligned)
  int registers = 0;          ///< registers of every kind, predicates included (indices 0 .. registers-1)
  std::vector<Inst> code;
  std::vector<int> reconverge;  ///< per instruction: for a bra, its immediate post-dominator (code.size(): the exit)
};

struct Module {
  std::vector<Kernel> kernels;
  std::map<int, std::string> files;  ///< `.file N "path"`
  std::vector<ModuleVar> variables;  ///< `.global` / `.const` variables
  const Kernel* find(const std::string& name) const;
};

/// Reads PTX text. Throws std::runtime_error naming the PTX line on text it cannot read at all
/// (a malformed declaration); unknown instructions are kept as Family::Unsupported.
Module parse_ptx(const std::string& text);

/// Decodes one instruction's mnemonic and operands (the table in ptx_ops.cpp); used by parse_ptx.
/// Unknown mnemonics and modifiers give family Unsupported with `why` set.
void decode_mnemonic(const std::string& mnemonic, Inst& inst);
/// Checks the operands the parser read against what the family takes (counts, kinds); a
/// mismatch makes the instruction Unsupported, so the executor never reads a missing operand.
void check_operands(Inst& inst);

/// Immediate post-dominators of every branch of `k` (fills k.reconverge): cfg.cpp.
void compute_reconvergence(Kernel& k);

/// Sets Inst::result_unused of every atom whose destination no instruction of `k` reads, as
/// ptxas sees it (`atomicAdd(p, 1)` unused becomes ATOMS.POPC.INC), and Inst::address_uniform of
/// every atomic whose address depends on no thread's own value (ptxas aggregates such an add over
/// the warp): exec_atom.cpp.
void mark_unused_results(Kernel& k);

}  // namespace banklab::emu
