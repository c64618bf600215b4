/// @file emulator.hpp
/// @brief The GPU tier without a GPU: a PTX kernel (ptx.hpp) run warp by warp on the CPU, each
///        warp's 32 lanes in lockstep with an active mask, divergent branches reconverging at
///        their immediate post-dominators (a SIMT stack), several warps per block and several
///        blocks; global memory (Device), each block's shared memory, params.
///
/// Every shared-memory warp instruction is recorded as the hardware tracer records it
/// (banklab_trace/format.hpp's DeviceRecord: pc, active mask, width, read/write, each lane's
/// shared-window offset, the first 1 KiB reserved as on sm_90) and merged by the tracer's own
/// Merger; EmuTrace gives them back as trace::Instruction (what the judge's traced check reads,
/// through the tracer's decode()) or as a TraceData (what `banklab trace` writes and reads).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "banklab_emu/ptx.hpp"
#include "banklab_trace/trace.hpp"

namespace banklab::emu {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  unsigned long long count() const { return 1ull * x * y * z; }
};

/// Emulated global memory: allocations at addresses of their own, every access checked.
class Device {
 public:
  /// Addresses from 0x7f0000000000 on, no cap on the bytes (the emulator's own tests).
  Device() = default;
  /// Addresses inside [base, base + span) only (the shim reserves that range of its process's
  /// address space with mmap(PROT_NONE), so no host pointer is ever a device address), and at
  /// most `max_bytes` allocated at a time.
  Device(std::uint64_t base, std::uint64_t span, std::uint64_t max_bytes)
      : next_(base), end_(base + span), max_bytes_(max_bytes) {}
  /// A fresh allocation of `bytes` (zeroed), 256-byte aligned, never at 0; 0 when the range or the
  /// cap on bytes has no room for it.
  std::uint64_t alloc(std::size_t bytes);
  /// Whether `address` lies in the range this device hands out (allocated or not).
  bool owns(std::uint64_t address) const { return address >= first_ && address < end_; }
  /// Bytes allocated now.
  std::uint64_t bytes_in_use() const { return in_use_; }
  void free(std::uint64_t address);
  /// Copies in / out; throws std::out_of_range outside an allocation.
  void write(std::uint64_t address, const void* data, std::size_t bytes);
  void read(std::uint64_t address, void* data, std::size_t bytes) const;
  /// The bytes at [address, address + bytes) when they are inside one allocation, else nullptr.
  unsigned char* at(std::uint64_t address, std::size_t bytes);
  /// The address of variable `index` of `module` (a `.global`/`.const` variable): allocated and
  /// set to `init` the first time, the same allocation every launch after (as a module's
  /// variables keep their values between launches on the GPU). `module` names one loaded copy of
  /// the module (LaunchConfig::module_instance): a module loaded again has variables of its own.
  std::uint64_t variable(const void* module, int index, std::size_t bytes, const std::vector<unsigned char>& init);
  /// Frees the variables of a loaded copy of a module (it is unloaded: a copy loaded later, even at
  /// the same handle, starts from the initial values, as a module loaded afresh on a GPU does).
  void release_variables(const void* module);

 private:
  std::map<std::uint64_t, std::vector<unsigned char>> allocations_;  // by start address
  std::uint64_t next_ = 0x7f0000000000ull;
  std::map<std::pair<const void*, int>, std::uint64_t> variables_;
  std::uint64_t first_ = next_, end_ = ~0ull, max_bytes_ = ~0ull, in_use_ = 0;
  mutable const std::pair<const std::uint64_t, std::vector<unsigned char>>* last_ = nullptr;
};

/// The shared-memory records of the launches it watched, in the tracer's format.
class EmuTrace {
 public:
  /// Adds one warp instruction (called by the executor).
  void record(const Kernel& kernel, int pc, const trace::DeviceRecord& rec);
  /// The distinct warp instructions since the last take, as the judge's Session gives them
  /// (trace::decode() on the records: offsets minus the reserved window; file and line from the
  /// PTX's .loc). Inactive lanes' offsets 0.
  std::vector<trace::Instruction> take_instructions();
  std::vector<trace::Unmodelled> take_unmodelled() { return std::move(unmodelled_); }
  /// The same records as a trace file's content (pcs are PTX instruction index x 16).
  trace::TraceData take_data();
  /// Warp instructions recorded so far (not merged).
  std::uint64_t recorded() const { return recorded_; }
  /// Forgets the records so far (trace::Session::clear(), which the judge calls before its traced launch).
  void clear() { (void)take_data(); unmodelled_.clear(); }
  /// Warp instructions not recorded: none (trace::Session::dropped(): its device buffer can fill; this never drops).
  std::uint64_t dropped() const { return 0; }
  /// Whether TMA copies (cp.async.bulk.tensor: kKindTmaLoad, kKindTmaStore) are recorded (default:
  /// yes, as the tracer records them where its Compute Sanitizer API has TMA patch points). The
  /// judge's emulated Session turns them off: the API the course's H200 runs has none, so the
  /// GPU's traced check never sees a TMA copy (docs/perf/trace_cublas_hopper.md; emu/shim/src/session.cpp).
  void set_records_tma(bool on) { records_tma_ = on; }

 private:
  std::uint32_t kernel_index(const Kernel& k);
  trace::Merger merger_;
  std::vector<trace::KernelInfo> kernels_;
  std::vector<const Kernel*> kernel_code_;
  std::map<std::pair<std::uint32_t, std::uint64_t>, trace::SourceLine> lines_;
  std::map<int, std::string> files_;
  std::vector<trace::Unmodelled> unmodelled_;
  std::map<std::pair<std::uint32_t, std::uint64_t>, trace::AtomsKind> atoms_;  ///< (kernel, pc): which ATOMS an atomic is
  std::uint64_t recorded_ = 0;
  bool records_tma_ = true;

 public:
  /// The module's .file table, for the records' source files.
  void set_files(const std::map<int, std::string>& files) { files_ = files; }
};

struct LaunchConfig {
  Dim3 grid, block;
  std::uint32_t dynamic_shared_bytes = 0;
  /// The launch ends, failed, after this many warp instructions ("ran more than N warp instructions").
  std::uint64_t max_warp_instructions = 200'000'000;
  /// Which loaded copy of the module runs (its .global/.const variables are that copy's:
  /// Device::variable()); nullptr: the Module itself, one copy for as long as it lives.
  const void* module_instance = nullptr;
};

struct LaunchResult {
  enum class Status {
    Ok,
    NotJudged,    ///< an instruction the emulator does not know: the tests it would judge are "not judged"
    Fault,        ///< what is an error on the GPU too: an access outside memory, a misaligned address
    RanTooLong,   ///< more warp instructions than the limit
  };
  Status status = Status::Ok;
  std::string message;                 ///< "" when Ok
  std::uint64_t warp_instructions = 0;
  std::uint64_t lane_instructions = 0; ///< active lanes summed over the warp instructions
  bool ok() const { return status == Status::Ok; }
};

/// Packs a launch's arguments as cudaLaunchKernel gets them (one pointer per param) into the
/// kernel's param space, by the params' sizes and offsets.
std::vector<unsigned char> pack_params(const Kernel& kernel, void* const* args);

/// Runs `kernel` over the grid. `params`: the param space (pack_params()); `trace`: where the
/// shared-memory records go (nullptr: none).
LaunchResult launch(const Module& module, const Kernel& kernel, const LaunchConfig& config,
                    const std::vector<unsigned char>& params, Device& device, EmuTrace* trace);

}  // namespace banklab::emu
