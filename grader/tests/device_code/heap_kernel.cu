// A kernel that keeps state in the device heap: the block it frees is handed, contents and all,
// to the next launch of the context (device_code_test.cpp; the judge refuses such code).
__global__ void remembers(int* out, int mark) {
  int* p = static_cast<int*>(malloc(64));
  out[0] = p ? p[0] : -1;
  if (p) p[0] = mark;
  free(p);
}
