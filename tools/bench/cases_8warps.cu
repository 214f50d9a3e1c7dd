// tl-bench cases launched with 8 warps per program (Triton's num_warps=8): this file is
// compiled with TL_NUM_WARPS=8 (tools/CMakeLists.txt), since a block tensor's registers are
// sized for the warps of its translation unit. The block programs are the puzzles' own; only the
// number of threads that share a block changes.
//   Puzzle 11 (B0 = B1 = 128) with float32 inputs: a 128 x 128 float accumulator takes 64
//   registers a thread instead of 128, which leaves room for the operands. In fp16, where the
//   dot copies the next K step ahead, 4 warps are faster (cases_matmul.cu): timed here for
//   comparison.
//   Puzzle 10 (B0 = 32): its 256 programs are 2 per multiprocessor, and each step is a chain of
//   dependent loads, multiplications and shuffles; 8 warps a program put twice as many of these
//   chains on each multiprocessor. Timed with 4 too (cases_attention.cu).
// Puzzles 9 and 12 run slower with 8 warps than with 4 and are timed with 4 only
// (docs/performance-history.md).
#if TL_NUM_WARPS != 8
#error "cases_8warps.cu is compiled with TL_NUM_WARPS=8 (tools/CMakeLists.txt)"
#endif
#include "bench.hpp"
#include "p10_conv2d.hpp"
#include "p11_matmul.hpp"

namespace bench {

namespace {
template <class T, int B_MID, auto P>
launch_fn p11() {
  return [](const arrays& a, const sizes& n, const tl::launch_options& o) {
    tl::launch<dot_kernel<128, 128, 1, B_MID, T, P>>(tl::grid(tl::cdiv(n.N0, 128), tl::cdiv(n.N1, 128), n.N2), o,
                                                      a.get<T>(0), a.get<T>(1), a.f32(2), n.N0, n.N1, n.N2, n.MID);
  };
}
}  // namespace

void add_8warp_cases(std::vector<bench_case>& cs) {
  auto conv = conv_case("10", 8, [](const arrays& a, const sizes& n, const tl::launch_options& o) {
    tl::launch<conv2d_kernel<4, 4, 32>>(tl::grid(tl::cdiv(n.N0, 32)), o, a.f32(0), a.f32(1), a.f32(2), n.N0, n.H, n.W);
  });
  conv.target = 0.3;  // ms
  cs.push_back(conv);
  // fp16 for comparison (no target); tf32 and float32 (ieee) with 8 warps.
  cs.push_back(matmul_case("fp16 8w", kind::f16, 64, ceiling::cublas_f16_batched, 1e-4, 8, p11<tl::fp16, 64, tl::ieee>()));
  auto tf32 = matmul_case("tf32", kind::f32, 32, ceiling::cublas_tf32, 2e-3, 8, p11<float, 32, tl::tf32>());
  tf32.target_rate = 150;
  cs.push_back(tf32);
  cs.push_back(matmul_case("f32", kind::f32, 32, ceiling::cublas_f32, 1e-5, 8, p11<float, 32, tl::ieee>()));
}

}  // namespace bench
