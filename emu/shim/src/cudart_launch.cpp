// The CUDA runtime's calls for modules and launches, answered by the emulator (emu/shim/,
// docs/dev/EMULATOR.md): nvcc's registration of the judge's own kernels (their PTX read from the
// fatbin linked into the program, parsed when one of them is first launched), the student's library
// (cudaLibraryLoadData: the PTX entry of the fatbin the judge's build made), and launches, run to
// the end before the call returns. Each PTX text is parsed once a process; a module unloaded stays
// parsed, so the records of a traced launch never name a kernel that is gone. Its `.global`
// variables are each load's own, as on a GPU: a library loaded again starts from their initial
// values (LaunchConfig::module_instance), and its unload frees them.
//
// A launch ends as the emulator's LaunchResult says: Ok; NotJudged (an instruction it does not
// know): cudaErrorNotSupported, and its "not judged (emulator: ...)" message kept for the judge
// (banklab_emu_take_not_judged(), shim.h), which makes the test a skip; Fault: the launch returns
// and the fault is sticky (cudaErrorIllegalAddress, cudaErrorMisalignedAddress), as a GPU reports
// it at the next synchronisation; RanTooLong: likewise, cudaErrorLaunchTimeout, whose words say
// "ran more than N warp instructions".
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "fatbin.hpp"
#include "state.hpp"

using banklab::emu::shim::KernelRef;
using banklab::emu::shim::Library;
using banklab::emu::shim::State;
using banklab::emu::shim::state;

namespace {

using Guard = std::lock_guard<std::recursive_mutex>;

cudaError_t fail(State& s, cudaError_t e) {
  s.last = e;
  return e;
}

cudaError_t not_judged(State& s, const std::string& message) {
  if (s.not_judged.empty()) s.not_judged = message;
  return fail(s, cudaErrorNotSupported);
}

// The handle `f` stands for: a library's kernel (cudaKernel_t) or a registered host stub.
KernelRef* find(State& s, const void* f) {
  auto* k = static_cast<const KernelRef*>(f);
  if (s.kernels.count(k)) return const_cast<KernelRef*>(k);
  if (auto it = s.registered.find(f); it != s.registered.end()) return it->second.get();
  return nullptr;
}

// A registered kernel's module, read on its first use. False: it cannot be read (`why`).
bool ready(State& s, KernelRef& k) {
  if (k.kernel) return true;
  if (!k.why.empty()) return false;
  const std::string ptx = banklab::emu::shim::ptx_of_registered(k.registration, k.why);
  if (ptx.empty()) return false;
  k.module = banklab::emu::shim::module_of(s, ptx, k.why);
  if (!k.module) return false;
  k.kernel = k.module->find(k.name);
  if (!k.kernel) k.why = "the module has no kernel " + k.name;
  return k.kernel != nullptr;
}

cudaError_t launch(const void* f, dim3 grid, dim3 block, void** args, size_t shared) {
  State& s = state();
  Guard g(s.lock);
  if (s.sticky != cudaSuccess) return s.sticky;
  KernelRef* k = find(s, f);
  if (!k) return fail(s, cudaErrorInvalidDeviceFunction);
  if (!ready(s, *k)) return not_judged(s, "not judged (emulator: the kernel " + k->name + " cannot be read: " + k->why + ")");
  if (!args && !k->kernel->params.empty()) return fail(s, cudaErrorInvalidValue);
  banklab::emu::LaunchConfig cfg;
  cfg.grid = {grid.x, grid.y, grid.z};
  cfg.block = {block.x, block.y, block.z};
  cfg.dynamic_shared_bytes = static_cast<std::uint32_t>(shared);
  cfg.max_warp_instructions = s.max_warp_instructions;
  cfg.module_instance = k->instance;  // a library's variables are that load's, fresh at every load as on a GPU
  const std::vector<unsigned char> params = banklab::emu::pack_params(*k->kernel, args);
  const banklab::emu::LaunchResult r =
      banklab::emu::launch(*k->module, *k->kernel, cfg, params, *s.device, s.tracing ? &s.trace : nullptr);
  s.warp_instructions += r.warp_instructions;
  using Status = banklab::emu::LaunchResult::Status;
  switch (r.status) {
    case Status::Ok: return cudaSuccess;
    case Status::NotJudged: return not_judged(s, r.message);
    case Status::Fault:
      if (r.message.rfind("invalid launch configuration", 0) == 0) return fail(s, cudaErrorInvalidConfiguration);
      if (r.message.rfind("the launch gives fewer", 0) == 0) return fail(s, cudaErrorInvalidValue);
      s.sticky = r.message.find("misaligned") != std::string::npos ? cudaErrorMisalignedAddress : cudaErrorIllegalAddress;
      s.sticky_message = "emulator: " + r.message;
      return cudaSuccess;  // as a GPU: the launch started; its fault shows at the next call
    case Status::RanTooLong:
      s.sticky = cudaErrorLaunchTimeout;
      s.sticky_message = "emulator: " + r.message;
      return cudaSuccess;
  }
  return fail(s, cudaErrorUnknown);
}

}  // namespace

extern "C" {

// ---- nvcc's registration of the program's own kernels -----------------------------------------

void** __cudaRegisterFatBinary(void* wrapper) {
  State& s = state(false);
  Guard g(s.lock);
  return new void*(wrapper);  // the handle: where the wrapper is (read when a kernel of it is launched)
}

void __cudaRegisterFatBinaryEnd(void**) {}

void __cudaUnregisterFatBinary(void**) {}  // at exit: the registrations stay until the process ends

char __cudaInitModule(void**) { return 1; }

void __cudaRegisterFunction(void** handle, const char* host_fun, char*, const char* device_name, int, uint3*, uint3*,
                            dim3*, dim3*, int*) {
  State& s = state(false);
  Guard g(s.lock);
  auto k = std::make_unique<KernelRef>();
  k->registration = handle ? *handle : nullptr;
  k->name = device_name ? device_name : "";
  s.registered[host_fun] = std::move(k);
}

void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int) {}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st* stream) {
  State& s = state();
  Guard g(s.lock);
  s.configs.push_back({grid, block, shared, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  State& s = state();
  Guard g(s.lock);
  if (s.configs.empty()) return cudaErrorInvalidConfiguration;
  const banklab::emu::shim::LaunchShape c = s.configs.back();
  s.configs.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  std::memcpy(stream, &c.stream, sizeof c.stream);
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* out, const void* host_fun) {
  State& s = state();
  Guard g(s.lock);
  auto it = s.registered.find(host_fun);
  if (!out || it == s.registered.end()) return cudaErrorInvalidDeviceFunction;
  *out = reinterpret_cast<cudaKernel_t>(it->second.get());
  s.kernels.insert(it->second.get());
  return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t) {
  return launch(k, grid, block, args, shared);
}

cudaError_t cudaLaunchKernel(const void* f, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t) {
  return launch(f, grid, block, args, shared);
}

// ---- the student's library --------------------------------------------------------------------

cudaError_t cudaLibraryLoadData(cudaLibrary_t* out, const void* code, enum cudaJitOption*, void**, unsigned int,
                                enum cudaLibraryOption*, void**, unsigned int) {
  State& s = state();
  Guard g(s.lock);
  if (s.sticky != cudaSuccess) return s.sticky;
  if (!out || !code) return fail(s, cudaErrorInvalidValue);
  std::string why;
  // The fatbin's own header bounds what is read of it (the judge hands over the image it read whole).
  std::uint16_t header = 0;
  std::uint64_t size = 0;
  std::memcpy(&header, static_cast<const unsigned char*>(code) + 6, sizeof header);
  std::memcpy(&size, static_cast<const unsigned char*>(code) + 8, sizeof size);
  const std::string ptx = banklab::emu::shim::ptx_of_fatbin(code, static_cast<std::size_t>(header) + size, why);
  if (ptx.empty()) return not_judged(s, "not judged (emulator: your compiled kernels cannot be read: " + why + ")");
  auto lib = std::make_unique<Library>();
  lib->module = banklab::emu::shim::module_of(s, ptx, why);
  if (!lib->module) return not_judged(s, "not judged (emulator: your kernels' PTX cannot be read: " + why + ")");
  for (const banklab::emu::Kernel& k : lib->module->kernels) {
    auto ref = std::make_unique<KernelRef>();
    ref->module = lib->module;
    ref->kernel = &k;
    ref->name = k.name;
    ref->instance = lib.get();
    s.kernels.insert(ref.get());
    lib->kernels.push_back(std::move(ref));
  }
  *out = reinterpret_cast<cudaLibrary_t>(lib.get());
  s.libraries.insert(lib.release());
  return cudaSuccess;
}

cudaError_t cudaLibraryUnload(cudaLibrary_t l) {
  State& s = state();
  Guard g(s.lock);
  auto* lib = reinterpret_cast<Library*>(l);
  if (!s.libraries.erase(lib)) return fail(s, cudaErrorInvalidResourceHandle);
  for (const auto& k : lib->kernels) s.kernels.erase(k.get());
  s.device->release_variables(lib);  // a library loaded later at this address starts afresh
  delete lib;
  return cudaSuccess;
}

cudaError_t cudaLibraryGetKernelCount(unsigned int* count, cudaLibrary_t l) {
  State& s = state();
  Guard g(s.lock);
  auto* lib = reinterpret_cast<Library*>(l);
  if (!count || !s.libraries.count(lib)) return fail(s, cudaErrorInvalidValue);
  *count = static_cast<unsigned>(lib->kernels.size());
  return cudaSuccess;
}

cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t* out, unsigned int n, cudaLibrary_t l) {
  State& s = state();
  Guard g(s.lock);
  auto* lib = reinterpret_cast<Library*>(l);
  if (!out || !s.libraries.count(lib)) return fail(s, cudaErrorInvalidValue);
  for (unsigned i = 0; i < n && i < lib->kernels.size(); ++i) out[i] = reinterpret_cast<cudaKernel_t>(lib->kernels[i].get());
  return cudaSuccess;
}

cudaError_t cudaLibraryGetKernel(cudaKernel_t* out, cudaLibrary_t l, const char* name) {
  State& s = state();
  Guard g(s.lock);
  auto* lib = reinterpret_cast<Library*>(l);
  if (!out || !name || !s.libraries.count(lib)) return fail(s, cudaErrorInvalidValue);
  for (const auto& k : lib->kernels)
    if (k->name == name) {
      *out = reinterpret_cast<cudaKernel_t>(k.get());
      return cudaSuccess;
    }
  return fail(s, cudaErrorSymbolNotFound);
}

// ---- kernels' attributes ----------------------------------------------------------------------

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* f) {
  State& s = state();
  Guard g(s.lock);
  KernelRef* k = find(s, f);
  if (!attr || !k) return fail(s, cudaErrorInvalidDeviceFunction);
  std::memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = 1024;
  attr->ptxVersion = attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = 48 << 10;
  if (ready(s, *k)) {
    attr->sharedSizeBytes = k->kernel->static_shared_bytes;
    attr->numRegs = k->kernel->registers < 255 ? k->kernel->registers : 255;
  }
  return cudaSuccess;
}

cudaError_t cudaFuncGetName(const char** name, const void* f) {
  State& s = state();
  Guard g(s.lock);
  KernelRef* k = find(s, f);
  if (!name || !k) return fail(s, cudaErrorInvalidDeviceFunction);
  *name = k->name.c_str();
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* f, enum cudaFuncAttribute, int) {
  State& s = state();
  Guard g(s.lock);
  return find(s, f) ? cudaSuccess : fail(s, cudaErrorInvalidDeviceFunction);
}

}  // extern "C"
