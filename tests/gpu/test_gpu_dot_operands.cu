// Where a dot's operands come from (a lazy expression, cp.async copies, loaded again, registers)
// and which register order its accumulator is in, against the CPU.
#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

// z = dot(a * s[:, None], b): a lazy operand (evaluated straight into shared memory, its
// broadcast vector staged), at sizes whose operands are split along K (over the dot's
// shared-memory budget) or not.
template <class T, int M, int N, int K, tl::input_precision P>
TL_KERNEL void scaled_dot_kernel(tl::ptr<T> a_ptr, tl::ptr<T> s_ptr, tl::ptr<T> b_ptr, tl::ptr<float> z_ptr) {
  auto m = tl::arange<0, M>();
  auto n = tl::arange<0, N>();
  auto k = tl::arange<0, K>();
  auto a = tl::load(a_ptr + m(_, None) * K + k(None, _));
  auto s = tl::load(s_ptr + m);
  auto b = tl::load(b_ptr + k(_, None) * N + n(None, _));
  auto z = tl::dot(a * s(_, None), b, tl::precision_t<P>{});
  tl::store(z_ptr + m(_, None) * N + n(None, _), z);
}

template <class T, int M, int N, int K, tl::input_precision P>
void check_scaled_dot(double tol) {
  std::vector<T> a(std::size_t(M) * K), s(M), b(std::size_t(K) * N);
  for (auto* v : {&a, &s, &b})
    for (auto& x : *v) x = static_cast<T>(random_values(1, -1, 1)[0]);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(std::size_t(M) * N, NAN);
    tl::launch<scaled_dot_kernel<T, M, N, K, P>>(tl::grid(1), o, a, s, b, z);
    return z;
  };
  require_agree(run(cpu), run(cuda), tol, tol,
                "scaled dot " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
}

TEST_CASE("dot of a lazy operand, whole or split along K, agrees with the CPU", "[gpu][dot]") {
  using enum tl::input_precision;
  check_scaled_dot<float, 128, 128, 64, tf32>(1e-4);     // 70 KiB of operands: two K steps
  check_scaled_dot<tl::fp16, 128, 128, 64, tf32>(1e-4);  // 35 KiB: one step
  check_scaled_dot<tl::fp16, 64, 128, 256, tf32>(1e-4);  // K split four ways
  check_scaled_dot<tl::bf16, 32, 64, 32, tf32>(1e-4);
  check_scaled_dot<float, 64, 32, 32, ieee>(1e-5);       // FMA path: the operand evaluated first
}

// Where a dot's loaded operands come from (backend/cuda/dot_wgmma.hpp): whole aligned tiles
// are copied global -> shared by cp.async; a partial tile (rows masked off), an odd alignment
// (shift), an operand updated in place (Use 1) or also used elsewhere (Use 2) take the other
// paths. Rows lda / ldb elements apart.
template <class T, int M, int N, int K, int Use>
TL_KERNEL void dot_sources_kernel(tl::ptr<T> a_ptr, tl::ptr<T> b_ptr, tl::ptr<float> z_ptr, tl::ptr<T> w_ptr,
                                  int rows, int shift, int lda, int ldb) {
  auto m = tl::arange<0, M>();
  auto n = tl::arange<0, N>();
  auto k = tl::arange<0, K>();
  auto a = tl::load(a_ptr + shift + m(_, None) * lda + k(None, _), m(_, None) < rows);
  auto b = tl::load(b_ptr + shift + k(_, None) * ldb + n(None, _));
  if constexpr (Use == 1) a *= T(2);
  if constexpr (Use == 2) tl::store(w_ptr + m(_, None) * K + k(None, _), a);
  if constexpr (Use == 3) tl::store(z_ptr + m(_, None) * N + n(None, _), tl::dot(a * T(2), b));  // A an expression
  else tl::store(z_ptr + m(_, None) * N + n(None, _), tl::dot(a, b));
}

template <class T, int M, int N, int K, int Use>
void check_dot_sources(int rows, int shift, int pad) {
  const int lda = K + pad, ldb = N + pad;
  std::vector<T> a(std::size_t(M) * lda + shift), b(std::size_t(K) * ldb + shift);
  for (auto* v : {&a, &b})
    for (auto& x : *v) x = static_cast<T>(random_values(1, -1, 1)[0]);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(std::size_t(M) * N, NAN);
    std::vector<T> w(std::size_t(M) * K, T(7));
    tl::launch<dot_sources_kernel<T, M, N, K, Use>>(tl::grid(1), o, a, b, z, w, rows, shift, lda, ldb);
    return std::make_pair(z, w);
  };
  const auto c = run(cpu), g = run(cuda);
  const std::string what = "dot sources " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) +
                           " use " + std::to_string(Use) + " rows " + std::to_string(rows) + " shift " +
                           std::to_string(shift) + " pad " + std::to_string(pad);
  require_agree(c.first, g.first, 1e-4, 1e-4, what);
  std::vector<float> cw(c.second.begin(), c.second.end()), gw(g.second.begin(), g.second.end());
  require_agree(cw, gw, 0, 0, what + " (second use)");
}

TEST_CASE("dot operands copied by cp.async, loaded again, or from registers agree with the CPU", "[gpu][dot]") {
  for (int pad : {0, 8}) {
    check_dot_sources<tl::fp16, 64, 64, 64, 0>(64, 0, pad);    // whole aligned tiles: cp.async (A and B)
    check_dot_sources<tl::fp16, 64, 64, 64, 0>(37, 0, pad);    // a partial tile: A loaded again
    check_dot_sources<tl::fp16, 64, 64, 64, 0>(64, 1, pad);    // odd alignment: both loaded again
    check_dot_sources<tl::fp16, 64, 64, 64, 1>(64, 0, pad);    // A updated in place: its registers
    check_dot_sources<tl::fp16, 64, 64, 64, 2>(64, 0, pad);    // A also stored: its load stays
    check_dot_sources<tl::fp16, 128, 128, 256, 0>(128, 0, pad);  // split along K: one copy per step
    check_dot_sources<tl::bf16, 64, 128, 32, 0>(64, 0, pad);
    check_dot_sources<float, 64, 64, 32, 0>(64, 0, pad);       // tf32: A by cp.async, B (K-major) not
    check_dot_sources<float, 128, 128, 64, 0>(100, 0, pad);
    check_dot_sources<tl::fp16, 128, 32, 64, 0>(128, 0, pad);  // B K-major (N < 64): registers
    // tf32 with A an expression: A from registers (wgmma's A fragment, K in kperm order), B
    // copied into its transposed place, or loaded again (odd alignment, a partial tile)
    check_dot_sources<float, 64, 64, 32, 3>(64, 0, pad);
    check_dot_sources<float, 128, 128, 64, 3>(128, 0, pad);
    check_dot_sources<float, 128, 128, 64, 3>(128, 1, pad);
    check_dot_sources<float, 128, 128, 64, 3>(77, 0, pad);
    check_dot_sources<float, 64, 256, 128, 3>(64, 0, pad);
  }
}

// Blocks in the two register orders (backend/cuda/layout.hpp) meeting: an accumulator made by
// zeros (a tl::block: the tensor cores' order) updated with a loaded tile (standard), dots
// accumulating into it (B copied in memory order) and into a loaded tile (B permuted), both in
// one expression, a reduction of each kind, and a conversion.
template <int M, int N, int K>
TL_KERNEL void orders_kernel(tl::ptr<tl::fp16> a_ptr, tl::ptr<tl::fp16> b_ptr, tl::ptr<float> x_ptr,
                             tl::ptr<float> z_ptr) {
  auto m = tl::arange<0, M>();
  auto n = tl::arange<0, N>();
  auto k = tl::arange<0, K>();
  auto tile = m(_, None) * N + n(None, _);
  auto x = tl::load(x_ptr + tile);
  auto acc = tl::zeros<M, N>(tl::float32);
  acc += x;  // x (loaded: the standard order) read through shared memory
  auto a = tl::load(a_ptr + m(_, None) * K + k(None, _));
  auto b = tl::load(b_ptr + k(_, None) * N + n(None, _));
  acc = tl::dot(a, b, acc);
  auto std_acc = tl::dot(a, b, tl::load(x_ptr + tile));  // a loaded accumulator: the standard order
  tl::store(z_ptr + tile, acc);
  tl::store(z_ptr + M * N + tile, std_acc - acc * 0.5f);
  tl::store(z_ptr + 2 * M * N + m, tl::sum<1>(acc));
  tl::store(z_ptr + 2 * M * N + M + n, tl::max<0>(acc - x));
  const tl::block<float, M, N> converted = std_acc;
  tl::store(z_ptr + 2 * M * N + M + N + tile, converted + tl::dot(a, b));
}

template <int M, int N, int K>
void check_orders() {
  std::vector<tl::fp16> a(std::size_t(M) * K), b(std::size_t(K) * N);
  for (auto* v : {&a, &b})
    for (auto& e : *v) e = static_cast<tl::fp16>(random_values(1, -1, 1)[0]);
  auto x = random_values(std::size_t(M) * N);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(std::size_t(3) * M * N + M + N, NAN);
    tl::launch<orders_kernel<M, N, K>>(tl::grid(1), o, a, b, x, z);
    return z;
  };
  require_agree(run(cpu), run(cuda), 1e-4, 1e-4,
                "register orders " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
}

TEST_CASE("blocks in the accumulator and the standard register orders mix, reduce and convert like the CPU's",
          "[gpu][dot]") {
  check_orders<64, 64, 32>();
  check_orders<64, 128, 16>();  // B MN-major: copied 16 bytes at a time into the accumulator order
  check_orders<64, 32, 16>();    // B K-major
  check_orders<16, 16, 16>();
}

// B = trans(x) (x's rows stored as B's columns): x a loaded block (cp.async, or loaded again
// when its rows are not 16-byte aligned), x a lazy expression, x updated in place; several dot
// shapes in one kernel, which share the dots' arena in dynamic shared memory (as static arrays
// per shape they would add up past 48 KiB); each dot in a loop over programs' row blocks so
// that the operand ring, when the launch gives it, is used and checked.
template <int M, int N, int K>
TL_KERNEL void transposed_b_kernel(tl::ptr<const tl::fp16> a_ptr, tl::ptr<const tl::fp16> b_ptr, tl::ptr<float> z_ptr,
                                   int b_row_offset, int steps) {
  auto m = tl::arange<0, M>();
  auto n = tl::arange<0, N>();
  auto k = tl::arange<0, K>();
  auto acc = tl::zeros<M, N>(tl::float32);
  auto acc_k = tl::zeros<M, K>(tl::float32);
  for (int s : tl::range(0, steps)) {
    auto a = tl::load(a_ptr + (s * M + m(_, None)) * K + k(None, _));
    auto bt = tl::load(b_ptr + b_row_offset + (s * N + n(_, None)) * K + k(None, _));  // N x K
    acc = tl::dot(a, tl::trans(bt), acc);                                              // loaded x
    auto p = tl::dot(a, tl::trans(bt * 0.5f)).to(tl::float16);                       // lazy x
    acc_k = tl::dot(p, bt, acc_k);                                                     // M x N @ N x K
    auto changed = bt;
    changed += 1.0f;  // no longer what memory holds: its registers
    acc = tl::dot(a, tl::trans(changed), acc);
  }
  tl::store(z_ptr + m(_, None) * N + n(None, _), acc);
  tl::store(z_ptr + M * N + m(_, None) * K + k(None, _), acc_k);
}

template <int M, int N, int K>
void check_transposed_b(int b_row_offset) {
  const int steps = 3;
  std::vector<tl::fp16> a(std::size_t(steps) * M * K), b(std::size_t(steps) * N * K + 8);
  for (auto* v : {&a, &b})
    for (auto& x : *v) x = static_cast<tl::fp16>(random_values(1, -1, 1)[0]);
  auto run = [&](tl::launch_options o) {
    std::vector<float> z(std::size_t(M) * N + std::size_t(M) * K, NAN);
    const auto r = tl::launch<transposed_b_kernel<M, N, K>>(tl::grid(1), o, tl::ptr(std::as_const(a), "a"),
                                                             tl::ptr(std::as_const(b), "b"), tl::ptr(z, "z"), b_row_offset,
                                                             steps);
    if (o.backend == tl::backend::cuda) REQUIRE(r.dynamic_shared_bytes > 0);  // the dots' arena
    return z;
  };
  const auto want = run(cpu);
  const std::string what = "B = trans(x) " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) +
                           ", B rows offset by " + std::to_string(b_row_offset);
  require_agree(want, run(cuda), 2e-2, 2e-3, what + ", num_stages 3");
  tl::launch_options one = cuda;
  one.num_stages = 1;
  require_agree(want, run(one), 2e-2, 2e-3, what + ", num_stages 1");
  tl::launch_options two_per_sm = cuda;
  two_per_sm.programs_per_sm = 2;
  require_agree(want, run(two_per_sm), 2e-2, 2e-3, what + ", programs_per_sm 2");
}

TEST_CASE("B = trans(x) from a loaded, lazy or updated x, several dot shapes in one kernel, agrees with the CPU",
          "[gpu][dot]") {
  check_transposed_b<64, 128, 64>(0);
  check_transposed_b<64, 128, 64>(1);  // rows not 16-byte aligned: loaded again, written from registers
  check_transposed_b<64, 64, 32>(0);
}
