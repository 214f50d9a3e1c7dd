// dot on the tensor cores (mma.sync, wgmma on sm_90a) and by FMA, against the CPU's emulation.
#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

// z = dot(a, b, acc) for M x K and K x N tiles of T (2-D) or a batch of them (3-D).
template <class T, int BT, int M, int N, int K, tl::input_precision P>
TL_KERNEL void dot_kernel(tl::ptr<T> a_ptr, tl::ptr<T> b_ptr, tl::ptr<float> acc_ptr, tl::ptr<float> z_ptr) {
  auto k = tl::arange<0, K>();
  if constexpr (BT == 1) {
    auto m = tl::arange<0, M>()(_, None);
    auto n = tl::arange<0, N>()(None, _);
    auto a = tl::load(a_ptr + m * K + k(None, _));
    auto b = tl::load(b_ptr + k(_, None) * N + n);
    auto acc = tl::load(acc_ptr + m * N + n);
    tl::store(z_ptr + m * N + n, tl::dot(a, b, acc, tl::precision_t<P>{}));
  } else {
    auto bt = tl::arange<0, BT>()(_, None, None);
    auto m = tl::arange<0, M>()(None, _, None);
    auto n = tl::arange<0, N>()(None, None, _);
    auto a = tl::load(a_ptr + bt * M * K + m * K + k(None, None, _));
    auto b = tl::load(b_ptr + bt * K * N + k(None, _, None) * N + n);
    auto acc = tl::load(acc_ptr + bt * M * N + m * N + n);
    tl::store(z_ptr + bt * M * N + m * N + n, tl::dot(a, b, acc, tl::precision_t<P>{}));
  }
}

template <class T, int BT, int M, int N, int K, tl::input_precision P>
void check_dot(double tol) {
  std::vector<T> a(std::size_t(BT) * M * K), b(std::size_t(BT) * K * N);
  for (auto& v : a) v = static_cast<T>(random_values(1, -1, 1)[0]);
  for (auto& v : b) v = static_cast<T>(random_values(1, -1, 1)[0]);
  auto acc = random_values(std::size_t(BT) * M * N);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(std::size_t(BT) * M * N, NAN);
    tl::launch<dot_kernel<T, BT, M, N, K, P>>(tl::grid(1), o, a, b, acc, z);
    return z;
  };
  require_agree(run(cpu), run(cuda), tol, tol,
                "dot " + std::to_string(BT) + "x" + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
}

TEST_CASE("dot on tensor cores: fp16, bf16 and tf32 agree with the CPU's emulation", "[gpu][dot]") {
  using enum tl::input_precision;
  check_dot<tl::fp16, 1, 16, 16, 16, tf32>(1e-5);
  check_dot<tl::fp16, 1, 64, 32, 64, tf32>(1e-5);
  check_dot<tl::bf16, 1, 32, 64, 32, tf32>(1e-5);
  check_dot<tl::fp16, 2, 32, 16, 32, tf32>(1e-5);
  check_dot<float, 1, 32, 32, 32, tf32>(1e-5);   // both cut inputs to tf32: sums differ in order only
  check_dot<float, 1, 64, 64, 32, tf32>(1e-5);
  check_dot<float, 2, 16, 32, 16, tf32>(1e-5);
}

// On sm_90a these shapes take wgmma (a warpgroup per 64 rows, operands in swizzled shared
// memory): every swizzle width (rows of 32, 64, 128 bytes and wider), B stored MN-major
// (16-bit, N a multiple of 64) or K-major, one instruction or several along N. Elsewhere
// they take mma.sync and check that instead.
TEST_CASE("dot shapes of every wgmma operand layout agree with the CPU", "[gpu][dot]") {
  using tl::input_precision::tf32;
  check_dot<tl::fp16, 1, 64, 16, 16, tf32>(1e-5);    // 32-byte rows, one n16 instruction
  check_dot<tl::fp16, 1, 64, 64, 32, tf32>(1e-5);    // 64-byte rows, B MN-major
  check_dot<tl::bf16, 1, 128, 256, 64, tf32>(1e-5);  // 128-byte rows, one n256 instruction
  check_dot<tl::fp16, 1, 64, 128, 128, tf32>(1e-5);  // two columns of swizzle atoms along K
  check_dot<tl::bf16, 1, 64, 512, 16, tf32>(1e-5);   // two n256 instructions
  check_dot<tl::fp16, 1, 128, 32, 64, tf32>(1e-5);   // B K-major (N not a multiple of 64)
  check_dot<float, 1, 64, 16, 16, tf32>(1e-5);       // tf32: 64-byte rows
  check_dot<float, 1, 128, 128, 32, tf32>(1e-5);     // tf32: 128-byte rows, two 64-row tiles per warpgroup
}

TEST_CASE("dot without tensor cores: ieee, tf32x3 and float64 agree", "[gpu][dot]") {
  using enum tl::input_precision;
  check_dot<float, 1, 32, 32, 64, ieee>(1e-5);
  check_dot<float, 2, 16, 16, 16, ieee>(1e-5);
  check_dot<float, 1, 16, 32, 16, tf32x3>(1e-5);
  check_dot<double, 1, 16, 16, 32, ieee>(1e-12);
}

// C = A B in a loop over K written as Triton's matmuls write it (blocks of pointers advanced,
// strides at run time), for each form of B: stored column by column (unit stride along K),
// row by row, or as trans(x) of an N x K x. fp8 (float8e4nv, float8e5) runs on wgmma (sm_90a;
// elsewhere the FMA lowering), which reads 8-bit operands K-major only: B by columns is
// copied as it is (from the operand ring in the loop), by rows written transposed from
// registers. A 16-bit B with N not a multiple of 64, and a float32 one, are stored K-major too
// and take the same ways (attention's backward loads kT and qT by columns).
// The inputs are multiples of 1/4 in [-2, 2], exact in every type: every product and partial
// sum is exact in float32, so the GPU, the CPU and a plain loop in double agree bit for bit
// whatever the order of the sums.
namespace {
// B as stored: by columns, by rows; B = trans(x) with x (N x K) by rows (B by columns), or x by
// columns (B by rows).
enum class b_form { columns, rows, transposed, transposed_x_by_columns };

template <class T, int BM, int BN, int BK, b_form Form>
TL_KERNEL void forms_matmul_k(tl::ptr<const T> a_ptr, tl::ptr<const T> b_ptr, tl::ptr<float> c_ptr, int M, int N, int K,
                            int stride_bk, int stride_bn) {
  auto rm = tl::program_id(0) * BM + tl::arange<0, BM>();
  auto rn = tl::program_id(1) * BN + tl::arange<0, BN>();
  auto rk = tl::arange<0, BK>();
  auto a_ptrs = a_ptr + (rm(_, None) * K + rk(None, _));
  auto acc = tl::zeros<BM, BN>(tl::float32);
  if constexpr (Form == b_form::transposed || Form == b_form::transposed_x_by_columns) {
    auto x_ptrs = b_ptr + (rn(_, None) * stride_bn + rk(None, _) * stride_bk);  // x = trans(B): N x K
    for (int k : tl::range(0, K, BK)) {
      auto a = tl::load(a_ptrs, (rm(_, None) < M) & (rk(None, _) < K - k), 0.0f);
      auto x = tl::load(x_ptrs, (rn(_, None) < N) & (rk(None, _) < K - k), 0.0f);
      acc = tl::dot(a, tl::trans(x), acc);
      a_ptrs += BK;
      x_ptrs += BK * stride_bk;
    }
  } else {
    auto b_ptrs = b_ptr + (rk(_, None) * stride_bk + rn(None, _) * stride_bn);
    for (int k : tl::range(0, K, BK)) {
      auto a = tl::load(a_ptrs, (rm(_, None) < M) & (rk(None, _) < K - k), 0.0f);
      auto b = tl::load(b_ptrs, (rk(_, None) < K - k) & (rn(None, _) < N), 0.0f);
      acc = tl::dot(a, b, acc);
      a_ptrs += BK;
      b_ptrs += BK * stride_bk;
    }
  }
  tl::store(c_ptr + (rm(_, None) * N + rn(None, _)), acc, (rm(_, None) < M) & (rn(None, _) < N));
}

template <class T, int BM, int BN, int BK, b_form Form>
void check_matmul_form(int M, int N, int K) {
  const auto a = random_quarters<T>(std::size_t(M) * K), b = random_quarters<T>(std::size_t(K) * N);
  // B's element (k, n) at k * stride_bk + n * stride_bn: column by column for columns and
  // transposed (x = trans(B) row by row), row by row for rows.
  const bool by_columns = Form == b_form::columns || Form == b_form::transposed;
  const int stride_bk = by_columns ? 1 : N, stride_bn = by_columns ? K : 1;
  std::vector<double> want(std::size_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j)
        want[std::size_t(i) * N + j] +=
            double(float(a[std::size_t(i) * K + k])) * double(float(b[std::size_t(k) * stride_bk + std::size_t(j) * stride_bn]));
  const std::string what = std::string(tl::detail::dtype_name<T>()) + " form " + std::to_string(int(Form)) + " tile " +
                           std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + " sizes " +
                           std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  const tl::grid g(tl::cdiv(M, BM), tl::cdiv(N, BN));
  auto run = [&](tl::launch_options o, int stages) {
    o.num_stages = stages;
    std::vector<float> c(std::size_t(M) * N, std::nanf(""));
    tl::launch<forms_matmul_k<T, BM, BN, BK, Form>>(g, o, tl::ptr(a, "a"), tl::ptr(b, "b"), tl::ptr(c, "c"), M, N, K,
                                                    stride_bk, stride_bn);
    return c;
  };
  const auto on_cpu = run(cpu, 1), ring = run(cuda, 3), plain = run(cuda, 1);
  std::vector<float> reference(want.begin(), want.end());
  require_agree(reference, on_cpu, 0, 0, what + ": CPU against the plain loop");
  require_agree(reference, ring, 0, 0, what + ": GPU against the plain loop");
  require_agree(plain, ring, 0, 0, what + ": num_stages 3 against 1");
}
}  // namespace

TEMPLATE_TEST_CASE("fp8 matmul loops on the tensor cores agree bit for bit with a plain loop, for each form of B",
                   "[gpu][dot][fp8]", tl::fp8e4nv, tl::fp8e5) {
  using enum b_form;
  check_matmul_form<TestType, 128, 128, 64, columns>(256, 256, 512);  // whole tiles: the ring
  check_matmul_form<TestType, 128, 128, 128, columns>(200, 136, 300);  // edge tiles and a partial K step
  check_matmul_form<TestType, 64, 64, 64, rows>(128, 192, 256);
  check_matmul_form<TestType, 64, 128, 64, transposed>(128, 256, 192);
  check_matmul_form<TestType, 128, 64, 64, columns>(random_int(1, 300), random_int(1, 300), random_int(1, 400));
  check_matmul_form<TestType, 64, 64, 64, rows>(random_int(1, 200), random_int(1, 200), random_int(1, 300));
}

TEST_CASE("16-bit and float32 B stored K-major: by columns, by rows, transposed, in matmul loops", "[gpu][dot]") {
  using enum b_form;
  check_matmul_form<tl::fp16, 128, 32, 64, columns>(256, 96, 320);  // N 32: K-major, copied by columns
  check_matmul_form<tl::bf16, 64, 16, 64, columns>(random_int(1, 200), random_int(1, 100), random_int(1, 300));
  check_matmul_form<tl::fp16, 64, 32, 64, rows>(128, 64, 256);       // K-major, written from registers
  // N a multiple of 64: B MN-major as planned, or in its other place when only that can be
  // copied: B by columns K-major, trans(x) of an x by columns MN-major (attention backward's
  // trans(qT)).
  check_matmul_form<tl::fp16, 64, 128, 64, columns>(128, 256, 192);
  check_matmul_form<tl::bf16, 128, 64, 64, columns>(random_int(1, 300), random_int(1, 200), random_int(1, 300));
  check_matmul_form<tl::fp16, 64, 64, 32, transposed_x_by_columns>(128, 192, 160);
  check_matmul_form<tl::fp16, 128, 128, 64, transposed_x_by_columns>(random_int(1, 300), random_int(1, 300), random_int(1, 300));
  check_matmul_form<tl::fp16, 64, 64, 64, transposed>(128, 128, 128);
  check_matmul_form<float, 64, 64, 32, columns>(128, 128, 256);      // tf32, K-major
  check_matmul_form<float, 64, 64, 32, rows>(128, 64, 96);
}

// The same forms of B in one dot whose accumulator is a loaded block (the standard register
// order: B's columns stored permuted in pairs), strides at run time.
namespace {
template <class T, int M, int N, int K, b_form Form>
TL_KERNEL void forms_acc_k(tl::ptr<const T> a_ptr, tl::ptr<const T> b_ptr, tl::ptr<const float> acc_ptr, tl::ptr<float> z_ptr,
                           int stride_bk, int stride_bn) {
  auto m = tl::arange<0, M>();
  auto n = tl::arange<0, N>();
  auto k = tl::arange<0, K>();
  auto a = tl::load(a_ptr + (m(_, None) * K + k(None, _)));
  auto acc = tl::load(acc_ptr + (m(_, None) * N + n(None, _)));
  if constexpr (Form == b_form::transposed || Form == b_form::transposed_x_by_columns) {
    auto x = tl::load(b_ptr + (n(_, None) * stride_bn + k(None, _) * stride_bk));
    tl::store(z_ptr + (m(_, None) * N + n(None, _)), tl::dot(a, tl::trans(x), acc));
  } else {
    auto b = tl::load(b_ptr + (k(_, None) * stride_bk + n(None, _) * stride_bn));
    tl::store(z_ptr + (m(_, None) * N + n(None, _)), tl::dot(a, b, acc));
  }
}

template <class T, int M, int N, int K, b_form Form>
void check_form_with_loaded_acc() {
  const auto a = random_quarters<T>(std::size_t(M) * K), b = random_quarters<T>(std::size_t(K) * N);
  const auto acc = random_quarters<float>(std::size_t(M) * N);
  const bool by_columns = Form == b_form::columns || Form == b_form::transposed;
  const int stride_bk = by_columns ? 1 : N, stride_bn = by_columns ? K : 1;
  std::vector<float> want(acc);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = acc[std::size_t(i) * N + j];
      for (int k = 0; k < K; ++k)
        sum += double(float(a[std::size_t(i) * K + k])) * double(float(b[std::size_t(k) * stride_bk + std::size_t(j) * stride_bn]));
      want[std::size_t(i) * N + j] = float(sum);
    }
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(std::size_t(M) * N, std::nanf(""));
    tl::launch<forms_acc_k<T, M, N, K, Form>>(tl::grid(1), o, tl::ptr(a, "a"), tl::ptr(b, "b"), tl::ptr(acc, "acc"),
                                              tl::ptr(z, "z"), stride_bk, stride_bn);
    return z;
  };
  const std::string what = std::string(tl::detail::dtype_name<T>()) + " form " + std::to_string(int(Form)) + " " +
                           std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + ", loaded accumulator";
  require_agree(want, run(cpu), 0, 0, what + ": CPU against the plain loop");
  require_agree(want, run(cuda), 0, 0, what + ": GPU against the plain loop");
}
}  // namespace

TEST_CASE("each form of B with a loaded accumulator (B's columns permuted) agrees bit for bit with a plain loop",
          "[gpu][dot]") {
  using enum b_form;
  check_form_with_loaded_acc<tl::fp16, 64, 64, 64, columns>();                  // MN-major plan, B K-major
  check_form_with_loaded_acc<tl::fp16, 64, 128, 32, transposed_x_by_columns>();  // K-major plan, B MN-major
  check_form_with_loaded_acc<tl::bf16, 128, 32, 64, columns>();                 // K-major, copied by columns
  check_form_with_loaded_acc<tl::fp8e4nv, 64, 64, 64, columns>();
  check_form_with_loaded_acc<tl::fp8e5, 64, 64, 128, transposed>();
  check_form_with_loaded_acc<tl::fp16, 64, 64, 64, rows>();
}

// The fp8 formats without tensor-core instructions: dot converts both operands to float16
// (exact), so these loops run on the float16 tensor cores, from registers rather than copies.
TEST_CASE("float8e4b8 matmul loops agree bit for bit with a plain loop", "[gpu][dot][fp8]") {
  using enum b_form;
  // One lowering for the three (a float16 dot of converted operands), checked on one of them.
  check_matmul_form<tl::fp8e4b8, 128, 128, 64, columns>(256, 256, 256);
  check_form_with_loaded_acc<tl::fp8e4b8, 64, 64, 64, rows>();
}

// dot_scaled in a matmul loop: fp4 (e2m1, two a byte along K) with e8m0 scales times fp8 bits
// (e4m3) with scales, loaded tile by tile, upcast to bf16 and multiplied on the tensor cores.
template <int BM, int BN, int BK>
TL_KERNEL void mx_matmul_kernel(tl::ptr<const std::uint8_t> a_ptr, tl::ptr<const std::uint8_t> as_ptr,
                                tl::ptr<const std::uint8_t> b_ptr, tl::ptr<const std::uint8_t> bs_ptr, tl::ptr<float> c_ptr,
                                int M, int N, int K) {
  auto offs_m = tl::program_id(0) * BM + tl::arange<0, BM>();
  auto offs_n = tl::program_id(1) * BN + tl::arange<0, BN>();
  auto mm = offs_m < M;
  auto mn = offs_n < N;
  auto acc = tl::zeros<BM, BN>(tl::float32);
  for (int k : tl::range(0, K, BK)) {
    auto kb = k / 2 + tl::arange<0, BK / 2>();
    auto kk = k + tl::arange<0, BK>();
    auto ks = k / 32 + tl::arange<0, BK / 32>();
    auto a = tl::load(a_ptr + offs_m(_, None) * (K / 2) + kb(None, _), mm(_, None));
    auto as = tl::load(as_ptr + offs_m(_, None) * (K / 32) + ks(None, _), mm(_, None), 127);
    auto b = tl::load(b_ptr + kk(_, None) * N + offs_n(None, _), mn(None, _));
    auto bs = tl::load(bs_ptr + offs_n(_, None) * (K / 32) + ks(None, _), mn(_, None), 127);
    acc = tl::dot_scaled<"e2m1", "e4m3">(a, as, b, bs, acc);
  }
  tl::store(c_ptr + offs_m(_, None) * N + offs_n(None, _), acc, mm(_, None) & mn(None, _));
}

TEST_CASE("dot_scaled (fp4 x fp8 with e8m0 scales) agrees with the CPU in a matmul loop", "[gpu][dot][dot_scaled]") {
  for (int rep = 0; rep < 3; ++rep) {
    const int M = random_int(1, 150), N = random_int(1, 100), K = 64 * random_int(1, 4);
    std::vector<std::uint8_t> a(static_cast<std::size_t>(M) * K / 2), as(static_cast<std::size_t>(M) * K / 32),
        b(static_cast<std::size_t>(K) * N), bs(static_cast<std::size_t>(N) * K / 32);
    for (auto& v : a) v = std::uint8_t(random_int(0, 255));
    // Scales of 1/2 to 2 and e4m3 values below 1 in magnitude (exponent field at most 6, so never
    // NaN): sums of at most 256 products of at most 24, compared within float32's rounding.
    // (and some scales 0, a factor of 0 as Triton reads them).
    for (auto& v : as) v = std::uint8_t(random_int(0, 9) == 0 ? 0 : random_int(126, 128));
    for (auto& v : b) v = std::uint8_t(random_int(0, 255) & 0xb7);
    for (auto& v : bs) v = std::uint8_t(random_int(0, 9) == 0 ? 0 : random_int(126, 128));
    auto run = [&](const tl::launch_options& o) {
      std::vector<float> c(static_cast<std::size_t>(M) * N, NAN);
      tl::launch<mx_matmul_kernel<64, 64, 64>>(tl::grid(tl::cdiv(M, 64), tl::cdiv(N, 64)), o, a, as, b, bs, c, M, N, K);
      return c;
    };
    require_agree(run(cpu), run(cuda), 2e-2, 1e-4, "M " + std::to_string(M) + ", N " + std::to_string(N) + ", K " + std::to_string(K));
  }
}
