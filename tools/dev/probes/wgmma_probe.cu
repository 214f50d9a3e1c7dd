// Checks the shared-memory layouts and matrix descriptors tl's wgmma dot relies on:
// one warpgroup computes a 64 x 128 product from operands stored K-major with 128/64/32-byte
// swizzles, or B stored MN-major (16-bit types) under several descriptor readings. Prints one
// line per case: the number of wrong elements (0 = the layout is right). On a Hopper GPU,
// tools/dev/probes/run.sh builds and runs it (tools/gpu-check.sh does).
// MN-major readings 1 and 3 (leading byte offset = the stride between atoms along N) are the
// right ones; 2 and 4 (the offsets swapped) are there to show the probe can fail.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>

#include <tl/backend/cuda/arch/sm90_wgmma.hpp>

using namespace tl::detail::cuda;

constexpr int M = 64, N = 128;

__device__ std::uint64_t desc(const void* p, int lbo, int sbo, int swz) {
  const std::uint32_t a = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  return std::uint64_t((a & 0x3ffff) >> 4) | (std::uint64_t(lbo >> 4) << 16) | (std::uint64_t(sbo >> 4) << 32) |
         (std::uint64_t(swz) << 62);
}
__device__ int swz_code(int w) { return w == 128 ? 1 : w == 64 ? 2 : 3; }
__device__ int swz_shift(int w) { return w == 128 ? 0 : w == 64 ? 1 : 2; }

// K-major: element (r, k) of an R x K operand.
__device__ int kmajor_off(int r, int k, int R, int W, int size) {
  const int kb = k * size;
  return (kb / W) * (R * W) + r * W + ((((kb % W) / 16) ^ ((r % 8) >> swz_shift(W))) * 16) + kb % 16;
}
// MN-major 128-byte swizzle: element (k, n) of a K x N operand (16-bit), atoms of 8 k x 64 n.
__device__ int mnmajor_off(int k, int n, int Sn, int Sk) {
  return (n / 64) * Sn + (k / 8) * Sk + (k % 8) * 128 + (((((n % 64) * 2) / 16) ^ (k % 8)) * 16) + (n * 2) % 16;
}

template <class Kind, class T, int K>
__global__ void probe(const T* A, const T* B, float* D, int bmode) {
  __shared__ alignas(1024) unsigned char sa[M * K * sizeof(T)];
  __shared__ alignas(1024) unsigned char sb[N * K * sizeof(T)];
  constexpr int size = sizeof(T);
  constexpr int W = K * size >= 128 ? 128 : K * size;
  const int t = threadIdx.x;
  for (int i = t; i < M * K; i += 128) {
    const int r = i / K, k = i % K;
    *reinterpret_cast<T*>(sa + kmajor_off(r, k, M, W, size)) = A[i];
  }
  const int K8 = K / 8;
  int Sn = 1024, Sk = 2048;  // bmode 1, 2: N atoms first
  if (bmode >= 3) Sk = 1024, Sn = K8 * 1024;  // bmode 3, 4: K atoms first
  for (int i = t; i < K * N; i += 128) {
    const int k = i / N, n = i % N;
    const int off = bmode == 0 ? kmajor_off(n, k, N, W, size) : mnmajor_off(k, n, Sn, Sk);
    *reinterpret_cast<T*>(sb + off) = B[i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[N / 2];
  for (int i = 0; i < N / 2; ++i) d[i] = 0;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  constexpr int kk = Kind::k;
#pragma unroll
  for (int ks = 0; ks < K / kk; ++ks) {
    const int kb = ks * kk * size;
    const std::uint64_t da = desc(sa + (kb / W) * (M * W) + kb % W, 16, 8 * W, swz_code(W));
    if constexpr (std::is_same_v<Kind, mma_tf32>) {
      const std::uint64_t db = desc(sb + (kb / W) * (N * W) + kb % W, 16, 8 * W, swz_code(W));
      wgmma<Kind, N>::run(d, da, db, ks > 0);
    } else {
      if (bmode == 0) {
        const std::uint64_t db = desc(sb + (kb / W) * (N * W) + kb % W, 16, 8 * W, swz_code(W));
        wgmma<Kind, N>::template run<0, 0>(d, da, db, ks > 0);
      } else {
        const int lbo = (bmode == 1 || bmode == 3) ? Sn : Sk, sbo = (bmode == 1 || bmode == 3) ? Sk : Sn;
        const std::uint64_t db = desc(sb + (ks * kk / 8) * Sk, lbo, sbo, 1);
        wgmma<Kind, N>::template run<0, 1>(d, da, db, ks > 0);
      }
    }
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  const int w = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
  for (int j = 0; j < N / 8; ++j)
    for (int r = 0; r < 2; ++r)
      for (int b = 0; b < 2; ++b) D[(16 * w + g + 8 * r) * N + 8 * j + 2 * q + b] = d[4 * j + 2 * r + b];
}

template <class T>
T from_float(float x) {
  if constexpr (std::is_same_v<T, __half>) return __float2half(x);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16(x);
  else return x;
}

// Runs one case; returns the number of wrong elements (every one if the kernel failed).
template <class Kind, class T, int K>
int run_case(const char* name, int bmode) {
  std::vector<float> a(M * K), b(K * N), ref(M * N, 0.f), got(M * N, -1.f);
  unsigned s = 12345u + K + bmode;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return float(int((s >> 24) % 5) - 2); };
  for (auto& x : a) x = rnd();
  for (auto& x : b) x = rnd();
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < K; ++k) ref[i * N + j] += a[i * K + k] * b[k * N + j];
  std::vector<T> ta(a.size()), tb(b.size());
  for (size_t i = 0; i < a.size(); ++i) ta[i] = from_float<T>(a[i]);
  for (size_t i = 0; i < b.size(); ++i) tb[i] = from_float<T>(b[i]);
  T *da, *db;
  float* dd;
  cudaMalloc(&da, ta.size() * sizeof(T));
  cudaMalloc(&db, tb.size() * sizeof(T));
  cudaMalloc(&dd, got.size() * sizeof(float));
  cudaMemcpy(da, ta.data(), ta.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(db, tb.data(), tb.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemset(dd, 0xff, got.size() * sizeof(float));
  probe<Kind, T, K><<<1, 128>>>(da, db, dd, bmode);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(got.data(), dd, got.size() * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < M * N; ++i) bad += got[i] != ref[i];
  std::printf("%-34s bmode %d: %s, %d of %d wrong\n", name, bmode, cudaGetErrorString(e), bad, M * N);
  if (e != cudaSuccess) bad = M * N;
  cudaFree(da);
  cudaFree(db);
  cudaFree(dd);
  return bad;
}

// Exit code 0 when every layout tl relies on is right and the wrong readings are caught.
int main() {
  int layouts_wrong = 0;
  layouts_wrong += run_case<mma_f16, __half, 64>("f16 K=64 (128B swizzle)", 0) != 0;
  layouts_wrong += run_case<mma_f16, __half, 32>("f16 K=32 (64B swizzle)", 0) != 0;
  layouts_wrong += run_case<mma_f16, __half, 16>("f16 K=16 (32B swizzle)", 0) != 0;
  layouts_wrong += run_case<mma_f16, __half, 128>("f16 K=128 (two atom columns)", 0) != 0;
  layouts_wrong += run_case<mma_bf16, __nv_bfloat16, 64>("bf16 K=64", 0) != 0;
  layouts_wrong += run_case<mma_tf32, float, 32>("tf32 K=32 (128B swizzle)", 0) != 0;
  layouts_wrong += run_case<mma_tf32, float, 64>("tf32 K=64 (two atom columns)", 0) != 0;
  layouts_wrong += run_case<mma_tf32, float, 16>("tf32 K=16 (64B swizzle)", 0) != 0;
  for (int m = 1; m <= 4; ++m) {  // readings 1 and 3 are tl's; 2 and 4 must fail
    const bool right = m % 2 == 1;
    layouts_wrong += (run_case<mma_f16, __half, 64>("f16 K=64, B MN-major", m) == 0) != right;
    layouts_wrong += (run_case<mma_f16, __half, 32>("f16 K=32, B MN-major", m) == 0) != right;
  }
  std::printf("%s: %d case(s) not as expected\n", layouts_wrong ? "FAILED" : "PASSED", layouts_wrong);
  return layouts_wrong ? 1 : 0;
}
