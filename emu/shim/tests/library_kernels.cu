// Kernels the shim's tests load as a student's library (compiled to a fatbin as the judge's build
// compiles kernel.cu: -fatbin -no-compress, sm_90 SASS beside compute_90 PTX).
extern "C" __global__ void reverse_through_shared(const float* in, float* out) {
  __shared__ float tile[32];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncwarp();
  out[threadIdx.x] = tile[31 - threadIdx.x];
}

extern "C" __global__ void store_through(float* p) { p[threadIdx.x] = 1.0f; }

extern "C" __global__ void spin(int* flag) {
  while (*reinterpret_cast<volatile int*>(flag) == 0) {
  }
}

extern "C" __global__ void unknown_instruction(int* out) {
  asm volatile("pmevent 3;");
  out[threadIdx.x] = 1;
}

// A module variable: thread 0 returns how many launches of this loaded copy ran before.
__device__ int launches_so_far;
extern "C" __global__ void count_launches(int* out) {
  if (threadIdx.x == 0) *out = atomicAdd(&launches_so_far, 1);
}
