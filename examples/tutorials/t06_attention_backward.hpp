// Tutorial 06: fused attention, backward (causal). Two kernels:
//   attn_bwd_preprocess   Delta = rowsum(o * do), one BLOCK_M x HEAD_DIM block a program;
//   attn_bwd              per key block of BLOCK_N1 keys: dk and dv over the query blocks from
//                         the diagonal down (the diagonal in MASK_BLOCK_M1 slices, masked);
//                         per query block of BLOCK_M2 rows: dq over the key blocks from the
//                         diagonal left (the diagonal in MASK_BLOCK_N2 slices, masked).
// The forward pass kept M = m + log2(l) per row in base-2 units; the caller hands k pre-scaled
// by sm_scale / ln 2 (arg_k), so p = exp2(q k^T - M) needs no scale, dk is scaled by sm_scale
// at the end and dq by ln 2.
//
// q, k, v, do, dq, dk, dv are Z x H x N_CTX x HEAD_DIM fp16 tensors with the strides passed;
// N_CTX is a multiple of BLOCK_N1 and BLOCK_M2, as the tutorial assumes.
//
// The kernels, written as Triton's tutorial writes them (docs/tutorials/06-fused-attention.md);
// t06_attention_backward.cpp holds the spec and how the checker runs them.
#pragma once

#include <cstdint>

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

template <int BLOCK_M, int HEAD_DIM>
TL_KERNEL void attn_bwd_preprocess(tl::ptr<const tl::fp16> O, tl::ptr<const tl::fp16> DO, tl::ptr<float> Delta, [[maybe_unused]] int Z,
                                   [[maybe_unused]] int H, int N_CTX) {
  auto off_m = tl::program_id(0) * BLOCK_M + tl::arange<0, BLOCK_M>();
  auto off_hz = tl::program_id(1);
  auto off_n = tl::arange<0, HEAD_DIM>();
  // load
  auto o = tl::load(O + off_hz * HEAD_DIM * N_CTX + (off_m(_, None) * HEAD_DIM + off_n(None, _)));
  auto do_ = tl::load(DO + off_hz * HEAD_DIM * N_CTX + (off_m(_, None) * HEAD_DIM + off_n(None, _))).to(tl::float32);
  auto delta = tl::sum<1>(o * do_);
  // write-back
  tl::store(Delta + off_hz * N_CTX + off_m, delta);
}

// dk and dv for BLOCK_N1 keys against num_steps query blocks of BLOCK_M1 rows from start_m.
template <int BLOCK_M1, int BLOCK_N1, int HEAD_DIM, bool MASK, class DK, class DV, class KB, class VB>
TL_INLINE void attn_bwd_dkdv(DK& dk, DV& dv, tl::ptr<const tl::fp16> Q, const KB& k, const VB& v,
                             tl::ptr<const tl::fp16> DO, tl::ptr<const float> M, tl::ptr<const float> D,
                             int stride_tok, int stride_d, int start_n, int start_m, int num_steps) {
  auto offs_m = start_m + tl::arange<0, BLOCK_M1>();
  auto offs_n = start_n + tl::arange<0, BLOCK_N1>();
  auto offs_k = tl::arange<0, HEAD_DIM>();
  auto qT_ptrs = Q + (offs_m(None, _) * stride_tok + offs_k(_, None) * stride_d);
  auto do_ptrs = DO + (offs_m(_, None) * stride_tok + offs_k(None, _) * stride_d);
  static_assert(BLOCK_N1 % BLOCK_M1 == 0, "BLOCK_N1 must be a multiple of BLOCK_M1");
  auto curr_m = start_m;
  auto step_m = BLOCK_M1;
  for (int blk_idx : tl::range(0, num_steps)) {
    (void)blk_idx;
    auto qT = tl::load(qT_ptrs);
    // Load m before computing qk to reduce pipeline stall.
    auto offs_m_blk = curr_m + tl::arange<0, BLOCK_M1>();  // Triton rebinds offs_m
    auto m = tl::load(M + offs_m_blk);
    auto qkT = tl::dot(k, qT);
    auto pT = tl::eval(tl::exp2(qkT - m(None, _)));
    // Autoregressive masking.
    if constexpr (MASK) {
      auto mask = offs_m_blk(None, _) >= offs_n(_, None);
      pT = tl::where(mask, pT, 0.0f);
    }
    auto do_ = tl::load(do_ptrs);
    // Compute dV.
    auto ppT = pT.to(tl::float16);
    dv += tl::dot(ppT, do_);
    // D (= delta) is pre-divided by ds_scale.
    auto Di = tl::load(D + offs_m_blk);
    // Compute dP and dS.
    auto dpT = tl::dot(v, tl::trans(do_));
    auto dsT = (pT * (dpT - Di(None, _))).to(tl::float16);
    dk += tl::dot(dsT, tl::trans(qT));
    // Increment pointers.
    curr_m += step_m;
    qT_ptrs += step_m * stride_tok;
    do_ptrs += step_m * stride_tok;
  }
}

// dq for BLOCK_M2 queries against num_steps key blocks of BLOCK_N2 keys from start_n.
template <int BLOCK_M2, int BLOCK_N2, int HEAD_DIM, bool MASK, class DQ, class QB, class DOB, class MB>
TL_INLINE void attn_bwd_dq(DQ& dq, const QB& q, tl::ptr<const tl::fp16> K, tl::ptr<const tl::fp16> V, const DOB& do_,
                           const MB& m, tl::ptr<const float> D, int stride_tok, int stride_d, int start_m, int start_n,
                           int num_steps) {
  auto offs_m = start_m + tl::arange<0, BLOCK_M2>();
  auto offs_n = start_n + tl::arange<0, BLOCK_N2>();
  auto offs_k = tl::arange<0, HEAD_DIM>();
  auto kT_ptrs = K + (offs_n(None, _) * stride_tok + offs_k(_, None) * stride_d);
  auto vT_ptrs = V + (offs_n(None, _) * stride_tok + offs_k(_, None) * stride_d);
  // D (= delta) is pre-divided by ds_scale.
  auto Di = tl::load(D + offs_m);
  static_assert(BLOCK_M2 % BLOCK_N2 == 0, "BLOCK_M2 must be a multiple of BLOCK_N2");
  auto curr_n = start_n;
  auto step_n = BLOCK_N2;
  for (int blk_idx : tl::range(0, num_steps)) {
    (void)blk_idx;
    auto kT = tl::load(kT_ptrs);
    auto vT = tl::load(vT_ptrs);
    auto qk = tl::dot(q, kT);
    auto p = tl::eval(tl::exp2(qk - m));
    // Autoregressive masking.
    if constexpr (MASK) {
      auto offs_n_blk = curr_n + tl::arange<0, BLOCK_N2>();  // Triton rebinds offs_n
      auto mask = offs_m(_, None) >= offs_n_blk(None, _);
      p = tl::where(mask, p, 0.0f);
    }
    // Compute dP and dS.
    auto dp = tl::dot(do_, vT);
    auto ds = (p * (dp - Di(_, None))).to(tl::float16);
    // Compute dQ. NOTE: dq is de-scaled at the end, because kT was pre-scaled.
    dq += tl::dot(ds, tl::trans(kT));
    // Increment pointers.
    curr_n += step_n;
    kT_ptrs += step_n * stride_tok;
    vT_ptrs += step_n * stride_tok;
  }
}

template <int BLOCK_M1, int BLOCK_N1, int BLOCK_M2, int BLOCK_N2, int BLK_SLICE_FACTOR, int HEAD_DIM>
TL_KERNEL void attn_bwd(tl::ptr<const tl::fp16> Q, tl::ptr<const tl::fp16> K, tl::ptr<const tl::fp16> V, float sm_scale,
                        tl::ptr<const tl::fp16> DO,                                              //
                        tl::ptr<tl::fp16> DQ, tl::ptr<tl::fp16> DK, tl::ptr<tl::fp16> DV,        //
                        tl::ptr<const float> M, tl::ptr<const float> D,                          //
                        int stride_z, int stride_h, int stride_tok, int stride_d, int H, int N_CTX) {
  constexpr float LN2 = 0.6931471824645996f;  // = ln(2)

  auto bhid = tl::program_id(2);
  auto off_chz = std::int64_t(bhid) * N_CTX;
  auto adj = std::int64_t(stride_h) * (bhid % H) + std::int64_t(stride_z) * (bhid / H);
  auto pid = tl::program_id(0);

  // offset pointers for batch/head
  Q += adj;
  K += adj;
  V += adj;
  DO += adj;
  DQ += adj;
  DK += adj;
  DV += adj;
  M += off_chz;
  D += off_chz;

  auto offs_k = tl::arange<0, HEAD_DIM>();

  auto start_n = pid * BLOCK_N1;
  auto start_m = start_n;

  constexpr int MASK_BLOCK_M1 = BLOCK_M1 / BLK_SLICE_FACTOR;
  auto offs_n = start_n + tl::arange<0, BLOCK_N1>();

  auto dv = tl::zeros<BLOCK_N1, HEAD_DIM>(tl::float32);
  auto dk = tl::zeros<BLOCK_N1, HEAD_DIM>(tl::float32);

  // load K and V: they stay in SRAM throughout the inner loop.
  auto k = tl::load(K + (offs_n(_, None) * stride_tok + offs_k(None, _) * stride_d));
  auto v = tl::load(V + (offs_n(_, None) * stride_tok + offs_k(None, _) * stride_d));

  auto num_steps = BLOCK_N1 / MASK_BLOCK_M1;

  attn_bwd_dkdv<MASK_BLOCK_M1, BLOCK_N1, HEAD_DIM, true>(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, start_n,
                                                         start_m, num_steps);

  start_m += num_steps * MASK_BLOCK_M1;
  num_steps = (N_CTX - start_m) / BLOCK_M1;

  // Compute dK and dV for non-masked blocks.
  attn_bwd_dkdv<BLOCK_M1, BLOCK_N1, HEAD_DIM, false>(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, start_n, start_m,
                                                     num_steps);

  auto dv_ptrs = DV + (offs_n(_, None) * stride_tok + offs_k(None, _) * stride_d);
  tl::store(dv_ptrs, dv);

  // Write back dK.
  dk *= sm_scale;
  auto dk_ptrs = DK + (offs_n(_, None) * stride_tok + offs_k(None, _) * stride_d);
  tl::store(dk_ptrs, dk);

  // THIS BLOCK DOES DQ:
  start_m = pid * BLOCK_M2;
  auto end_n = start_m + BLOCK_M2;

  constexpr int MASK_BLOCK_N2 = BLOCK_N2 / BLK_SLICE_FACTOR;
  auto offs_m = start_m + tl::arange<0, BLOCK_M2>();

  auto q = tl::load(Q + (offs_m(_, None) * stride_tok + offs_k(None, _) * stride_d));
  auto dq = tl::zeros<BLOCK_M2, HEAD_DIM>(tl::float32);
  auto do_ = tl::load(DO + (offs_m(_, None) * stride_tok + offs_k(None, _) * stride_d));

  auto m = tl::load(M + offs_m)(_, None);

  // Compute dQ for masked (diagonal) blocks.
  num_steps = BLOCK_M2 / MASK_BLOCK_N2;
  attn_bwd_dq<BLOCK_M2, MASK_BLOCK_N2, HEAD_DIM, true>(dq, q, K, V, do_, m, D, stride_tok, stride_d, start_m,
                                                       end_n - num_steps * MASK_BLOCK_N2, num_steps);
  end_n -= num_steps * MASK_BLOCK_N2;
  // stage 2
  num_steps = end_n / BLOCK_N2;
  attn_bwd_dq<BLOCK_M2, BLOCK_N2, HEAD_DIM, false>(dq, q, K, V, do_, m, D, stride_tok, stride_d, start_m,
                                                   end_n - num_steps * BLOCK_N2, num_steps);
  // Write back dQ.
  auto dq_ptrs = DQ + (offs_m(_, None) * stride_tok + offs_k(None, _) * stride_d);
  dq *= LN2;
  tl::store(dq_ptrs, dq);
}
