// tl-bench: the puzzles launched with 8 warps per program (Triton's num_warps=8), from their own
// translation unit (tl_bench_8warps.cu, compiled with TL_NUM_WARPS=8). The block programs are
// the puzzles' own; only the number of threads that share a block changes.
//   Puzzle 11 (B0 = B1 = 128) with float32 inputs: a 128 x 128 float accumulator takes 64
//   registers a thread instead of 128, which leaves room for the operands. In fp16, where the
//   dot copies the next K step ahead (num_stages), 4 warps are faster (519 against 418
//   TFLOP/s: half the warps issue each step's checks and addresses): tl_bench.cu times it with
//   4, and with 8 from here for comparison.
//   Puzzle 10 (B0 = 32): its 256 programs are 2 per multiprocessor, and each step is a chain of
//   dependent loads, multiplications and shuffles; 8 warps a program put twice as many of these
//   chains on each multiprocessor (0.31 -> 0.26 ms; 16 warps: 0.29). tl-bench times it with 4
//   warps too.
// (Puzzle 12 runs slower with 8 warps than with 4, with mma.sync (35 against 43 TFLOP/s) and
// with wgmma (60 against 79), as does puzzle 9 (19.2 against 18.2 ms): both stay in tl_bench.cu.)
#pragma once

#include <tl/tl.hpp>

namespace bench::warps8 {

inline constexpr int num_warps = 8;

// Puzzle 10 at B0 = 32, KH = KW = 4.
void p10(tl::ptr<float> x, tl::ptr<float> k, tl::ptr<float> z, int N0, int H, int W, const tl::launch_options& o);

// Puzzle 11, B2 = 1: fp16 inputs (B_MID = 64, exact products), float32 with tf32 or ieee (B_MID = 32).
void p11_fp16(tl::ptr<tl::fp16> x, tl::ptr<tl::fp16> y, tl::ptr<float> z, int N0, int N1, int N2, int MID,
              const tl::launch_options& o);
void p11_tf32(tl::ptr<float> x, tl::ptr<float> y, tl::ptr<float> z, int N0, int N1, int N2, int MID,
              const tl::launch_options& o);
void p11_f32(tl::ptr<float> x, tl::ptr<float> y, tl::ptr<float> z, int N0, int N1, int N2, int MID,
             const tl::launch_options& o);
}  // namespace bench::warps8
