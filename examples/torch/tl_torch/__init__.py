"""Triton's tutorial kernels written in tl (examples/tutorials), as PyTorch operators.

    import tl_torch
    y = tl_torch.softmax(x)                                  # tutorial 02, float32 rows
    y = tl_torch.layer_norm(x, (n,), weight, bias, eps)      # tutorial 05, with its backward
    c = tl_torch.matmul(a, b, activation="leaky_relu")       # tutorial 03, fp16 / bf16
    o = tl_torch.attention(q, k, v, causal=True)             # tutorial 06's forward, fp16

Each is a torch operator (torch.ops.tl_torch.*) with a fake implementation, so torch.compile
traces through it (fullgraph=True), and layer norm has autograd (its backward is tutorial 05's
backward kernels). CUDA tensors run on tl's CUDA backend, on their device and PyTorch's current
stream; CPU tensors on tl's CPU backend, with every access checked. Inputs with strides a kernel
cannot take are copied (.contiguous()); wrong shapes, dtypes and devices raise ValueError
with tl's message.
"""
import math

import torch

from . import _C  # noqa: F401  registers torch.ops.tl_torch

__all__ = ["softmax", "layer_norm", "matmul", "attention"]
ops = torch.ops.tl_torch


def softmax(x):
    """Softmax along the last axis of a float32 matrix (rows up to 16384 columns)."""
    return ops.softmax(x)


def layer_norm(x, normalized_shape, weight, bias, eps=1e-5):
    """torch.nn.functional.layer_norm over the last axis (float16, bfloat16, float32; up to
    16384 columns), with weight and bias; differentiable in x, weight and bias."""
    if tuple(normalized_shape) != (x.shape[-1], ):
        raise ValueError(f"tl_torch.layer_norm normalises the last axis only: normalized_shape "
                         f"{tuple(normalized_shape)} for x of shape {tuple(x.shape)}")
    return ops.layer_norm_fwd(x, weight, bias, eps)[0]


def matmul(a, b, activation=""):
    """a @ b for float16 or bfloat16 matrices of any strides; activation "" or "leaky_relu"."""
    return ops.matmul(a, b, activation)


def attention(q, k, v, causal=False, sm_scale=None):
    """softmax(q k^T * sm_scale) v over (batch, heads, tokens, head_dim) float16 tensors: head_dim
    64 or 128, tokens a multiple of 64; sm_scale defaults to 1 / sqrt(head_dim)."""
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.shape[-1])
    return ops.attention(q, k, v, causal, sm_scale)


# Fake implementations: the outputs' shapes, dtypes and devices, for torch.compile and meta tensors.
@torch.library.register_fake("tl_torch::softmax")
def _softmax_fake(x):
    return x.new_empty(x.shape)


@torch.library.register_fake("tl_torch::layer_norm_fwd")
def _layer_norm_fwd_fake(x, weight, bias, eps):
    rows = math.prod(x.shape[:-1])
    return (x.new_empty(x.shape), x.new_empty((rows, ), dtype=torch.float32),
            x.new_empty((rows, ), dtype=torch.float32))


@torch.library.register_fake("tl_torch::layer_norm_bwd")
def _layer_norm_bwd_fake(dy, x, weight, mean, rstd):
    return x.new_empty(x.shape), weight.new_empty(weight.shape), weight.new_empty(weight.shape)


@torch.library.register_fake("tl_torch::matmul")
def _matmul_fake(a, b, activation=""):
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.register_fake("tl_torch::attention")
def _attention_fake(q, k, v, causal, sm_scale):
    return q.new_empty(q.shape)


# Layer norm's autograd: tutorial 05's backward kernels (dx per row; dw and db through the
# partial sums under their locks, then the column sums).
def _layer_norm_setup(ctx, inputs, output):
    x, weight, bias, eps = inputs
    y, mean, rstd = output
    ctx.save_for_backward(x, weight, mean, rstd)
    ctx.mark_non_differentiable(mean, rstd)


def _layer_norm_backward(ctx, dy, dmean, drstd):
    x, weight, mean, rstd = ctx.saved_tensors
    dx, dw, db = ops.layer_norm_bwd(dy, x, weight, mean, rstd)
    return dx, dw, db, None


torch.library.register_autograd("tl_torch::layer_norm_fwd", _layer_norm_backward, setup_context=_layer_norm_setup)
