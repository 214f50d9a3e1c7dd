// Checks what the tensor memory accelerator (TMA) would give tl's wgmma dot, before the dot
// uses it: one tensor map made on the host as a template (cuTensorMapEncodeTiled, through the
// runtime's driver entry point: no link to libcuda), patched on the device for an operand
// (tensormap.replace: address, sizes, row stride, box), copied to global memory with its proxy
// fence, then one cp.async.bulk.tensor per tile, completing on an mbarrier. The tile must land
// in shared memory in the 128-byte swizzle of the dot's layouts: rows of 128 bytes, 16-byte
// chunk c of row r at chunk c ^ (r % 8) (a K-major A; for an MN-major B, each 64-column block
// with its K atoms one after another: wgmma_probe.cu's reading 3). Prints the wrong bytes per
// case (0 = as expected); two cases (the row stride under the wrong ordinal, the plain
// row-major layout expected) must fail, to show the check can. On a Hopper GPU:
//   nvcc -std=c++20 -gencode arch=compute_90a,code=sm_90a -Iinclude tools/probes/tma_probe.cu -o tma_probe
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <tl/backend/cuda/error.hpp>

constexpr int box_cols = 64;  // 128 bytes of fp16: the widest row the 128-byte swizzle takes
constexpr int max_box_rows = 128;

// Patches `tmpl` for a rows x cols fp16 matrix at src (rows row_stride elements apart) and a
// box of box_cols x box_rows, publishes it at gmap, and copies the box at column x, row y into
// shared memory; then writes the shared bytes to out. StrideOrd: the ordinal tensormap.replace
// is given for the row stride (which one the hardware means is part of what is checked).
// Patches: 2 patches the map twice (first for another address), as a program would per operand.
template <int StrideOrd>
__global__ void tma_kernel(const __grid_constant__ CUtensorMap tmpl, CUtensorMap* gmap, const __half* src,
                           const __half* other, int rows, int cols, long long row_stride, int box_rows, int x, int y,
                           int patches, unsigned char* out) {
  __shared__ alignas(128) CUtensorMap smap;
  __shared__ alignas(1024) unsigned char tile[max_box_rows * box_cols * 2];
  __shared__ alignas(8) unsigned long long mbar;
  const int t = threadIdx.x;
  const unsigned sm = static_cast<unsigned>(__cvta_generic_to_shared(&smap));
  const unsigned mb = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const int bytes = box_rows * box_cols * 2;
  for (int p = 0; p < patches; ++p) {
    const __half* base = p + 1 == patches ? src : other;
    if (t < 32) {
      reinterpret_cast<unsigned*>(&smap)[t] = reinterpret_cast<const unsigned*>(&tmpl)[t];
      __syncwarp();
      if (t == 0) {
        asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(sm), "l"(base)
                     : "memory");
        asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(sm), "r"(cols)
                     : "memory");
        asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(sm), "r"(rows)
                     : "memory");
        asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], %1, %2;" ::"r"(sm),
                     "n"(StrideOrd), "l"(row_stride * 2)
                     : "memory");
        asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(sm), "r"(box_rows)
                     : "memory");
      }
      __syncwarp();
      asm volatile(
          "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;" ::"l"(
              gmap),
          "r"(sm)
          : "memory");
    }
    __syncthreads();
  }
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mb) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t == 0) {
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(gmap) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mb), "r"(bytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
        "[%4];" ::"r"(dst),
        "l"(gmap), "r"(x), "r"(y), "r"(mb)
        : "memory");
  }
  asm volatile(
      "{\n .reg .pred done;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n @!done bra "
      "WAIT_%=;\n}" ::"r"(mb)
      : "memory");
  for (int i = t; i < bytes; i += blockDim.x) out[i] = tile[i];
}

// Byte offset of element (r, c) of the box in shared memory: 128-byte rows, chunks swizzled.
int swizzled(int r, int c) { return r * 128 + ((((c * 2) / 16) ^ (r % 8)) * 16) + (c * 2) % 16; }
int unswizzled(int r, int c) { return r * 128 + c * 2; }

int main() {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult found{};
  TL_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000,
                                                 cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || !encode) {
    std::printf("cuTensorMapEncodeTiled not found\n");
    return 1;
  }
  const int n = 1024;  // the source: n x n fp16, element (r, c) = a hash of both
  std::vector<__half> host(std::size_t(n) * n);
  auto value = [](int r, int c) { return __half(float((r * 131 + c * 7) % 2048) / 64.0f); };
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) host[std::size_t(r) * n + c] = value(r, c);
  __half *src = nullptr, *other = nullptr;
  CUtensorMap* gmap = nullptr;
  unsigned char* out = nullptr;
  TL_CUDA_CHECK(cudaMalloc(&src, host.size() * sizeof(__half)));
  TL_CUDA_CHECK(cudaMalloc(&other, host.size() * sizeof(__half)));
  TL_CUDA_CHECK(cudaMalloc(&gmap, sizeof(CUtensorMap)));
  TL_CUDA_CHECK(cudaMalloc(&out, max_box_rows * box_cols * 2));
  TL_CUDA_CHECK(cudaMemcpy(src, host.data(), host.size() * sizeof(__half), cudaMemcpyHostToDevice));
  TL_CUDA_CHECK(cudaMemset(other, 0, host.size() * sizeof(__half)));

  // The template: any valid 2-D fp16 map with the 128-byte swizzle; the device replaces the rest.
  CUtensorMap tmpl{};
  const cuuint64_t dims[2] = {64, 64}, strides[1] = {128};
  const cuuint32_t box[2] = {box_cols, 8}, elem_strides[2] = {1, 1};
  const CUresult made = encode(&tmpl, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, other, dims, strides, box, elem_strides,
                               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (made != CUDA_SUCCESS) {
    std::printf("cuTensorMapEncodeTiled failed: %d\n", int(made));
    return 1;
  }

  struct test_case {
    const char* name;
    int stride_ord, rows, cols, stride, box_rows, x, y, patches;
    bool expect_swizzle;  // the layout the check expects
    bool should_pass;     // false: a case there to show that the check fails
  };
  const test_case cases[] = {
      {"A tile 128 x 64 at (64, 256)", 0, n, n, n, 128, 64, 256, 1, true, true},
      {"B block 64 x 64 at (128, 64)", 0, n, n, n, 64, 128, 64, 1, true, true},
      {"rows 2048 elements apart (a batch's stride)", 0, n / 2, n, 2 * n, 64, 0, 8, 1, true, true},
      {"patched twice (another address first)", 0, n, n, n, 64, 192, 320, 2, true, true},
      {"rows beyond the map's 100 rows read as 0", 0, 100, n, n, 64, 0, 64, 1, true, true},
      // The row stride is global_stride's ordinal 0 (the stride of dimension 1), as in
      // cuTensorMapEncodeTiled's globalStrides; ordinal 1 reads wrong rows.
      {"row stride given as ordinal 1 (must fail)", 1, n, n, n, 128, 64, 256, 1, true, false},
      {"expected unswizzled (must fail)", 0, n, n, n, 64, 0, 0, 1, false, false},
  };
  int bad_cases = 0;
  for (const auto& k : cases) {
    TL_CUDA_CHECK(cudaMemset(out, 0xff, max_box_rows * box_cols * 2));
    if (k.stride_ord == 0)
      tma_kernel<0><<<1, 128>>>(tmpl, gmap, src, other, k.rows, k.cols, k.stride, k.box_rows, k.x, k.y, k.patches, out);
    else
      tma_kernel<1><<<1, 128>>>(tmpl, gmap, src, other, k.rows, k.cols, k.stride, k.box_rows, k.x, k.y, k.patches, out);
    const cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      std::printf("%-46s launch failed: %s\n", k.name, cudaGetErrorString(err));
      return 1;  // the context is gone
    }
    std::vector<unsigned char> got(std::size_t(k.box_rows) * box_cols * 2);
    TL_CUDA_CHECK(cudaMemcpy(got.data(), out, got.size(), cudaMemcpyDeviceToHost));
    long wrong = 0;
    for (int r = 0; r < k.box_rows; ++r)
      for (int c = 0; c < box_cols; ++c) {
        // Row r of the box is source row y + r, which is k.stride elements on per row.
        const long long sr = (long long)(k.y + r) * k.stride / n, sc = (long long)(k.y + r) * k.stride % n + k.x + c;
        const bool inside = k.y + r < k.rows;
        const __half want = inside ? host[std::size_t(sr) * n + std::size_t(sc)] : __half(0.0f);
        __half have;
        std::memcpy(&have, &got[std::size_t(k.expect_swizzle ? swizzled(r, c) : unswizzled(r, c))], 2);
        if (__half2float(have) != __half2float(want)) ++wrong;
      }
    std::printf("%-46s %6ld of %d elements wrong\n", k.name, wrong, k.box_rows * box_cols);
    if ((wrong == 0) != k.should_pass) ++bad_cases;
  }
  std::printf("%s\n", bad_cases ? "some cases did not come out as expected" : "all cases as expected");
  return bad_cases ? 1 : 0;
}
