// Shape ops (None-indexing, expand_dims, broadcast_to, reshape, permute, trans) against index
// arithmetic, and the value semantics that make `auto` safe.
#include "testing.hpp"

#include <tl/backend/cuda/evaluation.hpp>  // its chunk evaluator, checked on the host

using namespace tl;
using testing::random_block;
using testing::values;
using tl::None;
using tl::_;

TEST_CASE("None-style indexing inserts size-1 axes", "[shape]") {
  auto x = random_block<float, 8>();
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(x(None, _))>, shape<1, 8>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(x(_, None))>, shape<8, 1>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(x(None, _, None))>, shape<1, 8, 1>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(x(None))>, shape<1, 8>>);  // trailing _ implied
  auto m = random_block<float, 3, 4>();
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(m(_, None, _))>, shape<3, 1, 4>>);
  REQUIRE(values(x(_, None)) == values(x));
  REQUIRE(values(m(_, None, _)) == values(m));
  // The outer sum of puzzle 3: z[j, i] = x[i] + y[j].
  auto y = random_block<float, 4>();
  const auto z = values(x(None, _) + y(_, None));
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 8; ++i) REQUIRE(z[std::size_t(j * 8 + i)] == double(x[i] + y[j]));
}

TEST_CASE("expand_dims and broadcast_to", "[shape]") {
  auto x = random_block<float, 3, 4>();
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(expand_dims<0>(x))>, shape<1, 3, 4>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(expand_dims<1>(x))>, shape<3, 1, 4>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(expand_dims<-1>(x))>, shape<3, 4, 1>>);
  REQUIRE(values(expand_dims<-1>(x)) == values(x));
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(broadcast_to<2, 3, 4>(x))>, shape<2, 3, 4>>);
  auto col = random_block<float, 3, 1>();
  const auto bc = values(broadcast_to<2, 3, 5>(col));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 5; ++k) REQUIRE(bc[std::size_t((i * 3 + j) * 5 + k)] == double(col[j]));
}

TEST_CASE("squeeze removes a size-1 axis, unsqueeze inserts one", "[shape]") {
  auto x = random_block<float, 3, 1, 4>();
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(squeeze<1>(x))>, shape<3, 4>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(squeeze<-2>(x))>, shape<3, 4>>);
  const auto sq = values(squeeze<1>(x));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) REQUIRE(sq[std::size_t(i * 4 + j)] == double(x[i * 4 + j]));
  auto y = random_block<std::int32_t, 5, 2>(-50, 50);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(unsqueeze<0>(y))>, shape<1, 5, 2>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(unsqueeze<-1>(y))>, shape<5, 2, 1>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(unsqueeze<1>(y))>, shape<5, 1, 2>>);
  REQUIRE(values(squeeze<1>(unsqueeze<1>(y))) == values(y));
  REQUIRE(values(unsqueeze<2>(y)) == values(y));
  auto one = random_block<float, 1>();
  STATIC_REQUIRE(detail::shape_of_t<decltype(squeeze<0>(one))>::rank == 0);
  REQUIRE(values(squeeze<0>(one)) == values(one));
}

TEST_CASE("reshape keeps row-major order", "[shape]") {
  auto x = random_block<std::int32_t, 2, 3, 4>(-100, 100);
  REQUIRE(values(reshape<6, 4>(x)) == values(x));
  REQUIRE(values(reshape<24>(x)) == values(x));
  REQUIRE(values(reshape<4, 2, 3>(reshape<24>(x))) == values(x));
  const auto r = values(reshape<4, 6>(x));
  for (int i = 0; i < 24; ++i) REQUIRE(r[std::size_t(i)] == double(x[i]));
}

TEST_CASE("permute and trans move axes", "[shape]") {
  auto x = random_block<float, 2, 3, 4>();
  auto p = permute<2, 0, 1>(x);  // output axis i is input axis P[i]
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(p)>, shape<4, 2, 3>>);
  const auto vp = values(p);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 3; ++c) REQUIRE(vp[std::size_t((a * 2 + b) * 3 + c)] == double(x[(b * 3 + c) * 4 + a]));
  auto m = random_block<float, 3, 5>();
  const auto t = values(trans(m));
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(trans(m))>, shape<5, 3>>);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) REQUIRE(t[std::size_t(i * 3 + j)] == double(m[j * 5 + i]));
  REQUIRE(values(trans<1, 2, 0>(x)) == values(permute<1, 2, 0>(x)));
}

TEST_CASE("arange, zeros, full", "[creation]") {
  REQUIRE(values(arange<3, 11>()) == std::vector<double>{3, 4, 5, 6, 7, 8, 9, 10});
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(arange<0, 4>())>, std::int32_t>);
  auto z = zeros<2, 3>(float16);
  STATIC_REQUIRE(std::is_same_v<decltype(z), block<fp16, 2, 3>>);
  for (int i = 0; i < 6; ++i) REQUIRE(float(z[i]) == 0.0f);
  auto f = full<4>(-inf, float32);
  REQUIRE(std::isinf(f[2]));
  REQUIRE(f[2] < 0);
  REQUIRE(values(full_like(arange<0, 4>(), 7)) == std::vector<double>{7, 7, 7, 7});
  REQUIRE(values(zeros_like(f)) == std::vector<double>{0, 0, 0, 0});
}

namespace {
// Returns an expression built from its by-value parameter: safe because nodes copy.
auto plus_one(tl::block<float, 4> b) { return b + 1.0f; }
}  // namespace

TEST_CASE("expressions hold their operands by value: auto is safe", "[expr]") {
  auto x = random_block<float, 4>();
  const float x0 = x[0];
  auto e = x * 2.0f;  // lazy, holds a copy of x
  x += 100.0f;        // a later update of x ...
  REQUIRE(values(e)[0] == double(x0 * 2.0f));  // ... does not change e (Triton's value semantics)
  auto f = plus_one(x);  // the parameter is gone; f still holds its copy
  REQUIRE(values(f)[0] == double(x[0] + 1.0f));
  // Self-reference in an update: x = trans-like view of itself.
  auto m = random_block<float, 2, 2>();
  const auto before = values(m);
  m = trans(m);
  REQUIRE(values(m) == std::vector<double>{before[0], before[2], before[1], before[3]});
}

TEST_CASE("blocks: compound assignment, eval, scalars", "[expr]") {
  auto acc = zeros<4>(float32);
  auto r = arange<0, 4>();
  acc += r.to(float32);
  acc *= 2;
  acc -= 1.0f;
  REQUIRE(values(acc) == std::vector<double>{-1, 1, 3, 5});
  auto offs = eval(r * 3);
  offs += 8;
  REQUIRE(values(offs) == std::vector<double>{8, 11, 14, 17});
  auto s = sum(acc);  // rank 0: a scalar
  const float total = s;
  REQUIRE(total == 8.0f);
  tl::block<float, 4> from_expr = r.to(float32) * 0.5f;
  REQUIRE(from_expr[3] == 1.5f);
}

namespace {
// Every chunk of V elements along the last axis of e, as chunk_at evaluates it (the CUDA
// lowering's path for blocks and dot operands), against at() element by element.
template <int V, class E>
void check_chunks(const E& e) {
  using S = detail::shape_of_t<E>;
  constexpr int last = S::rank - 1;
  static_assert(S::dim(last) % V == 0);
  for (std::int64_t f = 0; f < S::size; f += V) {
    const auto c = detail::unravel<S>(f);
    const auto w = detail::cuda::chunk_at<V>(e, c, -1);
    for (int k = 0; k < V; ++k) {
      auto ck = c;
      ck[last] += k;
      INFO("flat index " << f + k);
      if constexpr (detail::is_ptr_v<detail::value_of_t<E>>) REQUIRE(w.x[k].offset == e.at(ck).offset);
      else REQUIRE(double(w.x[k]) == double(e.at(ck)));
    }
  }
}
}  // namespace

TEST_CASE("expressions evaluated by chunks agree with element-wise evaluation", "[expr]") {
  auto x = random_block<float, 8>();
  auto y = random_block<float, 16>();
  check_chunks<4>(x(_, None) + y(None, _));     // broadcast along the rows: read once a chunk
  check_chunks<2>(x(None, _) * y(_, None));     // broadcast along the columns
  check_chunks<4>(exp2(x(_, None) * 0.5f) - y);  // unary, scalars, a rank-1 operand
  check_chunks<4>(where(x(_, None) > 0, y(None, _), 1.0f).to(float16).to(float32));
  // Puzzle 12's dequantization: a reshape over a (rows, groups, 8) broadcast expression.
  auto scale = random_block<float, 8, 2>();
  auto word = random_block<int, 8, 2>(0, 1 << 20);
  auto offset = random_block<int, 8>(0, 1 << 20);
  auto shift = arange<0, 8>() * 4;
  auto w = (expand_dims<-1>(word) >> shift) & 15;             // (8, 2, 8)
  auto o = (expand_dims<-1>(offset) >> shift) & 15;           // (8, 8)
  check_chunks<4>(reshape<8, 16>(scale(_, _, None) * (w - o(_, None, _))));
  check_chunks<8>(reshape<8, 16>(scale(_, _, None) * (w - o(_, None, _))));
  // Views that split a chunk: a reshape whose input rows are shorter than a chunk, and a
  // permutation that moves the last axis (both element by element).
  auto narrow = random_block<float, 32, 2>();
  auto col = random_block<float, 32>();
  check_chunks<4>(reshape<8, 8>(narrow + col(_, None)) + 1.0f);
  auto m = random_block<float, 4, 8>();
  check_chunks<4>(trans(m) * 2.0f);
  check_chunks<4>(permute<1, 0, 2>(expand_dims<0>(m) + random_block<float, 3, 1, 8>()));
  // Pointer arithmetic: a pointer block plus offsets broadcast along the rows.
  std::vector<float> buf(64);
  auto p = tl::ptr<float>(buf, "buf") + (arange<0, 4>()(_, None) * 16 + arange<0, 8>()(None, _));
  check_chunks<4>(p + 1);
}
