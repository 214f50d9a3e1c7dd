// Data movement: flip, join, split, interleave, cat, ravel (views), and sort, topk, gather,
// histogram, against plain loops.
#include "testing.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

using namespace tl;
using testing::random_block;
using testing::values;

TEST_CASE("flip, join, split, interleave, cat and ravel move elements as Triton's do", "[shape]") {
  auto x = random_block<float, 4, 8>(-5, 5);
  auto y = random_block<float, 4, 8>(-5, 5);
  auto z = random_block<float, 2, 8>(-5, 5);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) {
      REQUIRE(float(flip(x).at({i, j})) == float(x.at({i, 7 - j})));
      REQUIRE(float(flip<0>(x).at({i, j})) == float(x.at({3 - i, j})));
      REQUIRE(float(join(x, y).at({i, j, 0})) == float(x.at({i, j})));
      REQUIRE(float(join(x, y).at({i, j, 1})) == float(y.at({i, j})));
      REQUIRE(float(interleave(x, y).at({i, 2 * j})) == float(x.at({i, j})));
      REQUIRE(float(interleave(x, y).at({i, 2 * j + 1})) == float(y.at({i, j})));
      REQUIRE(float(cat(x, z).at({i, j})) == float(x.at({i, j})));
      REQUIRE(float(ravel(x).at({i * 8 + j})) == float(x.at({i, j})));
    }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 8; ++j) REQUIRE(float(cat(x, z).at({4 + i, j})) == float(z.at({i, j})));
  auto [a, b] = split(join(x, y));
  REQUIRE(values(a) == values(x));
  REQUIRE(values(b) == values(y));
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(cat(x, z))>, shape<6, 8>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(join(x, 1.0f * y))>, shape<4, 8, 2>>);
  // join broadcasts its operands, as Triton's does.
  auto row = random_block<float, 8>(-1, 1);
  REQUIRE(float(join(x, row).at({3, 5, 1})) == float(row.at({5})));
}

namespace {
// Triton's sort of a line, on doubles: its bitonic network over the positions' bits (stage s
// merges blocks of 2^s, alternating up and down but the last, which goes the sort's way), each
// element taking its partner's value where (x > partner) != (down ^ x is the upper one).
std::vector<double> triton_sort(std::vector<double> v, bool descending) {
  const int n = int(v.size());
  int stages = 0;
  while ((1 << stages) < n) ++stages;
  for (int stage = 1; stage <= stages; ++stage)
    for (int d = stage - 1; d >= 0; --d) {
      std::vector<double> next(v);
      for (int i = 0; i < n; ++i) {
        const int partner = i ^ (1 << d);
        const bool down = stage == stages ? descending : ((i >> stage) & 1) != 0;
        const bool upper = ((i >> d) & 1) != 0;
        next[std::size_t(i)] = (v[std::size_t(i)] > v[std::size_t(partner)]) != (down != upper) ? v[std::size_t(partner)] : v[std::size_t(i)];
      }
      v = next;
    }
  return v;
}
}  // namespace

TEST_CASE("sort along each axis, with ties, NaNs and signed zeros, as Triton's network; topk", "[sort]") {
  block<float, 4, 16> x;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int i = 0; i < 64; ++i) x[i] = float(int(testing::rng()() % 7) - 3);  // ties
  x[3] = nan;
  x[20] = -0.0f;
  x[21] = 0.0f;
  x[40] = -std::numeric_limits<float>::infinity();
  x[50] = nan;
  for (int axis : {0, 1}) {
    for (bool desc : {false, true}) {
      std::vector<double> got;
      if (axis == 0) got = desc ? values(sort<0>(x, descending)) : values(sort<0>(x));
      else got = desc ? values(sort<1>(x, descending)) : values(sort(x));
      const int K = axis == 0 ? 4 : 16, lines = 64 / K;
      for (int l = 0; l < lines; ++l) {
        std::vector<double> want;
        for (int k = 0; k < K; ++k) want.push_back(axis == 0 ? double(x.at({k, l})) : double(x.at({l, k})));
        want = triton_sort(want, desc);
        for (int k = 0; k < K; ++k) {
          const double g = axis == 0 ? got[std::size_t(k * 16 + l)] : got[std::size_t(l * 16 + k)];
          const double w = want[std::size_t(k)];
          REQUIRE(((std::isnan(g) && std::isnan(w)) || (g == w && std::signbit(g) == std::signbit(w))));
        }
      }
    }
  }
  auto y = random_block<std::int32_t, 2, 32>(-100, 100);
  auto top = topk<4>(y);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(top)>, shape<2, 4>>);
  for (int r = 0; r < 2; ++r) {
    std::vector<std::int32_t> row;
    for (int c = 0; c < 32; ++c) row.push_back(y.at({r, c}));
    std::sort(row.rbegin(), row.rend());
    for (int k = 0; k < 4; ++k) REQUIRE(top.at({r, k}) == row[std::size_t(k)]);
  }
}

TEST_CASE("bitonic_merge: the network's last stage, against its steps written out, and on bitonic lines", "[sort]") {
  // Distinct values (no ties), so that Triton's > and tl's total order do the same.
  block<float, 8, 16> x;
  std::vector<float> pool(128);
  for (int i = 0; i < 128; ++i) pool[std::size_t(i)] = float(i) - 60.5f;
  std::shuffle(pool.begin(), pool.end(), testing::rng());
  for (int i = 0; i < 128; ++i) x[i] = pool[std::size_t(i)];
  // The merge written out: distances K/2 .. 1, every pair put in one direction.
  auto merged = [](std::vector<double> line, bool desc) {
    const int K = int(line.size());
    for (int j = K / 2; j > 0; j /= 2)
      for (int lo = 0; lo < K; ++lo)
        if ((lo & j) == 0 && ((line[std::size_t(lo)] > line[std::size_t(lo + j)]) != desc))
          std::swap(line[std::size_t(lo)], line[std::size_t(lo + j)]);
    return line;
  };
  for (int axis : {0, 1}) {
    for (bool desc : {false, true}) {
      std::vector<double> got;
      if (axis == 0) got = desc ? values(bitonic_merge<0>(x, descending)) : values(bitonic_merge<0>(x));
      else got = desc ? values(bitonic_merge<1>(x, descending)) : values(bitonic_merge(x));
      const int K = axis == 0 ? 8 : 16, lines = 128 / K;
      for (int l = 0; l < lines; ++l) {
        std::vector<double> line;
        for (int k = 0; k < K; ++k) line.push_back(axis == 0 ? double(x.at({k, l})) : double(x.at({l, k})));
        const auto want = merged(line, desc);
        for (int k = 0; k < K; ++k) REQUIRE((axis == 0 ? got[std::size_t(k * 16 + l)] : got[std::size_t(l * 16 + k)]) == want[std::size_t(k)]);
      }
    }
  }
  // A bitonic line (rising, then falling) comes out sorted.
  block<std::int32_t, 32> b;
  for (int i = 0; i < 32; ++i) b[i] = i < 16 ? 3 * i : 100 - 2 * i;
  const auto sorted = values(bitonic_merge(b));
  REQUIRE(std::is_sorted(sorted.begin(), sorted.end()));
  const auto down = values(bitonic_merge(b, descending));
  REQUIRE(std::is_sorted(down.rbegin(), down.rend()));
}

TEST_CASE("gather along each axis, indices at the edges and outside (0)", "[gather]") {
  auto src = random_block<float, 4, 8>(-5, 5);
  block<std::int32_t, 4, 3> idx1;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) idx1[i * 3 + j] = (j == 0 ? 0 : j == 1 ? 7 : int(testing::rng()() % 8));
  auto g1 = gather<1>(src, idx1);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(g1)>, shape<4, 3>>);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) REQUIRE(float(g1.at({i, j})) == float(src.at({i, idx1.at({i, j})})));
  block<std::int64_t, 2, 8> idx0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 8; ++j) idx0[i * 8 + j] = (i == 0 ? 3 - (j % 4) : (j == 5 ? 9 : -1));
  auto g0 = gather<0>(src, idx0);
  for (int j = 0; j < 8; ++j) {
    REQUIRE(float(g0.at({0, j})) == float(src.at({3 - (j % 4), j})));
    REQUIRE(float(g0.at({1, j})) == 0.0f);  // outside: 0
  }
}

TEST_CASE("histogram with and without a mask", "[histogram]") {
  auto x = random_block<std::int32_t, 256>(-4, 20);
  auto h = histogram<16>(x);
  auto hm = histogram<16>(x, arange<0, 256>() % 3 == 0);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(h)>, std::int32_t>);
  for (int b = 0; b < 16; ++b) {
    int want = 0, want_masked = 0;
    for (int i = 0; i < 256; ++i) {
      want += x[i] == b;
      want_masked += x[i] == b && i % 3 == 0;
    }
    REQUIRE(h[b] == want);
    REQUIRE(hm[b] == want_masked);
  }
}

TEST_CASE("broadcast(a, b) stretches both to their common shape", "[shape]") {
  auto col = random_block<float, 4, 1>(-1, 1);
  auto row = random_block<float, 1, 8>(-1, 1);
  auto [c, r] = broadcast(col, row);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(c)>, shape<4, 8>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(r)>, shape<4, 8>>);
  REQUIRE(float(c.at({3, 5})) == float(col.at({3, 0})));
  REQUIRE(float(r.at({3, 5})) == float(row.at({0, 5})));
}
