// Kernels for the Session test, loaded from a -lineinfo cubin with cudaLibraryLoadFromFile.
// Launched with 64 threads a block: thread t writes word 32 t, so each warp's 32 lanes hit bank 0.
extern "C" __global__ void column_conflict(float* out) {
  __shared__ volatile float tile[64 * 32];
  tile[threadIdx.x * 32] = static_cast<float>(threadIdx.x);  // LINE:column_store (32-way)
  __syncwarp();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x * 32];  // LINE:column_load
}

extern "C" __global__ void row_free(float* out) {
  __shared__ volatile float tile[32 * 32];
  tile[threadIdx.x] = static_cast<float>(threadIdx.x);  // LINE:row_store (conflict-free)
  __syncwarp();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x];  // LINE:row_load
}
