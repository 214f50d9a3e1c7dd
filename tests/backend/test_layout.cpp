// The CUDA layouts, checked on the host (they are constexpr): every element of a block is held
// by exactly one (thread, slot), chunks of `vec` slots are consecutive elements, and the tiled
// layout has the mma accumulator structure the dot relies on.
#include <catch2/catch.hpp>

#include <vector>

#include <tl/tl.hpp>
// The CUDA backend's layouts and evaluator are constexpr and host-callable: included here
// under the host compiler to be checked without a GPU.
#include <tl/backend/cuda/evaluation.hpp>
#include <tl/backend/cuda/reduce.hpp>

namespace {
using tl::detail::cuda::layout;
using tl::detail::cuda::threads;

// The flat index of slot i of thread t by the bit map's definition, one bit at a time: the
// reference for the layouts' own forms (round-robin ones compute it a run of bits at a time).
std::int64_t flat_by_definition(const tl::detail::cuda::bit_map& m, int t, int i) {
  std::int64_t f = 0;
  for (int b = 0; b < m.bits; ++b) {
    const int src = m.src[b];
    f |= std::int64_t(src >= 0 ? (i >> src) & 1 : (t >> (-1 - src)) & 1) << b;
  }
  return f;
}

template <tl::detail::cuda::order O, int... D>
void check_bijection_in() {
  using L = layout<tl::shape<D...>, O>;
  if constexpr (L::pow2 && !L::replicated)
    for (int t = 0; t < threads; ++t)
      for (int i = 0; i < L::slots; ++i) REQUIRE(L::flat(t, i) == flat_by_definition(L::bits, t, i));
  std::vector<int> owners(std::size_t(L::n), 0);
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < L::slots; ++i) {
      if (!L::valid(t, i)) continue;
      const std::int64_t f = L::flat(t, i);
      REQUIRE(f >= 0);
      REQUIRE(f < L::n);
      ++owners[std::size_t(f)];
      if (i % L::vec != 0) CHECK(f == L::flat(t, i - 1) + 1);  // a chunk is consecutive elements
    }
  for (std::size_t f = 0; f < owners.size(); ++f) {
    INFO("flat index " << f);
    CHECK(owners[f] == 1);
  }
}
template <int... D>
void check_bijection() {
  check_bijection_in<tl::detail::cuda::order::standard, D...>();
  check_bijection_in<tl::detail::cuda::order::mma, D...>();
}
}  // namespace

TEST_CASE("layouts hold every element of a block exactly once", "[layout]") {
  check_bijection<1024>();
  check_bijection<64>();
  check_bijection<200>();
  check_bijection<4, 1024>();
  check_bijection<32, 4, 4>();
  check_bijection<16, 16>();
  check_bijection<64, 64>();
  check_bijection<128, 32>();
  check_bijection<1, 128, 128>();
  check_bijection<2, 16, 64>();
  check_bijection<48, 64>();
  STATIC_REQUIRE(layout<tl::shape<64, 64>>::tiled);
  STATIC_REQUIRE(!layout<tl::shape<4, 1024>>::tiled);  // 4 rows: round-robin
  STATIC_REQUIRE(!layout<tl::shape<48, 64>>::tiled);   // not a power of two
}

TEST_CASE("the tiled layout is the mma accumulator layout, columns permuted per 16", "[layout]") {
  using L = layout<tl::shape<128, 128>>;
  STATIC_REQUIRE(L::vec == 4);
  for (int t = 0; t < threads; ++t) {
    const int g = t % 32 / 4, q = t % 4;
    for (int i = 0; i < L::slots; i += 8) {
      const std::int64_t f = L::flat(t, i);
      const std::int64_t row = f / 128, col = f % 128;
      CHECK(row % 8 == g);        // lane 4g + q: row g of its 8-row group ...
      CHECK(col % 16 == 4 * q);   // ... columns 4q..4q+3 of its 16-column group
      CHECK(L::flat(t, i + 4) == f + 8 * 128);  // slot bit 2: row g + 8 of the 16-row tile
    }
  }
}

TEST_CASE("the accumulator order is the mma accumulator fragment with columns in memory order", "[layout]") {
  using tl::detail::cuda::order;
  using L = layout<tl::shape<128, 128>, order::mma>;
  using Std = layout<tl::shape<128, 128>>;
  STATIC_REQUIRE(L::vec == 2);
  STATIC_REQUIRE(L::slots == Std::slots);
  for (int t = 0; t < threads; ++t) {
    const int g = t % 32 / 4, q = t % 4;
    for (int i = 0; i < L::slots; i += 8) {
      const std::int64_t f = L::flat(t, i);
      const std::int64_t row = f / 128, col = f % 128;
      CHECK(row % 8 == g);       // lane 4g + q: row g of its 8-row group ...
      CHECK(col % 16 == 2 * q);  // ... columns 2q, 2q + 1 and 2q + 8, 2q + 9 of its 16
      CHECK(L::flat(t, i + 1) == f + 1);
      CHECK(L::flat(t, i + 2) == f + 8);       // slot bit 1: the second n8 tile
      CHECK(L::flat(t, i + 4) == f + 8 * 128);  // slot bit 2: row g + 8 of the 16-row tile
      // Same rows in both orders, slot for slot: the dot's register mapping is the same.
      CHECK(Std::flat(t, i) / 128 == row);
    }
  }
  // Only tiled shapes have the second order: a computed tiled block's (tl::block, what zeros,
  // full and dot make); a loaded one keeps the standard order.
  using tl::detail::cuda::held_order;
  using tl::detail::origin;
  STATIC_REQUIRE(held_order<tl::shape<64, 64>, origin::computed> == order::mma);
  STATIC_REQUIRE(held_order<tl::shape<1, 128, 128>, origin::computed> == order::mma);
  STATIC_REQUIRE(held_order<tl::shape<64, 64>, origin::loaded> == order::standard);
  STATIC_REQUIRE(held_order<tl::shape<4, 1024>, origin::computed> == order::standard);
  STATIC_REQUIRE(held_order<tl::shape<128>, origin::computed> == order::standard);
}

TEST_CASE("register orders: what each op makes, and how an expression's order is found", "[layout]") {
  using tl::None;
  using tl::_;
  using tl::detail::cuda::order;
  using tl::detail::cuda::order_of;
  // One block type per element type and shape: zeros, full, dot, eval and a declared block are
  // all a tl::block, held in the accumulator order when tiled.
  auto acc = tl::zeros<64, 64>(tl::float32);
  STATIC_REQUIRE(std::is_same_v<decltype(acc), tl::block<float, 64, 64>>);
  STATIC_REQUIRE(order_of<decltype(acc)>() == order::mma);
  STATIC_REQUIRE(std::is_same_v<decltype(tl::full<64, 64>(1.0f, tl::float32)), tl::block<float, 64, 64>>);
  tl::block<float, 64, 64> x;
  STATIC_REQUIRE(order_of<decltype(x)>() == order::mma);
  STATIC_REQUIRE(order_of<decltype(tl::zeros<8>(tl::float32))>() == order::standard);  // not tiled: one order
  // A loaded tile is in the standard order (wide memory accesses).
  std::vector<float> mem(64 * 64, 1.0f);
  const tl::ptr<float> p(mem);
  auto r = tl::arange<0, 64>();
  auto loaded = tl::load(p + r(_, None) * 64 + r(None, _));
  STATIC_REQUIRE(order_of<decltype(loaded)>() == order::standard);
  auto outer = r(_, None) + r(None, _);  // aranges and broadcasts: no order of their own
  STATIC_REQUIRE(order_of<decltype(outer)>() == order::any);
  STATIC_REQUIRE(order_of<decltype(outer + acc)>() == order::mma);  // the first operand that has one
  STATIC_REQUIRE(order_of<decltype(tl::detail::as_expr(loaded) + acc)>() == order::standard);
  STATIC_REQUIRE(order_of<decltype(acc + tl::detail::as_expr(loaded))>() == order::mma);
  STATIC_REQUIRE(std::is_same_v<decltype(tl::eval(loaded * 2.0f)), tl::block<float, 64, 64>>);
  auto a = tl::zeros<64, 32>(tl::float16);
  auto b = tl::zeros<32, 64>(tl::float16);
  STATIC_REQUIRE(order_of<decltype(tl::dot(a, b))>() == order::mma);       // no accumulator: a tl::block
  STATIC_REQUIRE(order_of<decltype(tl::dot(a, b, x))>() == order::mma);    // the accumulator's
  STATIC_REQUIRE(order_of<decltype(tl::dot(a, b, loaded))>() == order::standard);
  // They hold the same values and mix freely (on the CPU the origin is only a type).
  acc += loaded + 1.0f;
  x = acc * 2.0f;
  CHECK(x[64 * 64 - 1] == 4.0f);
}

TEST_CASE("the tiled layout puts warps on rows first: warpgroups hold 64 consecutive rows", "[layout]") {
  using L = layout<tl::shape<128, 64>>;
  for (int t = 0; t < threads; ++t) {
    const int warp = t / 32;
    for (int i = 0; i < L::slots; ++i) {
      const std::int64_t row = L::flat(t, i) / 64;
      // Warp w of a warpgroup: rows 16w .. 16w + 15 of each 64. (With 8 warps, warpgroup g
      // holds rows 64g ..: the 8-warp dot tests on the GPU rely on it.)
      CHECK(row / 16 % 4 == warp % 4);
    }
  }
  // Fewer rows than 16 per warp: the remaining warps go to columns.
  using S = layout<tl::shape<16, 128>>;
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < S::slots; ++i) CHECK(S::flat(t, i) % 128 / 16 % (threads / 32) == t / 32);
}

TEST_CASE("round-robin layouts of power-of-two sizes put the warps on the top bits", "[layout]") {
  // Warp w holds the w-th contiguous part, so a reduction along trailing axes stays in warps.
  using L = layout<tl::shape<1024>>;
  using W = layout<tl::shape<32, 4, 4>>;
  constexpr int warps = threads / 32;
  for (int t = 0; t < threads; ++t) {
    for (int i = 0; i < L::slots; ++i) CHECK(L::flat(t, i) / (1024 / warps) == t / 32);
    for (int i = 0; i < W::slots; ++i) CHECK(W::flat(t, i) / (512 / warps) == t / 32);
  }
  // One warp access (one slot across the 32 lanes) covers 32 consecutive chunks.
  for (int t = 0; t < 32; ++t) CHECK(L::flat(t, 0) == 4 * t);
}

TEST_CASE("blocks of at most 16 elements are held whole by every thread", "[layout]") {
  using L = layout<tl::shape<4, 4>>;
  STATIC_REQUIRE(L::replicated);
  STATIC_REQUIRE(L::slots == 16);
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < L::slots; ++i) {
      CHECK(L::valid(t, i));
      CHECK(L::flat(t, i) == i);
    }
  STATIC_REQUIRE(layout<tl::shape<9>>::replicated);  // a 3 x 3 filter, flattened
  STATIC_REQUIRE(!layout<tl::shape<32>>::replicated);
}

namespace {
// Emulates the register and lane steps of a CUDA reduction by layout bits (steps 1 and 2 of
// reduce_by_bits, backend/cuda/reduce.hpp) on the host, with exact integer sums: every partial
// result a thread keeps afterwards must be the sum along the axis of the elements that the
// reduce-scatter's bit map names, and every output element must be held by some thread.
template <bool Scatter, int Axis, int... D>
void check_reduce_scatter_plan() {
  using S = tl::shape<D...>;
  using L = layout<S>;
  using namespace tl::detail::cuda;
  constexpr int rank = sizeof...(D);
  constexpr std::int64_t inner = [] {
    std::int64_t p = 1;
    for (int a = Axis + 1; a < rank; ++a) p *= S::dim(a);
    return p;
  }();
  constexpr int lo = log2_exact(inner), hi = lo + log2_exact(S::dim(Axis));
  constexpr axis_sources<L> src(lo, hi);
  constexpr scatter_plan<L> plan(lo, hi, Scatter);
  auto value = [](std::int64_t f) { return (f * 7919) % 1009 + 1; };
  std::vector<std::vector<std::int64_t>> part(threads, std::vector<std::int64_t>(L::slots, 0));
  for (int t = 0; t < threads; ++t)
    for (int j = 0; j < L::slots; ++j)
      if (L::valid(t, j)) part[t][std::size_t(unsigned(j) & ~src.slot)] += value(L::flat(t, j));
  for (int b = 0; b < 5; ++b) {
    if (!(src.lane & (1u << b))) continue;
    const int s = plan.slot_of_lane[b];
    auto next = part;
    for (int t = 0; t < threads; ++t) {
      const int p = t ^ (1 << b);
      const bool upper = (t >> b) & 1;
      for (int i = 0; i < L::slots; ++i) {
        if ((unsigned(i) & plan.gone_before[b]) != 0) continue;
        if (s < 0) {
          next[t][i] = part[t][i] + part[p][i];
        } else if (!(unsigned(i) & (1u << s))) {
          const int j = i | (1 << s);
          // The partner (the other half of the pair) sends what this lane keeps.
          next[t][i] = upper ? part[t][j] + part[p][j] : part[t][i] + part[p][i];
        }
      }
    }
    part = next;
  }
  const std::int64_t n_out = S::size >> (hi - lo);
  std::vector<int> held(std::size_t(n_out), 0);
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < L::slots; ++i) {
      if ((unsigned(i) & plan.gone) != 0 || !L::valid(t, i)) continue;
      const std::int64_t f = flat_by_runs<plan.map>(t, i);
      const std::int64_t o = ((f >> hi) << lo) | (f & (inner - 1));
      std::int64_t expected = 0;
      for (std::int64_t k = 0; k < S::dim(Axis); ++k) {
        const std::int64_t in = ((o >> lo) << hi) | (k << lo) | (o & (inner - 1));
        bool this_warp = true;  // axis bits on warp bits are joined later (step 3, shared memory)
        for (int f = lo; f < hi; ++f)
          if (is_warp_bit(L::bits.src[f]) && ((in >> f) & 1) != ((t >> (-1 - L::bits.src[f])) & 1)) this_warp = false;
        if (this_warp) expected += value(in);
      }
      INFO("axis " << Axis << " of a block of " << S::size << ", thread " << t << " slot " << i << " output " << o);
      CHECK(part[t][i] == expected);
      ++held[std::size_t(o)];
    }
  for (std::int64_t o = 0; o < n_out; ++o) {
    INFO("output " << o);
    CHECK(held[std::size_t(o)] > 0);
  }
}
// With the reduce-scatter (before results move by shuffles) and without (butterflies only).
template <int Axis, int... D>
void check_reduce_scatter() {
  check_reduce_scatter_plan<true, Axis, D...>();
  check_reduce_scatter_plan<false, Axis, D...>();
}
}  // namespace

TEST_CASE("reductions by layout bits: the reduce-scatter over lanes keeps every partial sum", "[layout][reduce]") {
  using tl::detail::cuda::scatter_plan;
  // (32, 4, 4) over its last axis (puzzle 10): 2 axis lane bits, each takes a kept slot bit.
  using W = layout<tl::shape<32, 4, 4>>;
  constexpr scatter_plan<W> plan(0, 2, true);
  STATIC_REQUIRE(plan.slot_of_lane[0] >= 0);
  STATIC_REQUIRE(plan.slot_of_lane[1] >= 0);
  check_reduce_scatter<2, 32, 4, 4>();
  check_reduce_scatter<1, 32, 4, 4>();
  check_reduce_scatter<0, 32, 4, 4>();
  check_reduce_scatter<1, 32, 4>();
  check_reduce_scatter<1, 128, 128>();
  check_reduce_scatter<0, 128, 128>();
  check_reduce_scatter<1, 64, 64>();
  check_reduce_scatter<0, 64, 64>();
  check_reduce_scatter<1, 4, 1024>();
  check_reduce_scatter<0, 1024>();
  check_reduce_scatter<1, 8, 256>();
  check_reduce_scatter<1, 256, 2>();
  check_reduce_scatter<0, 16, 8>();
  check_reduce_scatter<1, 2, 16, 64>();
  check_reduce_scatter<2, 2, 16, 64>();
}

namespace {
// Emulates a register broadcast: every reader (thread, slot) of layout L over S computes the
// block element it reads (Path away), the entry of the plan that holds it, and the holder the
// plan shuffles it from; the holder must hold exactly that element.
template <class S, tl::detail::cuda::order O, class XS, tl::detail::cuda::order XO, class Path>
tl::detail::cuda::gather_plan check_gather_plan() {
  namespace cu = tl::detail::cuda;
  using L = layout<S, O>;
  using LX = layout<XS, XO>;
  constexpr cu::gather_plan p = cu::make_gather_plan<L, LX, S, XS, Path>();
  if (!p.ok) return p;
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < L::slots; ++i) {
      if (!L::valid(t, i)) continue;
      const std::int64_t f =
          tl::detail::ravel<XS>(cu::apply_path(Path{}, tl::detail::unravel<S>(L::flat(t, i))));
      int k = 0, j = 0;
      for (int b = 0; b < 31; ++b)
        if ((p.mask >> b) & 1u) k |= int((f >> b) & 1) << j++;
      int slot = 0;
      for (int b = 0; b < 32; ++b)
        if (p.slot_k[b] >= 0) slot |= ((k >> p.slot_k[b]) & 1) << b;
      unsigned lane = 0;
      for (int q = 0; q < 5; ++q) {
        if (p.lane_src[q] > 0) lane |= unsigned((k >> (p.lane_src[q] - 1)) & 1) << q;
        else if (p.lane_src[q] < 0) lane |= ((unsigned(t) >> (-1 - p.lane_src[q])) & 1u) << q;
      }
      const int holder = int((unsigned(t) & ~31u) | lane);
      INFO("reader thread " << t << " slot " << i << " reads element " << f << " from thread " << holder << " slot "
                            << slot);
      REQUIRE(k < cu::max_gathered);
      REQUIRE(LX::valid(holder, slot));
      REQUIRE(LX::flat(holder, slot) == f);
    }
  return p;
}
}  // namespace

TEST_CASE("register broadcasts: a row's value reaches its row by shuffles inside the warp", "[layout]") {
  namespace cu = tl::detail::cuda;
  using cu::order;
  using tl::shape;
  using cu::path;
  using cu::path_step;
  using tl::detail::broadcast_map;
  using new_last_axis = tl::detail::insert_axes_map<tl::detail::expand_plan<1>>;
  // x(_, None) of a (64,) block into a 64 x 64 tiled evaluation, both register orders: each
  // thread's rows r and r + 8 (one slot bit), from the warp that reduced them.
  using p64 = path<path_step<shape<64, 64>, shape<64, 1>, broadcast_map>, path_step<shape<64, 1>, shape<64>, new_last_axis>>;
  auto a = check_gather_plan<shape<64, 64>, order::mma, shape<64>, order::standard, p64>();
  CHECK(a.ok);
  CHECK(__builtin_popcount(a.mask) == 1);
  CHECK(check_gather_plan<shape<64, 64>, order::standard, shape<64>, order::standard, p64>().ok);
  using p64x128 =
      path<path_step<shape<64, 128>, shape<64, 1>, broadcast_map>, path_step<shape<64, 1>, shape<64>, new_last_axis>>;
  CHECK(check_gather_plan<shape<64, 128>, order::mma, shape<64>, order::standard, p64x128>().ok);
  // A (16,) block is replicated (every thread holds it: nothing to gather). Round-robin
  // evaluations: (64, 4) reads its rows from its own warp; (256, 4) spreads a warp's rows over
  // other warps' elements of the (256,) block (staged).
  using p16 =
      path<path_step<shape<16, 256>, shape<16, 1>, broadcast_map>, path_step<shape<16, 1>, shape<16>, new_last_axis>>;
  CHECK_FALSE(check_gather_plan<shape<16, 256>, order::standard, shape<16>, order::standard, p16>().ok);
  using p64x4 =
      path<path_step<shape<64, 4>, shape<64, 1>, broadcast_map>, path_step<shape<64, 1>, shape<64>, new_last_axis>>;
  CHECK(check_gather_plan<shape<64, 4>, order::standard, shape<64>, order::standard, p64x4>().ok);
  using p256x4 =
      path<path_step<shape<256, 4>, shape<256, 1>, broadcast_map>, path_step<shape<256, 1>, shape<256>, new_last_axis>>;
  CHECK_FALSE(check_gather_plan<shape<256, 4>, order::standard, shape<256>, order::standard, p256x4>().ok);
  // (32, 64): the tiled layout puts row bit 4 on a warp, the (32,) block on a lane (staged).
  using p32 =
      path<path_step<shape<32, 64>, shape<32, 1>, broadcast_map>, path_step<shape<32, 1>, shape<32>, new_last_axis>>;
  CHECK_FALSE(check_gather_plan<shape<32, 64>, order::mma, shape<32>, order::standard, p32>().ok);
  // keep_dims: a (64, 1) block broadcast straight back.
  using pkeep = path<path_step<shape<64, 64>, shape<64, 1>, broadcast_map>>;
  CHECK(check_gather_plan<shape<64, 64>, order::standard, shape<64, 1>, order::standard, pkeep>().ok);
  // The same block into rows 0..127: rows 64.. lie in other warps (staged).
  using p128 =
      path<path_step<shape<128, 64>, shape<128, 1>, broadcast_map>, path_step<shape<128, 1>, shape<128>, new_last_axis>>;
  CHECK_FALSE(check_gather_plan<shape<128, 64>, order::mma, shape<128>, order::standard, p128>().ok);
  // A column broadcast x(None, _): every warp reads all columns, which lie in all warps (staged).
  using cols = tl::detail::insert_axes_map<tl::detail::expand_plan<0>>;
  using pcol = path<path_step<shape<64, 64>, shape<1, 64>, broadcast_map>, path_step<shape<1, 64>, shape<64>, cols>>;
  CHECK_FALSE(check_gather_plan<shape<64, 64>, order::standard, shape<64>, order::standard, pcol>().ok);
  // A block of the evaluation's shape in the other register order: its slots follow the
  // reader's lanes (staged).
  CHECK_FALSE(check_gather_plan<shape<64, 64>, order::mma, shape<64, 64>, order::standard, path<>>().ok);
}
