// The tutorials' tl kernels behind a C interface (device pointers, sizes, a CUDA stream), for
// tutorials_vs_triton.py, which loads the library with ctypes and times each next to Triton's
// tutorial kernel and torch in one process. Each entry launches without waiting and returns 0,
// or -1 with the reason in tl_tutorials_error().
#pragma once

extern "C" {
const char* tl_tutorials_error();
int tl_tutorials_add_f32(const void* x, const void* y, void* out, int n, void* stream);
// One row of BLOCK_SIZE = next power of two >= n_cols a step; `programs` programs walk the rows.
int tl_tutorials_softmax_f32(void* out, const void* in, int in_row_stride, int out_row_stride, int n_rows, int n_cols,
                             int programs, void* stream);
// Tutorial 04's seeded dropout of n float32: out = rand(seed, i) > p ? x / (1 - p) : 0.
int tl_tutorials_seeded_dropout_f32(const void* x, void* out, int n, float p, int seed, void* stream);
// Tutorial 05's layer norm on fp16 rows (M x N, contiguous): forward (y, and mean and rstd float32
// per row), backward (dx, dw, db from dy; partial_dw and partial_db GROUP_SIZE_M x N fp16 and locks
// 2 GROUP_SIZE_M int32, zeroed by the caller; GROUP_SIZE_M 256 up to 1024 columns, 128 up to 4096,
// 96 up to 8192, else 64).
int tl_tutorials_layer_norm_fwd_f16(const void* x, void* y, const void* w, const void* b, void* mean, void* rstd, int M,
                                    int N, float eps, void* stream);
int tl_tutorials_layer_norm_bwd_f16(const void* dy, const void* x, const void* w, const void* mean, const void* rstd,
                                    void* dx, void* partial_dw, void* partial_db, void* locks, void* dw, void* db, int M,
                                    int N, void* stream);
// Tutorial 08's grouped GEMM: group_size fp16 products whose addresses (int64), sizes (M, N, K int32)
// and leading dimensions (lda, ldb, ldc) come from device tables; num_sms programs (132, 114, 78 or 66).
int tl_tutorials_grouped_matmul_f16(const void* a_ptrs, const void* b_ptrs, const void* c_ptrs, const void* sizes,
                                    const void* lds, int group_size, int num_sms, void* stream);
// Every random form of tl at n offsets (int32, or int64 when wide): words (4 n uint32: randint4x's
// word k at k * n + i), uniforms (4 n float32, rand4x), normals (4 n float32, randn4x). on_cpu:
// the CPU backend, on host memory (stream unused).
int tl_tutorials_random_draws(const void* offsets, int wide, long long seed, void* words, void* uniforms, void* normals,
                              int n, int on_cpu, void* stream);
// C = A @ B in fp16 (dtype 0) or bf16 (dtype 1), strides in elements; activation 1: leaky_relu.
// dtype 2 (float8e4nv) and 3 (float8e5): fp8 A and B, C fp16, no activation.
int tl_tutorials_matmul(int dtype, const void* a, const void* b, void* c, int M, int N, int K, int stride_am,
                        int stride_ak, int stride_bk, int stride_bn, int stride_cm, int stride_cn, int activation,
                        void* stream);
// The same with 128 x 256 x 64 tiles and 8 warps a program (Triton's tile on Hopper).
int tl_tutorials_matmul_wide(int dtype, const void* a, const void* b, void* c, int M, int N, int K, int stride_am,
                             int stride_ak, int stride_bk, int stride_bn, int stride_cm, int stride_cn, int activation,
                             void* stream);
// The same, fp16, by min(num_sms, tiles) programs walking the tiles (tutorial 09).
int tl_tutorials_matmul_persistent(const void* a, const void* b, void* c, int M, int N, int K, int stride_am,
                                   int stride_ak, int stride_bk, int stride_bn, int stride_cm, int stride_cn, int num_sms,
                                   void* stream);
// Attention forward (tutorial 06): q, k, v, o Z x H x N_CTX x head_dim fp16 (64 or 128), M float32
// Z x H x N_CTX; causal 0 or 1.
int tl_tutorials_attention_fwd(float sm_scale, void* M, int Z, int H, const void* q, const void* k, const void* v, void* o,
                               int n_ctx, int head_dim, int causal, void* stream);
// Attention backward, causal (tutorial 06): Delta = rowsum(o do), then dq, dk, dv from q, arg_k (k
// pre-scaled by sm_scale / ln 2), v, do and the forward's M; contiguous Z x H x N_CTX x head_dim.
int tl_tutorials_attention_bwd(const void* q, const void* arg_k, const void* v, float sm_scale, const void* o,
                               const void* dout, void* dq, void* dk, void* dv, const void* M, void* delta, int Z, int H,
                               int n_ctx, int head_dim, void* stream);
// Tutorial 09's descriptor form: C (M x N) = A (M x K) @ B^T, B stored N x K, fp16, contiguous.
int tl_tutorials_matmul_descriptor_persistent(const void* a, const void* b, void* c, int M, int N, int K, int num_sms,
                                              void* stream);
// Planar RGB bytes (3 x h x w) to grey bytes (h x w): the guide's rgb2grey_k.
int tl_tutorials_rgb2grey_u8(const void* x, void* out, int h, int w, void* stream);  // 4 x 256 a program
// RMSNorm of fp16 rows: y = x / sqrt(mean(x^2) + eps) * w, one row a program.
int tl_tutorials_rms_norm_f16(const void* x, void* y, const void* w, int rows, int n, int stride, float eps, void* stream);
}
