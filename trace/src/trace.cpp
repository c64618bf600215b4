// The host side of banklab trace: merge, file, decode, aggregate (the report: report.cpp).
#include "banklab_trace/trace.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <istream>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "banklab/pattern_io.hpp"

namespace banklab::trace {
namespace {

constexpr char kMagic[8] = {'B', 'L', 'T', 'R', 'A', 'C', 'E', '1'};

template <class T> void put(std::ostream& out, const T& v) { out.write(reinterpret_cast<const char*>(&v), sizeof v); }
void put_string(std::ostream& out, const std::string& s) {
  put<std::uint64_t>(out, s.size());
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
}
template <class T> T get(std::istream& in, const char* what) {
  T v{};
  if (!in.read(reinterpret_cast<char*>(&v), sizeof v)) throw std::runtime_error(std::string("trace file ends inside ") + what);
  return v;
}
std::string get_string(std::istream& in, const char* what) {
  const auto n = get<std::uint64_t>(in, what);
  if (n > (1ull << 31)) throw std::runtime_error(std::string("trace file: implausible length of ") + what);
  std::string s(n, '\0');
  if (n && !in.read(&s[0], static_cast<std::streamsize>(n))) throw std::runtime_error(std::string("trace file ends inside ") + what);
  return s;
}

const char* kind_name(std::uint8_t kind) {
  switch (kind) {
    case kKindCpAsync: return "cp.async";
    case kKindLdmatrix: return "ldmatrix";
    case kKindBulkCopy: return "bulk copy (cp.async.bulk global<->shared, not .tensor)";
    case kKindRemoteShared: return "distributed shared memory";
    case kKindWgmma: return "wgmma operand";
    case kKindAsyncStore: return "st.async / red.async (distributed shared memory)";
    case kKindBulkShared: return "bulk copy / reduction from shared memory (cp.async.bulk, cp.reduce.async.bulk)";
    case kKindMemsetShared: return "shared-memory bulk memset";
    case kKindTmaLoad: return "TMA load (cp.async.bulk.tensor global -> shared)";
    case kKindTmaStore: return "TMA store (cp.async.bulk.tensor shared -> global)";
    default: return "unknown";
  }
}

}  // namespace

std::string display_name(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) { std::free(d); return mangled; }
  std::string s = d;
  std::free(d);
  return s;
}

void write_trace(std::ostream& out, const TraceData& d) {
  out.write(kMagic, sizeof kMagic);
  put<std::uint64_t>(out, d.dropped);
  put<std::uint64_t>(out, d.cubins.size());
  for (const auto& c : d.cubins) put_string(out, c);
  put<std::uint64_t>(out, d.kernels.size());
  for (const auto& k : d.kernels) {
    put_string(out, k.name);
    put(out, k.module);
    put(out, k.base_pc);
    put(out, k.launches);
  }
  put<std::uint64_t>(out, d.records.size());
  for (const auto& r : d.records) {
    put(out, r.kernel);
    put(out, r.count);
    put(out, r.record);
  }
}

TraceData read_trace(std::istream& in) {
  char magic[sizeof kMagic];
  if (!in.read(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof magic) != 0)
    throw std::runtime_error("not a banklab trace file (no BLTRACE1 header)");
  TraceData d;
  d.dropped = get<std::uint64_t>(in, "the header");
  const auto ncubins = get<std::uint64_t>(in, "the module count");
  if (ncubins > 1u << 20) throw std::runtime_error("trace file: implausible module count");
  for (std::uint64_t i = 0; i < ncubins; ++i) d.cubins.push_back(get_string(in, "a module image"));
  const auto nkernels = get<std::uint64_t>(in, "the kernel count");
  if (nkernels > 1u << 24) throw std::runtime_error("trace file: implausible kernel count");
  for (std::uint64_t i = 0; i < nkernels; ++i) {
    KernelInfo k;
    k.name = get_string(in, "a kernel name");
    k.module = get<std::uint32_t>(in, "a kernel");
    k.base_pc = get<std::uint64_t>(in, "a kernel");
    k.launches = get<std::uint64_t>(in, "a kernel");
    if (k.module >= d.cubins.size()) throw std::runtime_error("trace file: kernel " + k.name + " names a missing module");
    d.kernels.push_back(std::move(k));
  }
  const auto nrecords = get<std::uint64_t>(in, "the record count");
  if (nrecords > (1ull << 40)) throw std::runtime_error("trace file: implausible record count");
  for (std::uint64_t i = 0; i < nrecords; ++i) {
    MergedRecord r;
    r.kernel = get<std::uint32_t>(in, "a record");
    r.count = get<std::uint64_t>(in, "a record");
    r.record = get<DeviceRecord>(in, "a record");
    if (r.kernel >= d.kernels.size()) throw std::runtime_error("trace file: record of kernel " + std::to_string(r.kernel) + " which is not listed");
    d.records.push_back(r);
  }
  return d;
}

namespace {
// The source bank the model takes for lane i when a cp.async has no recorded source (and what
// `banklab explain` draws): lane i reading global address 16 * i.
std::uint8_t default_source_bank(int lane) { return static_cast<std::uint8_t>(16 * lane / 4 % kNumBanks); }

// The image a kernel's lines and SASS are read from: its own module's, or, when that has no entry
// for it (launched through another handle of the same image), the first that has one.
// needed_images() keeps every image this can choose.
template <class Image>
const Image& image_of(const std::vector<Image>& images, std::uint32_t module, const std::string& kernel) {
  if (images[module].has(kernel)) return images[module];
  for (const Image& i : images)
    if (i.has(kernel)) return i;
  return images[module];
}
}  // namespace

const char* traffic_name(TrafficKind kind) noexcept {
  switch (kind) {
    case TrafficKind::WgmmaOperands: return "wgmma operand reads";
    case TrafficKind::TmaLoad: return "TMA loads (cp.async.bulk.tensor global -> shared)";
    case TrafficKind::TmaStore: return "TMA stores (cp.async.bulk.tensor shared -> global)";
  }
  return "?";
}

Traffic& Traffic::operator+=(const Traffic& o) noexcept {
  pc = std::min(pc, o.pc);
  count += o.count;
  bytes += o.bytes;
  wavefronts += o.wavefronts;
  a_from_registers += o.a_from_registers;
  not_reading += o.not_reading;
  unknown_bytes += o.unknown_bytes;
  return *this;
}

WgmmaShare wgmma_share(const DeviceRecord& r) noexcept {
  WgmmaShare s;
  if (r.offset[kWgmmaWarpMask] == 0) return s;
  const std::uint64_t bytes = std::uint64_t{r.offset[kWgmmaSizeA]} + r.offset[kWgmmaSizeB];
  const std::uint64_t wavefronts = wgmma_operand_wavefronts(bytes);
  const std::uint64_t rank = r.reserved % 4u;
  // Rank r's share of n: floor(n (r + 1) / 4) - floor(n r / 4); the four add up to n.
  auto share = [rank](std::uint64_t n) { return n * (rank + 1) / 4 - n * rank / 4; };
  s.bytes = share(bytes);
  s.wavefronts = share(wavefronts);
  return s;
}

void decode(const TraceData& data, std::vector<Instruction>& instructions, std::vector<Unmodelled>& unmodelled) {
  std::vector<Traffic> traffic;
  decode(data, instructions, unmodelled, traffic);
  // As before the tracer costed them: listed with counts.
  std::map<std::tuple<std::string, std::uint64_t, std::string>, std::uint64_t> listed;
  for (const Traffic& t : traffic)
    listed[{t.kernel, t.pc, t.kind == TrafficKind::WgmmaOperands ? kind_name(kKindWgmma)
                            : t.kind == TrafficKind::TmaLoad   ? kind_name(kKindTmaLoad)
                                                               : kind_name(kKindTmaStore)}] += t.count;
  for (const auto& [key, count] : listed)
    unmodelled.push_back(Unmodelled{std::get<0>(key), std::get<1>(key), std::get<2>(key), count});
}

void decode(const TraceData& data, std::vector<Instruction>& instructions, std::vector<Unmodelled>& unmodelled,
            std::vector<Traffic>& traffic) {
  std::vector<LineTable> tables;
  std::vector<SassText> sass;  // the modules' instructions: which atomic a pc is
  tables.reserve(data.cubins.size());
  sass.reserve(data.cubins.size());
  for (const auto& c : data.cubins) {
    tables.push_back(LineTable::from_cubin(c.data(), c.size()));
    sass.push_back(SassText::from_cubin(c.data(), c.size()));
  }
  // Which ATOMS is the atomic at (kernel, pc)? Read once per pc from the kernel's module (or
  // another module that has the kernel, as for the lines: image_of).
  std::map<std::pair<std::uint32_t, std::uint64_t>, AtomsKind> atoms;
  auto atoms_at = [&](std::uint32_t kernel, std::uint64_t pc) {
    auto [it, fresh] = atoms.try_emplace({kernel, pc}, AtomsKind::NotAtoms);
    if (fresh) {
      const KernelInfo& k = data.kernels[kernel];
      const auto ins = image_of(sass, k.module, k.name).at(k.name, pc);
      if (ins) it->second = atoms_kind(*ins);
    }
    return it->second;
  };
  // Unmodelled instructions are counted per (kernel, pc, what).
  std::map<std::tuple<std::uint32_t, std::uint64_t, std::string>, std::uint64_t> other;
  // wgmma and TMA per (kernel, pc, kind).
  std::map<std::tuple<std::uint32_t, std::uint64_t, TrafficKind>, Traffic> moved;
  for (const MergedRecord& m : data.records) {
    const KernelInfo& k = data.kernels[m.kernel];
    const DeviceRecord& r = m.record;
    const std::uint64_t pc = r.pc >= k.base_pc ? r.pc - k.base_pc : r.pc;
    const bool wgmma = r.kind == kKindWgmma && (r.flags & kFlagWgmmaOperands);
    if (wgmma || r.kind == kKindTmaLoad || r.kind == kKindTmaStore) {
      const TrafficKind kind = wgmma ? TrafficKind::WgmmaOperands
                               : r.kind == kKindTmaLoad ? TrafficKind::TmaLoad : TrafficKind::TmaStore;
      Traffic& t = moved[{m.kernel, pc, kind}];
      t.kind = kind;
      t.count += m.count;
      if (wgmma) {
        const WgmmaShare w = wgmma_share(r);
        t.bytes += m.count * w.bytes;
        t.wavefronts += m.count * w.wavefronts;
        if (r.offset[kWgmmaSizeA] == 0) t.a_from_registers += m.count;
        if (r.offset[kWgmmaWarpMask] == 0) t.not_reading += m.count;
      } else if (r.flags & kFlagTmaBytes) {
        t.bytes += m.count * std::uint64_t{r.offset[kTmaBytes]};
        t.wavefronts += m.count * kTmaLsuWavefronts;
      } else {
        t.unknown_bytes += m.count;
      }
      continue;
    }
    Instruction ins;
    ins.kernel = k.name;
    ins.pc = pc;
    ins.count = m.count;
    ins.access.width = r.width;
    ins.access.mask = r.mask;
    if (r.kind == kKindLdmatrix) {
      // LDSM/STSM: 16-byte rows; only the first 8 x (number of matrices) lanes give addresses.
      ins.access.op = (r.flags & kFlagWrite) ? Op::StoreMatrix : Op::LoadMatrix;
      const unsigned matrices = r.reserved == 1 || r.reserved == 2 ? r.reserved : 4u;
      ins.access.mask &= matrices == 4 ? 0xffffffffu : (1u << (8 * matrices)) - 1u;
    } else if (r.kind == kKindCpAsync) {
      ins.access.op = Op::AsyncCopy;  // the shared side of LDGSTS
    } else if (r.kind != kKindAccess) {
      other[{m.kernel, pc, kind_name(r.kind)}] += m.count;
      continue;
    } else if ((r.flags & kFlagAtomic) == kFlagAtomic) {
      // The callback does not say which atomic: the instruction itself does (atom_op_of()).
      ins.access.op = atom_op_of(atoms_at(m.kernel, pc), r.width);
    } else {
      ins.access.op = (r.flags & kFlagWrite) ? Op::Store : Op::Load;
    }
    // cp.async recorded with its global side: lane i's source bank above the shared offset.
    // Older trace files have no kFlagSourceBanks: no sources (the model's 16 * i).
    const bool sources = r.kind == kKindCpAsync && (r.flags & kFlagSourceBanks);
    if (sources) ins.source_banks.emplace();
    bool below_window = false;
    for (int i = 0; i < kRecordLanes; ++i) {
      if (sources) {
        const bool known = r.offset[i] & kSourceKnownBit;
        // No source: the callback gave the lane none, which it does for a zero-filling copy.
        (*ins.source_banks)[i] = known ? static_cast<std::uint8_t>((r.offset[i] >> kSourceBankShift) & 31u) : kNoSourceBank;
      }
      if (!(ins.access.mask >> i & 1u)) { ins.access.offset[i] = 0; continue; }
      // In a cluster launch the window offset carries the CTA's rank above bit 24 (measured:
      // cuBLAS's nvjet kernels of 1x2 and 2x4 clusters); LDS/STS/LDSM/LDGSTS reach the block's
      // own shared memory, so the local offset is the low 24 bits.
      const std::uint32_t raw = r.offset[i] & (kClusterRankStride - 1u);
      if (raw < kSharedWindowReservedBytes) below_window = true;
      ins.access.offset[i] = raw - kSharedWindowReservedBytes;
    }
    if (below_window) { other[{m.kernel, pc, "invalid: offset inside the reserved first 1 KiB of the shared window"}] += m.count; continue; }
    if (auto why = validate(ins.access)) { other[{m.kernel, pc, "invalid: " + *why}] += m.count; continue; }
    const SourceLine src = image_of(tables, k.module, k.name).lookup(k.name, pc);
    ins.file = src.file;
    ins.line = src.line;
    instructions.push_back(std::move(ins));
  }
  for (const auto& [key, count] : other)
    unmodelled.push_back(Unmodelled{data.kernels[std::get<0>(key)].name, std::get<1>(key), std::get<2>(key), count});
  for (auto& [key, t] : moved) {
    const KernelInfo& k = data.kernels[std::get<0>(key)];
    t.kernel = k.name;
    t.pc = std::get<1>(key);
    const SourceLine src = image_of(tables, k.module, k.name).lookup(k.name, t.pc);
    t.file = src.file;
    t.line = src.line;
    traffic.push_back(std::move(t));
  }
}

Op atom_op_of(AtomsKind kind, int width) noexcept {
  switch (kind) {
    case AtomsKind::PopcInc: return width == 4 ? Op::AtomicIncrement : Op::Atomic;
    case AtomsKind::Cas: return Op::AtomicCas;
    case AtomsKind::CasSpin: return Op::AtomicCasLoop;
    case AtomsKind::Operation: return width == 8 ? Op::AtomicExchange : Op::Atomic;  // EXCH.64: the one 64-bit op
    case AtomsKind::NotAtoms: break;
  }
  return Op::Atomic;  // SASS not readable: a 64-bit one is taken as a CAS-loop pass (cost_of())
}

Cost cost_of(const Instruction& ins) noexcept {
  if (ins.source_banks && ins.access.op == Op::AsyncCopy) {
    // The model reads a source only as its bank, (address / 4) % 32: bank * 4 stands for it.
    std::array<std::uint64_t, kWarpSize> source{};
    for (int i = 0; i < kWarpSize; ++i)
      source[i] = (*ins.source_banks)[i] == kNoSourceBank ? kNoSource : 4u * (*ins.source_banks)[i];
    const Summary s = summarize_async_copy(ins.access, source);
    return Cost{s.wavefronts, s.minimum};
  }
  return cost_of(ins.access);
}

Cost cost_of(const WarpAccess& access) noexcept {
  // A compare-and-swap loop (a 64-bit add/min/max/..., a float or double add) on sm_90: each pass
  // is its own executed ATOMS.CAST.SPIN, recorded with the lanes that ran it, so a record costs
  // one pass (the model's `atomloop` and `atom 8` are the whole loop).
  if (is_cas_loop(access)) {
    const int w = cas_pass_wavefronts(access.mask, access.width);
    return Cost{w, w};
  }
  // The one call into the model: wavefronts and minimum in one pass.
  const Summary s = summarize(access);
  return Cost{s.wavefronts, s.minimum};
}

std::string hint_for(const WarpAccess& a, int wavefronts, int minimum) {
  if (wavefronts <= minimum) return "at the minimum: nothing to gain";
  const int ways = minimum > 0 ? (wavefronts + minimum - 1) / minimum : wavefronts;
  std::string s = std::to_string(ways) + "-way: lanes ask one bank for different words. ";
  if (a.op == Op::LoadMatrix || a.op == Op::StoreMatrix)
    return s + "Each 8x8 matrix is 8 rows of 16 bytes served together: place the 8 row addresses of a matrix "
               "in 8 different 16-byte bank groups, e.g. XOR the row's 16-byte chunk index with (row % 8) "
               "(CuTe's Swizzle<3,4,3>), or pad each row by 16 bytes.";
  if (a.op == Op::AtomicIncrement)
    return s + "An atomic increment with its result unused is served like a 32-bit store: lanes at one word "
               "share it, lanes at other words of one bank conflict. Give each lane's counter its own bank "
               "(pad or swizzle the counters).";
  if (a.op == Op::AtomicCasLoop)
    return s + "This atomic is a compare-and-swap loop on sm_90 (a float or 64-bit add/min/max/and/or/xor): each "
               "pass serves one lane per bank, and every lane at one word takes its own pass. Give each lane its "
               "own bank, or reduce within the warp first (__reduce_add_sync, __shfl_xor_sync) and let one lane "
               "per word do the atomic.";
  if (a.op == Op::Atomic || a.op == Op::AtomicCas || a.op == Op::AtomicExchange)
    return s + "Shared atomics serve every lane apart: lanes at the same word are serialised too. Aggregate "
               "within the warp first (__reduce_add_sync / __match_any_sync) or give each warp its own copy "
               "of the counters.";
  if (a.op == Op::AsyncCopy)
    return s + "cp.async writes shared memory lane by lane in lane order, each lane apart, 128 bytes of lanes "
               "at a time, and a lane also waits for an earlier lane of its group that reads global words in "
               "one of its banks ((address / 4) % 32): the lanes of each group (8 for 16-byte copies) should "
               "write different banks (swizzle the destination chunks) and read consecutive global words.";
  if (a.width <= 4)
    s += "If the lanes walk a column of a 2-D tile, pad each row by one element (tile[N][N+1]) "
         "or XOR-swizzle the column index so consecutive lanes land in different banks.";
  else
    s += "For " + std::to_string(a.width) + "-byte accesses each group of " +
         std::string(a.width == 8 ? "16" : "8") +
         " lanes should cover distinct banks: make the stride between lanes the access width, "
         "or swizzle 16-byte chunks (Swizzle<3,4,3>).";
  return s;
}

std::string source_banks_text(const WarpAccess& access,
                              const std::optional<std::array<std::uint8_t, kWarpSize>>& banks) {
  if (!banks || access.op != Op::AsyncCopy) return "";
  bool as_explain = true;  // every active lane at the bank of 16 * i, as explain takes it
  for (int i = 0; i < kWarpSize; ++i)
    if ((access.mask >> i & 1u) && (*banks)[i] != default_source_bank(i)) as_explain = false;
  if (as_explain) return "";
  std::string s;
  for (int i = 0; i < kWarpSize; ++i) {
    if (i) s += ' ';
    s += !(access.mask >> i & 1u) ? std::string("-") : (*banks)[i] == kNoSourceBank ? std::string("z") : std::to_string((*banks)[i]);
  }
  return s;
}

std::string explain_command(const WarpAccess& access) {
  return "banklab explain --line \"" + format_access_line(access) + "\"";
}

Report aggregate(const std::vector<Instruction>& instructions, const std::vector<Unmodelled>& unmodelled,
                 std::uint64_t dropped) {
  return aggregate(instructions, unmodelled, {}, dropped);
}

Report aggregate(const std::vector<Instruction>& instructions, const std::vector<Unmodelled>& unmodelled,
                 const std::vector<Traffic>& traffic, std::uint64_t dropped) {
  Report rep;
  rep.dropped = dropped;
  std::map<std::string, KernelReport> kernels;
  std::map<std::tuple<std::string, std::string, int, std::uint64_t>, LineReport> lines;
  std::map<std::tuple<std::string, std::string, int, std::uint64_t>, long long> worst_excess;
  for (const Instruction& ins : instructions) {
    const Cost c = cost_of(ins);
    // Instructions with a line share a row per line; without one, a row per pc.
    const auto key = std::make_tuple(ins.kernel, ins.file, ins.line, ins.line > 0 ? 0 : ins.pc);
    auto [it, fresh] = lines.try_emplace(key);
    LineReport& l = it->second;
    if (fresh) { l.kernel = ins.kernel; l.file = ins.file; l.line = ins.line; l.pc = ins.pc; }
    l.pc = std::min(l.pc, ins.pc);
    l.warp_instructions += ins.count;
    l.wavefronts += ins.count * std::uint64_t(c.wavefronts);
    l.minimum += ins.count * std::uint64_t(c.minimum);
    const long long ex = c.wavefronts - c.minimum;
    auto [w, first] = worst_excess.try_emplace(key, -1);
    // Worst = most excess, then most wavefronts, then the smallest access (so the choice does
    // not depend on the order the GPU produced the records in).
    auto smaller = [](const WarpAccess& a, const auto& a_src, const WarpAccess& b, const auto& b_src) {
      return std::tie(a.op, a.width, a.mask, a.offset, a_src) < std::tie(b.op, b.width, b.mask, b.offset, b_src);
    };
    if (first || ex > w->second || (ex == w->second && c.wavefronts > l.worst_wavefronts) ||
        (ex == w->second && c.wavefronts == l.worst_wavefronts &&
         smaller(ins.access, ins.source_banks, l.worst, l.worst_source_banks))) {
      w->second = ex;
      l.worst = ins.access;
      l.worst_source_banks = ins.source_banks;
      l.worst_wavefronts = c.wavefronts;
      l.worst_minimum = c.minimum;
    }
    KernelReport& k = kernels[ins.kernel];
    k.kernel = ins.kernel;
    k.warp_instructions += ins.count;
    k.wavefronts += ins.count * std::uint64_t(c.wavefronts);
    k.minimum += ins.count * std::uint64_t(c.minimum);
    // Split as Nsight Compute counts: LDSM with the loads, STSM with the stores, ATOMS and
    // LDGSTS apart.
    const std::uint64_t wf = ins.count * std::uint64_t(c.wavefronts);
    switch (ins.access.op) {
      case Op::Load:
      case Op::LoadMatrix: k.load_instructions += ins.count; k.load_wavefronts += wf; break;
      case Op::Store:
      case Op::StoreMatrix: k.store_instructions += ins.count; k.store_wavefronts += wf; break;
      case Op::AsyncCopy: k.async_copy_instructions += ins.count; k.async_copy_wavefronts += wf; break;
      case Op::Atomic:
      case Op::AtomicIncrement:
      case Op::AtomicCas:
      case Op::AtomicExchange:
      case Op::AtomicCasLoop: k.atomic_instructions += ins.count; k.atomic_wavefronts += wf; break;
    }
  }
  for (auto& [key, l] : lines) {
    l.hint = hint_for(l.worst, l.worst_wavefronts, l.worst_minimum);
    kernels[l.kernel].lines.push_back(std::move(l));
  }
  // wgmma and TMA: per kernel, and per (line or pc, kind). wgmma's reads are in the kernel's
  // totals at the minimum (no conflicts: measured); TMA moves no LSU wavefront.
  std::map<std::tuple<std::string, std::string, int, std::uint64_t, TrafficKind>, Traffic> by_line;
  for (const Traffic& t : traffic) {
    KernelReport& k = kernels[t.kernel];
    k.kernel = t.kernel;
    switch (t.kind) {
      case TrafficKind::WgmmaOperands:
        k.wgmma_instructions += t.count;
        k.wgmma_wavefronts += t.wavefronts;
        k.wgmma_bytes += t.bytes;
        k.warp_instructions += t.count;
        k.wavefronts += t.wavefronts;
        k.minimum += t.wavefronts;
        break;
      case TrafficKind::TmaLoad:
        k.tma_load_instructions += t.count;
        k.tma_load_bytes += t.bytes;
        k.tma_load_unknown += t.unknown_bytes;
        break;
      case TrafficKind::TmaStore:
        k.tma_store_instructions += t.count;
        k.tma_store_bytes += t.bytes;
        k.tma_store_unknown += t.unknown_bytes;
        break;
    }
    const auto key = std::make_tuple(t.kernel, t.file, t.line, t.line > 0 ? 0 : t.pc, t.kind);
    auto [it, fresh] = by_line.try_emplace(key, t);
    if (!fresh) it->second += t;
  }
  for (auto& [key, t] : by_line) kernels[t.kernel].traffic.push_back(std::move(t));
  for (auto& [name, k] : kernels) {
    std::sort(k.lines.begin(), k.lines.end(), [](const LineReport& a, const LineReport& b) {
      if (a.excess() != b.excess()) return a.excess() > b.excess();
      if (a.wavefronts != b.wavefronts) return a.wavefronts > b.wavefronts;
      if (a.file != b.file) return a.file < b.file;
      if (a.line != b.line) return a.line < b.line;
      return a.pc < b.pc;
    });
    std::stable_sort(k.traffic.begin(), k.traffic.end(), [](const Traffic& a, const Traffic& b) {
      return std::tie(b.bytes, b.count) < std::tie(a.bytes, a.count);
    });
    rep.kernels.push_back(std::move(k));
  }
  std::stable_sort(rep.kernels.begin(), rep.kernels.end(), [](const KernelReport& a, const KernelReport& b) {
    if (a.excess() != b.excess()) return a.excess() > b.excess();
    return a.wavefronts > b.wavefronts;
  });
  std::map<std::pair<std::string, std::string>, std::uint64_t> un;
  for (const Unmodelled& u : unmodelled) un[{u.kernel, u.what}] += u.count;
  for (const auto& [key, count] : un) rep.unmodelled.push_back(UnmodelledReport{key.first, key.second, count});
  return rep;
}

std::vector<bool> needed_images(const std::vector<std::string>& cubins, const std::vector<KernelInfo>& kernels,
                                const std::vector<MergedRecord>& records) {
  // decode() looks a kernel up in its own module's image and, when that has no line rows for it,
  // in every image that has them, first in load order: keep what that lookup can reach.
  std::vector<bool> keep(cubins.size(), false);
  std::vector<bool> recorded(kernels.size(), false);
  for (const MergedRecord& r : records)
    if (r.kernel < kernels.size()) recorded[r.kernel] = true;
  std::vector<std::unique_ptr<LineTable>> tables(cubins.size());
  auto table = [&](std::size_t m) -> const LineTable& {
    if (!tables[m]) tables[m] = std::make_unique<LineTable>(LineTable::from_cubin(cubins[m].data(), cubins[m].size()));
    return *tables[m];
  };
  // decode() looks its SASS words (which atomic a pc is) up the same way: keep those images too.
  std::vector<std::unique_ptr<SassText>> sass(cubins.size());
  auto sass_of = [&](std::size_t m) -> const SassText& {
    if (!sass[m]) sass[m] = std::make_unique<SassText>(SassText::from_cubin(cubins[m].data(), cubins[m].size()));
    return *sass[m];
  };
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (!recorded[i]) continue;
    const KernelInfo& k = kernels[i];
    if (k.module >= cubins.size() || cubins[k.module].empty()) return std::vector<bool>(cubins.size(), true);
    keep[k.module] = true;
    const bool lines_here = table(k.module).has(k.name), sass_here = sass_of(k.module).has(k.name);
    if (lines_here && sass_here) continue;
    for (std::size_t m = 0; m < cubins.size(); ++m)
      if (!keep[m] && ((!lines_here && table(m).has(k.name)) || (!sass_here && sass_of(m).has(k.name)))) keep[m] = true;
  }
  return keep;
}

}  // namespace banklab::trace
