// Tutorial 06: fused attention, forward (Flash Attention 2). For each query block of BLOCK_M
// rows: scores against BLOCK_N keys at a time, a running row maximum m_i and sum l_i (base-2
// exponentials, the scale folded into qk_scale), the output accumulated in float32 and divided
// at the end; M keeps m_i + log2(l_i) for a backward pass. Causal (STAGE 3): the blocks left of
// the diagonal without a mask (stage 1), the diagonal block masked (stage 2).
//
// q, k, v, o are Z x H x N_CTX x HEAD_DIM fp16 tensors, reached through tensor descriptors of
// their (Z H N_CTX) x HEAD_DIM rows. N_CTX is a multiple of BLOCK_M and BLOCK_N, as the
// tutorial assumes.
//
// The kernel, written as Triton's tutorial writes it (docs/tutorials/06-fused-attention.md);
// t06_fused_attention.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

template <int BLOCK_M, int HEAD_DIM, int BLOCK_N, int STAGE, class Acc, class Row, class Q, class DK, class DV, class Offs>
TL_INLINE void attn_fwd_inner(Acc& acc, Row& l_i, Row& m_i, const Q& q, const DK& desc_k, const DV& desc_v, int offset_y,
                              int start_m, float qk_scale, const Offs& offs_m, int N_CTX) {
  // The keys this stage covers.
  int lo = 0, hi = N_CTX;
  if constexpr (STAGE == 1) {
    hi = start_m * BLOCK_M;
  } else if constexpr (STAGE == 2) {
    lo = start_m * BLOCK_M;
    hi = (start_m + 1) * BLOCK_M;
  }
  auto offs_n = tl::arange<0, BLOCK_N>();
  int offsetk_y = offset_y + lo;
  int offsetv_y = offset_y + lo;
  for (int start_n : tl::range(lo, hi, BLOCK_N)) {
    // -- the scores --
    auto k = tl::trans(desc_k.load({offsetk_y, 0}));
    auto qk = tl::dot(q, k);
    tl::block<float, BLOCK_M> m_ij;
    if constexpr (STAGE == 2) {
      auto mask = offs_m(_, None) >= (start_n + offs_n(None, _));
      qk = qk * qk_scale + tl::where(mask, 0.0f, -1.0e6f);
      m_ij = tl::maximum(m_i, tl::max<1>(qk));
      qk -= m_ij(_, None);
    } else {
      m_ij = tl::maximum(m_i, tl::max<1>(qk) * qk_scale);
      qk = qk * qk_scale - m_ij(_, None);
    }
    auto p = tl::exp2(qk);
    // -- the running sum and the accumulator, rescaled to the new maximum --
    auto alpha = tl::exp2(m_i - m_ij);
    auto l_ij = tl::sum<1>(p);
    acc = acc * alpha(_, None);
    auto v = desc_v.load({offsetv_y, 0});
    acc = tl::dot(p.to(tl::float16), v, acc);
    l_i = l_i * alpha + l_ij;
    m_i = m_ij;
    offsetk_y += BLOCK_N;
    offsetv_y += BLOCK_N;
  }
}

template <int HEAD_DIM, int BLOCK_M, int BLOCK_N, int STAGE>
TL_KERNEL void attn_fwd(float sm_scale, tl::ptr<float> M, int Z, int H, tl::ptr<const tl::fp16> q_ptr,
                        tl::ptr<const tl::fp16> k_ptr, tl::ptr<const tl::fp16> v_ptr, tl::ptr<tl::fp16> o_ptr, int N_CTX) {
  static_assert(BLOCK_N <= HEAD_DIM);
  // Causal: the diagonal stage covers BLOCK_M keys, and stage 1 stops at the diagonal block.
  static_assert(STAGE == 1 || BLOCK_M % BLOCK_N == 0, "causal attention needs BLOCK_N to divide BLOCK_M");
  auto start_m = tl::program_id(0);
  auto off_hz = tl::program_id(1);
  auto off_z = off_hz / H;
  auto off_h = off_hz % H;

  auto y_dim = Z * H * N_CTX;
  auto desc_q = tl::make_tensor_descriptor(q_ptr, {y_dim, HEAD_DIM}, {HEAD_DIM, 1}, tl::block_shape<BLOCK_M, HEAD_DIM>);
  auto desc_k = tl::make_tensor_descriptor(k_ptr, {y_dim, HEAD_DIM}, {HEAD_DIM, 1}, tl::block_shape<BLOCK_N, HEAD_DIM>);
  auto desc_v = tl::make_tensor_descriptor(v_ptr, {y_dim, HEAD_DIM}, {HEAD_DIM, 1}, tl::block_shape<BLOCK_N, HEAD_DIM>);
  auto desc_o = tl::make_tensor_descriptor(o_ptr, {y_dim, HEAD_DIM}, {HEAD_DIM, 1}, tl::block_shape<BLOCK_M, HEAD_DIM>);

  auto offset_y = off_z * (N_CTX * H) + off_h * N_CTX;
  auto qo_offset_y = offset_y + start_m * BLOCK_M;
  auto offs_m = start_m * BLOCK_M + tl::arange<0, BLOCK_M>();
  auto m_i = tl::full<BLOCK_M>(-tl::inf, tl::float32);
  auto l_i = tl::full<BLOCK_M>(1.0f, tl::float32);
  auto acc = tl::zeros<BLOCK_M, HEAD_DIM>(tl::float32);
  auto qk_scale = sm_scale * 1.44269504f;  // 1 / ln 2: exp2 instead of exp
  auto q = desc_q.load({qo_offset_y, 0});
  // Stage 1: the blocks off the diagonal (all of them when not causal: STAGE 1 runs inner stage 3).
  if constexpr ((STAGE & 1) != 0)
    attn_fwd_inner<BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE>(acc, l_i, m_i, q, desc_k, desc_v, offset_y, start_m, qk_scale,
                                                            offs_m, N_CTX);
  // Stage 2: the diagonal block, masked.
  if constexpr ((STAGE & 2) != 0)
    attn_fwd_inner<BLOCK_M, HEAD_DIM, BLOCK_N, 2>(acc, l_i, m_i, q, desc_k, desc_v, offset_y, start_m, qk_scale, offs_m,
                                                  N_CTX);
  // Epilogue.
  m_i += tl::log2(l_i);
  acc = acc / l_i(_, None);
  auto m_ptrs = M + off_hz * N_CTX + offs_m;
  tl::store(m_ptrs, m_i);
  desc_o.store({qo_offset_y, 0}, acc.to(tl::float16));
}
