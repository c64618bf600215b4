// A kernel of several warps a block and several blocks, with __syncthreads and a loop whose
// active lanes shrink (divergence inside a warp once s < 32), for the emulator's tests: compiled
// to PTX by nvcc in the build (emu/tests/CMakeLists.txt), never run on a GPU by the tests.
__global__ void block_reduce(const int* in, int* out) {
  __shared__ int sh[256];
  const unsigned tid = threadIdx.x;
  sh[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sh[tid] += sh[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sh[0];
}
