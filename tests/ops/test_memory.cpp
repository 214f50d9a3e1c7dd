// load and store: masks, other, pointer arithmetic, and the CPU backend's bounds checks.
#include "testing.hpp"

#include <array>
#include <span>
#include <sys/mman.h>

using namespace tl;
using testing::values;
using tl::None;
using tl::_;

TEST_CASE("load with mask and other; store with mask", "[memory]") {
  std::vector<float> x(10);
  for (int i = 0; i < 10; ++i) x[i] = float(i) + 0.5f;
  ptr<float> p(x, "x");
  auto offs = arange<0, 16>();
  const auto a = values(load(p + offs, offs < 10));
  const auto b = values(load(p + offs, offs < 10, -1.0f));
  for (int i = 0; i < 16; ++i) {
    REQUIRE(a[std::size_t(i)] == (i < 10 ? i + 0.5 : 0.0));  // masked-off lanes are 0 by default
    REQUIRE(b[std::size_t(i)] == (i < 10 ? i + 0.5 : -1.0));
  }
  std::vector<float> z(10, -7.0f);
  store(ptr<float>(z, "z") + offs, offs * 2, (offs < 10) & (offs % 3 == 0));  // int block stored as float
  for (int i = 0; i < 10; ++i) REQUIRE(z[i] == (i % 3 == 0 ? float(2 * i) : -7.0f));
}

TEST_CASE("eviction policies: every form of load and store takes one, and values are unchanged", "[memory]") {
  std::vector<float> x(10);
  for (int i = 0; i < 10; ++i) x[i] = float(i) + 0.5f;
  ptr<float> p(x, "x");
  auto offs = arange<0, 16>();
  const auto a = values(load(p + offs, offs < 10, -1.0f, evict_last));
  const auto b = values(load(p + offs, offs < 10, evict_first));
  for (int i = 0; i < 16; ++i) {
    REQUIRE(a[std::size_t(i)] == (i < 10 ? i + 0.5 : -1.0));
    REQUIRE(b[std::size_t(i)] == (i < 10 ? i + 0.5 : 0.0));
  }
  REQUIRE(load(p + 3, evict_last) == 3.5f);
  std::vector<float> z(10, -7.0f);
  store(ptr<float>(z, "z") + offs, offs * 2, offs < 10, evict_first);
  store(ptr<float>(z, "z") + 9, 1.0f, evict_last);
  for (int i = 0; i < 10; ++i) REQUIRE(z[i] == (i == 9 ? 1.0f : float(2 * i)));
  // An out-of-bounds lane is reported with a policy as without one.
  REQUIRE_THROWS_AS(load(p + offs, true, evict_last), launch_error);
}

TEST_CASE("pointer blocks broadcast like any block", "[memory]") {
  std::vector<int> m(6 * 8);
  for (int i = 0; i < 48; ++i) m[i] = i;
  ptr<int> p(m, "m");
  auto rows = arange<0, 8>();
  auto cols = arange<0, 8>();
  auto ptrs = p + rows(_, None) * 8 + cols(None, _);  // (8, 8) pointers
  auto mask = rows(_, None) < 6;                    // (8, 1) mask broadcast to (8, 8)
  const auto v = values(load(ptrs, mask, -1));
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) REQUIRE(v[std::size_t(r * 8 + c)] == (r < 6 ? r * 8 + c : -1));
  // int + pointer, pointer - int, scalar pointers.
  REQUIRE(load(2 + p) == 2);
  REQUIRE(load((p + 10) - 3) == 7);
  REQUIRE(load(p + 47, true) == 47);
  REQUIRE(load(p + 48, false, 5) == 5);
  store(p + 1, 100);
  REQUIRE(m[1] == 100);
}

TEST_CASE("a block of pointers is a value a loop advances, as in Triton", "[memory]") {
  std::vector<int> m(6 * 8);
  for (int i = 0; i < 48; ++i) m[i] = i;
  ptr<int> p(m, "m");
  auto rows = arange<0, 2>();
  auto cols = arange<0, 4>();
  auto ptrs = p + (rows(_, None) * 8 + cols(None, _));  // (2, 4): rows 0 and 1, columns 0 .. 3
  auto first = ptrs;
  for (int step = 0; step < 3; ++step) {  // rows 2 step .. 2 step + 1
    const auto v = values(load(ptrs));
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 4; ++c) REQUIRE(v[std::size_t(r * 4 + c)] == (2 * step + r) * 8 + c);
    ptrs += 2 * 8;
  }
  ptrs -= 6 * 8 - 4;  // back to row 0, columns 4 .. 7
  REQUIRE(values(load(ptrs))[0] == 4);
  REQUIRE(values(load(first))[5] == 9);  // a copy keeps its own base
  // Nested pointer arithmetic moves the pointer at the bottom; the type does not change.
  auto nested = (p + 8) + cols;
  nested += 1;
  static_assert(std::is_same_v<decltype(nested), decltype((p + 8) + cols)>);
  REQUIRE(values(load(nested))[3] == 12);
  // An advance past the buffer is an invalid access when loaded, like any other.
  ptrs += 6 * 8;
  REQUIRE_THROWS_AS(load(ptrs), launch_error);
}

TEST_CASE("offsets that wrap with % (Triton's tutorials' rows) load what they name", "[memory]") {
  std::vector<float> x(10);
  for (int i = 0; i < 10; ++i) x[i] = float(i);
  ptr<float> p(x, "x");
  for (int pid = 0; pid < 3; ++pid) {
    auto offs = (pid * 4 + arange<0, 4>()) % 10;
    const auto v = values(load(p + offs));
    for (int i = 0; i < 4; ++i) REQUIRE(v[std::size_t(i)] == double((pid * 4 + i) % 10));
  }
}

TEST_CASE("ptr from std::vector, std::array, std::span and raw pointers", "[memory]") {
  std::array<double, 4> arr{1, 2, 3, 4};
  std::vector<double> vec{5, 6};
  double raw[3] = {7, 8, 9};
  ptr<double> pa(arr), pv(vec), ps(std::span<double>(raw, 3)), pr(raw), pn(raw, 3, "raw");
  REQUIRE(pa.extent == 4);
  REQUIRE(pv.extent == 2);
  REQUIRE(ps.extent == 3);
  REQUIRE(pr.extent == -1);  // no size: unchecked
  REQUIRE(std::string(pn.name) == "raw");
  ptr<const double> pc = pv;
  REQUIRE(load(pc + 1) == 6);
  REQUIRE(values(load(pa + arange<0, 4>())) == std::vector<double>{1, 2, 3, 4});
}

TEST_CASE("an out-of-bounds load is reported and never performed", "[memory][check]") {
  std::vector<float> x(20, 1.0f);
  ptr<float> p(x, "x");
  auto offs = arange<0, 32>();
  try {
    (void)load(p + offs, offs < 24, 9.0f);  // lanes 20..23 are masked in but outside x
    FAIL("no error reported");
  } catch (const launch_error& e) {
    const auto& r = e.report();
    REQUIRE(r.invalid_ops == 1);
    REQUIRE(r.invalid_lanes == 4);
    const auto& a = r.invalid.at(0);
    REQUIRE(a.op == access_kind::load);
    REQUIRE(a.buffer == "x");
    REQUIRE(a.buffer_size == 20);
    REQUIRE(a.lanes == 24);
    REQUIRE(a.first.size() == 4);
    REQUIRE(a.first[0].offset == 20);
    REQUIRE(a.first[0].index[0] == 20);
    REQUIRE(a.first[3].offset == 23);
    REQUIRE(std::string(a.where.file).find("test_memory.cpp") != std::string::npos);
    REQUIRE(std::string(e.what()).find("invalid load") != std::string::npos);
  }
  // Negative offsets are invalid too.
  REQUIRE_THROWS_AS(load(p - 1), launch_error);
}

TEST_CASE("an out-of-bounds store writes nothing outside the buffer", "[memory][check]") {
  std::vector<float> storage(16, 0.0f);
  // z is the first 8 elements of storage; the rest is a guard zone the store must not touch.
  ptr<float> z(storage.data(), 8, "z");
  auto offs = arange<0, 16>();
  REQUIRE_THROWS_AS(store(z + offs, 1.0f), launch_error);
  for (int i = 0; i < 8; ++i) REQUIRE(storage[i] == 1.0f);  // valid lanes were written
  for (int i = 8; i < 16; ++i) REQUIRE(storage[i] == 0.0f);  // invalid lanes were not
}

TEST_CASE("null and unchecked pointers", "[memory][check]") {
  ptr<float> null_ptr;
  REQUIRE_THROWS_WITH(load(null_ptr + arange<0, 4>()), Catch::Contains("null pointer"));
  float raw[4] = {1, 2, 3, 4};
  ptr<float> unchecked(raw);  // documented as unchecked: valid accesses work as usual
  REQUIRE(values(load(unchecked + arange<0, 4>())) == std::vector<double>{1, 2, 3, 4});
  // A masked-off lane may point anywhere, even through a null pointer.
  REQUIRE(values(load(null_ptr + arange<0, 4>(), false, 3.0f)) == std::vector<double>{3, 3, 3, 3});
}

// Tensor descriptors: each element of a block at offsets o is the tensor's element o + i where
// 0 <= o + i < shape, else 0; a store writes only there. Checked against plain loops at random
// shapes, strides (rows padded) and offsets, some partly or wholly outside the tensor.
template <int B0, int B1>
TL_KERNEL void descriptor_2d_k(tl::ptr<const float> x, tl::ptr<float> y, int M, int N, int stride, int o0, int o1) {
  auto xd = tl::make_tensor_descriptor(x, {M, N}, {stride, 1}, tl::block_shape<B0, B1>);
  auto yd = tl::make_tensor_descriptor(y, {M, N}, {stride, 1}, tl::block_shape<B0, B1>);
  auto b = tl::load_tensor_descriptor(xd, {o0, o1});  // Triton's functional forms (the 3-D kernel: the methods)
  tl::store_tensor_descriptor(yd, {o0, o1}, b + 1000.0f);
}
template <int B0, int B1, int B2>
TL_KERNEL void descriptor_3d_k(tl::ptr<const float> x, tl::ptr<float> out, int D0, int D1, int D2, int o0, int o1, int o2) {
  auto xd = tl::make_tensor_descriptor(x, {D0, D1, D2}, {D1 * D2, D2, 1}, tl::block_shape<B0, B1, B2>);
  auto b = xd.load({o0, o1, o2});
  tl::store(out + (tl::arange<0, B0>()(_, None, None) * B1 * B2 + tl::arange<0, B1>()(None, _, None) * B2 +
                   tl::arange<0, B2>()(None, None, _)),
            b);
}

TEST_CASE("tensor descriptors load zeros outside their shape and store only inside it", "[memory][descriptor]") {
  std::mt19937 g(5);
  for (int trial = 0; trial < 40; ++trial) {
    const int M = 1 + int(g() % 40), N = 1 + int(g() % 30), stride = N + int(g() % 3);
    const int o0 = int(g() % 50) - 10, o1 = int(g() % 40) - 10;
    std::vector<float> x(std::size_t(M) * stride), y(x.size(), -5.0f);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i % 97);
    const auto r = tl::launch<descriptor_2d_k<16, 8>>(tl::grid(1), tl::ptr(std::as_const(x), "x"), tl::ptr(y, "y"), M, N,
                                                      stride, o0, o1);
    INFO("M " << M << " N " << N << " stride " << stride << " at (" << o0 << ", " << o1 << ")");
    REQUIRE(r.ok());
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < stride; ++j) {
        const bool written = j < N && i >= o0 && i < o0 + 16 && j >= o1 && j < o1 + 8;
        REQUIRE(y[std::size_t(i) * stride + j] == (written ? x[std::size_t(i) * stride + j] + 1000.0f : -5.0f));
      }
  }
  for (int trial = 0; trial < 20; ++trial) {
    const int D0 = 1 + int(g() % 6), D1 = 1 + int(g() % 9), D2 = 1 + int(g() % 10);
    const int o0 = int(g() % 6) - 2, o1 = int(g() % 8) - 2, o2 = int(g() % 10) - 3;
    std::vector<float> x(std::size_t(D0) * D1 * D2), out(4 * 4 * 8, -1.0f);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i + 1);
    REQUIRE(tl::launch<descriptor_3d_k<4, 4, 8>>(tl::grid(1), tl::ptr(std::as_const(x), "x"), tl::ptr(out, "out"), D0, D1,
                                                 D2, o0, o1, o2)
                .ok());
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 8; ++c) {
          const int i = o0 + a, j = o1 + b, k = o2 + c;
          const bool in = i >= 0 && i < D0 && j >= 0 && j < D1 && k >= 0 && k < D2;
          REQUIRE(out[std::size_t(a * 32 + b * 8 + c)] == (in ? x[(std::size_t(i) * D1 + j) * D2 + k] : 0.0f));
        }
  }
}

TEST_CASE("a descriptor whose shape does not fit its buffer is reported at the access, with its line", "[memory][descriptor][check]") {
  std::vector<float> x(10 * 8), y(10 * 8);
  const auto r = tl::launch<descriptor_2d_k<16, 8>>(tl::grid(1), {.failure = tl::on_failure::collect},
                                                    tl::ptr(std::as_const(x), "x"), tl::ptr(y, "y"), 12, 8, 8, 0, 0);
  REQUIRE_FALSE(r.ok());
  const std::string text = r.str();
  CHECK(text.find("buffer 'x' (80 elements)") != std::string::npos);
  CHECK(text.find("test_memory.cpp") != std::string::npos);
  CHECK(text.find("offset 80") != std::string::npos);
}

// Past 2^31 elements (a 128256-token vocabulary times 16384 rows of logits is 2.1e9): shapes,
// strides and offsets are 64-bit. The tensor is mapped lazily, so only the pages the kernel
// touches are memory.
template <int B>
TL_KERNEL void descriptor_1d_k(tl::ptr<const float> x, tl::ptr<float> y, std::int64_t n, std::int64_t o) {
  auto xd = tl::make_tensor_descriptor(x, {n}, {1}, tl::block_shape<B>);
  auto yd = tl::make_tensor_descriptor(y, {n}, {1}, tl::block_shape<B>);
  yd.store({o}, xd.load({o}) + 1.0f);
}
template <int B0, int B1>
TL_KERNEL void descriptor_rows_k(tl::ptr<const float> x, tl::ptr<float> y, std::int64_t rows, std::int64_t cols,
                                 std::int64_t o0, std::int64_t o1) {
  auto xd = tl::make_tensor_descriptor(x, {rows, cols}, {cols, 1}, tl::block_shape<B0, B1>);
  auto yd = tl::make_tensor_descriptor(y, {rows, cols}, {cols, 1}, tl::block_shape<B0, B1>);
  yd.store({o0, o1}, xd.load({o0, o1}) * 2.0f);
}

TEST_CASE("tensor descriptors past 2^31 elements load and store every element inside the shape", "[memory][descriptor]") {
  const std::int64_t n = (std::int64_t(1) << 31) + 4096;
  const std::size_t bytes = std::size_t(n) * sizeof(float);
  void* const xm = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void* const ym = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (xm == MAP_FAILED || ym == MAP_FAILED) {
    WARN("skipped: this machine cannot map two tensors of 8.6 GB of address space");
    if (xm != MAP_FAILED) munmap(xm, bytes);
    if (ym != MAP_FAILED) munmap(ym, bytes);
    return;
  }
  float* const x = static_cast<float*>(xm);
  float* const y = static_cast<float*>(ym);
  // Blocks at the end (partly outside), wholly inside past 2^31, straddling 2^31, at the start.
  for (const std::int64_t o : {n - 100, (std::int64_t(1) << 31) + 7, (std::int64_t(1) << 31) - 30, std::int64_t(-20)}) {
    for (std::int64_t i = o - 64; i < o + 128; ++i)
      if (i >= 0 && i < n) {
        x[i] = float(i % 1000);
        y[i] = -5.0f;
      }
    const auto r = tl::launch<descriptor_1d_k<64>>(tl::grid(1), tl::ptr<const float>(x, n, "x"), tl::ptr<float>(y, n, "y"),
                                                   n, o);
    INFO("offset " << o);
    REQUIRE(r.ok());
    for (std::int64_t i = o - 64; i < o + 128; ++i)
      if (i >= 0 && i < n) REQUIRE(y[i] == (i >= o && i < o + 64 ? float(i % 1000) + 1.0f : -5.0f));
  }
  // Rank 2: rows of 2^16 + 3 columns, a block of rows past element 2^31 (offsets 2^31 / cols).
  const std::int64_t cols = 65539, rows = n / cols;
  const std::int64_t o0 = rows - 3, o1 = cols - 5;
  for (std::int64_t i = o0; i < rows; ++i)
    for (std::int64_t j = o1 - 4; j < cols; ++j) {
      x[i * cols + j] = float((i + j) % 100);
      y[i * cols + j] = -5.0f;
    }
  REQUIRE(tl::launch<descriptor_rows_k<4, 8>>(tl::grid(1), tl::ptr<const float>(x, rows * cols, "x"),
                                              tl::ptr<float>(y, rows * cols, "y"), rows, cols, o0, o1)
              .ok());
  for (std::int64_t i = o0; i < rows; ++i)
    for (std::int64_t j = o1 - 4; j < cols; ++j)
      REQUIRE(y[i * cols + j] == (j >= o1 ? float((i + j) % 100) * 2.0f : -5.0f));
  munmap(xm, bytes);
  munmap(ym, bytes);
}

namespace {
// Triton's grouped-GEMM habit: a table of matrix addresses, each loaded and made a pointer.
template <int B>
TL_KERNEL void sum_through_address_table(tl::ptr<const std::int64_t> table, tl::ptr<float> out, tl::ptr<std::int64_t> back,
                                         int n) {
  auto g = tl::program_id(0);
  auto base = tl::eval(tl::load(table + g).to(tl::pointer_type<const float>));
  auto offs = tl::arange<0, B>();
  auto x = tl::load(base + offs, offs < n, 0.0f);
  tl::store(out + g, tl::sum(x));
  tl::store(back + g, (base + 1).to(tl::int64));  // the address of element 1
}
}  // namespace

TEST_CASE("pointers from int64 addresses and back (Triton's .to(tl.pointer_type(...)))", "[memory]") {
  std::vector<std::vector<float>> mats = {{1, 2, 3}, {10, 20, 30, 40}, {0.5f}};
  std::vector<std::int64_t> table, back(3, 0);
  for (auto& m : mats) {
    m.resize(8, 0.0f);
    table.push_back(std::int64_t(reinterpret_cast<std::uintptr_t>(m.data())));
  }
  std::vector<float> out(3, -1.0f);
  tl::launch<sum_through_address_table<8>>(tl::grid(3), tl::ptr<const std::int64_t>(table, "table"), tl::ptr<float>(out, "out"),
                                           tl::ptr<std::int64_t>(back, "back"), 8);
  REQUIRE(out == std::vector<float>{6, 100, 0.5f});
  for (int g = 0; g < 3; ++g) REQUIRE(back[std::size_t(g)] == table[std::size_t(g)] + std::int64_t(sizeof(float)));
}

namespace {
// Column sums of a rows x cols fp16 matrix in float32: a tile accumulated over row blocks with
// `acc += tl::load(...)` (tutorial 05's second kernel), then reduced over its rows.
template <int BM, int BN>
TL_KERNEL void column_sums(tl::ptr<const tl::fp16> x, tl::ptr<float> out, int rows, int cols) {
  auto c = tl::program_id(0) * BN + tl::arange<0, BN>();
  auto acc = tl::zeros<BM, BN>(tl::float32);
  for (int i : tl::range(0, rows, BM)) {
    auto r = i + tl::arange<0, BM>();
    auto mask = (r(_, None) < rows) & (c(None, _) < cols);
    acc += tl::load(x + r(_, None) * cols + c(None, _), mask, 0.0);
  }
  tl::store(out + c, tl::sum<0>(acc), c < cols);
}

// A loaded tile moved into an update after its memory was stored to (Bad), or before (!Bad).
template <bool Bad>
TL_KERNEL void moved_load_after_store(tl::ptr<float> x, tl::ptr<float> out) {
  auto r = tl::arange<0, 16>();
  auto offs = r(_, None) * 16 + r(None, _);
  auto acc = tl::zeros<16, 16>(tl::float32);
  auto t = tl::load(x + offs);
  if constexpr (Bad) tl::store(x + offs, t + 1);
  acc += std::move(t);
  if constexpr (!Bad) tl::store(x + offs, t + 1);
  tl::store(out + offs, acc);
}
}  // namespace

TEST_CASE("a tile updated by a load (acc += tl::load(...)) sums what it loads, at any size", "[memory]") {
  for (int rep = 0; rep < 6; ++rep) {
    const int rows = std::uniform_int_distribution<int>(1, 100)(testing::rng()), cols = std::uniform_int_distribution<int>(1, 70)(testing::rng());
    std::vector<tl::fp16> x(static_cast<std::size_t>(rows * cols));
    for (auto& e : x) e = tl::fp16(float(std::uniform_int_distribution<int>(-64, 64)(testing::rng())) / 8);
    std::vector<float> out(static_cast<std::size_t>(cols), -99.0f);
    tl::launch<column_sums<16, 32>>(tl::grid(tl::cdiv(cols, 32)), x, out, rows, cols);
    for (int j = 0; j < cols; ++j) {
      double want = 0;
      for (int i = 0; i < rows; ++i) want += double(float(x[std::size_t(i * cols + j)]));
      REQUIRE(out[std::size_t(j)] == float(want));  // eighths: exact in float32
    }
  }
}

TEST_CASE("a load moved into an update after a store to its memory is reported", "[memory][check]") {
  std::vector<float> x(256), out(256);
  for (int i = 0; i < 256; ++i) x[std::size_t(i)] = float(i);
  tl::launch<moved_load_after_store<false>>(tl::grid(1), x, out);
  REQUIRE(out[7] == 7.0f);
  REQUIRE(x[7] == 8.0f);
  try {
    tl::launch<moved_load_after_store<true>>(tl::grid(1), x, out);
    FAIL("the launch should have failed");
  } catch (const tl::launch_error& e) {
    REQUIRE(e.report().asserts.size() == 1);
    REQUIRE(e.report().asserts[0].failing_lanes == 256);
    REQUIRE_THAT(e.what(), Catch::Contains("stored to before the update it was moved into") && Catch::Contains("test_memory.cpp"));
  }
}
