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
