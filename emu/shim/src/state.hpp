// The shim's one state (a process's emulated device): its memory, its modules and kernels, the
// launch configuration stack, the last error, the trace the tracer's twin reads. Every entry point
// takes the lock: the harness's watchdog and GPU-lock threads may call in beside the test's own.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "banklab_emu/emulator.hpp"

namespace banklab::emu::shim {

/// A kernel the process can launch: one of a parsed module's (the student's library, the judge's
/// own registered fatbins), found by its handle (cudaKernel_t, a host stub's address).
struct KernelRef {
  std::shared_ptr<const Module> module;  ///< null until a registered fatbin is first used
  const Kernel* kernel = nullptr;
  std::string name;
  const void* registration = nullptr;  ///< a registered fatbin's wrapper (the judge's kernels), read lazily
  const void* instance = nullptr;      ///< the loaded copy it belongs to (its Library; null: the judge's own)
  std::string why;                      ///< the module could not be read: why ("" when it could)
};

struct Library {
  std::shared_ptr<const Module> module;
  std::vector<std::unique_ptr<KernelRef>> kernels;  ///< one per .entry, in module order
};

struct LaunchShape {
  dim3 grid, block;
  std::size_t shared = 0;
  void* stream = nullptr;
};

struct State {
  std::recursive_mutex lock;
  std::unique_ptr<Device> device;
  EmuTrace trace;
  bool tracing = false;  ///< a trace::Session is alive: launches are recorded
  std::uint64_t max_warp_instructions = 0;  ///< a launch's limit (state.cpp: the environment's, else 50 M)
  std::map<std::string, std::shared_ptr<const Module>> parsed;  ///< by PTX text: each module parsed once
  std::set<const KernelRef*> kernels;                           ///< every live handle
  std::map<const void*, std::unique_ptr<KernelRef>> registered; ///< host stub -> the judge's own kernel
  std::set<Library*> libraries;
  std::vector<LaunchShape> configs;  ///< __cudaPushCallConfiguration's stack
  cudaError_t last = cudaSuccess;    ///< cudaGetLastError's
  cudaError_t sticky = cudaSuccess;  ///< a fault: every later call returns it, as a GPU's context does
  std::string sticky_message, not_judged;
  std::uint64_t warp_instructions = 0;
};

/// The process's state. Started (the address range reserved, the limits read from the
/// environment) on the first call with `start`: every call but nvcc's registration code, which
/// runs before main().
State& state(bool start = true);

/// Reads a PTX module, once per text; null with `why` set when the reader refuses it.
std::shared_ptr<const Module> module_of(State& s, const std::string& ptx, std::string& why);

}  // namespace banklab::emu::shim
