// libbanklab_trace_inject.so: the host side of the tracer inside the traced process.
//
// Loaded by the CUDA driver through CUDA_INJECTION64_PATH (InitializeInjection), or by
// banklab::trace::Session in process (banklab_trace_attach). It keeps each module's image as it
// loads, patches every shared-memory instruction of a module at the first launch of one of its
// kernels (a module a program loads but never launches from is never patched), gives each
// launch a device buffer, and after each launch copies the warp records back (through a 16 MiB
// pinned staging buffer) and merges identical ones. With BANKLAB_TRACE_OUT set it writes the
// binary trace file at exit, for `banklab trace`, with the module images the recorded kernels'
// lines come from. BANKLAB_TRACE_STATS=1 prints where the tracer's own time went (stderr, at exit).
#include <dlfcn.h>
#include <sanitizer.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "banklab_trace/trace.hpp"
#include "drain.hpp"
#include "inject_options.hpp"
#include "inject_stats.hpp"
#include "inject_tma.hpp"

namespace {

using banklab::trace::DeviceBuffer;
using banklab::trace::DeviceRecord;
using banklab::trace::stats;
using banklab::trace::Timer;
using banklab::trace::DeviceMode;
using banklab::trace::inject_options;
using banklab::trace::MergeEntry;

struct ContextState {
  DeviceBuffer* dev_header = nullptr;   // device
  DeviceRecord* dev_records = nullptr;  // device
  DeviceBuffer* host_header = nullptr;  // pinned host
  DeviceRecord* host_records = nullptr; // pinned host staging, host_capacity records (made at first use)
  std::uint64_t capacity = 0;            // device records
  std::uint64_t host_capacity = 0;
  DeviceRecord* ring = nullptr;          // pinned host: the overflow ring (format.hpp), ring_capacity records
  unsigned long long *ring_ready = nullptr, *ring_drained = nullptr;
  std::uint64_t ring_capacity = 0;
  MergeEntry* merge_entries = nullptr;   // device: the table of distinct records (nullptr: not merging)
  unsigned* merge_slots = nullptr;
  std::uint64_t merge_capacity = 0, merge_slots_n = 0;
  bool patches_loaded = false;
  bool failed = false;
};

struct State {
  std::recursive_mutex mu;  // the sanitizer calls we make inside callbacks may call back
  bool attached = false;
  std::string error;
  Sanitizer_SubscriberHandle subscriber{};
  std::string patch_path;
  std::unordered_map<CUcontext, ContextState> contexts;
  std::unordered_map<CUmodule, std::uint32_t> module_index;  // loaded module -> cubins index
  std::unordered_set<CUmodule> patched;  // loaded modules only: a handle comes back for another module
  std::vector<std::string> cubins;
  std::map<std::pair<std::uint32_t, std::string>, std::uint32_t> kernel_index;
  std::vector<banklab::trace::KernelInfo> kernels;
  banklab::trace::Merger merger;
  std::uint64_t dropped = 0;
  std::uint64_t traced = 0;  // warp instructions copied back
  // The tensor maps cuTensorMapEncodeTiled made in this process (its 128 output bytes -> the box),
  // for the TMA records (format.hpp, kFlagTensorMap).
  struct TmaBox { std::uint32_t bytes = 0, swizzle = 0, element = 0, rank = 0; };
  std::map<std::array<std::uint32_t, 32>, TmaBox> tensor_maps;
};

State& state() {
  static State* s = new State;  // never destroyed: callbacks may run during exit
  return *s;
}

void note_error(const std::string& what, SanitizerResult r) {
  const char* str = nullptr;
  sanitizerGetResultString(r, &str);
  std::fprintf(stderr, "banklab trace: %s failed: %s\n", what.c_str(), str ? str : "unknown error");
  if (state().error.empty()) state().error = what + ": " + (str ? str : "unknown error");
}

#define BL_CHECK(call)                                   \
  do {                                                   \
    const SanitizerResult r_ = (call);                   \
    if (r_ != SANITIZER_SUCCESS) { note_error(#call, r_); return; } \
  } while (0)

std::string library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_dir), &info) && info.dli_fname) {
    std::string p = info.dli_fname;
    const auto slash = p.rfind('/');
    return slash == std::string::npos ? std::string(".") : p.substr(0, slash);
  }
  return ".";
}

ContextState* context_state(CUcontext ctx) {
  State& s = state();
  ContextState& c = s.contexts[ctx];
  if (c.failed) return nullptr;
  if (c.dev_header) return &c;
  c.capacity = inject_options().buffer_records;
  auto fail = [&](const char* what, SanitizerResult r) { note_error(what, r); c.failed = true; return nullptr; };
  SanitizerResult r;
  if ((r = sanitizerAlloc(ctx, reinterpret_cast<void**>(&c.dev_header), sizeof(DeviceBuffer))) != SANITIZER_SUCCESS)
    return fail("sanitizerAlloc(header)", r);
  if ((r = sanitizerAlloc(ctx, reinterpret_cast<void**>(&c.dev_records), c.capacity * sizeof(DeviceRecord))) != SANITIZER_SUCCESS)
    return fail("sanitizerAlloc(records)", r);
  if ((r = sanitizerAllocHost(ctx, reinterpret_cast<void**>(&c.host_header), sizeof(DeviceBuffer))) != SANITIZER_SUCCESS)
    return fail("sanitizerAllocHost(header)", r);
  // The overflow ring (8 MiB: 58,254 records; pinned host memory the device writes directly).
  const std::uint64_t ring = (std::uint64_t{8} << 20) / sizeof(DeviceRecord);
  if (sanitizerAllocHost(ctx, reinterpret_cast<void**>(&c.ring), ring * sizeof(DeviceRecord)) == SANITIZER_SUCCESS &&
      sanitizerAllocHost(ctx, reinterpret_cast<void**>(&c.ring_ready), ring * sizeof(unsigned long long)) == SANITIZER_SUCCESS &&
      sanitizerAllocHost(ctx, reinterpret_cast<void**>(&c.ring_drained), sizeof(unsigned long long)) == SANITIZER_SUCCESS)
    c.ring_capacity = ring;
  else
    c.ring = nullptr;  // records past the device buffer are then counted as dropped
  // The table of distinct records (BANKLAB_TRACE_MERGE); without it every record is appended.
  if (inject_options().merge) {
    const std::uint64_t n = inject_options().merge_entries, slots = banklab::trace::merge_slot_count(n);
    if (sanitizerAlloc(ctx, reinterpret_cast<void**>(&c.merge_entries), n * sizeof(MergeEntry)) == SANITIZER_SUCCESS &&
        sanitizerAlloc(ctx, reinterpret_cast<void**>(&c.merge_slots), slots * sizeof(unsigned)) == SANITIZER_SUCCESS) {
      c.merge_capacity = n;
      c.merge_slots_n = slots;
    } else {
      c.merge_slots = nullptr;
    }
  }
  return &c;  // the pinned staging buffer is made by staging(), at the first launch that records
}

// The pinned host buffer the records come back through, in pieces of at most 16 MiB: pinning
// the device buffer's full size (256 MiB by default) cost about 0.18 s per process on the H200,
// more than everything else the tracer does on a small program (docs/perf/trace_vs_ncu.md).
DeviceRecord* staging(CUcontext ctx, ContextState& c) {
  if (c.host_records) return c.host_records;
  const std::uint64_t want = std::min<std::uint64_t>(c.capacity, (std::uint64_t{16} << 20) / sizeof(DeviceRecord));
  const SanitizerResult r = sanitizerAllocHost(ctx, reinterpret_cast<void**>(&c.host_records), want * sizeof(DeviceRecord));
  if (r != SANITIZER_SUCCESS) { note_error("sanitizerAllocHost(records)", r); c.host_records = nullptr; return nullptr; }
  c.host_capacity = want;
  return c.host_records;
}

bool debug();

// The instruction classes patched, each with its device callback (patch.cu), one row a class. The
// first must patch (plain shared-memory loads and stores: what the model costs); the others are
// patched where the GPU has them (a module without the class is no error).
struct PatchPoint {
  Sanitizer_InstructionId id;
  const char* callback;
  const char* callback_without_tma_map = nullptr;  ///< BANKLAB_TRACE_TMA_MAP=0: count only
};
constexpr PatchPoint kPatchPoints[] = {
    {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "banklab_shared_access"},
    // Not modelled, but counted so the report can say what it left out.
    {SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "banklab_cp_async"},
    {SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS, "banklab_matrix_access"},
    {SANITIZER_INSTRUCTION_REMOTE_SHARED_MEMORY_ACCESS, "banklab_remote_shared"},
    {SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, "banklab_bulk_g2s"},
    {SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_GLOBAL, "banklab_bulk_s2g"},
    {SANITIZER_INSTRUCTION_WARPGROUP_MMA_ASYNC, "banklab_wgmma"},
    // Every other instruction class that touches shared memory: listed with counts.
    {SANITIZER_INSTRUCTION_ASYNC_STORE, "banklab_async_store"},
    {SANITIZER_INSTRUCTION_ASYNC_REDUCTION, "banklab_async_reduction"},
    {SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_SHARED, "banklab_bulk_s2s"},
    {SANITIZER_INSTRUCTION_BULK_REDUCTION_SHARED_TO_SHARED, "banklab_bulk_s2s"},
    {SANITIZER_INSTRUCTION_BULK_REDUCTION_SHARED_TO_GLOBAL, "banklab_bulk_red_s2g"},
    {SANITIZER_INSTRUCTION_MEMSET_SHARED, "banklab_memset_shared"},
#if BANKLAB_SANITIZER_HAS_TMA
    // TMA (cp.async.bulk.tensor): counted, and a load's box found from its tensor map
    // (BANKLAB_TRACE_TMA_MAP=0: counted only, the patch reads no tensor map).
    {SANITIZER_INSTRUCTION_TMA_LOAD, "banklab_tma_load", "banklab_tma_load_count"},
    {SANITIZER_INSTRUCTION_TMA_STORE, "banklab_tma_store"},
#endif
};

// The callback a row patches in: BANKLAB_TRACE_DEVICE=empty|count gives the same instructions a
// diagnostic callback (patch.cu: NAME_empty, NAME_counting).
std::string patch_callback(const PatchPoint& p, DeviceMode mode, bool tma_map) {
  const std::string name = !tma_map && p.callback_without_tma_map ? p.callback_without_tma_map : p.callback;
  if (mode == DeviceMode::Record) return name;
  return name + (mode == DeviceMode::Empty ? "_empty" : "_counting");
}

// Patches `module` for context `ctx` (once per module): our device callbacks in front of every
// shared-memory instruction. The context's copy of the patches is loaded first.
bool patch_module(CUcontext ctx, CUmodule module) {
  State& s = state();
  if (ctx == nullptr || module == nullptr) return false;
  if (s.patched.count(module)) return true;
  Timer t(stats().patch);
  ContextState& c = s.contexts[ctx];
  if (!c.patches_loaded) {
    Timer tf(stats().patch_file);
    const SanitizerResult r = sanitizerAddPatchesFromFile(s.patch_path.c_str(), ctx);
    if (r != SANITIZER_SUCCESS) { note_error("sanitizerAddPatchesFromFile", r); return false; }
    c.patches_loaded = true;
  }
  const DeviceMode mode = inject_options().mode;
  const char* map_env = std::getenv("BANKLAB_TRACE_TMA_MAP");
  const bool tma_map = !(map_env && std::strcmp(map_env, "0") == 0);
  for (const PatchPoint& p : kPatchPoints) {
    const SanitizerResult r = sanitizerPatchInstructions(p.id, module, patch_callback(p, mode, tma_map).c_str());
    if (p.id == SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS && r != SANITIZER_SUCCESS) {
      note_error("sanitizerPatchInstructions(shared access)", r);
      return false;
    }
  }
  SanitizerResult r = sanitizerPatchModule(module);
  if (r != SANITIZER_SUCCESS) { note_error("sanitizerPatchModule", r); return false; }
  s.patched.insert(module);
  stats().patched++;
  return true;
}

void on_module_loaded(const Sanitizer_ResourceModuleData* d) {
  State& s = state();
  Timer t(stats().module_loaded);
  stats().modules++;
  stats().module_bytes += d->cubinSize;
  if (debug())
    std::fprintf(stderr, "banklab trace: module %p loaded in context %p (library %p, %zu bytes)\n",
                 static_cast<void*>(d->module), static_cast<void*>(d->context), static_cast<void*>(d->library),
                 d->cubinSize);
  if (d->pCubin && d->cubinSize && !s.module_index.count(d->module)) {
    s.module_index[d->module] = static_cast<std::uint32_t>(s.cubins.size());
    s.cubins.emplace_back(d->pCubin, d->cubinSize);
  }
  // A module is patched at the first launch of one of its kernels (on_launch_begin), in the
  // launch's context: a large library loads many modules a program never launches from.
}

// TMA records carry the 128 bytes of their tensor map: replaced by the box the map describes
// when cuTensorMapEncodeTiled made it in this process (format.hpp), so that records merge.
void resolve_tma(DeviceRecord* records, std::uint64_t n) {
  State& s = state();
  for (std::uint64_t i = 0; i < n; ++i) {
    DeviceRecord& r = records[i];
    if (r.kind != banklab::trace::kKindTmaLoad || !(r.flags & banklab::trace::kFlagTensorMap)) continue;
    std::array<std::uint32_t, 32> image;
    std::memcpy(image.data(), r.offset, sizeof image);
    std::fill(std::begin(r.offset), std::end(r.offset), 0u);
    const auto it = s.tensor_maps.find(image);
    if (it == s.tensor_maps.end()) {
      r.flags = banklab::trace::kFlagTmaUnknownMap;
      continue;
    }
    r.flags = banklab::trace::kFlagTmaBytes;
    r.offset[banklab::trace::kTmaBytes] = it->second.bytes;
    r.offset[banklab::trace::kTmaSwizzle] = it->second.swizzle;
    r.offset[banklab::trace::kTmaElementBytes] = it->second.element;
    r.offset[banklab::trace::kTmaRank] = it->second.rank;
  }
}

#if BANKLAB_SANITIZER_HAS_TMA
// The exit of a successful cuTensorMapEncodeTiled: its output bytes and the box they describe.
void on_encode_tiled(const Sanitizer_CallbackData* d) {
  if (!d->functionParams || !d->functionReturnValue || *static_cast<const CUresult*>(d->functionReturnValue) != CUDA_SUCCESS) return;
  const auto* p = static_cast<const banklab::trace::EncodeTiledParams*>(d->functionParams);
  if (!p->tensorMap || !p->boxDim || p->tensorRank == 0 || p->tensorRank > 5) return;
  State::TmaBox box;
  box.element = banklab::trace::element_bytes(p->tensorDataType);
  box.swizzle = static_cast<std::uint32_t>(p->swizzle);
  box.rank = p->tensorRank;
  std::uint64_t elements = 1;
  for (cuuint32_t i = 0; i < p->tensorRank; ++i) {
    const std::uint32_t stride = p->elementStrides && p->elementStrides[i] ? p->elementStrides[i] : 1;
    elements *= (p->boxDim[i] + stride - 1) / stride;
  }
  box.bytes = static_cast<std::uint32_t>(elements * box.element);
  std::array<std::uint32_t, 32> image;
  static_assert(sizeof(CUtensorMap) == sizeof(image), "a CUtensorMap is 128 bytes");
  std::memcpy(image.data(), p->tensorMap, sizeof image);
  state().tensor_maps[image] = box;
  if (debug()) std::fprintf(stderr, "banklab trace: tensor map encoded: rank %u, box %u bytes, swizzle %u\n",
                            box.rank, box.bytes, box.swizzle);
}
#endif

// The launch being traced (launches are serialised: each one is synchronised at its end).
struct Pending { ContextState* ctx = nullptr; std::uint32_t kernel = 0; };
Pending g_pending;

void on_launch_begin(const Sanitizer_LaunchData* d) {
  State& s = state();
  g_pending = Pending{};
  ContextState* c;
  {
    Timer tc(stats().context);
    c = context_state(d->context);
  }
  if (!c) return;
  if (debug())
    std::fprintf(stderr, "banklab trace: launch of %s (module %p, context %p)\n", d->functionName ? d->functionName : "?",
                 static_cast<void*>(d->module), static_cast<void*>(d->context));
  if (!patch_module(d->context, d->module)) return;
  Timer t(stats().launch_begin);
  stats().launches++;
  auto mod = s.module_index.find(d->module);
  std::uint32_t module;
  if (mod == s.module_index.end()) {  // loaded before we attached, or no image: no lines
    module = static_cast<std::uint32_t>(s.cubins.size());
    s.module_index[d->module] = module;
    s.cubins.emplace_back();
  } else {
    module = mod->second;
  }
  const std::string name = d->functionName ? d->functionName : "?";
  auto [it, fresh] = s.kernel_index.try_emplace({module, name}, static_cast<std::uint32_t>(s.kernels.size()));
  if (fresh) {
    banklab::trace::KernelInfo k;
    k.name = name;
    k.module = module;
    std::uint64_t pc = 0, size = 0;
    if (sanitizerGetFunctionPcAndSize(d->module, name.c_str(), &pc, &size) == SANITIZER_SUCCESS) k.base_pc = pc;
    s.kernels.push_back(k);
  }
  s.kernels[it->second].launches++;
  // The diagnostics (BANKLAB_TRACE_DEVICE) record nothing: no ring to drain, no table.
  const bool recording = inject_options().mode == DeviceMode::Record;
  DeviceRecord* ring = recording ? c->ring : nullptr;
  unsigned* slots = recording ? c->merge_slots : nullptr;
  *c->host_header = DeviceBuffer{0,         c->capacity,         c->dev_records,    ring,
                                 c->ring_ready, c->ring_drained, c->ring_capacity,  slots,
                                 c->merge_slots_n - 1, c->merge_entries, c->merge_capacity, 0};
  if (slots) BL_CHECK(sanitizerMemset(slots, 0, c->merge_slots_n * sizeof(unsigned), d->hStream));
  if (ring) {
    const std::uint32_t kernel = it->second;
    auto sink = [kernel](DeviceRecord* r, std::uint64_t m) {
      State& st = state();
      resolve_tma(r, m);
      st.merger.add(kernel, r, m);
      st.traced += m;
      stats().records += m;
    };
    banklab::trace::ring_drainer().begin(c->ring, c->ring_ready, c->ring_drained, c->ring_capacity, sink);
  }
  BL_CHECK(sanitizerMemcpyHostToDeviceAsync(c->dev_header, c->host_header, sizeof(DeviceBuffer), d->hStream));
  BL_CHECK(sanitizerSetCallbackData(d->function, c->dev_header));
  g_pending = Pending{c, it->second};
}

// The entries of the launch's table of distinct records (format.hpp, MergeEntry), through the
// staging buffer, into the merger with their counts; the warp instructions they stand for.
std::uint64_t collect_entries(const Sanitizer_LaunchData* d, ContextState& c, std::uint32_t kernel, std::uint64_t used) {
  State& s = state();
  auto* host = reinterpret_cast<MergeEntry*>(staging(d->context, c));
  const std::uint64_t piece = c.host_capacity * sizeof(DeviceRecord) / sizeof(MergeEntry);
  if (!host || piece == 0) return 0;
  std::uint64_t merged = 0;
  for (std::uint64_t done = 0; done < used;) {
    const std::uint64_t m = std::min(used - done, piece);
    {
      Timer t(stats().copy);
      const SanitizerResult r = sanitizerMemcpyDeviceToHost(host, c.merge_entries + done, m * sizeof(MergeEntry), d->hStream);
      if (r != SANITIZER_SUCCESS) { note_error("sanitizerMemcpyDeviceToHost(merged entries)", r); return merged; }
    }
    Timer tm(stats().merge);
    merged += banklab::trace::add_entries(s.merger, kernel, host, m);
    done += m;
  }
  return merged;
}

void on_launch_end(const Sanitizer_LaunchData* d) {
  State& s = state();
  Pending p = g_pending;
  g_pending = Pending{};
  if (!p.ctx) return;
  const auto t0 = std::chrono::steady_clock::now();
  {
    Timer t(stats().sync);
    BL_CHECK(sanitizerStreamSynchronize(d->hStream));
  }
  const double sync = banklab::trace::seconds_since(t0);
  std::uint64_t n = 0, count = 0, used = 0, merged = 0;
  {
    Timer t(stats().copy);
    BL_CHECK(sanitizerMemcpyDeviceToHost(p.ctx->host_header, p.ctx->dev_header, sizeof(DeviceBuffer), d->hStream));
    count = p.ctx->host_header->count;
    if (inject_options().mode != DeviceMode::Record) {  // a diagnostic: counted only
      stats().counted += count;
      return;
    }
    n = std::min(count, p.ctx->capacity);
    if (p.ctx->ring) banklab::trace::ring_drainer().end(count - n);  // the records past the device buffer went through the ring
    else s.dropped += count - n;
    used = p.ctx->merge_slots ? std::min<std::uint64_t>(p.ctx->host_header->merge_used, p.ctx->merge_capacity) : 0;
  }
  if (used > 0) merged = collect_entries(d, *p.ctx, p.kernel, used);
  DeviceRecord* host = n > 0 ? staging(d->context, *p.ctx) : nullptr;
  if (n > 0 && !host) s.dropped += n;  // no pinned memory for them: counted as dropped, as a full device buffer is
  // Piece by piece, in record order: the merger sees the records in the same order as in one copy.
  for (std::uint64_t done = 0; host && done < n;) {
    const std::uint64_t m = std::min(n - done, p.ctx->host_capacity);
    {
      Timer t(stats().copy);
      BL_CHECK(sanitizerMemcpyDeviceToHost(host, p.ctx->dev_records + done, m * sizeof(DeviceRecord), d->hStream));
    }
    Timer tm(stats().merge);
    resolve_tma(host, m);
    s.merger.add(p.kernel, host, m);
    done += m;
  }
  s.traced += n + merged;
  stats().records += n + merged;
  stats().entries += used;
  stats().merged += merged;
  stats().appended += n;
  const std::uint64_t ring = p.ctx->ring ? count - n : 0;  // without a ring they were dropped (above)
  stats().ring += ring;
  if (banklab::trace::stats_level() >= 2)
    std::fprintf(stderr, "banklab trace launch: %s: sync %.4f s, %llu merged in %llu entries, %llu appended, %llu through the ring\n",
                 s.kernels[p.kernel].name.c_str(), sync, static_cast<unsigned long long>(merged),
                 static_cast<unsigned long long>(used), static_cast<unsigned long long>(n),
                 static_cast<unsigned long long>(ring));
}

bool debug() {
  static const bool on = std::getenv("BANKLAB_TRACE_DEBUG") != nullptr;
  return on;
}

void SANITIZERAPI callback(void*, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* cbdata) {
  // Only four callbacks matter; the others (memory allocations our own sanitizerAlloc makes
  // included) return at once, without the lock.
  const bool loaded = domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED;
  const bool unloading = domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING;
  const bool begin = domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN;
  const bool end = domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_END;
#if BANKLAB_SANITIZER_HAS_TMA
  if (domain == SANITIZER_CB_DOMAIN_DRIVER_API) {
    const auto* d = static_cast<const Sanitizer_CallbackData*>(cbdata);
    if (d->callbackSite == SANITIZER_API_EXIT && d->functionName &&
        std::strcmp(d->functionName, "cuTensorMapEncodeTiled") == 0) {
      std::lock_guard<std::recursive_mutex> lock(state().mu);
      on_encode_tiled(d);
    }
    return;
  }
#endif
  if (!loaded && !unloading && !begin && !end) return;
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  if (debug()) std::fprintf(stderr, "banklab trace: %s\n", loaded ? "module loaded" : unloading ? "module unloading" : begin ? "launch begin" : "launch end");
  if (loaded) on_module_loaded(static_cast<const Sanitizer_ResourceModuleData*>(cbdata));
  else if (unloading) {  // a later module may get its handle: patched at its own first launch, its own image
    s.patched.erase(static_cast<const Sanitizer_ResourceModuleData*>(cbdata)->module);
    s.module_index.erase(static_cast<const Sanitizer_ResourceModuleData*>(cbdata)->module);  // its records stay
  }
  else if (begin) on_launch_begin(static_cast<const Sanitizer_LaunchData*>(cbdata));
  else on_launch_end(static_cast<const Sanitizer_LaunchData*>(cbdata));
  if (debug()) std::fprintf(stderr, "banklab trace: done (%llu records so far, %llu dropped)\n",
                            static_cast<unsigned long long>(s.traced), static_cast<unsigned long long>(s.dropped));
}

// Everything recorded so far, as a trace; the records are taken (the modules stay). Only the
// images banklab::trace::needed_images() names go in (decode finds the same lines in them as in
// every loaded image; a program that loads a large library would otherwise write, and `banklab`
// read and parse, every module of it), renumbered in load order; the kernels of the others
// point at one empty image (none of them left a record).
banklab::trace::TraceData snapshot_locked() {
  State& s = state();
  banklab::trace::TraceData d;
  d.kernels = s.kernels;
  d.records = s.merger.take();
  d.dropped = s.dropped;
  s.dropped = 0;
  const std::vector<bool> keep = banklab::trace::needed_images(s.cubins, s.kernels, d.records);
  constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<std::uint32_t> renumber(s.cubins.size(), kNone);
  for (std::size_t m = 0; m < s.cubins.size(); ++m) {
    if (!keep[m]) continue;
    renumber[m] = static_cast<std::uint32_t>(d.cubins.size());
    d.cubins.push_back(s.cubins[m]);
  }
  std::uint32_t empty = kNone;
  for (auto& k : d.kernels) {
    if (renumber[k.module] == kNone) {
      if (empty == kNone) {
        empty = static_cast<std::uint32_t>(d.cubins.size());
        d.cubins.emplace_back();
      }
      renumber[k.module] = empty;
    }
    k.module = renumber[k.module];
  }
  return d;
}

void write_at_exit() {
  const char* path = std::getenv("BANKLAB_TRACE_OUT");
  if (!path || !*path) return;
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  {
    Timer t(stats().write);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    const banklab::trace::TraceData d = snapshot_locked();
    stats().written_modules = d.cubins.size();
    for (const auto& c : d.cubins) stats().written_bytes += c.size();
    banklab::trace::write_trace(out, d);
    if (!out) std::fprintf(stderr, "banklab trace: cannot write %s\n", path);
  }
  banklab::trace::print_stats();
}

int attach() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  if (s.attached) return 0;
  (void)stats();  // the clock starts here
  Timer t(stats().attach);
  if (!s.error.empty()) return 1;
  const char* env = std::getenv("BANKLAB_TRACE_PATCH");
  s.patch_path = env && *env ? env : library_dir() + "/banklab_trace_patch.fatbin";
  if (std::FILE* f = std::fopen(s.patch_path.c_str(), "rb")) {
    std::fclose(f);
  } else {
    s.error = "cannot read the device patch " + s.patch_path;
    return 1;
  }
  SanitizerResult r = sanitizerSubscribe(&s.subscriber, callback, nullptr);
  if (r != SANITIZER_SUCCESS) { note_error("sanitizerSubscribe", r); return 1; }
  if ((r = sanitizerEnableDomain(1, s.subscriber, SANITIZER_CB_DOMAIN_RESOURCE)) != SANITIZER_SUCCESS ||
      (r = sanitizerEnableDomain(1, s.subscriber, SANITIZER_CB_DOMAIN_LAUNCH)) != SANITIZER_SUCCESS) {
    note_error("sanitizerEnableDomain", r);
    return 1;
  }
#if BANKLAB_SANITIZER_HAS_TMA
  // The driver API, for the tensor maps cuTensorMapEncodeTiled makes (TMA loads' boxes).
  if ((r = sanitizerEnableDomain(1, s.subscriber, SANITIZER_CB_DOMAIN_DRIVER_API)) != SANITIZER_SUCCESS) {
    note_error("sanitizerEnableDomain(driver API)", r);
    return 1;
  }
#endif
  s.attached = true;
  return 0;
}

}  // namespace

extern "C" {

/// Called by the CUDA driver when this library is named by CUDA_INJECTION64_PATH.
__attribute__((visibility("default"))) int InitializeInjection() {
  if (attach() != 0) return 0;  // keep the program running untraced; the error was printed
  std::atexit(write_at_exit);
  return 1;
}

/// Session's entry points. 0 on success.
__attribute__((visibility("default"))) int banklab_trace_attach() { return attach(); }

__attribute__((visibility("default"))) const char* banklab_trace_error() {
  return state().error.c_str();
}

__attribute__((visibility("default"))) void banklab_trace_clear() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  (void)s.merger.take();
  s.dropped = 0;
}

/// The records so far as a trace file image (malloc'd; free with banklab_trace_free); taken.
__attribute__((visibility("default"))) char* banklab_trace_take(std::size_t* size) {
  State& s = state();
  std::ostringstream out(std::ios::binary);
  {
    std::lock_guard<std::recursive_mutex> lock(s.mu);
    banklab::trace::write_trace(out, snapshot_locked());
  }
  const std::string data = out.str();
  char* p = static_cast<char*>(std::malloc(data.size() ? data.size() : 1));
  if (p) std::memcpy(p, data.data(), data.size());
  *size = p ? data.size() : 0;
  return p;
}

__attribute__((visibility("default"))) void banklab_trace_free(char* p) { std::free(p); }

}  // extern "C"
