// The run-time affine forms on the GPU (expr/axis_info.hpp, backend/cuda/memory.hpp): offsets
// that wrap with % or are clamped with where, strides known only at run time (unit or not), and
// tensor descriptors, in loads, stores and dot operands; each against the CPU backend at random
// sizes, where some blocks wrap (the general path) and others do not (the fast path).
#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

namespace {
enum class rows_form { plain, wrapped, clamped };

// z[r, c] = x at row offs(r) (wrapped or clamped into [0, M)), column c, for rows r < M.
template <int BM, int BN, rows_form F>
TL_KERNEL void rows_k(tl::ptr<const float> x, tl::ptr<float> z, int M, int N, int stride_m, int stride_n) {
  auto raw = tl::program_id(0) * BM + tl::arange<0, BM>();
  auto cols = tl::program_id(1) * BN + tl::arange<0, BN>();
  auto load_at = [&](auto rows) {  // plain rows past M are masked off; wrapped and clamped ones stay inside
    auto mask = cols(None, _) < N;
    if constexpr (F == rows_form::plain) return tl::load(x + (rows(_, None) * stride_m + cols(None, _) * stride_n), mask & (rows(_, None) < M));
    else return tl::load(x + (rows(_, None) * stride_m + cols(None, _) * stride_n), mask);
  };
  auto block = [&] {
    if constexpr (F == rows_form::wrapped) return load_at(raw % M);
    else if constexpr (F == rows_form::clamped) return load_at(tl::where(raw < M, raw, 0));
    else return load_at(raw);
  }();
  tl::store(z + (raw(_, None) * N + cols(None, _)), block, (raw(_, None) < M) & (cols(None, _) < N));
}

// C = A @ B through descriptors (fp16 in, float32 out), K walked in BK steps.
template <int BM, int BN, int BK>
TL_KERNEL void descriptor_dot_k(tl::ptr<const tl::fp16> a, tl::ptr<const tl::fp16> b, tl::ptr<float> c, int M, int N,
                                int K) {
  auto ad = tl::make_tensor_descriptor(a, {M, K}, {K, 1}, tl::block_shape<BM, BK>);
  auto bd = tl::make_tensor_descriptor(b, {K, N}, {N, 1}, tl::block_shape<BK, BN>);
  auto cd = tl::make_tensor_descriptor(c, {M, N}, {N, 1}, tl::block_shape<BM, BN>);
  const int m = tl::program_id(0) * BM, n = tl::program_id(1) * BN;
  auto acc = tl::zeros<BM, BN>(tl::float32);
  for (int k : tl::range(0, K, BK)) acc = tl::dot(ad.load({m, k}), bd.load({k, n}), acc);
  cd.store({m, n}, acc);
}

template <rows_form F>
void check_rows(const char* what) {
  for (int trial = 0; trial < 12; ++trial) {
    const int M = random_int(1, 300), N = random_int(1, 200);
    const bool transposed = trial % 3 == 2;  // x stored column-major: the last stride is M, not 1
    const int sm = transposed ? 1 : N, sn = transposed ? M : 1;
    const auto x = random_values<float>(std::size_t(M) * N);
    auto run = [&](const tl::launch_options& o) {
      std::vector<float> z(std::size_t(M) * N, std::nanf(""));
      tl::launch<rows_k<64, 64, F>>(tl::grid(tl::cdiv(M, 64), tl::cdiv(N, 64)), o, tl::ptr(x, "x"), tl::ptr(z, "z"), M,
                                    N, sm, sn);
      return z;
    };
    INFO(what << " M " << M << " N " << N << (transposed ? " (column-major)" : ""));
    require_agree(run(cpu), run(cuda), 0, 0, what);
  }
}
}  // namespace

TEST_CASE("offsets wrapped with %, clamped with where, or with run-time strides load what the CPU loads", "[gpu][affine]") {
  check_rows<rows_form::plain>("plain rows");
  check_rows<rows_form::wrapped>("rows % M");
  check_rows<rows_form::clamped>("rows clamped with where");
}

TEST_CASE("tensor descriptors as dot operands and in stores agree with the CPU", "[gpu][affine][descriptor]") {
  for (int trial = 0; trial < 8; ++trial) {
    const int M = trial == 0 ? 256 : random_int(1, 200), N = trial == 0 ? 256 : random_int(1, 200);
    const int K = trial == 0 ? 256 : random_int(1, 150);
    const auto a = random_values<tl::fp16>(std::size_t(M) * K, -1, 1);
    const auto b = random_values<tl::fp16>(std::size_t(K) * N, -1, 1);
    auto run = [&](const tl::launch_options& o) {
      std::vector<float> c(std::size_t(M) * N, std::nanf(""));
      tl::launch<descriptor_dot_k<64, 64, 32>>(tl::grid(tl::cdiv(M, 64), tl::cdiv(N, 64)), o, tl::ptr(a, "a"),
                                               tl::ptr(b, "b"), tl::ptr(c, "c"), M, N, K);
      return c;
    };
    INFO("M " << M << " N " << N << " K " << K);
    require_agree(run(cpu), run(cuda), 1e-4, 1e-4, "descriptor dot");
  }
}

// Rows walked in blocks as Triton's tutorials walk them (layer norm): loads and stores masked
// with cols < N, a where over the same mask, a reduction; with blocks that N fills, ends between
// vector chunks or inside one, strides that keep rows aligned or not, and a pointer one element
// past an aligned one (the general path throughout); each against the CPU.
namespace {
template <int BLOCK>
TL_KERNEL void row_walk_k(tl::ptr<const tl::fp16> x, tl::ptr<tl::fp16> y, tl::ptr<float> sums, int stride, int N) {
  auto row = tl::program_id(0);
  x += row * stride;
  y += row * stride;
  auto acc = tl::zeros<BLOCK>(tl::float32);
  for (int off : tl::range(0, N, BLOCK)) {
    auto cols = off + tl::arange<0, BLOCK>();
    auto v = tl::load(x + cols, cols < N, 0.0).to(tl::float32);
    acc += tl::where(cols < N, v * 2, 0.0);
    tl::store(y + cols, v * 3 + 1, cols < N);
  }
  tl::store(sums + row, tl::sum<0>(acc));
}

void check_row_walk(int N, int stride, int x_shift) {  // x_shift: x starts this many elements into its buffer
  const int M = 37;
  const auto x = random_values<tl::fp16>(std::size_t(M) * stride + 16);
  auto run = [&](const tl::launch_options& o) {
    std::vector<tl::fp16> y(std::size_t(M) * stride, tl::fp16(-7.0f));
    std::vector<float> sums(std::size_t(M), std::nanf(""));
    REQUIRE(tl::launch<row_walk_k<256>>(tl::grid(M), o, tl::ptr(x, "x") + x_shift, tl::ptr(y, "y"), tl::ptr(sums, "sums"),
                                        stride, N)
                .ok());
    std::vector<float> out(sums);
    for (const auto& v : y) out.push_back(float(v));
    return out;
  };
  INFO("N " << N << " stride " << stride << " x shifted by " << x_shift);
  // The sums add N terms of up to 4 in another order on each backend: each order is within
  // N * 4 * 2^-24 of the exact sum.
  require_agree(run(cpu), run(cuda), 1e-6 + 2 * N * 4 * std::ldexp(1.0, -24), 1e-5, "row walk");
}
}  // namespace

TEST_CASE("row walks masked by cols < N agree with the CPU, whole blocks or not, aligned or not", "[gpu][affine]") {
  check_row_walk(1024, 1024, 0);  // every block full
  check_row_walk(1040, 1040, 0);  // the last block ends between chunks
  check_row_walk(1000, 1000, 0);  // the last block ends inside a chunk
  check_row_walk(1024, 1027, 0);  // rows not aligned
  check_row_walk(1024, 1024, 1);  // x not aligned
  check_row_walk(1024, 1024, 8);  // x 16 bytes in
  const int n = random_int(1, 2000);
  check_row_walk(n, n + random_int(0, 5), random_int(0, 9));
}
