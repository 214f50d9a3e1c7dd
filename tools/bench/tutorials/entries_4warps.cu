// Tutorials 01, 03, 04, 05 (up to 1024 columns), 08 and 09, the random draws against Triton's, the guide's rgb2grey and short RMSNorm rows (4 warps a program).
#include <stdexcept>
#include <string>

#include "../../../examples/guide/grey.hpp"
#include "../../../examples/tutorials/t01_vector_add.hpp"
#include "../../../examples/tutorials/t03_matmul.hpp"
#include "../../../examples/tutorials/t04_low_memory_dropout.hpp"
#include "../../../examples/tutorials/t08_grouped_gemm.hpp"
#include "../../../examples/tutorials/t09_persistent_matmul.hpp"
#include "entry.hpp"
#include "layer_norm.hpp"
#include "rms_norm.hpp"
#include "tl_tutorial_kernels.hpp"

using namespace tutorial_entries;

std::string& tutorial_entries::last_error() {
  static std::string text;
  return text;
}

extern "C" const char* tl_tutorials_error() { return last_error().c_str(); }

extern "C" int tl_tutorials_add_f32(const void* x, const void* y, void* out, int n, void* stream) {
  return guarded([&] {
    tl::launch<add_kernel<1024>>(tl::grid(tl::cdiv(n, 1024)), on(stream), buffer<const float>(x, n, "x"),
                                 buffer<const float>(y, n, "y"), buffer<float>(out, n, "output"), n);
  });
}

extern "C" int tl_tutorials_seeded_dropout_f32(const void* x, void* out, int n, float p, int seed, void* stream) {
  return guarded([&] {
    tl::launch<seeded_dropout<1024>>(tl::grid(tl::cdiv(n, 1024)), on(stream), buffer<const float>(x, n, "x"),
                                     buffer<float>(out, n, "output"), n, p, seed);
  });
}

extern "C" int tl_tutorials_grouped_matmul_f16(const void* a_ptrs, const void* b_ptrs, const void* c_ptrs, const void* sizes,
                                               const void* lds, int group_size, int num_sms, void* stream) {
  return guarded([&] {
    tl::dispatch<132, 114, 78, 66>(num_sms, [&](auto NUM_SM) {
      tl::launch<grouped_matmul_kernel<NUM_SM, 128, 128, 64, tl::fp16>>(
          tl::grid(NUM_SM), on(stream), buffer<const std::int64_t>(a_ptrs, group_size, "group_a_ptrs"),
          buffer<const std::int64_t>(b_ptrs, group_size, "group_b_ptrs"), buffer<const std::int64_t>(c_ptrs, group_size, "group_c_ptrs"),
          buffer<const int>(sizes, 3 * group_size, "group_gemm_sizes"), buffer<const int>(lds, 3 * group_size, "g_lds"), group_size);
    });
  });
}

extern "C" int tl_tutorials_layer_norm_fwd_f16(const void* x, void* y, const void* w, const void* b, void* mean,
                                               void* rstd, int M, int N, float eps, void* stream) {
  return guarded([&] {
    if (tl::next_power_of_2(N) > 1024) return layer_norm_fwd_wide(x, y, w, b, mean, rstd, M, N, eps, stream);
    tl::dispatch<256, 512, 1024>(std::max<std::int64_t>(256, tl::next_power_of_2(N)), [&](auto BLOCK_SIZE) {
      layer_norm_fwd<BLOCK_SIZE>(x, y, w, b, mean, rstd, M, N, eps, stream);
    });
  });
}

extern "C" int tl_tutorials_layer_norm_bwd_f16(const void* dy, const void* x, const void* w, const void* mean,
                                               const void* rstd, void* dx, void* partial_dw, void* partial_db, void* locks,
                                               void* dw, void* db, int M, int N, void* stream) {
  return guarded([&] {
    if (tl::next_power_of_2(N) > 1024)
      return layer_norm_bwd_wide(dy, x, w, mean, rstd, dx, partial_dw, partial_db, locks, dw, db, M, N, stream);
    tl::dispatch<256, 512, 1024>(std::max<std::int64_t>(256, tl::next_power_of_2(N)), [&](auto BLOCK_SIZE_N) {
      layer_norm_bwd<BLOCK_SIZE_N>(dy, x, w, mean, rstd, dx, partial_dw, partial_db, locks, dw, db, M, N, stream);
    });
  });
}

namespace {
// Every random form at the given offsets: words[k * n + i] is word k of randint4x, and so on.
template <int B, class O>
TL_KERNEL void random_draws(tl::ptr<const O> offsets, std::int64_t seed, tl::ptr<std::uint32_t> words,
                            tl::ptr<float> uniforms, tl::ptr<float> normals, int n) {
  auto i = tl::program_id(0) * B + tl::arange<0, B>();
  auto m = i < n;
  auto o = tl::load(offsets + i, m);
  auto [w0, w1, w2, w3] = tl::randint4x(seed, o);
  tl::store(words + i, w0, m);
  tl::store(words + n + i, w1, m);
  tl::store(words + 2 * n + i, w2, m);
  tl::store(words + 3 * n + i, w3, m);
  auto [u0, u1, u2, u3] = tl::rand4x(seed, o);
  tl::store(uniforms + i, u0, m);
  tl::store(uniforms + n + i, u1, m);
  tl::store(uniforms + 2 * n + i, u2, m);
  tl::store(uniforms + 3 * n + i, u3, m);
  auto [n0, n1, n2, n3] = tl::randn4x(seed, o);
  tl::store(normals + i, n0, m);
  tl::store(normals + n + i, n1, m);
  tl::store(normals + 2 * n + i, n2, m);
  tl::store(normals + 3 * n + i, n3, m);
}

template <class O>
void draws(const void* offsets, long long seed, void* words, void* uniforms, void* normals, int n, int on_cpu, void* stream) {
  const tl::launch_options o = on_cpu ? tl::launch_options{.backend = tl::backend::cpu} : on(stream);
  tl::launch<random_draws<256, O>>(tl::grid(tl::cdiv(n, 256)), o, buffer<const O>(offsets, n, "offsets"), std::int64_t(seed),
                                   buffer<std::uint32_t>(words, 4 * std::int64_t(n), "words"),
                                   buffer<float>(uniforms, 4 * std::int64_t(n), "uniforms"),
                                   buffer<float>(normals, 4 * std::int64_t(n), "normals"), n);
}
}  // namespace

extern "C" int tl_tutorials_random_draws(const void* offsets, int wide, long long seed, void* words, void* uniforms,
                                         void* normals, int n, int on_cpu, void* stream) {
  return guarded([&] {
    if (wide) draws<std::int64_t>(offsets, seed, words, uniforms, normals, n, on_cpu, stream);
    else draws<std::int32_t>(offsets, seed, words, uniforms, normals, n, on_cpu, stream);
  });
}

namespace {
// fp8 inputs (C fp16) take K steps of 128, as Triton's fp8 configurations do: the same bytes a
// step as fp16's 64.
template <class T, activation Act, class TC = T>
void matmul(const void* a, const void* b, void* c, int M, int N, int K, int sam, int sak, int sbk, int sbn, int scm,
            int scn, void* stream) {
  constexpr int BM = 128, BN = 128, BK = sizeof(T) == 1 ? 128 : 64, GM = 8;
  tl::launch<matmul_kernel<BM, BN, BK, GM, Act, T, TC>>(
      tl::grid(tl::cdiv(M, BM) * tl::cdiv(N, BN)), on(stream), buffer<const T>(a, span(M, K, sam, sak), "a"),
      buffer<const T>(b, span(K, N, sbk, sbn), "b"), buffer<TC>(c, span(M, N, scm, scn), "c"), M, N, K, sam, sak, sbk,
      sbn, scm, scn);
}
}  // namespace

extern "C" int tl_tutorials_matmul(int dtype, const void* a, const void* b, void* c, int M, int N, int K, int sam,
                                   int sak, int sbk, int sbn, int scm, int scn, int act, void* stream) {
  return guarded([&] {
    if (dtype == 0 && act == 0) matmul<tl::fp16, activation::none>(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, stream);
    else if (dtype == 0) matmul<tl::fp16, activation::leaky_relu>(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, stream);
    else if (dtype == 1 && act == 0) matmul<tl::bf16, activation::none>(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, stream);
    else if (dtype == 1) matmul<tl::bf16, activation::leaky_relu>(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, stream);
    else if (dtype == 2 && act == 0)
      matmul<tl::fp8e4nv, activation::none, tl::fp16>(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, stream);
    else if (dtype == 3 && act == 0)
      matmul<tl::fp8e5, activation::none, tl::fp16>(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, stream);
    else throw std::invalid_argument("matmul: dtype " + std::to_string(dtype) + " with activation " + std::to_string(act));
  });
}

extern "C" int tl_tutorials_matmul_persistent(const void* a, const void* b, void* c, int M, int N, int K, int sam,
                                              int sak, int sbk, int sbn, int scm, int scn, int num_sms, void* stream) {
  return guarded([&] {
    using T = tl::fp16;
    constexpr int BM = 128, BN = 128, BK = 64, GM = 8;
    const int programs = std::min(num_sms, tl::cdiv(M, BM) * tl::cdiv(N, BN));
    tl::launch<matmul_kernel_persistent<BM, BN, BK, GM, T>>(
        tl::grid(programs), on(stream), buffer<const T>(a, span(M, K, sam, sak), "a"),
        buffer<const T>(b, span(K, N, sbk, sbn), "b"), buffer<T>(c, span(M, N, scm, scn), "c"), M, N, K, sam, sak, sbk,
        sbn, scm, scn, programs);
  });
}

extern "C" int tl_tutorials_matmul_descriptor_persistent(const void* a, const void* b, void* c, int M, int N, int K,
                                                         int num_sms, void* stream) {
  return guarded([&] {
    using T = tl::fp16;
    constexpr int BM = 128, BN = 128, BK = 64, GM = 8;
    const int programs = std::min(num_sms, tl::cdiv(M, BM) * tl::cdiv(N, BN));
    tl::launch<matmul_kernel_descriptor_persistent<BM, BN, BK, GM, T>>(
        tl::grid(programs), on(stream), buffer<const T>(a, std::int64_t(M) * K, "a"),
        buffer<const T>(b, std::int64_t(N) * K, "b"), buffer<T>(c, std::int64_t(M) * N, "c"), M, N, K, programs);
  });
}

extern "C" int tl_tutorials_rgb2grey_u8(const void* x, void* out, int h, int w, void* stream) {
  return guarded([&] {
    constexpr int bs0 = 4, bs1 = 256;
    const std::int64_t n = std::int64_t(h) * w;
    tl::launch<rgb2grey_k<bs0, bs1>>(tl::grid(tl::cdiv(h, bs0), tl::cdiv(w, bs1)), on(stream),
                                     buffer<const std::uint8_t>(x, 3 * n, "x"), buffer<std::uint8_t>(out, n, "out"), h, w);
  });
}

void rms_norm_4warps(const void* x, void* y, const void* w, int rows, int n, int stride, float eps, void* stream) {
  rms_norm<1024>(x, y, w, rows, n, stride, eps, stream);
}
