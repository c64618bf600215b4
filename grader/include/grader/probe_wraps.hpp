// The CUDA runtime entry points the probe wraps: `<<<>>>` and cudaLaunchKernel lower to these
// (nvcc 13: __cudaPushCallConfiguration / __cudaPopCallConfiguration, __cudaGetKernel,
// __cudaLaunchKernel; see crt/host_runtime.h), plus __cudaRegisterFunction for the host stub ->
// device name map. banklab-judge links each probe with `-Xlinker --wrap=NAME` for every name
// here (grader/judge/build.cpp), and grader/probe/probe_runtime.cpp defines each __wrap_NAME.
#pragma once

namespace probe {

inline constexpr const char* kWrappedSymbols[] = {
    "__cudaRegisterFunction", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
    "__cudaGetKernel",        "__cudaLaunchKernel",          "__cudaLaunchKernel_ptsz",
    "cudaLaunchKernel",       "cudaLaunchKernel_ptsz",       "cudaLaunchKernelExC",
    "cudaLaunchKernelExC_ptsz", "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz"};

}  // namespace probe
