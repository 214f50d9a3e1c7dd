// Tutorial 03's matmul, 4 warps a program, 128 x 128 x 64 tiles in groups of 8 rows of tiles.
#define TL_NUM_WARPS 4
#include <tl/tl.hpp>

#include "launchers.hpp"
#include "t03_matmul.hpp"

template <class T>
void tl_torch::matmul(tl::view<const T> a, tl::view<const T> b, tl::view<T> c, bool leaky_relu, tl::launch_options o) {
  constexpr int BM = 128, BN = 128, BK = 64, GM = 8;
  const int M = int(a.size(0)), K = int(a.size(1)), N = int(b.size(1));
  if (M == 0 || N == 0) return;
  const tl::grid g(tl::cdiv(M, BM) * tl::cdiv(N, BN));
  const int sam = int(a.stride(0)), sak = int(a.stride(1)), sbk = int(b.stride(0)), sbn = int(b.stride(1));
  const int scm = int(c.stride(0)), scn = int(c.stride(1));
  if (leaky_relu)
    tl::launch<matmul_kernel<BM, BN, BK, GM, activation::leaky_relu, T>>(g, o, a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn);
  else
    tl::launch<matmul_kernel<BM, BN, BK, GM, activation::none, T>>(g, o, a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn);
}

template void tl_torch::matmul<tl::fp16>(tl::view<const tl::fp16>, tl::view<const tl::fp16>, tl::view<tl::fp16>, bool,
                                         tl::launch_options);
template void tl_torch::matmul<tl::bf16>(tl::view<const tl::bf16>, tl::view<const tl::bf16>, tl::view<tl::bf16>, bool,
                                         tl::launch_options);
