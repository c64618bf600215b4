// C++ `new` in device code: the heap too, through operator new.
__global__ void allocates(int* out) {
  int* p = new int[4];
  out[0] = p ? 1 : 0;
  delete[] p;
}
