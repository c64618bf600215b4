// Fixture for the line-table tests: compiled with -lineinfo to a cubin at build time.
extern "C" __global__ void column_store(float* out) {
  __shared__ volatile float tile[32 * 32];
  tile[threadIdx.x * 32] = static_cast<float>(threadIdx.x);  // LINE:column_store
  __syncwarp();
  out[threadIdx.x] = tile[threadIdx.x];  // LINE:row_load
}
