// Guide examples 3 and 4: matrix multiplication, naive, then grouped (programs reordered with
// tl::swizzle2d so that neighbours share tiles in L2), then autotuned. C = A @ B with A m x k,
// B k x n, C m x n; strides in elements. Inputs and output are T (the guide: float16), the
// accumulator float32.
#pragma once

#include <ostream>
#include <string>

#include "guide_util.hpp"

// The guide's kernel exactly as it wrote it, loads without masks ("todo: don't we need mask
// when loading a & b?"): yes. Where k is not a multiple of bk, or m, n of the tile, the loads
// read past A and B. On a GPU that reads whatever lies there (the guide's "sometimes the
// result is wrong"); the CPU backend reports it (tests/examples/test_guide.cpp).
template <int bm, int bn, int bk, class T = tl::fp16>
TL_KERNEL void unmasked_matmul_k(tl::ptr<const T> a_ptr, tl::ptr<const T> b_ptr, tl::ptr<T> c_ptr, int m, int n,
                                 int k, int stride_am, int stride_ak, int stride_bk, int stride_bn, int stride_cm,
                                 int stride_cn) {
  auto pid_m = tl::program_id(0), pid_n = tl::program_id(1);
  auto rm = get_1d_offset<bm>(pid_m);
  auto rn = get_1d_offset<bn>(pid_n);
  auto rk = get_1d_offset<bk>(0);
  auto offs_a = get_2d_offset(rm, rk, stride_am, stride_ak);
  auto offs_b = get_2d_offset(rk, rn, stride_bk, stride_bn);
  auto acc = tl::zeros<bm, bn>(tl::float32);
  for (int kk : tl::range(0, k, bk)) {
    (void)kk;
    auto a = tl::load(a_ptr + offs_a);
    auto b = tl::load(b_ptr + offs_b);
    acc = tl::dot(a, b, acc, tl::ieee);
    a_ptr += bk * stride_ak;
    b_ptr += bk * stride_bk;
  }
  auto c = c_ptr + get_2d_offset(rm, rn, stride_cm, stride_cn);
  auto mask = get_2d_mask(rm, rn, m, n);
  tl::store(c, acc, mask);
}

// The naive kernel, with the masks the loads need. Where the guide moves its blocks of
// pointers (offs_a += bk * stride_ak), tl moves the base pointers: a block of offsets is an
// expression, computed where it is used.                          Triton:
template <int bm, int bn, int bk, class T = tl::fp16>            // @triton.jit
TL_KERNEL void naive_matmul_k(tl::ptr<const T> a_ptr,            // def naive_matmul_k(a_ptr, b_ptr, c_ptr,
                              tl::ptr<const T> b_ptr,            //     m, n, k,
                              tl::ptr<T> c_ptr, int m, int n,    //     stride_am, stride_ak,
                              int k, int stride_am,              //     stride_bk, stride_bn,
                              int stride_ak, int stride_bk,      //     stride_cm, stride_cn,
                              int stride_bn, int stride_cm,      //     bm: tl.constexpr, bn: tl.constexpr,
                              int stride_cn) {                   //     bk: tl.constexpr):
  auto pid_m = tl::program_id(0), pid_n = tl::program_id(1);     //     pid_m, pid_n = tl.program_id(0), tl.program_id(1)
  auto rm = get_1d_offset<bm>(pid_m);                            //     rm = get_1d_offset(size=bm, n_prev_chunks=pid_m)
  auto rn = get_1d_offset<bn>(pid_n);                            //     rn = get_1d_offset(size=bn, n_prev_chunks=pid_n)
  auto rk = get_1d_offset<bk>(0);                                //     rk = get_1d_offset(size=bk, n_prev_chunks=0)
  auto offs_a = get_2d_offset(rm, rk, stride_am, stride_ak);     //     offs_a = a_ptr + get_2d_offset(rm, rk, stride_am, stride_ak)
  auto offs_b = get_2d_offset(rk, rn, stride_bk, stride_bn);     //     offs_b = b_ptr + get_2d_offset(rk, rn, stride_bk, stride_bn)
  auto acc = tl::zeros<bm, bn>(tl::float32);                     //     acc = tl.zeros((bm, bn), dtype=tl.float32)
  for (int kk : tl::range(0, k, bk)) {                           //     for _ in range(0, k, bk):
    auto a = tl::load(a_ptr + offs_a, get_2d_mask(rm, rk, m, k - kk));  //     a = tl.load(offs_a)
    auto b = tl::load(b_ptr + offs_b, get_2d_mask(rk, rn, k - kk, n));  //     b = tl.load(offs_b)
    acc = tl::dot(a, b, acc, tl::ieee);                          //         acc += tl.dot(a, b, allow_tf32=False)
    a_ptr += bk * stride_ak;                                     //         offs_a += bk * stride_ak
    b_ptr += bk * stride_bk;                                     //         offs_b += bk * stride_bk
  }
  auto c = c_ptr + get_2d_offset(rm, rn, stride_cm, stride_cn);  //     c = c_ptr + get_2d_offset(rm, rn, stride_cm, stride_cn)
  auto mask = get_2d_mask(rm, rn, m, n);                         //     mask = get_2d_mask(rm, rn, m, n)
  tl::store(c, acc, mask);                                       //     tl.store(c, acc, mask=mask)
}

// Side goal of example 4: swizzle2d on a grid of 5 x 4 programs, each moving one element of
// x (row-major 0 ... 19) to where its swizzled program id points in z.
template <int group_sz>
TL_KERNEL void swizzle_k(tl::ptr<const int> x_ptr, tl::ptr<int> z_ptr) {
  auto pid_m = tl::program_id(0), pid_n = tl::program_id(1);
  auto num_pid_m = tl::num_programs(0), num_pid_n = tl::num_programs(1);

  auto [pid_m_, pid_n_] = tl::swizzle2d(pid_m, pid_n, num_pid_m, num_pid_n, group_sz);

  auto offs_m = get_1d_offset<1>(pid_m);
  auto offs_n = get_1d_offset<1>(pid_n);
  auto offs = get_2d_offset(offs_m, offs_n, num_pid_n);
  auto mask = get_2d_mask(offs_m, offs_n, num_pid_m, num_pid_n);

  auto offs_sw_m = get_1d_offset<1>(pid_m_);
  auto offs_sw_n = get_1d_offset<1>(pid_n_);
  auto offs_sw = get_2d_offset(offs_sw_m, offs_sw_n, num_pid_n);
  auto mask_sw = get_2d_mask(offs_sw_m, offs_sw_n, num_pid_m, num_pid_n);

  auto x = tl::load(x_ptr + offs, mask);
  tl::store(z_ptr + offs_sw, x, mask_sw);
}

// The grouped kernel: the naive one with its program ids swizzled.  Triton:
template <int bm, int bn, int bk, int group_sz, class T = tl::fp16>
TL_KERNEL void grouped_matmul_k(tl::ptr<const T> a_ptr, tl::ptr<const T> b_ptr, tl::ptr<T> c_ptr, int m, int n,
                                int k, int stride_am, int stride_ak, int stride_bk, int stride_bn, int stride_cm,
                                int stride_cn) {
  auto num_pid_m = tl::num_programs(0), num_pid_n = tl::num_programs(1);  // num_pid_m, num_pid_n = tl.num_programs(0), ...(1)
  auto [pid_m, pid_n] = tl::swizzle2d(tl::program_id(0), tl::program_id(1),  // pid_m, pid_n = tl.swizzle2d(pid_m, pid_n,
                                      num_pid_m, num_pid_n, group_sz);        //     num_pid_m, num_pid_n, group_sz)
  auto rm = get_1d_offset<bm>(pid_m);
  auto rn = get_1d_offset<bn>(pid_n);
  auto rk = get_1d_offset<bk>(0);
  auto offs_a = get_2d_offset(rm, rk, stride_am, stride_ak);
  auto offs_b = get_2d_offset(rk, rn, stride_bk, stride_bn);
  auto acc = tl::zeros<bm, bn>(tl::float32);
  for (int kk : tl::range(0, k, bk)) {
    auto a = tl::load(a_ptr + offs_a, get_2d_mask(rm, rk, m, k - kk));
    auto b = tl::load(b_ptr + offs_b, get_2d_mask(rk, rn, k - kk, n));
    acc = tl::dot(a, b, acc, tl::ieee);
    a_ptr += bk * stride_ak;
    b_ptr += bk * stride_bk;
  }
  auto c = c_ptr + get_2d_offset(rm, rn, stride_cm, stride_cn);
  auto mask = get_2d_mask(rm, rn, m, n);
  tl::store(c, acc, mask);
}

// The guide's matmul(a, b, matmul_k_fn, bs, group_sz): checks, c allocated, one program per
// bm x bn tile of C. matmul_into writes an existing c (what a benchmark times).
template <auto matmul_k_fn, int bm, int bn, class T>
tl::launch_report matmul_into(const tl::buffer<T>& a, const tl::buffer<T>& b, tl::buffer<T>& c,
                              tl::launch_options o = {}) {
  if (a.rank() != 2 || b.rank() != 2 || a.shape(1) != b.shape(0))
    throw tl::usage_error("matmul: matrix dims not compatible for matmul: " + a.sizes().str() + " @ " +
                          b.sizes().str());
  tl::check_shape(c, {a.shape(0), b.shape(1)}, "c");
  tl::check_tensors_ready(a.backend(), a, b, c);
  const int m = int(a.shape(0)), k = int(a.shape(1)), n = int(b.shape(1));
  o.backend = a.backend();
  return tl::launch<matmul_k_fn>(tl::grid(tl::cdiv(m, bm), tl::cdiv(n, bn)), o, a, b, c, m, n, k, int(a.stride(0)),
                                 int(a.stride(1)), int(b.stride(0)), int(b.stride(1)), int(c.stride(0)),
                                 int(c.stride(1)));
}
template <auto matmul_k_fn, int bm, int bn, class T>
tl::buffer<T> matmul(const tl::buffer<T>& a, const tl::buffer<T>& b, tl::launch_options o = {}) {
  tl::buffer<T> c({a.shape(0), b.rank() == 2 ? b.shape(1) : 0}, a.backend(), "c");
  matmul_into<matmul_k_fn, bm, bn>(a, b, c, o);
  return c;
}
// naive_matmul = partial(matmul, matmul_k_fn=naive_matmul_k); grouped_matmul likewise.
template <int bs = 16, class T>
tl::buffer<T> naive_matmul(const tl::buffer<T>& a, const tl::buffer<T>& b, tl::launch_options o = {}) {
  return matmul<naive_matmul_k<bs, bs, bs, T>, bs, bs>(a, b, o);
}
template <int group_sz, int bs = 16, class T>
tl::buffer<T> grouped_matmul(const tl::buffer<T>& a, const tl::buffer<T>& b, tl::launch_options o = {}) {
  return matmul<grouped_matmul_k<bs, bs, bs, group_sz, T>, bs, bs>(a, b, o);
}

// ---- autotuned (float16) ----
// The compile-time choices of a config (Triton: the dict of a triton.Config).
struct matmul_meta {
  int bm, bn, bk, group_sz;
};
inline std::ostream& operator<<(std::ostream& o, const matmul_meta& m) {
  return o << "bm=" << m.bm << " bn=" << m.bn << " bk=" << m.bk << " group_sz=" << m.group_sz;
}

// The guide's eight configs, and 128 x 128 x 64 with 4 warps (puzzle 11's best on Hopper).
inline constexpr tl::config<matmul_meta> matmul_configs[] = {
    {.meta = {128, 256, 64, 8}, .num_warps = 8, .num_stages = 3},
    {.meta = {64, 256, 32, 8}, .num_warps = 4, .num_stages = 4},
    {.meta = {128, 128, 32, 8}, .num_warps = 4, .num_stages = 4},
    {.meta = {128, 64, 32, 8}, .num_warps = 4, .num_stages = 4},
    {.meta = {64, 128, 32, 8}, .num_warps = 4, .num_stages = 4},
    {.meta = {128, 32, 32, 8}, .num_warps = 4, .num_stages = 4},
    {.meta = {64, 32, 32, 8}, .num_warps = 2, .num_stages = 5},
    {.meta = {32, 64, 32, 8}, .num_warps = 2, .num_stages = 5},
    {.meta = {128, 128, 64, 8}, .num_warps = 4, .num_stages = 3},
};

// A config's kernel.
struct grouped_matmul_of {
  template <matmul_meta M>
  static constexpr auto kernel = grouped_matmul_k<M.bm, M.bn, M.bk, M.group_sz, tl::fp16>;
};

// Triton: @triton.autotune(configs=[...], key=['m', 'n', 'k']) on grouped_autotuned_matmul_k.
inline tl::autotuner<matmul_configs, grouped_matmul_of> grouped_autotuned_matmul_k{
    {.name = "grouped_matmul", .key = {3, 4, 5}}};
// This translation unit compiles the configs it can (all on the CPU; on the GPU those whose
// num_warps is its TL_NUM_WARPS: CMakeLists.txt compiles matmul_variants.cpp for the others).
TL_AUTOTUNE_UNIT(grouped_autotuned_matmul_k)

// The guide's grouped_autotuned_matmul(a, b).
inline tl::launch_report grouped_autotuned_matmul_into(const tl::buffer<tl::fp16>& a, const tl::buffer<tl::fp16>& b,
                                                       tl::buffer<tl::fp16>& c, tl::launch_options o = {}) {
  if (a.rank() != 2 || b.rank() != 2 || a.shape(1) != b.shape(0))
    throw tl::usage_error("matmul: matrix dims not compatible for matmul: " + a.sizes().str() + " @ " +
                          b.sizes().str());
  tl::check_shape(c, {a.shape(0), b.shape(1)}, "c");
  tl::check_tensors_ready(a.backend(), a, b, c);
  const int m = int(a.shape(0)), k = int(a.shape(1)), n = int(b.shape(1));
  o.backend = a.backend();
  auto grid = [&](const matmul_meta& meta) { return tl::grid(tl::cdiv(m, meta.bm), tl::cdiv(n, meta.bn)); };
  return grouped_autotuned_matmul_k(grid, o, a, b, c, m, n, k, int(a.stride(0)), int(a.stride(1)), int(b.stride(0)),
                                    int(b.stride(1)), int(c.stride(0)), int(c.stride(1)));
}
inline tl::buffer<tl::fp16> grouped_autotuned_matmul(const tl::buffer<tl::fp16>& a, const tl::buffer<tl::fp16>& b,
                                                     tl::launch_options o = {}) {
  tl::buffer<tl::fp16> c({a.shape(0), b.rank() == 2 ? b.shape(1) : 0}, a.backend(), "c");
  grouped_autotuned_matmul_into(a, b, c, o);
  return c;
}
