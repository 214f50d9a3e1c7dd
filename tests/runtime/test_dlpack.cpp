// DLPack tensors as tl views and pointers (tl/runtime/dlpack.hpp) on the CPU backend: every
// element type DLPack and tl share, strided and offset tensors run through kernels against
// plain loops, the legacy and the versioned managed forms and their deleters, every refusal,
// and the launch options a tensor's place gives.
#include <tl/runtime/dlpack.hpp>

#include <cstring>
#include <limits>
#include <numeric>

#include "testing.hpp"

namespace {

// z[i, j] = 2 * x[i, j] + 1 over a rows x cols tensor of any strides (in elements).
template <int B, class T>
TL_KERNEL void affine_2d(tl::ptr<const T> x, tl::ptr<float> z, int rows, int cols, int sxr, int sxc, int szr, int szc) {
  auto r = tl::program_id(0);
  auto c = tl::program_id(1) * B + tl::arange<0, B>();
  auto mask = c < cols;
  auto v = tl::load(x + r * sxr + c * sxc, mask).to(tl::float32);
  tl::store(z + r * szr + c * szc, v * 2.0f + 1.0f, mask);
  (void)rows;
}

// Reads one element past n: the CPU backend reports it against the view's extent.
template <int B>
TL_KERNEL void read_past(tl::ptr<const float> x, tl::ptr<float> z, int n) {
  auto offs = tl::arange<0, B>();
  tl::store(z + offs, tl::load(x + offs + 1, offs < n), offs < n);
}

// A hand-made DLPack tensor over host memory: what a producer hands over.
struct tensor {
  std::vector<std::int64_t> shape, strides;
  DLTensor t{};
  tensor(void* data, DLDataType dtype, std::vector<std::int64_t> shape_, std::vector<std::int64_t> strides_ = {},
         std::uint64_t byte_offset = 0, int device_type = 1, int device_id = 0)
      : shape(std::move(shape_)), strides(std::move(strides_)) {
    t.data = data;
    t.device.device_type = static_cast<decltype(t.device.device_type)>(device_type);
    t.device.device_id = device_id;
    t.ndim = int(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    t.byte_offset = byte_offset;
  }
};

DLDataType dl(std::uint8_t code, std::uint8_t bits) { return DLDataType{code, bits, 1}; }

template <class T>
void check_type(std::uint8_t code, std::uint8_t bits) {
  std::array<T, 12> memory{};
  tensor t(memory.data(), dl(code, bits), {3, 4});
  const tl::view<T> v = tl::from_dlpack<T>(t.t, "x");
  CHECK(v.data == memory.data());
  CHECK(v.shape.rank == 2);
  CHECK(v.size(0) == 3);
  CHECK(v.size(1) == 4);
  CHECK(v.stride(0) == 4);
  CHECK(v.stride(1) == 1);
  CHECK(v.extent == 12);
  CHECK(v.where == tl::backend::cpu);
  CHECK(std::string(v.name) == "x");
  // Any other code or width is refused, naming both types.
  tensor other(memory.data(), dl(code == 2 ? 0 : 2, bits), {3, 4});
  CHECK_THROWS_WITH(tl::from_dlpack<T>(other.t, "x"), Catch::Contains("the view asked for holds"));
  tensor wider(memory.data(), dl(code, std::uint8_t(bits * 2)), {3, 4});
  CHECK_THROWS_AS(tl::from_dlpack<T>(wider.t, "x"), tl::usage_error);
}

// x (rows x cols, strides sxr, sxc, from byte offset `skip` elements into its memory) through
// the kernel into a poisoned z of strides szr, szc; every element against 2 x + 1 in double.
template <class T>
void run_affine(int rows, int cols, std::int64_t sxr, std::int64_t sxc, std::int64_t skip, std::uint8_t code) {
  const std::int64_t reach = skip + (rows - 1) * sxr + (cols - 1) * sxc + 1;
  std::vector<T> xm(std::size_t(reach + 3));
  std::uniform_real_distribution<double> d(-8, 8);
  for (auto& e : xm) e = T(float(std::is_integral_v<T> ? std::floor(d(testing::rng())) : d(testing::rng())));
  const std::int64_t szr = cols + 3, szc = 1;  // z: rows padded by 3
  std::vector<float> zm(std::size_t(rows * szr), std::numeric_limits<float>::quiet_NaN());
  tensor xt(xm.data(), dl(code, 8 * sizeof(T)), {rows, cols}, {sxr, sxc}, std::uint64_t(skip) * sizeof(T));
  tensor zt(zm.data(), dl(2, 32), {rows, cols}, {szr, szc});
  const auto x = tl::from_dlpack<const T>(xt.t, "x");
  const auto z = tl::from_dlpack<float>(zt.t, "z");
  tl::check_shape(z, {x.size(0), x.size(1)});
  const auto options = tl::options_for(x, z);
  REQUIRE(options.backend == tl::backend::cpu);
  tl::launch<affine_2d<16, T>>(tl::grid(rows, tl::cdiv(cols, 16)), options, x, z, rows, cols, int(x.stride(0)),
                               int(x.stride(1)), int(z.stride(0)), int(z.stride(1)));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const double in = testing::as_double(xm[std::size_t(skip + i * sxr + j * sxc)]);
      const double want = double(float(float(in) * 2.0f + 1.0f));
      INFO("row " << i << " col " << j);
      REQUIRE(double(zm[std::size_t(i * szr + j)]) == Approx(want).margin(1e-6));
    }
  for (int i = 0; i < rows; ++i)  // the padding between rows is not written
    for (std::int64_t j = cols; j < szr; ++j) REQUIRE(std::isnan(zm[std::size_t(i * szr + j)]));
}

}  // namespace

TEST_CASE("dlpack: every element type DLPack and tl share maps to its view", "[dlpack]") {
  check_type<float>(2, 32);
  check_type<double>(2, 64);
  check_type<tl::fp16>(2, 16);
  check_type<tl::bf16>(4, 16);
  check_type<std::int8_t>(0, 8);
  check_type<std::int16_t>(0, 16);
  check_type<std::int32_t>(0, 32);
  check_type<std::int64_t>(0, 64);
  check_type<std::uint8_t>(1, 8);
  check_type<std::uint16_t>(1, 16);
  check_type<std::uint32_t>(1, 32);
  check_type<std::uint64_t>(1, 64);
  check_type<bool>(6, 8);
  check_type<tl::fp8e4nv>(10, 8);
  check_type<tl::fp8e5>(12, 8);
  check_type<tl::fp8e4b8>(11, 8);
  check_type<tl::fp8e5b16>(13, 8);
}

TEST_CASE("dlpack: strided and offset tensors run through a kernel as plain loops say", "[dlpack]") {
  std::uniform_int_distribution<int> size(1, 40);
  for (int round = 0; round < 6; ++round) {
    const int rows = size(testing::rng()), cols = size(testing::rng());
    const std::int64_t skip = round % 3;  // elements before the first, as byte_offset
    INFO("round " << round << ": " << rows << " x " << cols);
    run_affine<float>(rows, cols, cols, 1, skip, 2);                // compact
    run_affine<float>(rows, cols, 1, rows, skip, 2);                // a transposed view (column-major memory)
    run_affine<tl::fp16>(rows, cols, 2 * cols + 1, 2, skip, 2);     // every other column of a wider row
    run_affine<std::int32_t>(rows, cols, cols + 5, 1, skip, 0);     // padded rows
    run_affine<tl::bf16>(rows, cols, cols, 1, skip, 4);
  }
}

TEST_CASE("dlpack: shapes, scalars and pointers of any rank", "[dlpack]") {
  std::vector<float> m(2 * 3 * 4 * 5);
  SECTION("strides absent: compact row-major") {
    tensor t(m.data(), dl(2, 32), {2, 3, 4});
    const auto v = tl::from_dlpack<float>(t.t, "t");
    CHECK(v.stride(0) == 12);
    CHECK(v.stride(1) == 4);
    CHECK(v.stride(2) == 1);
    CHECK(v.extent == 24);
    CHECK(v.is_contiguous());
  }
  SECTION("a scalar is one element") {
    tensor t(m.data(), dl(2, 32), {});
    const auto v = tl::from_dlpack<float>(t.t, "s");
    CHECK(v.numel() == 1);
    CHECK(v.extent == 1);
  }
  SECTION("an empty tensor reaches nothing") {
    tensor t(m.data(), dl(2, 32), {3, 0});
    CHECK(tl::from_dlpack<float>(t.t, "e").extent == 0);
    tensor null_empty(nullptr, dl(2, 32), {0});
    CHECK(tl::from_dlpack<float>(null_empty.t, "e").extent == 0);
  }
  SECTION("four axes: a pointer, not a view") {
    tensor t(m.data(), dl(2, 32), {2, 3, 4, 5}, {60, 20, 5, 1}, 0);
    CHECK_THROWS_WITH(tl::from_dlpack<float>(t.t, "q"),
                      Catch::Contains("has 4 axes (2 x 3 x 4 x 5); a tl::view takes 0 to 3") &&
                          Catch::Contains("tl::ptr_from_dlpack"));
    const tl::ptr<float> p = tl::ptr_from_dlpack<float>(t.t, "q");
    CHECK(p.base == m.data());
    CHECK(p.extent == 120);
    tensor sliced(m.data(), dl(2, 32), {2, 3, 4, 2}, {60, 20, 5, 1}, 4 * sizeof(float));
    CHECK(tl::ptr_from_dlpack<float>(sliced.t, "q").extent == 60 + 40 + 15 + 2);
  }
  SECTION("a size-1 axis may have any stride, even a negative one") {
    tensor t(m.data(), dl(2, 32), {1, 5}, {-7, 1});
    CHECK(tl::from_dlpack<float>(t.t, "t").extent == 5);
  }
}

TEST_CASE("dlpack: refusals name the tensor and what to do", "[dlpack]") {
  std::vector<float> m(64);
  tensor good(m.data(), dl(2, 32), {4, 4});
  SECTION("element type") {
    tensor t(m.data(), dl(2, 16), {4, 4});
    CHECK_THROWS_WITH(tl::from_dlpack<float>(t.t, "x"),
                      "tl::from_dlpack: tensor 'x' holds float16; the view asked for holds float32 (take it as that "
                      "type, or convert the tensor first)");
    tensor complex(m.data(), dl(5, 64), {4});
    CHECK_THROWS_WITH(tl::from_dlpack<double>(complex.t, "c"), Catch::Contains("holds complex64"));
  }
  SECTION("vector lanes") {
    tensor t(m.data(), DLDataType{2, 32, 4}, {4});
    CHECK_THROWS_WITH(tl::from_dlpack<float>(t.t, "x"), Catch::Contains("4-lane vector elements"));
  }
  SECTION("a device the backends cannot read") {
    tensor rocm(m.data(), dl(2, 32), {4}, {}, 0, 10);
    CHECK_THROWS_WITH(tl::from_dlpack<float>(rocm.t, "x"),
                      "tl::from_dlpack: tensor 'x' is in ROCm memory; tl's backends read CPU and CUDA memory");
    tensor metal(m.data(), dl(2, 32), {4}, {}, 0, 8);
    CHECK_THROWS_WITH(tl::ptr_from_dlpack<float>(metal.t, "y"), Catch::Contains("Metal memory"));
  }
  SECTION("a negative stride") {
    tensor t(m.data() + 15, dl(2, 32), {4, 4}, {-4, 1});
    CHECK_THROWS_WITH(tl::from_dlpack<float>(t.t, "x"), Catch::Contains("has stride -4 on axis 0: tl's views step forward"));
  }
  SECTION("a negative size") {
    tensor t(m.data(), dl(2, 32), {4, -1});
    CHECK_THROWS_WITH(tl::from_dlpack<float>(t.t, "x"), Catch::Contains("has size -1 on axis 1"));
  }
  SECTION("no memory") {
    tensor t(nullptr, dl(2, 32), {4, 4});
    CHECK_THROWS_WITH(tl::from_dlpack<float>(t.t, "x"), Catch::Contains("has no memory (a null data pointer) and 16 elements"));
  }
  SECTION("a start off its element type's alignment") {
    tensor t(m.data(), dl(2, 32), {4}, {}, 2);
    CHECK_THROWS_WITH(tl::from_dlpack<float>(t.t, "x"),
                      Catch::Contains("(data + byte_offset 2) that is not a multiple of 4 bytes"));
    tensor bytes(m.data(), dl(1, 8), {4}, {}, 3);  // one-byte elements: any start
    CHECK(tl::from_dlpack<std::uint8_t>(bytes.t, "b").data == reinterpret_cast<std::uint8_t*>(m.data()) + 3);
  }
  SECTION("axes without a shape") {
    tensor t(m.data(), dl(2, 32), {4});
    t.t.shape = nullptr;
    CHECK_THROWS_WITH(tl::from_dlpack<float>(t.t, "x"), Catch::Contains("has 1 axes and no shape (a null shape pointer)"));
  }
  SECTION("an empty tensor without memory, at an offset") {
    tensor t(nullptr, dl(2, 32), {0, 4}, {}, 64);
    const auto v = tl::from_dlpack<float>(t.t, "e");
    CHECK(v.data == nullptr);
    CHECK(v.extent == 0);
  }
  SECTION("null managed tensors") {
    CHECK_THROWS_WITH(tl::from_dlpack<float>(static_cast<const DLManagedTensor*>(nullptr), "x"),
                      Catch::Contains("null DLManagedTensor"));
    CHECK_THROWS_WITH(tl::from_dlpack<float>(static_cast<const tl::dlpack_versioned_tensor*>(nullptr), "x"),
                      Catch::Contains("null DLManagedTensorVersioned"));
  }
  CHECK(tl::from_dlpack<float>(good.t, "x").numel() == 16);
}

namespace {
int deleted_legacy = 0, deleted_versioned = 0;
void delete_legacy(DLManagedTensor* m) {
  ++deleted_legacy;
  delete static_cast<tensor*>(m->manager_ctx);
  delete m;
}
void delete_versioned(tl::dlpack_versioned_tensor* m) {
  ++deleted_versioned;
  delete static_cast<tensor*>(m->manager_ctx);
  delete m;
}
}  // namespace

TEST_CASE("dlpack: legacy and versioned managed tensors, read-only flag, deleters", "[dlpack]") {
  std::vector<float> m(8);
  std::iota(m.begin(), m.end(), 0.0f);
  deleted_legacy = deleted_versioned = 0;
  {
    auto* ctx = new tensor(m.data(), dl(2, 32), {2, 4});
    tl::dlpack_owner<DLManagedTensor> legacy(new DLManagedTensor{ctx->t, ctx, delete_legacy});
    const auto v = tl::from_dlpack<float>(legacy.get(), "legacy");
    CHECK(v.size(1) == 4);
    CHECK(v.data[5] == 5.0f);

    auto* ctx2 = new tensor(m.data(), dl(2, 32), {8});
    auto* raw = new tl::dlpack_versioned_tensor{};
    raw->version.major = 1;
    raw->version.minor = 1;
    raw->manager_ctx = ctx2;
    raw->deleter = delete_versioned;
    raw->flags = 1;  // read-only
    raw->dl_tensor = ctx2->t;
    tl::dlpack_owner<tl::dlpack_versioned_tensor> versioned(raw);
    CHECK_THROWS_WITH(tl::from_dlpack<float>(versioned.get(), "ro"),
                      Catch::Contains("tensor 'ro' is read-only (its producer's DLPack flag); take it as a view of const elements"));
    CHECK_THROWS_WITH(tl::ptr_from_dlpack<float>(versioned.get(), "ro"), Catch::Contains("is read-only"));
    const auto c = tl::from_dlpack<const float>(versioned.get(), "ro");
    CHECK(c.extent == 8);
    raw->flags = 0;
    CHECK(tl::from_dlpack<float>(versioned.get(), "rw").data == m.data());
    raw->version.major = 2;
    CHECK_THROWS_WITH(tl::from_dlpack<const float>(versioned.get(), "v2"),
                      Catch::Contains("is a DLPack 2.1 tensor; tl reads DLPack 1.x"));
    raw->version.major = 1;

    tl::dlpack_owner<DLManagedTensor> moved(std::move(legacy));
    CHECK(legacy.get() == nullptr);
    CHECK(deleted_legacy == 0);
  }
  CHECK(deleted_legacy == 1);
  CHECK(deleted_versioned == 1);
}

TEST_CASE("dlpack: the launch options a tensor's place gives, and accesses checked against it", "[dlpack]") {
  std::vector<float> m(32, 1.0f), out(32, 0.0f);
  tensor host(m.data(), dl(2, 32), {32});
  tensor pinned(m.data(), dl(2, 32), {32}, {}, 0, 3);
  tensor gpu1(m.data(), dl(2, 32), {32}, {}, 0, 2, 1);  // a CUDA tensor, only looked at here
  tensor gpu0(m.data(), dl(2, 32), {32}, {}, 0, 2, 0);
  tensor managed(m.data(), dl(2, 32), {32}, {}, 0, 13, 1);
  const auto h = tl::from_dlpack<float>(host.t, "h");
  const auto p = tl::from_dlpack<float>(pinned.t, "p");
  const auto g1 = tl::from_dlpack<float>(gpu1.t, "g1");
  const auto g0 = tl::from_dlpack<float>(gpu0.t, "g0");
  const auto u = tl::from_dlpack<float>(managed.t, "u");
  CHECK(p.where == tl::backend::cpu);
  CHECK(g1.where == tl::backend::cuda);
  CHECK(g1.device == 1);
  CHECK(u.where == tl::backend::cuda);

  const auto o1 = tl::options_for(h, p);
  CHECK(o1.backend == tl::backend::cpu);
  CHECK(o1.device == -1);
  const auto o2 = tl::options_for(tl::launch_options{.num_warps = 8}, g1, u);
  CHECK(o2.backend == tl::backend::cuda);
  CHECK(o2.device == 1);
  CHECK(o2.num_warps == 8);
  CHECK_THROWS_WITH(tl::options_for(h, g1),
                    "tl::options_for: tensor #1 ('g1') is in GPU memory and tensor #0 ('h') in host memory: one "
                    "launch runs on one backend");
  CHECK_THROWS_WITH(tl::options_for(g0, u), Catch::Contains("tensor #1 ('u') is on CUDA device 1 and tensor #0 ('g0') on device 0"));
  // The device comes from the first view that has one; a later mismatch names that view.
  tl::view<float> somewhere = g1;
  somewhere.device = -1;
  somewhere.name = "s";
  CHECK_THROWS_WITH(tl::options_for(somewhere, g1, g0),
                    Catch::Contains("tensor #2 ('g0') is on CUDA device 0 and tensor #1 ('g1') on device 1"));
  // A device the caller chose stands where no view names one.
  CHECK(tl::options_for(tl::launch_options{.device = 2}, somewhere).device == 2);
  CHECK(tl::options_for(tl::launch_options{.device = 2}, g1).device == 1);
  CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cpu, h, g1), Catch::Contains("is in GPU memory"));

  // A launch option naming a CUDA device runs on the CUDA backend only.
  CHECK_THROWS_WITH((tl::launch<read_past<32>>(tl::grid(1), tl::launch_options{.device = 0}, h, out, 31)),
                    Catch::Contains("device 0 is a CUDA device, and the launch runs on the CPU backend"));
  CHECK_THROWS_WITH((tl::launch<read_past<32>>(tl::grid(1), tl::launch_options{.device = -2}, h, out, 31)),
                    Catch::Contains("device is -2"));

  // Reading one element past the tensor: reported against the view's extent, never performed.
  const auto x = tl::from_dlpack<const float>(host.t, "x");
  tl::launch<read_past<32>>(tl::grid(1), tl::options_for(x), x, out, 31);  // the last reads element 31: fine
  tl::launch_options collect = tl::options_for(x);
  collect.failure = tl::on_failure::collect;
  const auto r = tl::launch<read_past<32>>(tl::grid(1), collect, x, out, 32);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.str(), Catch::Contains("'x'") && Catch::Contains("32"));
}

TEST_CASE("dlpack: a launch without a backend runs where its tensors are; GPU memory is never read by host threads",
          "[dlpack][launch]") {
  std::vector<float> m(32, 1.0f), out(32, -1.0f);
  tensor host(m.data(), dl(2, 32), {32});
  tensor gpu0(m.data(), dl(2, 32), {32}, {}, 0, 2, 0);  // a CUDA tensor: looked at, never read
  tensor gpu1(m.data(), dl(2, 32), {32}, {}, 0, 2, 1);
  const auto h = tl::from_dlpack<const float>(host.t, "h");
  const auto g0 = tl::from_dlpack<const float>(gpu0.t, "g0");
  const auto g1 = tl::from_dlpack<float>(gpu1.t, "g1");
  // Host tensors and no options: the CPU backend, checked as usual.
  tl::launch<read_past<32>>(tl::grid(1), h, out, 31);
  CHECK(out[0] == 1.0f);
  // A CUDA tensor and no options: the CUDA backend, which this host-compiled unit cannot run;
  // before, host threads read the device memory (a crash).
  CHECK_THROWS_WITH((tl::launch<read_past<32>>(tl::grid(1), g0, tl::from_dlpack<float>(gpu1.t, "z"), 31)),
                    Catch::Contains("argument #1 ('z') is on CUDA device 1 and argument #0 ('g0') on device 0"));
  CHECK_THROWS_WITH((tl::launch<read_past<32>>(tl::grid(1), g0, g1, 31)), Catch::Contains("one launch runs on one device"));
  tensor gpu0_out(out.data(), dl(2, 32), {32}, {}, 0, 2, 0);
  CHECK_THROWS_WITH((tl::launch<read_past<32>>(tl::grid(1), g0, tl::from_dlpack<float>(gpu0_out.t, "z0"), 31)),
                    Catch::Contains("the CUDA backend needs the launching translation unit compiled by nvcc"));
  // A mix of host and GPU memory, named.
  CHECK_THROWS_WITH((tl::launch<read_past<32>>(tl::grid(1), g0, out, 31)),
                    Catch::Contains("read_past<32>: argument #0 ('g0') is in GPU memory (device 0) and "
                                    "argument #1 in host memory: one launch runs on one backend"));
  // The CPU backend asked for explicitly, with a CUDA tensor: refused with its name.
  out.assign(32, -1.0f);
  CHECK_THROWS_WITH((tl::launch<read_past<32>>(tl::grid(1), {.backend = tl::backend::cpu}, g0, out, 31)),
                    Catch::Contains("the launch runs on the CPU backend, and argument #0 ('g0') is in GPU memory "
                                    "(device 0), which host threads cannot read"));
  CHECK(out[0] == -1.0f);  // nothing ran
  // An explicit device other than the tensors'.
  CHECK_THROWS_WITH((tl::launch<read_past<32>>(tl::grid(1), {.backend = tl::backend::cuda, .device = 1}, g0,
                                               tl::from_dlpack<float>(gpu0_out.t, "z0"), 31)),
                    Catch::Contains("the launch runs on CUDA device 1, and argument #0 ('g0') is on device 0"));
}
