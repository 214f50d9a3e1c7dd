// tl-bench: puzzle 11 at its bench blocks (B0 = B1 = 128), launched from its own translation
// unit (tl_bench_matmul.cu), compiled with TL_NUM_WARPS=8: a 128 x 128 float accumulator then
// takes 64 registers a thread instead of 128, which leaves room for the operands (as Triton's
// num_warps=8 for tiles of this size). The block program is the puzzle's own. (Puzzle 12 runs
// slower with 8 warps than with 4, with mma.sync (35 against 43 TFLOP/s) and with wgmma (60
// against 79), as does puzzle 9 (19.2 against 18.2 ms): both stay in tl_bench.cu.)
#pragma once

#include <tl/tl.hpp>

namespace bench::matmul {

inline constexpr int num_warps = 8;

// Puzzle 11, B2 = 1: fp16 inputs (B_MID = 64, exact products), float32 with tf32 or ieee (B_MID = 32).
void p11_fp16(tl::ptr<tl::fp16> x, tl::ptr<tl::fp16> y, tl::ptr<float> z, int N0, int N1, int N2, int MID,
              const tl::launch_options& o);
void p11_tf32(tl::ptr<float> x, tl::ptr<float> y, tl::ptr<float> z, int N0, int N1, int N2, int MID,
              const tl::launch_options& o);
void p11_f32(tl::ptr<float> x, tl::ptr<float> y, tl::ptr<float> z, int N0, int N1, int N2, int MID,
             const tl::launch_options& o);
}  // namespace bench::matmul
