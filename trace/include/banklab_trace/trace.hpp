/// @file trace.hpp
/// @brief The host side of `banklab trace`, free of any CUDA or sanitizer dependency (it runs
///        and is tested on machines without a GPU): merging raw warp records, the binary trace
///        file, decoding records into model input, per-line aggregation and the report formats.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

#include "banklab/model.hpp"
#include "banklab_trace/format.hpp"
#include "banklab_trace/lines.hpp"
#include "banklab_trace/session.hpp"

namespace banklab::trace {

/// A kernel the trace saw launched: its name, the module it came from, where its code starts.
struct KernelInfo {
  std::string name;
  std::uint32_t module = 0;    ///< index into TraceData::cubins
  std::uint64_t base_pc = 0;   ///< pc of its first instruction (records' pc minus this = offset)
  std::uint64_t launches = 0;
};

/// A distinct warp record of one kernel and how often it occurred. Inactive lanes' offsets are 0.
struct MergedRecord {
  std::uint32_t kernel = 0;  ///< index into TraceData::kernels
  DeviceRecord record{};
  std::uint64_t count = 0;
};

/// Merges identical warp records (same kernel, pc, kind, width, flags, lanes, offsets) into one
/// with a count: most warps of a kernel repeat the same shared-memory pattern, so the analysis
/// runs once per distinct instruction.
class Merger {
 public:
  /// Adds `n` raw records of kernel `kernel` (inactive lanes' offsets may hold anything).
  void add(std::uint32_t kernel, const DeviceRecord* records, std::size_t n);
  /// Adds `count` occurrences of one record (a record the device already merged: MergeEntry).
  void add(std::uint32_t kernel, const DeviceRecord& record, std::uint64_t count);
  /// The distinct records so far, in first-seen order; the merger is empty afterwards.
  std::vector<MergedRecord> take();
  std::size_t distinct() const { return records_.size(); }

 private:
  void grow();
  void add_one(std::uint32_t kernel, const DeviceRecord& record, std::uint64_t count);
  std::vector<MergedRecord> records_;
  std::vector<std::uint64_t> hashes_;   // hash of records_[i]
  std::vector<std::uint32_t> slots_;    // open addressing: index + 1 into records_, 0 = empty
};

/// Adds the device's merged entries (format.hpp, MergeEntry: a canonical record and its count in
/// shards) of kernel `kernel` to `merger`, entries of count 0 left out; returns the warp
/// instructions they stand for.
std::uint64_t add_entries(Merger& merger, std::uint32_t kernel, const MergeEntry* entries, std::size_t n);

/// Everything one traced run produced.
struct TraceData {
  std::vector<std::string> cubins;    ///< images of the modules kernels were launched from
  std::vector<KernelInfo> kernels;
  std::vector<MergedRecord> records;
  std::uint64_t dropped = 0;          ///< warp instructions not recorded (device buffer full)
};

/// The binary trace file ("BLTRACE1"): what the injected library writes at exit for the CLI.
void write_trace(std::ostream& out, const TraceData& data);
/// Reads a trace file. @throws std::runtime_error naming the problem on a malformed file.
TraceData read_trace(std::istream& in);

/// Shared-memory traffic the bank model does not cost lane by lane, costed by the measured rules
/// of common/include/banklab/hardware.hpp: wgmma's operand reads (wgmma_operand_wavefronts(): one
/// wavefront per 128 bytes, no conflicts) and TMA copies (kTmaLsuWavefronts: none).
enum class TrafficKind : std::uint8_t {
  WgmmaOperands,  ///< wgmma.mma_async reading A and/or B from shared memory
  TmaLoad,        ///< cp.async.bulk.tensor global -> shared (UTMALDG)
  TmaStore,       ///< cp.async.bulk.tensor shared -> global (UTMASTG)
};
/// What a report calls each kind.
const char* traffic_name(TrafficKind kind) noexcept;

/// The traffic of one instruction (pc) of one kernel, summed over its warp instructions.
struct Traffic {
  std::string kernel;
  std::uint64_t pc = 0;
  std::string file;
  int line = 0;
  TrafficKind kind = TrafficKind::WgmmaOperands;
  std::uint64_t count = 0;       ///< warp instructions (a wgmma: one per warp, four per warpgroup instruction)
  std::uint64_t bytes = 0;       ///< shared-memory bytes read (wgmma) or written / read (TMA, boxes known)
  std::uint64_t wavefronts = 0;  ///< LSU wavefronts: wgmma bytes / 128; TMA 0
  std::uint64_t a_from_registers = 0;  ///< wgmma warp instructions that read A from registers
  std::uint64_t not_reading = 0;       ///< wgmma warp instructions whose warp mask was 0 (no operand read)
  std::uint64_t unknown_bytes = 0;     ///< TMA warp instructions whose bytes the trace does not know
  /// Adds another instruction's figures (the lowest pc stays).
  Traffic& operator+=(const Traffic& other) noexcept;
};

/// Bytes and wavefronts of one kKindWgmma warp record (flag kFlagWgmmaOperands): the warpgroup
/// instruction reads size A + size B bytes, wgmma_operand_wavefronts() of them; the warp of rank r
/// (the record's `reserved`) gets the share r of four that makes the four warps' shares add up to
/// the warpgroup's exactly. A warp mask of 0: nothing read.
struct WgmmaShare {
  std::uint64_t bytes = 0, wavefronts = 0;
};
WgmmaShare wgmma_share(const DeviceRecord& record) noexcept;

/// Raw records -> model input: op from the flags, width, active lanes, offsets minus the
/// reserved window bytes, pc relative to the kernel, source line from the cubin's line table.
/// ldmatrix/stmatrix (lanes beyond 8 x matrices dropped), cp.async and shared atomics become
/// their Op; unmodelled kinds (TMA, bulk copies, distributed shared memory, wgmma) and accesses
/// the model rejects go to `unmodelled`.
void decode(const TraceData& data, std::vector<Instruction>& instructions,
            std::vector<Unmodelled>& unmodelled);
/// The same, with wgmma operand reads and TMA copies costed into `traffic` instead of listed in
/// `unmodelled` (`banklab trace`). The overload above lists them as before (the judge's tracer).
void decode(const TraceData& data, std::vector<Instruction>& instructions,
            std::vector<Unmodelled>& unmodelled, std::vector<Traffic>& traffic);

/// Which of `cubins` (the loaded modules' images) a trace of `records` needs for decode() to
/// find every source line it would find with all of them: the images of the kernels that left
/// records; every image where one of those kernels has no image of its own (decode then finds it
/// by name in any); and, where a kernel's image has no line rows for it, every image that has
/// rows for its name. The injection library writes only these (a PyTorch model step loads 98 MB
/// of images, its kernels with records need 16 MB).
std::vector<bool> needed_images(const std::vector<std::string>& cubins, const std::vector<KernelInfo>& kernels,
                                const std::vector<MergedRecord>& records);

/// Wavefronts and minimum of one warp instruction: the one place the trace calls the model.
struct Cost {
  int wavefronts = 0;
  int minimum = 0;
};
Cost cost_of(const WarpAccess& access) noexcept;
/// The same for a traced instruction: a cp.async recorded with its source banks is costed with
/// them (summarize_async_copy()); everything else as cost_of(access).
Cost cost_of(const Instruction& instruction) noexcept;

/// The model's op for an atomic record of `width` bytes whose instruction is `kind`:
/// ATOMS.POPC.INC atominc, ATOMS.CAS atomcas, ATOMS.CAST.SPIN atomloop (one pass per record),
/// a 64-bit ATOMS with an operation ATOMS.EXCH.64 (atomexch; sm_90 has no other), every other
/// atom. Unreadable SASS: atom (for 64 bits, one pass of a CAS loop, as before the SASS was read).
Op atom_op_of(AtomsKind kind, int width) noexcept;

/// One source line of one kernel (or one pc when the line is unknown).
struct LineReport {
  std::string kernel, file;
  int line = 0;
  std::uint64_t pc = 0;                 ///< lowest pc of the line
  std::uint64_t warp_instructions = 0;
  std::uint64_t wavefronts = 0;
  std::uint64_t minimum = 0;
  std::uint64_t excess() const { return wavefronts - minimum; }
  WarpAccess worst;                     ///< the instance with the largest excess per instruction
  std::optional<std::array<std::uint8_t, kWarpSize>> worst_source_banks;  ///< its sources (cp.async), if traced
  int worst_wavefronts = 0, worst_minimum = 0;
  std::string hint;
};

struct KernelReport {
  std::string kernel;
  std::uint64_t warp_instructions = 0, wavefronts = 0, minimum = 0;
  /// The same split by op, as Nsight Compute's shared_op_ld / shared_op_st metrics count them
  /// (ldmatrix with the loads, stmatrix with the stores), then LDGSTS and ATOMS apart.
  std::uint64_t load_instructions = 0, load_wavefronts = 0, store_instructions = 0, store_wavefronts = 0;
  std::uint64_t async_copy_instructions = 0, async_copy_wavefronts = 0;  ///< cp.async (LDGSTS), shared side
  std::uint64_t atomic_instructions = 0, atomic_wavefronts = 0;          ///< shared atomics (ATOMS)
  /// wgmma operand reads (in the totals above: Nsight Compute counts them in the shared wavefronts,
  /// as `..._op_gmma`), and TMA (not in them: no LSU wavefront).
  std::uint64_t wgmma_instructions = 0, wgmma_wavefronts = 0, wgmma_bytes = 0;
  std::uint64_t tma_load_instructions = 0, tma_load_bytes = 0, tma_load_unknown = 0;
  std::uint64_t tma_store_instructions = 0, tma_store_bytes = 0, tma_store_unknown = 0;
  std::uint64_t excess() const { return wavefronts - minimum; }
  std::vector<LineReport> lines;        ///< worst first
  std::vector<Traffic> traffic;         ///< per source line (or pc) and kind, most bytes first
};

struct UnmodelledReport {
  std::string kernel, what;
  std::uint64_t count = 0;
};

struct Report {
  std::vector<KernelReport> kernels;      ///< most excess first
  std::vector<UnmodelledReport> unmodelled;
  std::uint64_t dropped = 0;
  /// What the tracer that made the trace cannot see, and why ("" when nothing): printed as
  /// "not traced: ..." (`banklab trace` sets it when its Compute Sanitizer API has no TMA patch point).
  std::string not_traced;
};

/// Aggregates per kernel and per line, worst first (excess, then wavefronts, then name/line).
Report aggregate(const std::vector<Instruction>& instructions, const std::vector<Unmodelled>& unmodelled,
                 std::uint64_t dropped = 0);
/// The same with the traffic decode() costed: in its kernel's report, wgmma in the totals.
Report aggregate(const std::vector<Instruction>& instructions, const std::vector<Unmodelled>& unmodelled,
                 const std::vector<Traffic>& traffic, std::uint64_t dropped = 0);

/// One line of the report for a kernel's wgmma or TMA traffic at one line (or pc).
std::string traffic_text(const Traffic& traffic);

/// A hint for a line's worst instance (what to try).
std::string hint_for(const WarpAccess& worst, int wavefronts, int minimum);

/// A cp.async's source banks as the reports print them ("0 1 2 ... 31", "-" for an inactive
/// lane, "z" for a lane that read nothing: zero fill), or "" when there are none or every active
/// lane is at the bank of 16 * i (what `banklab explain` takes, so its count is the trace's).
std::string source_banks_text(const WarpAccess& access,
                              const std::optional<std::array<std::uint8_t, kWarpSize>>& banks);

/// The `banklab explain` command that draws an access, quoted to paste into a shell.
std::string explain_command(const WarpAccess& access);

/// A kernel's name as a person reads it (demangled when it is a C++ name).
std::string display_name(const std::string& mangled);

enum class Format { Text, Csv, Json, Predict };
/// The "schema" of a Format::Json report (the Python side's name: banklab.grading.schemas.TRACE_REPORT).
inline constexpr const char* kTraceReportSchema = "banklab.trace.v1";
/// Writes the report. `predict` needs the instructions (one access line per distinct one).
void write_report(std::ostream& out, Format format, const Report& report,
                  const std::vector<Instruction>& instructions);

}  // namespace banklab::trace
