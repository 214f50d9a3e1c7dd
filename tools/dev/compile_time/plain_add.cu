// compile-time.sh's yardstick under nvcc: the add kernel of add.cpp in plain CUDA.
__global__ void add_kernel(const float* x, float* z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + 10.0f;
}
void add(const float* x, float* z, int n) { add_kernel<<<(n + 1023) / 1024, 1024>>>(x, z, n); }
