// What the types of index, pointer and mask expressions say about their values (axis_info.hpp):
// the CUDA loads and stores pick their fast paths from these, so a wrong "yes" would let a
// kernel read unmasked memory. Checked on the host: they are compile-time properties.
#include <catch2/catch.hpp>

#include <tl/expr/axis_info.hpp>
#include <tl/tl.hpp>

using tl::None;
using tl::_;

namespace {
template <class E>
constexpr bool affine(const E&) {
  return tl::detail::affine_v<E>;
}
template <class E>
constexpr bool affine_ptr(const E&) {
  return tl::detail::affine_ptr_v<E>;
}
template <class E>
constexpr bool convex(const E&) {
  return tl::detail::convex_mask_v<E>;
}
template <class E>
constexpr int stride(const E&) {
  return tl::detail::last_axis_stride<E>();
}
}  // namespace

TEST_CASE("affine offsets: aranges, scalars, sums, products by a uniform factor, None-axes", "[axis_info]") {
  const int pid = 3, n = 100, l = 64;
  auto off_j = pid * 16 + tl::arange<0, 16>();
  auto off_k = l + tl::arange<0, 32>();
  CHECK(affine(off_j));
  CHECK(affine(off_j(_, None) * n + off_k(None, _)));
  CHECK(affine(off_j(_, None, None) * n * n - off_k(None, None, _) * 4));
  CHECK(affine(tl::arange<0, 16>() * (n * 2)));
  CHECK(stride(off_j(_, None) * n + off_k(None, _)) == 1);
  CHECK(stride(off_j(_, None) * n) == 0);
  // Not affine: products of aranges, reshapes (div/mod of coordinates), loaded values, shifts.
  CHECK_FALSE(affine(tl::arange<0, 16>() * tl::arange<0, 16>()));
  CHECK_FALSE(affine(tl::reshape<4, 4>(tl::arange<0, 16>())));
  CHECK_FALSE(affine(tl::arange<0, 16>() >> 1));
  std::vector<int> idx(16, 0);
  auto loaded = tl::load(tl::ptr<int>(idx) + tl::arange<0, 16>());
  CHECK_FALSE(affine(loaded));
  CHECK_FALSE(affine(loaded + tl::arange<0, 16>()));
  CHECK_FALSE(affine(tl::arange<0, 16>() * 0.5f));
}

TEST_CASE("affine pointers and convex masks", "[axis_info]") {
  std::vector<float> x(4096, 0.0f);
  std::vector<int> idx(16, 0);
  tl::ptr<float> p(x);
  const int n = 64, m = 50;
  auto rows = tl::arange<0, 16>();
  auto cols = tl::arange<0, 32>();
  CHECK(affine_ptr(p + rows(_, None) * n + cols(None, _)));
  CHECK(affine_ptr(p + rows));
  CHECK_FALSE(affine_ptr(p + tl::load(tl::ptr<int>(idx) + rows)));  // a gather
  CHECK(convex(rows < m));
  CHECK(convex((rows(_, None) < m) & (cols(None, _) < n)));
  CHECK(convex((rows >= 2) && (rows * 3 + 1 <= m)));
  // Not convex: !=, ==, or, negation, masks from loaded data.
  CHECK_FALSE(convex(rows != m));
  CHECK_FALSE(convex((rows < 2) | (rows > 10)));
  CHECK_FALSE(convex(~(rows < 2)));
  CHECK_FALSE(convex(tl::load(tl::ptr<int>(idx) + rows) < m));
}

TEST_CASE("wrapped and clamped offsets are affine where no wrap acts, which the corners decide", "[axis_info]") {
  using tl::detail::has_wrap_v;
  using tl::detail::unwrapped_at;
  using tl::detail::wraps_hold;
  const int M = 20;
  for (int pid = 0; pid < 3; ++pid) {
    auto wrapped = (pid * 8 + tl::arange<0, 8>()) % M;                    // rows 0..7, 8..15, 16..23 -> wraps at 20
    auto clamped = tl::where(pid * 8 + tl::arange<0, 8>() < M, pid * 8 + tl::arange<0, 8>(), 0);
    STATIC_REQUIRE(affine(wrapped));
    STATIC_REQUIRE(affine(clamped));
    STATIC_REQUIRE(has_wrap_v<decltype(wrapped)>);
    STATIC_REQUIRE(has_wrap_v<decltype(clamped)>);
    const bool inside = pid * 8 + 7 < M;
    // Corners 0 and 7 decide for the whole block (affine inner offsets).
    CHECK((wraps_hold(wrapped, {0}) && wraps_hold(wrapped, {7})) == inside);
    CHECK((wraps_hold(clamped, {0}) && wraps_hold(clamped, {7})) == inside);
    for (int i = 0; i < 8; ++i) {
      CHECK(unwrapped_at(wrapped, {i}) == pid * 8 + i);  // the wrap taken as the identity
      CHECK(unwrapped_at(clamped, {i}) == pid * 8 + i);
      if (inside) CHECK(unwrapped_at(wrapped, {i}) == wrapped.at({i}));
    }
  }
  // In a 2-D pointer block, through None-axes and a run-time stride.
  std::vector<float> x(64);
  tl::ptr<float> p(x, "x");
  const int stride_m = 8;
  auto rows = (1 * 4 + tl::arange<0, 4>()) % 6;  // 4..7 wraps at 6
  auto ptrs = p + (rows(_, None) * stride_m + tl::arange<0, 8>()(None, _));
  STATIC_REQUIRE(affine_ptr(ptrs));
  STATIC_REQUIRE(stride(ptrs) == 1);
  CHECK(wraps_hold(ptrs, {0, 0}));
  CHECK_FALSE(wraps_hold(ptrs, {3, 7}));  // row 7 % 6: the wrap acts at the far corner
  CHECK(unwrapped_at(ptrs, {3, 7}).offset == 7 * 8 + 7);
  // Plain offsets have no wraps, and a uniform % is not one.
  auto plain = 3 + tl::arange<0, 8>();
  STATIC_REQUIRE_FALSE(has_wrap_v<decltype(plain)>);
  auto uniform_mod = tl::arange<0, 8>() + tl::detail::scalar_expr<int, true>{{}, 17} % M;
  STATIC_REQUIRE_FALSE(has_wrap_v<decltype(uniform_mod)>);
  // A wrap of a non-affine operand is not affine: nothing to check at run time.
  auto squared = (tl::arange<0, 8>() * tl::arange<0, 8>()) % M;
  STATIC_REQUIRE_FALSE(affine(squared));
}

TEST_CASE("a pointer made from an address, held as a rank-0 block, is an affine base", "[axis_info]") {
  std::vector<float> buffer(64, 1.0f);
  const auto address = std::int64_t(reinterpret_cast<std::uintptr_t>(buffer.data()));
  auto base = tl::eval(tl::full(address, tl::int64).to(tl::pointer_type<float>));
  auto rows = tl::arange<0, 4>();
  auto ptrs = base + rows(_, None) * 16 + tl::arange<0, 8>()(None, _);
  STATIC_REQUIRE(affine_ptr(ptrs));
  STATIC_REQUIRE(stride(ptrs) == 1);
  ptrs += 2;  // a loop's advance keeps the form
  STATIC_REQUIRE(std::is_same_v<decltype(ptrs), decltype(base + rows(_, None) * 16 + tl::arange<0, 8>()(None, _))>);
  CHECK(ptrs.at({1, 3}).get() == buffer.data() + 16 + 3 + 2);
}
