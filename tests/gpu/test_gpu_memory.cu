// Loads and stores on the GPU: masks, other, wide (vector) and narrow accesses, scalars,
// device buffers, asynchronous launches, and the errors a launch refuses with.
#include <tl/tl.hpp>

#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

// z[i + shift_z] = x[i + shift_x] * 2 where i < n, else `other`: the shifts move the accesses
// off 16-byte boundaries, so chunks fall back from vector to single accesses.
// Ev: the eviction policy of both accesses (L2 cache hints: the same values either way).
template <class T, int B, class Ev = tl::eviction_policy<tl::eviction::normal>>
TL_KERNEL void shifted_copy_kernel(tl::ptr<const T> x_ptr, tl::ptr<T> z_ptr, int n, int shift_x, int shift_z) {
  auto i = tl::program_id(0) * B + tl::arange<0, B>();
  auto x = tl::load(x_ptr + shift_x + i, i < n, T(5), Ev{});
  tl::store(z_ptr + shift_z + i, x * 2, (i < n + 3) & (i % 7 != 6), Ev{});
}

template <class T, int B, class Ev = tl::eviction_policy<tl::eviction::normal>>
void check_shifted_copy() {
  for (int rep = 0; rep < 4; ++rep) {
    const int n = random_int(1, 5 * B), sx = random_int(0, 3), sz = random_int(0, 3);
    auto x = random_values<T>(std::size_t(n + sx), -50, 50);
    auto run = [&](const tl::launch_options& o) {
      std::vector<T> z(std::size_t(n + sz + 3), T(-1));
      tl::launch<shifted_copy_kernel<T, B, Ev>>(tl::grid(tl::cdiv(n, B)), o, x, z, n, sx, sz);
      return z;
    };
    require_agree(run(cpu), run(cuda), 0, 0, "n " + std::to_string(n) + " shifts " + std::to_string(sx) + "," + std::to_string(sz));
  }
}

TEST_CASE("masked loads and stores agree at every alignment and element size", "[gpu][memory]") {
  check_shifted_copy<float, 1024>();
  check_shifted_copy<float, 256>();
  check_shifted_copy<float, 32>();
  check_shifted_copy<int, 512>();
  check_shifted_copy<double, 1024>();
  check_shifted_copy<std::int16_t, 2048>();
  check_shifted_copy<std::int64_t, 128>();
}

// z[i] = x[i] * 2 + 1 for i < n, through pointers whose buffers may start between 16-byte
// boundaries: the fast path where the address realigns them, the general one elsewhere.
template <class T, int B>
TL_KERNEL void skewed_copy_kernel(tl::ptr<const T> x_ptr, tl::ptr<T> z_ptr, int n) {
  auto i = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(z_ptr + i, tl::load(x_ptr + i, i < n) * 2 + 1, i < n);
}

template <class T, int B>
void check_skewed_copy() {
  constexpr int per16 = 16 / int(sizeof(T));
  for (int sx = 0; sx < per16; ++sx) {
    const int n = B * random_int(1, 3) + (sx % 2 ? random_int(1, B - 1) : 0), sz = random_int(0, per16 - 1);
    auto x = random_values<T>(std::size_t(n + per16), -50, 50);
    for (bool as_offset : {false, true}) {  // the buffer starting at x + sx, or x's buffer with offset sx
      auto run = [&](const tl::launch_options& o) {
        std::vector<T> z(std::size_t(n + per16 + 4), T(-1));
        const tl::ptr<const T> xs = as_offset ? tl::ptr<const T>(x.data(), std::int64_t(x.size()), "x") + sx
                                              : tl::ptr<const T>(x.data() + sx, n, "x");
        tl::launch<skewed_copy_kernel<T, B>>(tl::grid(tl::cdiv(n, B)), o, xs, tl::ptr<T>(z.data() + sz, n, "z"), n);
        return z;
      };
      require_agree(run(cpu), run(cuda), 0, 0,
                    "n " + std::to_string(n) + " x starts " + std::to_string(sx) + (as_offset ? " (offset)" : " (base)") +
                        " z starts " + std::to_string(sz));
    }
  }
}

TEST_CASE("buffers that start between 16-byte boundaries are loaded and stored as on the CPU", "[gpu][memory]") {
  check_skewed_copy<tl::fp16, 1024>();
  check_skewed_copy<float, 512>();
  check_skewed_copy<double, 256>();
  check_skewed_copy<std::int8_t, 2048>();
  check_skewed_copy<std::int64_t, 128>();
}

TEST_CASE("loads and stores with an eviction policy (L2 cache hints) agree at every access width", "[gpu][memory]") {
  using first = tl::eviction_policy<tl::eviction::first>;
  using last = tl::eviction_policy<tl::eviction::last>;
  check_shifted_copy<float, 1024, last>();  // 16-byte vectors and single elements
  check_shifted_copy<float, 256, first>();  // 8-byte vectors
  check_shifted_copy<double, 1024, last>();
  check_shifted_copy<std::int16_t, 2048, first>();
  check_shifted_copy<std::int8_t, 4096, last>();
}

// A 2-D tile copy with a row stride and a column offset: affine pointers and a convex mask,
// so interior tiles with aligned rows take the affine fast path (one vector access per chunk,
// no per-lane mask), and edge tiles, odd strides and odd offsets the general path.
template <class T, int BR, int BC, class Ev = tl::eviction_policy<tl::eviction::normal>>
TL_KERNEL void tile_copy_kernel(tl::ptr<const T> x_ptr, tl::ptr<T> z_ptr, int rows, int cols, int ld_x, int ld_z,
                                int col0) {
  auto r = tl::program_id(0) * BR + tl::arange<0, BR>();
  auto c = tl::program_id(1) * BC + tl::arange<0, BC>();
  auto mask = (r(_, None) < rows) & (c(None, _) < cols);
  auto x = tl::load(x_ptr + r(_, None) * ld_x + col0 + c(None, _), mask, T(7), Ev{});
  tl::store(z_ptr + r(_, None) * ld_z + c(None, _), x + x, mask, Ev{});
}

template <class T, int BR, int BC, class Ev = tl::eviction_policy<tl::eviction::normal>>
void check_tile_copy() {
  for (int rep = 0; rep < 6; ++rep) {
    const bool whole = rep % 2 == 0;  // sizes in whole tiles: every program on the fast path
    const int rows = whole ? BR * random_int(1, 3) : random_int(1, 3 * BR);
    const int cols = whole ? BC * random_int(1, 3) : random_int(1, 3 * BC);
    const int col0 = rep < 4 ? 0 : random_int(1, 3);
    const int ld_x = cols + col0 + (rep % 3 == 2 ? 1 : 0), ld_z = cols + (rep % 3 == 1 ? 8 : 0);
    auto x = random_values<T>(std::size_t(rows) * ld_x, -50, 50);
    auto run = [&](const tl::launch_options& o) {
      std::vector<T> z(std::size_t(rows) * ld_z, T(-1));
      tl::launch<tile_copy_kernel<T, BR, BC, Ev>>(tl::grid(tl::cdiv(rows, BR), tl::cdiv(cols, BC)), o, x, z, rows, cols,
                                             ld_x, ld_z, col0);
      return z;
    };
    require_agree(run(cpu), run(cuda), 0, 0,
                  "rows " + std::to_string(rows) + " cols " + std::to_string(cols) + " ld " + std::to_string(ld_x) + "," +
                      std::to_string(ld_z) + " col0 " + std::to_string(col0));
  }
}

TEST_CASE("2-D tiles: whole, partial, odd strides and offsets agree (the affine fast path and the general one)",
          "[gpu][memory]") {
  check_tile_copy<float, 32, 64>();
  check_tile_copy<float, 64, 16>();
  check_tile_copy<std::int16_t, 64, 64>();
  check_tile_copy<double, 16, 32>();
  check_tile_copy<float, 32, 64, tl::eviction_policy<tl::eviction::last>>();  // the affine path with hints
  check_tile_copy<std::int16_t, 64, 64, tl::eviction_policy<tl::eviction::first>>();
}

// A computed tile (the accumulator order) updated by loads written in the update, which the
// CUDA backend loads again in the tile's order instead of converting: acc = acc * 0.5 + x,
// then acc -= y, over row blocks (tutorial 05's dw/db kernel), whole and partial tiles.
template <class T, int BM, int BN>
TL_KERNEL void tile_updated_by_loads(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> out, int rows, int cols) {
  auto c = tl::program_id(0) * BN + tl::arange<0, BN>();
  auto acc = tl::zeros<BM, BN>(tl::float32);
  for (int i : tl::range(0, rows, BM)) {
    auto r = i + tl::arange<0, BM>();
    auto mask = (r(_, None) < rows) & (c(None, _) < cols);
    auto offs = r(_, None) * cols + c(None, _);
    acc *= 0.5f;
    acc += tl::load(x + offs, mask, 0.0);
    acc -= tl::load(y + offs, mask, 1.0);
  }
  auto rr = tl::arange<0, BM>();
  tl::store(out + rr(_, None) * cols + c(None, _), acc, (rr(_, None) < rows) & (c(None, _) < cols));
}

template <class T, int BM, int BN>
void check_tile_updated_by_loads() {
  for (int rep = 0; rep < 6; ++rep) {
    const bool whole = rep % 2 == 0;
    const int rows = whole ? BM * random_int(1, 4) : random_int(1, 4 * BM);
    const int cols = whole ? BN * random_int(1, 3) : random_int(1, 3 * BN);
    auto x = random_quarters<T>(std::size_t(rows) * cols), y = random_quarters<T>(std::size_t(rows) * cols);
    auto run = [&](const tl::launch_options& o) {
      std::vector<float> out(std::size_t(rows) * cols, -99.0f);
      tl::launch<tile_updated_by_loads<T, BM, BN>>(tl::grid(tl::cdiv(cols, BN)), o, x, y, out, rows, cols);
      return out;
    };
    const auto want = [&] {  // plain loops in double
      std::vector<float> z(std::size_t(rows) * cols, -99.0f);
      for (int j = 0; j < cols; ++j)
        for (int r = 0; r < BM && r < rows; ++r) {
          double acc = 0;
          for (int i = 0; i < rows; i += BM) {
            acc *= 0.5;
            const bool in = i + r < rows;
            acc += in ? double(float(x[std::size_t((i + r) * cols + j)])) : 0.0;
            acc -= in ? double(float(y[std::size_t((i + r) * cols + j)])) : 1.0;
          }
          z[std::size_t(r * cols + j)] = float(acc);
        }
      return z;
    }();
    const auto on_cpu = run(cpu);
    require_agree(want, on_cpu, 1e-6, 1e-6, "reference, rows " + std::to_string(rows) + " cols " + std::to_string(cols));
    require_agree(on_cpu, run(cuda), 0, 0, "rows " + std::to_string(rows) + " cols " + std::to_string(cols));
  }
}

TEST_CASE("a tile updated by loads (acc += tl::load(...)) agrees, whole and partial", "[gpu][memory]") {
  check_tile_updated_by_loads<tl::fp16, 32, 128>();
  check_tile_updated_by_loads<float, 32, 64>();
  check_tile_updated_by_loads<tl::bf16, 16, 32>();
}

// Scalar (rank-0) loads steer control flow; a rank-0 store is written once.
template <int B>
TL_KERNEL void scalar_kernel(tl::ptr<int> flag_ptr, tl::ptr<float> x_ptr, tl::ptr<float> z_ptr) {
  auto x = tl::load(x_ptr + tl::arange<0, B>());
  float total = tl::sum(x);
  if (tl::load(flag_ptr + tl::program_id(0)) != 0) total = total * 2;
  tl::store(z_ptr + tl::program_id(0), total + tl::max(x));
}

TEST_CASE("scalar loads and stores: uniform values every thread holds", "[gpu][memory]") {
  std::vector<int> flags = {0, 1, 1, 0, 1};
  auto x = random_values(512);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(5, NAN);
    tl::launch<scalar_kernel<512>>(tl::grid(5), o, flags, x, z);
    return z;
  };
  require_agree(run(cpu), run(cuda), 1e-5, 1e-5);
}

template <int B>
TL_KERNEL void scale_kernel(tl::ptr<const float> x_ptr, tl::ptr<float> z_ptr, float s, int n) {
  auto i = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(z_ptr + i, tl::load(x_ptr + i, i < n) * s, i < n);
}

TEST_CASE("device buffers are used in place, and launches can be asynchronous on a stream", "[gpu][memory]") {
  const int n = 100000;
  auto host = random_values(std::size_t(n));
  tl::cuda::buffer<float> x(host, "x"), z(std::size_t(n), "z");
  cudaStream_t stream;
  TL_CUDA_CHECK(cudaStreamCreate(&stream));
  tl::launch<scale_kernel<1024>>(tl::grid(tl::cdiv(n, 1024)), {.backend = tl::backend::cuda, .stream = stream, .wait = false},
                                 x, z, 3.0f, n);
  TL_CUDA_CHECK(cudaStreamSynchronize(stream));
  TL_CUDA_CHECK(cudaStreamDestroy(stream));
  const auto out = z.to_host();
  for (int i = 0; i < n; ++i) REQUIRE(out[std::size_t(i)] == host[std::size_t(i)] * 3.0f);
  const auto report = tl::launch<scale_kernel<1024>>(tl::grid(tl::cdiv(n, 1024)), cuda, x, z, 0.5f, n);
  REQUIRE(report.ok());
  REQUIRE(report.seconds > 0);
}

__global__ void occupancy_probe_kernel(float* x) {
  __shared__ float s[256];
  s[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = s[255 - threadIdx.x];
}

TEST_CASE("programs_per_sm caps the programs a multiprocessor runs at once, and results stay the same",
          "[gpu][launch]") {
  cudaFuncAttributes probe_attributes{};
  TL_CUDA_CHECK(cudaFuncGetAttributes(&probe_attributes, reinterpret_cast<const void*>(&occupancy_probe_kernel)));
  const std::string probe_name = "occupancy_probe_kernel";
  const tl::detail::cuda::launch_context probe{probe_name, tl::grid(1), nullptr, TL_NUM_WARPS};
  const void* probe_kernel = reinterpret_cast<const void*>(&occupancy_probe_kernel);
  for (int cap : {1, 2, 3, 5, 8}) {
    const auto plan = tl::detail::cuda::plan_dynamic_shared_memory(probe_kernel, probe_attributes, cap, true, 3, probe);
    int resident = 0;
    TL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, occupancy_probe_kernel, 256, plan.bytes));
    INFO("cap " << cap << ", reserved " << plan.bytes << " bytes");
    REQUIRE(resident == cap);
    REQUIRE(plan.layout.arena == 0);
  }
  // No arena and no operand ring for this kernel: its 1 KiB of shared memory is no dot's.
  const auto plan = tl::detail::cuda::plan_dynamic_shared_memory(probe_kernel, probe_attributes, 0, false, 3, probe);
  REQUIRE(plan.bytes == 0);
  REQUIRE(plan.layout.arena == 0);
  const int n = 100000;
  auto host = random_values(std::size_t(n));
  std::vector<float> z(std::size_t(n), NAN);
  const auto report = tl::launch<scale_kernel<1024>>(tl::grid(tl::cdiv(n, 1024)),
                                                     {.backend = tl::backend::cuda, .programs_per_sm = 2}, host, z, 2.0f, n);
  REQUIRE(report.ok());
  for (int i = 0; i < n; ++i) REQUIRE(z[std::size_t(i)] == host[std::size_t(i)] * 2.0f);
}

TEST_CASE("a CUDA launch refuses bad input before anything runs, naming it", "[gpu][launch]") {
  std::vector<float> x(100), z(100, 1.0f);
  REQUIRE_THROWS_WITH((tl::launch<scale_kernel<128>>(tl::grid(0), cuda, x, z, 1.0f, 100)),
                      Catch::Contains("grid axis 0 is 0"));
  REQUIRE_THROWS_WITH((tl::launch<scale_kernel<128>>(tl::grid(1, 70000), cuda, x, z, 1.0f, 100)),
                      Catch::Contains("above the limit of 65535"));
  REQUIRE_THROWS_WITH((tl::launch<scale_kernel<128>>(tl::grid(1), {.backend = tl::backend::cuda, .num_warps = 8}, x, z, 1.0f, 100)),
                      Catch::Contains("TL_NUM_WARPS=4"));
  REQUIRE_THROWS_WITH((tl::launch<scale_kernel<128>>(tl::grid(1), cuda, tl::ptr<const float>(x.data()), z, 1.0f, 100)),
                      Catch::Contains("host memory of unknown size"));
  REQUIRE_THROWS_WITH((
      tl::launch<scale_kernel<128>>(tl::grid(1), cuda,
                                    tl::ptr<const float>(reinterpret_cast<const float*>(reinterpret_cast<const char*>(x.data()) + 2), 10, "odd"),
                                    z, 1.0f, 100)),
      Catch::Contains("'odd' starts at an address that is not a multiple of 4 bytes"));
  REQUIRE_THROWS_WITH((tl::launch<scale_kernel<128>>(tl::grid(1), {.backend = tl::backend::cuda, .wait = false}, x, z, 1.0f, 100)),
                      Catch::Contains("wait = false needs device memory"));
  tl::trace t;
  auto traced = [&] { tl::launch<scale_kernel<128>>(tl::grid(1), {.backend = tl::backend::cuda, .trace = &t}, x, z, 1.0f, 100); };
  REQUIRE_THROWS_WITH(traced(), Catch::Contains("recorded by the CPU backend only"));
  // Nothing was written by the refused launches.
  for (float v : z) REQUIRE(v == 1.0f);
}

TEST_CASE("a failing CUDA call raises tl::cuda_error naming the call and the reason", "[gpu][launch]") {
  void* p = nullptr;
  try {
    TL_CUDA_CHECK(cudaMalloc(&p, std::size_t(1) << 62));
    FAIL("the allocation should have failed");
  } catch (const tl::cuda_error& e) {
    REQUIRE_THAT(e.what(), Catch::Contains("cudaMalloc(&p, std::size_t(1) << 62) failed") &&
                               Catch::Contains("cudaErrorMemoryAllocation"));
  }
}

// Triton's grouped-GEMM habit: a table of device addresses, each loaded and made a pointer.
template <int B>
TL_KERNEL void sum_through_address_table(tl::ptr<const std::int64_t> table, tl::ptr<float> out, tl::ptr<std::int64_t> back,
                                         int n) {
  auto g = tl::program_id(0);
  auto base = tl::eval(tl::load(table + g).to(tl::pointer_type<const float>));
  auto offs = tl::arange<0, B>();
  auto x = tl::load(base + offs, offs < n, 0.0f);
  tl::store(out + g, tl::sum(x));
  tl::store(back + g, (base + 1).to(tl::int64));
}

TEST_CASE("pointers from int64 device addresses and back", "[gpu][memory]") {
  std::vector<tl::cuda::buffer<float>> mats;
  std::vector<std::int64_t> table;
  for (int g = 0; g < 5; ++g) {
    std::vector<float> m(256, 0.0f);
    for (int i = 0; i < 256; ++i) m[std::size_t(i)] = float(g * 1000 + i);
    mats.emplace_back(m, "matrix");
    table.push_back(std::int64_t(reinterpret_cast<std::uintptr_t>(mats.back().data())));
  }
  std::vector<float> out(5, -1.0f);
  std::vector<std::int64_t> back(5, 0);
  tl::launch<sum_through_address_table<256>>(tl::grid(5), cuda, tl::ptr<const std::int64_t>(table, "table"),
                                             tl::ptr<float>(out, "out"), tl::ptr<std::int64_t>(back, "back"), 200);
  for (int g = 0; g < 5; ++g) {
    REQUIRE(out[std::size_t(g)] == float(200 * g * 1000 + 199 * 200 / 2));
    REQUIRE(back[std::size_t(g)] == table[std::size_t(g)] + 4);
  }
}
