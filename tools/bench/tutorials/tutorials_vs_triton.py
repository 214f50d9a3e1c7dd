#!/usr/bin/env python3
"""tl-bench's second suite: Triton's tutorials written in tl, timed beside Triton's tutorial
kernels and torch's equivalents in one process (every ratio from one run).

    python3 tools/bench/tutorials/tutorials_vs_triton.py --lib build/tools/bench/libtl_tutorial_kernels.so
            [--only add,softmax,matmul,persistent,descriptor,attention,backward,dropout,layernorm,grouped,grey,rmsnorm] [--out DIR] [--quick]

The tl kernels (examples/tutorials) come from libtl_tutorial_kernels.so (tl_tutorial_kernels.hpp:
a C entry per kernel, device pointers and a stream) through ctypes; the Triton kernels below are
the tutorials' algorithms as the tutorials write them (grouped matmul with % M offsets and pointer
blocks advanced along K, autotuned over tile shapes; persistent row softmax; blocked vector add;
persistent matmul with and without tensor descriptors; attention forward and backward; low-memory
dropout; layer norm forward and backward, with its locks; grouped GEMM over a table of matrix
addresses), plus
an rgb-to-grey on bytes (the guide's kernel) and an RMSNorm written as tutorial 05 writes its
layer norm.
Every output (tl's and Triton's) is checked against torch before timing. Times are medians of
triton.testing.do_bench. Writes tutorials-vs-triton.csv (and .svg when matplotlib is there)
and prints a Markdown table: tl, Triton and torch side by side with ratios.
"""
import argparse
import csv
import ctypes
import math
import os
import sys

import torch
import triton
import triton.language as tl


# ---------------------------------------------------------------- Triton's tutorial kernels


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float("inf"))
        shifted = row - tl.max(row, axis=0)
        numerator = tl.exp(shifted)
        denominator = tl.sum(numerator, axis=0)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / denominator, mask=mask)


def matmul_configs():
    shapes = [(128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 4), (128, 128, 64, 3, 8),
              (64, 256, 64, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (128, 128, 32, 4, 4)]
    return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8},
                          num_stages=s, num_warps=w) for m, n, k, s, w in shapes]


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


def matmul_fp8_configs():
    # The tutorial's configurations for fp8 inputs (K steps of 128 for the large tiles).
    shapes = [(128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (256, 64, 128, 4, 4), (64, 256, 128, 4, 4),
              (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (128, 32, 64, 4, 4)]
    return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8},
                          num_stages=s, num_warps=w) for m, n, k, s, w in shapes]


@triton.jit
def matmul_body(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


matmul_kernel = triton.autotune(configs=matmul_configs(), key=["M", "N", "K"])(matmul_body)
matmul_kernel_fp8 = triton.autotune(configs=matmul_fp8_configs(), key=["M", "N", "K"])(matmul_body)


def persistent_configs():
    shapes = [(128, 256, 64, 3, 8), (128, 128, 64, 4, 4), (128, 128, 64, 3, 8), (128, 64, 64, 4, 4)]
    return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8},
                          num_stages=s, num_warps=w) for m, n, k, s, w in shapes]


@triton.jit
def _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.autotune(configs=persistent_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                             stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                             BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    offs_k_for_mask = tl.arange(0, BLOCK_SIZE_K)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_SIZE_M), BLOCK_SIZE_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N), BLOCK_SIZE_N)
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
            a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BLOCK_SIZE_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, accumulator.to(c_ptr.dtype.element_ty), mask=c_mask)


def descriptor_configs():
    shapes = [(128, 128, 64, 3, 4), (128, 128, 64, 4, 4), (128, 256, 64, 3, 8), (128, 256, 64, 4, 8)]
    return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8},
                          num_stages=s, num_warps=w) for m, n, k, s, w in shapes]


@triton.autotune(configs=descriptor_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel_descriptor_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_SIZE_M: tl.constexpr,
                                        BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                                        GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    tile_id_c = start_pid - NUM_SMS
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            accumulator = tl.dot(a, b.T, accumulator)
        tile_id_c += NUM_SMS
        pid_m, pid_n = _compute_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], accumulator.to(tl.float16))


def attention_configs():
    return [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w)
            for bm in [64, 128] for bn in [32, 64, 128] for s in [2, 3, 4] for w in [4, 8]
            if not (bm * bn < 128 * 128 and w == 8)]


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, start_m, qk_scale, BLOCK_M: tl.constexpr,
                    HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr, offs_m, offs_n, N_CTX):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    offsetk_y = offset_y + lo
    offsetv_y = offset_y + lo
    for start_n in tl.range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = desc_k.load([offsetk_y, 0]).T
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([offsetv_y, 0])
        acc = tl.dot(p.to(tl.float16), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
        offsetk_y += BLOCK_N
        offsetv_y += BLOCK_N
    return acc, l_i, m_i


@triton.autotune(configs=attention_configs(), key=["N_CTX", "HEAD_DIM", "STAGE"])
@triton.jit
def _attn_fwd(sm_scale, M, Z, H, q_ptr, k_ptr, v_ptr, o_ptr, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    y_dim = Z * H * N_CTX
    desc_q = tl.make_tensor_descriptor(q_ptr, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    desc_k = tl.make_tensor_descriptor(k_ptr, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    desc_v = tl.make_tensor_descriptor(v_ptr, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    desc_o = tl.make_tensor_descriptor(o_ptr, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    offset_y = off_z * (N_CTX * H) + off_h * N_CTX
    qo_offset_y = offset_y + start_m * BLOCK_M
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = desc_q.load([qo_offset_y, 0])
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, start_m, qk_scale, BLOCK_M, HEAD_DIM,
                                        BLOCK_N, 4 - STAGE, offs_m, offs_n, N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, start_m, qk_scale, BLOCK_M, HEAD_DIM,
                                        BLOCK_N, 2, offs_m, offs_n, N_CTX)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    desc_o.store([qo_offset_y, 0], acc.to(tl.float16))


@triton.jit
def _attn_bwd_preprocess(O, DO, Delta, Z, H, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_n = tl.arange(0, HEAD_DIM)
    o = tl.load(O + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM + off_n[None, :])
    do = tl.load(DO + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM + off_n[None, :]).to(tl.float32)
    tl.store(Delta + off_hz * N_CTX + off_m, tl.sum(o * do, axis=1))


@triton.jit
def _attn_bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr,
                   HEAD_DIM: tl.constexpr, start_n, start_m, num_steps, MASK: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M1)
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    offs_k = tl.arange(0, HEAD_DIM)
    qT_ptrs = Q + offs_m[None, :] * stride_tok + offs_k[:, None] * stride_d
    do_ptrs = DO + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d
    curr_m = start_m
    for blk_idx in range(num_steps):
        qT = tl.load(qT_ptrs)
        offs_m = curr_m + tl.arange(0, BLOCK_M1)
        m = tl.load(M + offs_m)
        qkT = tl.dot(k, qT)
        pT = tl.math.exp2(qkT - m[None, :])
        if MASK:
            pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
        do = tl.load(do_ptrs)
        dv += tl.dot(pT.to(tl.float16), do)
        Di = tl.load(D + offs_m)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = (pT * (dpT - Di[None, :])).to(tl.float16)
        dk += tl.dot(dsT, tl.trans(qT))
        curr_m += BLOCK_M1
        qT_ptrs += BLOCK_M1 * stride_tok
        do_ptrs += BLOCK_M1 * stride_tok
    return dk, dv


@triton.jit
def _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr,
                 HEAD_DIM: tl.constexpr, start_m, start_n, num_steps, MASK: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    offs_n = start_n + tl.arange(0, BLOCK_N2)
    offs_k = tl.arange(0, HEAD_DIM)
    kT_ptrs = K + offs_n[None, :] * stride_tok + offs_k[:, None] * stride_d
    vT_ptrs = V + offs_n[None, :] * stride_tok + offs_k[:, None] * stride_d
    Di = tl.load(D + offs_m)
    curr_n = start_n
    for blk_idx in range(num_steps):
        kT = tl.load(kT_ptrs)
        vT = tl.load(vT_ptrs)
        qk = tl.dot(q, kT)
        p = tl.math.exp2(qk - m)
        if MASK:
            offs_n = curr_n + tl.arange(0, BLOCK_N2)
            p = tl.where(offs_m[:, None] >= offs_n[None, :], p, 0.0)
        dp = tl.dot(do, vT).to(tl.float32)
        ds = (p * (dp - Di[:, None])).to(tl.float16)
        dq += tl.dot(ds, tl.trans(kT))
        curr_n += BLOCK_N2
        kT_ptrs += BLOCK_N2 * stride_tok
        vT_ptrs += BLOCK_N2 * stride_tok
    return dq


@triton.jit
def _attn_bwd(Q, K, V, sm_scale, DO, DQ, DK, DV, M, D, stride_z, stride_h, stride_tok, stride_d, H, N_CTX,
              BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr, BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr,
              BLK_SLICE_FACTOR: tl.constexpr, HEAD_DIM: tl.constexpr):
    LN2: tl.constexpr = 0.6931471824645996
    bhid = tl.program_id(2)
    off_chz = (bhid * N_CTX).to(tl.int64)
    adj = (stride_h * (bhid % H) + stride_z * (bhid // H)).to(tl.int64)
    pid = tl.program_id(0)
    Q += adj
    K += adj
    V += adj
    DO += adj
    DQ += adj
    DK += adj
    DV += adj
    M += off_chz
    D += off_chz
    offs_k = tl.arange(0, HEAD_DIM)
    start_n = pid * BLOCK_N1
    start_m = start_n
    MASK_BLOCK_M1: tl.constexpr = BLOCK_M1 // BLK_SLICE_FACTOR
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    k = tl.load(K + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d)
    v = tl.load(V + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d)
    num_steps = BLOCK_N1 // MASK_BLOCK_M1
    dk, dv = _attn_bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, MASK_BLOCK_M1, BLOCK_N1, HEAD_DIM,
                            start_n, start_m, num_steps, MASK=True)
    start_m += num_steps * MASK_BLOCK_M1
    num_steps = (N_CTX - start_m) // BLOCK_M1
    dk, dv = _attn_bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, BLOCK_M1, BLOCK_N1, HEAD_DIM,
                            start_n, start_m, num_steps, MASK=False)
    tl.store(DV + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d, dv)
    dk *= sm_scale
    tl.store(DK + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d, dk)
    start_m = pid * BLOCK_M2
    end_n = start_m + BLOCK_M2
    MASK_BLOCK_N2: tl.constexpr = BLOCK_N2 // BLK_SLICE_FACTOR
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    q = tl.load(Q + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d)
    dq = tl.zeros([BLOCK_M2, HEAD_DIM], dtype=tl.float32)
    do = tl.load(DO + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d)
    m = tl.load(M + offs_m)
    m = m[:, None]
    num_steps = BLOCK_M2 // MASK_BLOCK_N2
    dq = _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, BLOCK_M2, MASK_BLOCK_N2, HEAD_DIM, start_m,
                      end_n - num_steps * MASK_BLOCK_N2, num_steps, MASK=True)
    end_n -= num_steps * MASK_BLOCK_N2
    num_steps = end_n // BLOCK_N2
    dq = _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, BLOCK_M2, BLOCK_N2, HEAD_DIM, start_m,
                      end_n - num_steps * BLOCK_N2, num_steps, MASK=False)
    dq *= LN2
    tl.store(DQ + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d, dq)


@triton.jit
def rgb2grey_kernel(x_ptr, out_ptr, h, w, bs0: tl.constexpr, bs1: tl.constexpr):
    pid_0 = tl.program_id(0)
    pid_1 = tl.program_id(1)
    offs_0 = pid_0 * bs0 + tl.arange(0, bs0)
    offs_1 = pid_1 * bs1 + tl.arange(0, bs1)
    offs = w * offs_0[:, None] + offs_1[None, :]
    mask = (offs_0[:, None] < h) & (offs_1[None, :] < w)
    r = tl.load(x_ptr + 0 * h * w + offs, mask=mask)
    g = tl.load(x_ptr + 1 * h * w + offs, mask=mask)
    b = tl.load(x_ptr + 2 * h * w + offs, mask=mask)
    out = 0.2989 * r + 0.5870 * g + 0.1140 * b
    tl.store(out_ptr + offs, out, mask=mask)


@triton.jit
def rms_norm_kernel(X, Y, W, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    var = tl.sum(x * x, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask)
    y = x * rstd * w
    tl.store(Y + row * stride + cols, y, mask=mask)


@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def _layer_norm_bwd_dx_fused(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N, GROUP_SIZE_M: tl.constexpr,
                             BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def _layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.)
        db += tl.load(DB + offs, mask=mask, other=0.)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


def layer_norm_group(N):
    # The tutorial's GROUP_SIZE_M.
    return 64 if N > 8192 else 96 if N > 4096 else 128 if N > 1024 else 256


def triton_layer_norm_fwd(x, w, b, eps):
    M, N = x.shape
    y = torch.empty_like(x)
    mean = torch.empty((M, ), dtype=torch.float32, device=x.device)
    rstd = torch.empty((M, ), dtype=torch.float32, device=x.device)
    BLOCK_SIZE = min(65536 // x.element_size(), triton.next_power_of_2(N))
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    _layer_norm_fwd_fused[(M, )](x, y, w, b, mean, rstd, x.stride(0), N, eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y, mean, rstd


def triton_layer_norm_bwd(dy, x, w, mean, rstd):
    M, N = x.shape
    GROUP_SIZE_M = layer_norm_group(N)
    BLOCK_SIZE = min(65536 // x.element_size(), triton.next_power_of_2(N))
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    locks = torch.zeros(2 * GROUP_SIZE_M, dtype=torch.int32, device=w.device)
    _dw = torch.zeros((GROUP_SIZE_M, N), dtype=x.dtype, device=w.device)
    _db = torch.zeros((GROUP_SIZE_M, N), dtype=x.dtype, device=w.device)
    dw = torch.empty((N, ), dtype=w.dtype, device=w.device)
    db = torch.empty((N, ), dtype=w.dtype, device=w.device)
    dx = torch.empty_like(dy)
    _layer_norm_bwd_dx_fused[(M, )](dx, dy, _dw, _db, x, w, mean, rstd, locks, x.stride(0), N,
                                    BLOCK_SIZE_N=BLOCK_SIZE, GROUP_SIZE_M=GROUP_SIZE_M, num_warps=num_warps)
    grid = lambda meta: (triton.cdiv(N, meta['BLOCK_SIZE_N']), )
    _layer_norm_bwd_dwdb[grid](_dw, _db, dw, db, min(GROUP_SIZE_M, M), N, BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
    return dx, dw, db


def grouped_configs(sms):
    shapes = [(128, 128, 32, 84), (128, 128, 32, 128), (64, 64, 32, 84), (64, 64, 32, 128), (128, 128, 64, sms),
              (64, 128, 64, sms)]
    return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "NUM_SM": s}) for m, n, k, s in shapes]


@triton.jit
def grouped_matmul_body(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes, g_lds, group_size,
                        NUM_SM: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                        BLOCK_SIZE_K: tl.constexpr):
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BLOCK_SIZE_M)
        num_n_tiles = tl.cdiv(gn, BLOCK_SIZE_N)
        num_tiles = num_m_tiles * num_n_tiles
        while (tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles):
            k = gk
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            tile_idx_in_gemm = tile_idx - last_problem_end
            tile_m_idx = tile_idx_in_gemm // num_n_tiles
            tile_n_idx = tile_idx_in_gemm % num_n_tiles
            offs_am = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_bn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            offs_k = tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + offs_am[:, None] * lda + offs_k[None, :]
            b_ptrs = b_ptr + offs_k[:, None] * ldb + offs_bn[None, :]
            accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(k, BLOCK_SIZE_K)):
                tl.multiple_of(a_ptrs, [16, 16])
                tl.multiple_of(b_ptrs, [16, 16])
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
                accumulator += tl.dot(a, b)
                a_ptrs += BLOCK_SIZE_K
                b_ptrs += BLOCK_SIZE_K * ldb
            c = accumulator.to(tl.float16)
            offs_cm = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_cn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            c_ptrs = c_ptr + ldc * offs_cm[:, None] + offs_cn[None, :]
            tl.store(c_ptrs, c)
            tile_idx += NUM_SM
        last_problem_end = last_problem_end + num_tiles


# ---------------------------------------------------------------- tl through ctypes


class TlKernels:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.tl_tutorials_error.restype = ctypes.c_char_p
        self._fns = {}  # entry points looked up once: a call's Python cost is part of every small row

    def _call(self, name, *args):
        fn = self._fns.get(name)
        if fn is None:
            fn = self._fns[name] = getattr(self.lib, name)
        # The current stream's handle without building a torch.cuda.Stream object each call (a
        # private torch call; torch.cuda.current_stream().cuda_stream is the public, slower one).
        rc = fn(*args, ctypes.c_void_p(torch._C._cuda_getCurrentRawStream(torch.cuda.current_device())))
        if rc != 0:
            raise RuntimeError(f"{name}: {self.lib.tl_tutorials_error().decode()}")

    @staticmethod
    def _p(t):
        return ctypes.c_void_p(t.data_ptr())

    def add(self, x, y, out):
        self._call("tl_tutorials_add_f32", self._p(x), self._p(y), self._p(out), ctypes.c_int(x.numel()))

    def softmax(self, out, x, programs):
        rows, cols = x.shape
        self._call("tl_tutorials_softmax_f32", self._p(out), self._p(x), ctypes.c_int(x.stride(0)),
                   ctypes.c_int(out.stride(0)), ctypes.c_int(rows), ctypes.c_int(cols), ctypes.c_int(programs))

    def matmul(self, a, b, c, activation=0, wide=False):
        dtype = {torch.float16: 0, torch.bfloat16: 1, torch.float8_e4m3fn: 2, torch.float8_e5m2: 3}[a.dtype]
        M, K = a.shape
        N = b.shape[1]
        ints = [M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1), activation]
        self._call("tl_tutorials_matmul_wide" if wide else "tl_tutorials_matmul", ctypes.c_int(dtype), self._p(a),
                   self._p(b), self._p(c), *[ctypes.c_int(v) for v in ints])


    def matmul_persistent(self, a, b, c, num_sms):
        M, K = a.shape
        N = b.shape[1]
        ints = [M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1), num_sms]
        self._call("tl_tutorials_matmul_persistent", self._p(a), self._p(b), self._p(c), *[ctypes.c_int(v) for v in ints])


    def matmul_descriptor_persistent(self, a, b_nk, c, num_sms, wide=False):
        M, K = a.shape
        N = b_nk.shape[0]
        self._call("tl_tutorials_matmul_descriptor_persistent_wide" if wide else "tl_tutorials_matmul_descriptor_persistent",
                   self._p(a), self._p(b_nk), self._p(c), *[ctypes.c_int(v) for v in (M, N, K, num_sms)])

    def attention_bwd(self, q, arg_k, v, sm_scale, o, do, dq, dk, dv, m, delta):
        Z, H, n_ctx, d = q.shape
        self._call("tl_tutorials_attention_bwd", self._p(q), self._p(arg_k), self._p(v), ctypes.c_float(sm_scale),
                   self._p(o), self._p(do), self._p(dq), self._p(dk), self._p(dv), self._p(m), self._p(delta),
                   ctypes.c_int(Z), ctypes.c_int(H), ctypes.c_int(n_ctx), ctypes.c_int(d))

    def rgb2grey(self, x, out):
        _, h, w = x.shape
        self._call("tl_tutorials_rgb2grey_u8", self._p(x), self._p(out), ctypes.c_int(h), ctypes.c_int(w))

    def rms_norm(self, x, y, w, eps):
        rows, n = x.shape
        self._call("tl_tutorials_rms_norm_f16", self._p(x), self._p(y), self._p(w), ctypes.c_int(rows), ctypes.c_int(n),
                   ctypes.c_int(x.stride(0)), ctypes.c_float(eps))

    def seeded_dropout(self, x, out, p, seed):
        self._call("tl_tutorials_seeded_dropout_f32", self._p(x), self._p(out), ctypes.c_int(x.numel()), ctypes.c_float(p),
                   ctypes.c_int(seed))

    def layer_norm_fwd(self, x, w, b, eps):
        M, N = x.shape
        y = torch.empty_like(x)
        mean = torch.empty((M, ), dtype=torch.float32, device=x.device)
        rstd = torch.empty((M, ), dtype=torch.float32, device=x.device)
        self._call("tl_tutorials_layer_norm_fwd_f16", self._p(x), self._p(y), self._p(w), self._p(b), self._p(mean),
                   self._p(rstd), ctypes.c_int(M), ctypes.c_int(N), ctypes.c_float(eps))
        return y, mean, rstd

    def layer_norm_bwd(self, dy, x, w, mean, rstd):
        """As the tutorial's host code: the partial rows and the locks allocated zeroed each call."""
        M, N = x.shape
        group = layer_norm_group(N)
        locks = torch.zeros(2 * group, dtype=torch.int32, device=w.device)
        _dw = torch.zeros((group, N), dtype=x.dtype, device=w.device)
        _db = torch.zeros((group, N), dtype=x.dtype, device=w.device)
        dw = torch.empty((N, ), dtype=w.dtype, device=w.device)
        db = torch.empty((N, ), dtype=w.dtype, device=w.device)
        dx = torch.empty_like(dy)
        self._call("tl_tutorials_layer_norm_bwd_f16", self._p(dy), self._p(x), self._p(w), self._p(mean), self._p(rstd),
                   self._p(dx), self._p(_dw), self._p(_db), self._p(locks), self._p(dw), self._p(db), ctypes.c_int(M),
                   ctypes.c_int(N))
        return dx, dw, db

    def grouped_matmul(self, a_ptrs, b_ptrs, c_ptrs, sizes, lds, group_size, num_sms):
        self._call("tl_tutorials_grouped_matmul_f16", self._p(a_ptrs), self._p(b_ptrs), self._p(c_ptrs), self._p(sizes),
                   self._p(lds), ctypes.c_int(group_size), ctypes.c_int(num_sms))

    def random_draws(self, offsets, seed, words, uniforms, normals):
        """Every random form at offsets (int32 or int64; CUDA tensors, or CPU tensors: the CPU backend)."""
        on_cpu = offsets.device.type == "cpu"
        args = [self._p(offsets), ctypes.c_int(1 if offsets.dtype == torch.int64 else 0), ctypes.c_longlong(seed),
                self._p(words), self._p(uniforms), self._p(normals), ctypes.c_int(offsets.numel()),
                ctypes.c_int(1 if on_cpu else 0)]
        if on_cpu:
            rc = self.lib.tl_tutorials_random_draws(*args, ctypes.c_void_p(0))
            if rc != 0:
                raise RuntimeError(f"tl_tutorials_random_draws: {self.lib.tl_tutorials_error().decode()}")
        else:
            self._call("tl_tutorials_random_draws", *args)

    def attention(self, q, k, v, o, m, sm_scale, causal):
        Z, H, n_ctx, d = q.shape
        self._call("tl_tutorials_attention_fwd", ctypes.c_float(sm_scale), self._p(m), ctypes.c_int(Z), ctypes.c_int(H),
                   self._p(q), self._p(k), self._p(v), self._p(o), ctypes.c_int(n_ctx), ctypes.c_int(d),
                   ctypes.c_int(1 if causal else 0))


# ---------------------------------------------------------------- cases


def bench(fn):
    ms, lo, hi = triton.testing.do_bench(fn, quantiles=[0.5, 0.2, 0.8])
    return ms


def check(name, got, want, atol, rtol):
    if not torch.allclose(got.float(), want.float(), atol=atol, rtol=rtol):
        err = (got.float() - want.float()).abs().max().item()
        raise AssertionError(f"{name}: output differs from torch's (max abs error {err})")


def case_add(tlk, n):
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out_tl = torch.full_like(x, float("nan"))
    out_tr = torch.full_like(x, float("nan"))
    grid = (triton.cdiv(n, 1024), )
    tlk.add(x, y, out_tl)
    add_kernel[grid](x, y, out_tr, n, BLOCK_SIZE=1024)
    want = x + y
    check("tl add", out_tl, want, 0, 0)
    check("Triton add", out_tr, want, 0, 0)
    gb = 3 * n * 4 / 1e9
    return dict(tl=bench(lambda: tlk.add(x, y, out_tl)), triton=bench(lambda: add_kernel[grid](x, y, out_tr, n, BLOCK_SIZE=1024)),
                torch=bench(lambda: torch.add(x, y, out=want)), amount=gb, unit="GB/s")


def case_softmax(tlk, rows, cols, sms, tl_programs_per_sm):
    x = torch.randn(rows, cols, device="cuda")
    out_tl = torch.full_like(x, float("nan"))
    out_tr = torch.full_like(x, float("nan"))
    block = triton.next_power_of_2(cols)
    programs = min(rows, sms * 8)
    # tl's grid: a program per row up to 4096 columns (the scheduler overlaps the programs' rows),
    # else a persistent grid (faster for wide rows); --softmax-programs-per-sm overrides it.
    if tl_programs_per_sm < 0:
        tl_programs = rows if block <= 4096 else min(rows, sms * 8)
    else:
        tl_programs = rows if tl_programs_per_sm == 0 else min(rows, sms * tl_programs_per_sm)
    tlk.softmax(out_tl, x, tl_programs)
    run_tr = lambda: softmax_kernel[(programs, 1, 1)](out_tr, x, x.stride(0), out_tr.stride(0), rows, cols, BLOCK_SIZE=block,
                                                       num_stages=2, num_warps=8)
    run_tr()
    want = torch.softmax(x, dim=1)
    check("tl softmax", out_tl, want, 1e-6, 1e-4)
    check("Triton softmax", out_tr, want, 1e-6, 1e-4)
    gb = 2 * rows * cols * 4 / 1e9
    return dict(tl=bench(lambda: tlk.softmax(out_tl, x, tl_programs)), triton=bench(run_tr),
                torch=bench(lambda: torch.softmax(x, dim=1)), amount=gb, unit="GB/s")


def time_tl_tiles(tlk, a, b, c_tl, want, tol, activation, block_k):
    # tl's two tiles (128 x 128 with 4 warps, 128 x 256 with 8; K steps of block_k), each
    # checked; the faster is kept, as Triton's autotuner keeps its best configuration.
    times = {}
    for wide in (False, True):
        c_tl.fill_(float("nan"))
        tlk.matmul(a, b, c_tl, activation, wide)
        check(f"tl matmul ({'128x256' if wide else '128x128'}x{block_k})", c_tl.float(), want, tol, 1e-2)
        times[wide] = bench(lambda w=wide: tlk.matmul(a, b, c_tl, activation, w))
    print(f"   tl tiles: 128x128x{block_k} {times[False]:.4f} ms, 128x256x{block_k} {times[True]:.4f} ms", flush=True)
    return min(times.values())


def case_matmul(tlk, M, N, K, dtype, activation=0):
    a = torch.randn(M, K, device="cuda", dtype=dtype)
    b = torch.randn(K, N, device="cuda", dtype=dtype)
    c_tl = torch.full((M, N), float("nan"), device="cuda", dtype=dtype)
    c_tr = torch.full((M, N), float("nan"), device="cuda", dtype=dtype)
    act = "leaky_relu" if activation else ""
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]), )
    run_tr = lambda: matmul_kernel[grid](a, b, c_tr, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                         c_tr.stride(0), c_tr.stride(1), ACTIVATION=act)
    run_tr()
    want = torch.matmul(a, b)
    if activation:
        want = torch.nn.functional.leaky_relu(want, 0.01)
    tol = 2e-2 * math.sqrt(K / 512)
    check("Triton matmul", c_tr, want, tol, 1e-2)
    tflop = 2 * M * N * K / 1e12
    return dict(tl=time_tl_tiles(tlk, a, b, c_tl, want, tol, activation, 64), triton=bench(run_tr), torch=bench(lambda: torch.matmul(a, b)), amount=tflop,
                unit="TFLOP/s")


def case_matmul_fp8(tlk, M, N, K, dtype):
    # The tutorial's fp8 inputs: b passed transposed (column by column), C fp16. torch's
    # equivalent is torch._scaled_mm with unit scales (cuBLASLt's fp8 GEMM).
    a = torch.randn(M, K, device="cuda").to(dtype)
    b = torch.randn(N, K, device="cuda").to(dtype).T
    c_tl = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    c_tr = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]), )
    run_tr = lambda: matmul_kernel_fp8[grid](a, b, c_tr, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                             c_tr.stride(0), c_tr.stride(1), ACTIVATION="")
    one = torch.ones((), device="cuda", dtype=torch.float32)
    run_torch = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16)
    want = torch.matmul(a.float(), b.float())
    # fp8 wgmma accumulates with fewer bits than float32 (Triton's default on Hopper, and tl's,
    # promote nothing): the error grows with K, about 1.6 at 4096 and 4 at 8192 for sums whose
    # spread is sqrt(K). A wrong tile is off by about the spread.
    tol = 1e-3 * K
    run_tr()
    check("Triton fp8 matmul", c_tr.float(), want, tol, 1e-2)
    check("torch._scaled_mm", run_torch().float(), want, tol, 1e-2)
    return dict(tl=time_tl_tiles(tlk, a, b, c_tl, want, tol, 0, 128), triton=bench(run_tr), torch=bench(run_torch), amount=2 * M * N * K / 1e12,
                unit="TFLOP/s")


def case_persistent(tlk, M, N, K, sms):
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c_tl = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    c_tr = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    grid = lambda META: (min(sms, triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])), )
    run_tr = lambda: matmul_kernel_persistent[grid](a, b, c_tr, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                                    b.stride(1), c_tr.stride(0), c_tr.stride(1), NUM_SMS=sms)
    tlk.matmul_persistent(a, b, c_tl, sms)
    run_tr()
    want = torch.matmul(a, b)
    tol = 2e-2 * math.sqrt(K / 512)
    check("tl persistent matmul", c_tl, want, tol, 1e-2)
    check("Triton persistent matmul", c_tr, want, tol, 1e-2)
    return dict(tl=bench(lambda: tlk.matmul_persistent(a, b, c_tl, sms)), triton=bench(run_tr),
                torch=bench(lambda: torch.matmul(a, b)), amount=2 * M * N * K / 1e12, unit="TFLOP/s")


def case_attention(tlk, Z, H, n_ctx, d, causal):
    shape = (Z, H, n_ctx, d)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16) * 0.5 for _ in range(3))
    sm_scale = 1.0 / math.sqrt(d)
    o_tl = torch.full_like(q, float("nan"))
    o_tr = torch.full_like(q, float("nan"))
    m_tl = torch.empty((Z, H, n_ctx), device="cuda", dtype=torch.float32)
    m_tr = torch.empty_like(m_tl)
    stage = 3 if causal else 1
    grid = lambda META: (triton.cdiv(n_ctx, META["BLOCK_M"]), Z * H, 1)
    run_tr = lambda: _attn_fwd[grid](sm_scale, m_tr, Z, H, q, k, v, o_tr, n_ctx, HEAD_DIM=d, STAGE=stage)
    tlk.attention(q, k, v, o_tl, m_tl, sm_scale, causal)
    run_tr()
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=sm_scale)
    check("tl attention", o_tl, want, 1e-2, 1e-2)
    check("Triton attention", o_tr, want, 1e-2, 1e-2)
    flops = 4 * Z * H * n_ctx * n_ctx * d * (0.5 if causal else 1.0)
    return dict(tl=bench(lambda: tlk.attention(q, k, v, o_tl, m_tl, sm_scale, causal)), triton=bench(run_tr),
                torch=bench(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                                                      scale=sm_scale)),
                amount=flops / 1e12, unit="TFLOP/s")


def case_descriptor(tlk, M, N, K, sms):
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)  # stored N x K, as the tutorial
    c_tl = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    c_tr = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    grid = lambda META: (min(sms, triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])), )
    run_tr = lambda: matmul_kernel_descriptor_persistent[grid](a, b, c_tr, M, N, K, NUM_SMS=sms)
    run_tr()
    want = torch.matmul(a, b.T)
    tol = 2e-2 * math.sqrt(K / 512)
    check("Triton descriptor matmul", c_tr, want, tol, 1e-2)
    # Both tiles (128 x 128, 4 warps; 128 x 256, 8 warps), as Triton's autotuner tries its configurations.
    times = {}
    for wide in (False, True):
        c_tl.fill_(float("nan"))
        tlk.matmul_descriptor_persistent(a, b, c_tl, sms, wide)
        check(f"tl descriptor matmul ({'128x256' if wide else '128x128'})", c_tl, want, tol, 1e-2)
        times[wide] = bench(lambda w=wide: tlk.matmul_descriptor_persistent(a, b, c_tl, sms, w))
    return dict(tl=min(times.values()), triton=bench(run_tr),
                torch=bench(lambda: torch.matmul(a, b.T)), amount=2 * M * N * K / 1e12, unit="TFLOP/s")


def case_attention_bwd(tlk, Z, H, n_ctx, d):
    shape = (Z, H, n_ctx, d)
    q, k, v, do = (torch.randn(shape, device="cuda", dtype=torch.float16) * 0.5 for _ in range(4))
    sm_scale = 1.0 / math.sqrt(d)
    arg_k = k * (sm_scale * 1.4426950408889634)  # the tutorial's wrapper pre-scales k
    # The forward's o and M (Triton's kernel, for both: the backward is timed here).
    o = torch.empty_like(q)
    m = torch.empty((Z, H, n_ctx), device="cuda", dtype=torch.float32)
    _attn_fwd[lambda META: (triton.cdiv(n_ctx, META["BLOCK_M"]), Z * H, 1)](sm_scale, m, Z, H, q, k, v, o, n_ctx,
                                                                            HEAD_DIM=d, STAGE=3)
    grads_tl = [torch.full_like(q, float("nan")) for _ in range(3)]
    grads_tr = [torch.full_like(q, float("nan")) for _ in range(3)]
    delta_tl = torch.empty_like(m)
    delta_tr = torch.empty_like(m)

    def run_tl():
        tlk.attention_bwd(q, arg_k, v, sm_scale, o, do, *grads_tl, m, delta_tl)

    def run_tr():
        _attn_bwd_preprocess[(n_ctx // 128, Z * H)](o, do, delta_tr, Z, H, n_ctx, BLOCK_M=128, HEAD_DIM=d)
        _attn_bwd[(n_ctx // 128, 1, Z * H)](q, arg_k, v, sm_scale, do, *grads_tr, m, delta_tr, q.stride(0), q.stride(1),
                                            q.stride(2), q.stride(3), H, n_ctx, BLOCK_M1=32, BLOCK_N1=128,
                                            BLOCK_M2=128, BLOCK_N2=32, BLK_SLICE_FACTOR=2, HEAD_DIM=d, num_warps=4,
                                            num_stages=5)

    run_tl()
    run_tr()
    qr, kr, vr = (x.detach().clone().requires_grad_() for x in (q, k, v))
    ref = torch.nn.functional.scaled_dot_product_attention(qr, kr, vr, is_causal=True, scale=sm_scale)
    want = torch.autograd.grad(ref, (qr, kr, vr), do)
    for name, got_tl, got_tr, w in zip(("dq", "dk", "dv"), grads_tl, grads_tr, want):
        check(f"tl attention backward {name}", got_tl, w, 2e-2, 2e-2)
        check(f"Triton attention backward {name}", got_tr, w, 2e-2, 2e-2)
    out = torch.nn.functional.scaled_dot_product_attention(qr, kr, vr, is_causal=True, scale=sm_scale)
    run_torch = lambda: torch.autograd.grad(out, (qr, kr, vr), do, retain_graph=True)
    flops = 2.5 * 4 * Z * H * n_ctx * n_ctx * d * 0.5  # the tutorial's count: 2.5 forward passes, causal
    return dict(tl=bench(run_tl), triton=bench(run_tr), torch=bench(run_torch), amount=flops / 1e12, unit="TFLOP/s")


def case_dropout(tlk, n):
    x = torch.randn(n, device="cuda")
    p, seed = 0.5, 123
    out_tl = torch.full_like(x, float("nan"))
    out_tr = torch.full_like(x, float("nan"))
    grid = (triton.cdiv(n, 1024), )
    run_tr = lambda: _seeded_dropout[grid](x, out_tr, n, p, seed, BLOCK_SIZE=1024)
    run_tr()
    tlk.seeded_dropout(x, out_tl, p, seed)
    torch.cuda.synchronize()
    # The same seed and offsets draw the same numbers in tl and Triton: the outputs agree exactly.
    check("tl dropout against Triton's", out_tl, out_tr, 0, 0)
    kept = (out_tr != 0).float().mean().item()
    if abs(kept - (1 - p)) > 0.01:
        raise AssertionError(f"dropout kept {kept:.4f} of the elements, expected {1 - p}")
    return dict(tl=bench(lambda: tlk.seeded_dropout(x, out_tl, p, seed)), triton=bench(run_tr),
                torch=bench(lambda: torch.nn.functional.dropout(x, p, training=True)), amount=2 * n * 4 / 1e9, unit="GB/s")


def case_layer_norm(tlk, M, N, backward):
    dtype = torch.float16
    x = -2.3 + 0.5 * torch.randn((M, N), dtype=dtype, device="cuda")
    w = torch.rand((N, ), dtype=dtype, device="cuda")
    b = torch.rand((N, ), dtype=dtype, device="cuda")
    dy = 0.1 * torch.randn_like(x)
    eps = 1e-5
    y_tl, mean_tl, rstd_tl = tlk.layer_norm_fwd(x, w, b, eps)
    y_tr, mean_tr, rstd_tr = triton_layer_norm_fwd(x, w, b, eps)
    xr = x.detach().clone().requires_grad_(True)
    wr = w.detach().clone().requires_grad_(True)
    br = b.detach().clone().requires_grad_(True)
    y_ref = torch.nn.functional.layer_norm(xr, (N, ), wr, br, eps)
    check("tl layer_norm", y_tl, y_ref, 1e-2, 0)
    check("Triton layer_norm", y_tr, y_ref, 1e-2, 0)
    if not backward:
        return dict(tl=bench(lambda: tlk.layer_norm_fwd(x, w, b, eps)), triton=bench(lambda: triton_layer_norm_fwd(x, w, b, eps)),
                    torch=bench(lambda: torch.nn.functional.layer_norm(x, (N, ), w, b, eps)),
                    amount=(2 * M * N + 2 * N) * 2 / 1e9, unit="GB/s")
    y_ref.backward(dy, retain_graph=True)
    dx_tl, dw_tl, db_tl = tlk.layer_norm_bwd(dy, x, w, mean_tl, rstd_tl)
    dx_tr, dw_tr, db_tr = triton_layer_norm_bwd(dy, x, w, mean_tr, rstd_tr)
    for who, got in (("tl", (dx_tl, dw_tl, db_tl)), ("Triton", (dx_tr, dw_tr, db_tr))):
        check(f"{who} layer_norm dx", got[0], xr.grad, 1e-2, 0)
        # dw and db sum M rows in fp16 partial rows: compared relative to their size.
        check(f"{who} layer_norm dw", got[1], wr.grad, 0.5, 2e-2)
        check(f"{who} layer_norm db", got[2], br.grad, 0.5, 2e-2)

    def torch_bwd():
        xr.grad = wr.grad = br.grad = None
        y_ref.backward(dy, retain_graph=True)

    return dict(tl=bench(lambda: tlk.layer_norm_bwd(dy, x, w, mean_tl, rstd_tl)),
                triton=bench(lambda: triton_layer_norm_bwd(dy, x, w, mean_tr, rstd_tr)), torch=bench(torch_bwd),
                amount=3 * M * N * 2 / 1e9, unit="GB/s")


def case_grouped(tlk, n, group, sms):
    """Tutorial 08: a group of n x n x n fp16 products; the tables built once, as the tutorial's benchmark does."""
    A = [torch.rand((n, n), device="cuda", dtype=torch.float16) for _ in range(group)]
    B = [torch.rand((n, n), device="cuda", dtype=torch.float16) for _ in range(group)]
    C_tl = [torch.full((n, n), float("nan"), device="cuda", dtype=torch.float16) for _ in range(group)]
    C_tr = [torch.full((n, n), float("nan"), device="cuda", dtype=torch.float16) for _ in range(group)]
    table = lambda ts: torch.tensor([t.data_ptr() for t in ts], device="cuda")
    sizes = torch.tensor([n, n, n] * group, dtype=torch.int32, device="cuda")
    lds = torch.tensor([n, n, n] * group, dtype=torch.int32, device="cuda")
    a_ptrs, b_ptrs, c_tl, c_tr = table(A), table(B), table(C_tl), table(C_tr)
    kernel = triton.autotune(configs=grouped_configs(sms), key=["group_size"])(grouped_matmul_body)
    run_tr = lambda: kernel[lambda meta: (meta["NUM_SM"], )](a_ptrs, b_ptrs, c_tr, sizes, lds, group)
    run_tl = lambda: tlk.grouped_matmul(a_ptrs, b_ptrs, c_tl, sizes, lds, group, sms)
    run_torch = lambda: [torch.matmul(a, b) for a, b in zip(A, B)]
    run_tr()
    run_tl()
    for g in range(group):
        want = torch.matmul(A[g], B[g])
        check("tl grouped gemm", C_tl[g], want, 1e-2 * n ** 0.5, 1e-2)
        check("Triton grouped gemm", C_tr[g], want, 1e-2 * n ** 0.5, 1e-2)
    return dict(tl=bench(run_tl), triton=bench(run_tr), torch=bench(run_torch), amount=2 * group * n ** 3 / 1e12,
                unit="TFLOP/s")


def case_grey(tlk, h, w):
    x = torch.randint(0, 256, (3, h, w), device="cuda", dtype=torch.uint8)
    out_tl = torch.zeros((h, w), device="cuda", dtype=torch.uint8)
    out_tr = torch.zeros((h, w), device="cuda", dtype=torch.uint8)
    bs0, bs1 = 16, 256
    grid = (triton.cdiv(h, bs0), triton.cdiv(w, bs1))
    run_tr = lambda: rgb2grey_kernel[grid](x, out_tr, h, w, bs0=bs0, bs1=bs1)
    run_torch = lambda: (0.2989 * x[0] + 0.5870 * x[1] + 0.1140 * x[2]).to(torch.uint8)
    tlk.rgb2grey(x, out_tl)
    run_tr()
    want = run_torch()
    check("tl rgb2grey", out_tl, want, 1, 0)  # a float sum one rounding apart truncates to a neighbour
    check("Triton rgb2grey", out_tr, want, 1, 0)
    return dict(tl=bench(lambda: tlk.rgb2grey(x, out_tl)), triton=bench(run_tr), torch=bench(run_torch),
                amount=4 * h * w / 1e9, unit="GB/s")


def case_rms_norm(tlk, rows, n):
    x = torch.randn(rows, n, device="cuda", dtype=torch.float16)
    w = torch.rand(n, device="cuda", dtype=torch.float16) + 0.5
    eps = 1e-5
    y_tl = torch.full_like(x, float("nan"))
    y_tr = torch.full_like(x, float("nan"))
    block = triton.next_power_of_2(n)
    warps = min(max(block // 256, 1), 8)
    run_tr = lambda: rms_norm_kernel[(rows, )](x, y_tr, w, x.stride(0), n, eps, BLOCK_SIZE=block, num_warps=warps)
    run_torch = lambda: torch.nn.functional.rms_norm(x, (n, ), w, eps)
    tlk.rms_norm(x, y_tl, w, eps)
    run_tr()
    want = run_torch()
    check("tl rms_norm", y_tl, want, 1e-2, 1e-2)
    check("Triton rms_norm", y_tr, want, 1e-2, 1e-2)
    return dict(tl=bench(lambda: tlk.rms_norm(x, y_tl, w, eps)), triton=bench(run_tr), torch=bench(run_torch),
                amount=(2 * rows * n + n) * 2 / 1e9, unit="GB/s")


def copy_bandwidth():
    n = (1 << 30) // 4
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    return 2 * n * 4 / 1e9 / (bench(lambda: dst.copy_(src)) * 1e-3)


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", required=True, help="libtl_tutorial_kernels.so")
    ap.add_argument("--only", default="add,softmax,matmul,persistent,descriptor,attention,backward,dropout,layernorm,"
                                      "grouped,grey,rmsnorm",
                    help="comma-separated: add, softmax, matmul, persistent, descriptor, attention, backward, dropout, "
                         "layernorm, grouped, grey, rmsnorm")
    ap.add_argument("--out", default=".", help="directory for tutorials-vs-triton.csv and .svg")
    ap.add_argument("--quick", action="store_true", help="one size per tutorial")
    ap.add_argument("--softmax-programs-per-sm", type=int, default=-1,
                    help="tl's softmax grid: this many programs per SM (0: one per row; -1: one per row up to "
                         "4096 columns, else 8 per SM); Triton's is 8 per SM")
    args = ap.parse_args()
    only = set(args.only.split(","))
    tlk = TlKernels(args.lib)
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    print(f"device: {props.name}, {sms} SMs; torch {torch.__version__}, triton {triton.__version__}", flush=True)
    copy = copy_bandwidth()
    print(f"copy bandwidth: {copy:.0f} GB/s", flush=True)

    cases = []
    if "add" in only:
        for n in ([1 << 24] if args.quick else [1 << 20, 1 << 24, 1 << 27]):
            cases.append(("01 vector add f32", f"n=2^{int(math.log2(n))}", lambda n=n: case_add(tlk, n)))
    if "softmax" in only:
        for cols in ([4096] if args.quick else [1024, 4096, 12672]):
            cases.append(("02 softmax f32", f"4096 x {cols}", lambda c=cols: case_softmax(tlk, 4096, c, sms, args.softmax_programs_per_sm)))
    if "matmul" in only:
        sizes = [4096] if args.quick else [1024, 4096, 8192]
        for s in sizes:
            cases.append(("03 matmul fp16", f"{s}^3", lambda s=s: case_matmul(tlk, s, s, s, torch.float16)))
        cases.append(("03 matmul fp16 leaky_relu", "4096^3", lambda: case_matmul(tlk, 4096, 4096, 4096, torch.float16, 1)))
        for s in ([4096] if args.quick else [4096, 8192]):
            cases.append(("03 matmul bf16", f"{s}^3", lambda s=s: case_matmul(tlk, s, s, s, torch.bfloat16)))
        for s in ([4096] if args.quick else [4096, 8192]):
            cases.append(("03 matmul fp8e4nv", f"{s}^3",
                          lambda s=s: case_matmul_fp8(tlk, s, s, s, torch.float8_e4m3fn)))

    if "persistent" in only:
        for m, n, k in ([(8192, 8192, 512)] if args.quick else [(8192, 8192, 512), (4096, 4096, 4096)]):
            cases.append(("09 persistent matmul fp16", f"{m} x {n} x {k}",
                          lambda m=m, n=n, k=k: case_persistent(tlk, m, n, k, sms)))

    # Triton's in-kernel descriptors take their scratch from this allocator.
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    if "descriptor" in only:
        for m, n, k in ([(8192, 8192, 512)] if args.quick else [(8192, 8192, 512), (4096, 4096, 4096)]):
            cases.append(("09 descriptor persistent fp16", f"{m} x {n} x {k}",
                          lambda m=m, n=n, k=k: case_descriptor(tlk, m, n, k, sms)))
    if "attention" in only:
        shapes = [(4, 32, 4096, 64), (1, 16, 16384, 128)] if not args.quick else [(4, 32, 4096, 64)]
        for z, h, n, d in shapes:
            for causal in (False, True):
                cases.append((f"06 attention fwd fp16{' causal' if causal else ''}", f"{z}x{h}x{n}, d {d}",
                              lambda z=z, h=h, n=n, d=d, c=causal: case_attention(tlk, z, h, n, d, c)))

    if "backward" in only:
        for z, h, n, d in ([(4, 32, 4096, 64)] if args.quick else [(4, 32, 4096, 64), (4, 32, 4096, 128)]):
            cases.append(("06 attention bwd fp16 causal", f"{z}x{h}x{n}, d {d}",
                          lambda z=z, h=h, n=n, d=d: case_attention_bwd(tlk, z, h, n, d)))
    if "dropout" in only:
        for n in ([1 << 24] if args.quick else [1 << 20, 1 << 24, 1 << 27]):
            cases.append(("04 seeded dropout f32", f"n=2^{int(math.log2(n))}", lambda n=n: case_dropout(tlk, n)))
    if "layernorm" in only:
        for n in ([4096] if args.quick else [1024, 4096, 8192]):
            cases.append(("05 layer norm fwd fp16", f"4096 x {n}", lambda n=n: case_layer_norm(tlk, 4096, n, False)))
        for n in ([4096] if args.quick else [1024, 4096, 8192]):
            cases.append(("05 layer norm bwd fp16", f"4096 x {n}", lambda n=n: case_layer_norm(tlk, 4096, n, True)))
    if "grouped" in only:
        for n in ([1024] if args.quick else [512, 1024, 2048]):
            cases.append(("08 grouped gemm fp16, 4 products", f"{n}^3 each", lambda n=n: case_grouped(tlk, n, 4, sms)))
    if "grey" in only:
        for s in ([4096] if args.quick else [2048, 8192]):
            cases.append(("rgb2grey u8", f"{s} x {s}", lambda s=s: case_grey(tlk, s, s)))
    if "rmsnorm" in only:
        for n in ([4096] if args.quick else [1024, 4096, 8192]):
            cases.append(("RMSNorm fp16", f"4096 x {n}", lambda n=n: case_rms_norm(tlk, 4096, n)))

    rows = []
    failed = []
    for name, size, run in cases:
        print(f"== {name} {size}", flush=True)
        try:
            r = run()
        except Exception as e:  # a failed check or launch: reported, the other cases still run
            print(f"   FAILED: {e}", flush=True)
            failed.append(f"{name} {size}: {e}")
            continue
        rate = lambda ms: r["amount"] / (ms * 1e-3)
        row = dict(case=name, size=size, unit=r["unit"], tl_ms=r["tl"], triton_ms=r["triton"], torch_ms=r["torch"],
                   tl=rate(r["tl"]), triton=rate(r["triton"]), torch=rate(r["torch"]),
                   tl_over_triton=r["triton"] / r["tl"], tl_over_torch=r["torch"] / r["tl"],
                   tl_over_copy=rate(r["tl"]) / copy if r["unit"] == "GB/s" else float("nan"))
        print(f"   tl {row['tl']:.1f}  Triton {row['triton']:.1f}  torch {row['torch']:.1f} {r['unit']}"
              f"  tl/Triton {row['tl_over_triton']:.3f}  tl/torch {row['tl_over_torch']:.3f}", flush=True)
        rows.append(row)

    if not rows:
        print("no case ran")
        return 1
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "tutorials-vs-triton.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    geo = math.exp(sum(math.log(r["tl_over_triton"]) for r in rows) / len(rows))
    print(f"\ntutorials on {props.name} (copy {copy:.0f} GB/s), medians of triton.testing.do_bench\n")
    print("| tutorial | size | tl | Triton | torch | unit | tl / Triton | tl / torch | tl / copy |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cp = f"{r['tl_over_copy']:.2f}" if r["unit"] == "GB/s" else "-"
        print(f"| {r['case']} | {r['size']} | {r['tl']:.1f} | {r['triton']:.1f} | {r['torch']:.1f} | {r['unit']} |"
              f" {r['tl_over_triton']:.2f} | {r['tl_over_torch']:.2f} | {cp} |")
    print(f"\ngeometric mean of tl / Triton: {geo:.3f}")
    print(f"wrote {path}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        labels = [f"{r['case']}\n{r['size']}" for r in rows]
        xs = range(len(rows))
        fig, ax = plt.subplots(figsize=(max(8, len(rows) * 0.9), 4.5))
        ax.bar([x - 0.2 for x in xs], [r["tl_over_triton"] for r in rows], 0.4, label="tl / Triton")
        ax.bar([x + 0.2 for x in xs], [r["tl_over_torch"] for r in rows], 0.4, label="tl / torch")
        ax.axhline(1.0, color="#999", lw=1)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("speed ratio (> 1: tl faster)")
        ax.legend()
        fig.tight_layout()
        svg = os.path.join(args.out, "tutorials-vs-triton.svg")
        fig.savefig(svg)
        print(f"wrote {svg}")
    except ImportError:
        print("(no matplotlib: no plot)")
    if failed:
        print("\nfailed:\n  " + "\n  ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
