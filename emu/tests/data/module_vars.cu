// What emu/tests/module_test.cpp runs from nvcc's own PTX: a kernel with a local array (indexed
// through a volatile, so it stays in local memory), a .global variable and array and a .const
// array with initializers, and a __noinline__ function called with two params and a return value.
// out[t] = twice_plus(t * (t % 8), counter) * scale[0] + table[t % 4]
//        = 3 * (2 t (t % 8) + 7 + 5) + (t % 4 + 1).
__device__ int counter = 7;
__device__ float table[4] = {1.f, 2.f, 3.f, 4.f};
__constant__ int scale[2] = {3, 5};

__device__ __noinline__ int twice_plus(int x, int y) { return 2 * x + y + scale[1]; }

__global__ void module_vars(int* out) {
  int local[8];
  for (int i = 0; i < 8; ++i) local[i] = static_cast<int>(threadIdx.x) * i;
  volatile int idx = static_cast<int>(threadIdx.x % 8);
  const int v = local[idx];
  out[threadIdx.x] = twice_plus(v, counter) * scale[0] + static_cast<int>(table[threadIdx.x % 4]);
}
