// Kernels that call nothing of the heap: a shared-memory transpose row, printf and assert (which
// link vprintf and __assertfail, not the heap) and a local array (the stack, not the heap).
#include <cassert>
#include <cstdio>
__global__ void plain(float* out, const float* in) {
  __shared__ float tile[32][33];
  float local[8];
  for (int i = 0; i < 8; ++i) local[i] = in[threadIdx.x + i];
  tile[threadIdx.y][threadIdx.x] = local[threadIdx.x % 8];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
  if (out[0] < -1e30f) printf("free malloc %d\n", 1);  // the words in a string are no call
  assert(in != nullptr);
}
