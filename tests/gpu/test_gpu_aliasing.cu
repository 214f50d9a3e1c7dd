// Host arguments that are the same memory: the CUDA launch mirrors overlapping host buffers in
// one device copy, so an in-place kernel given one container for two parameters, or
// overlapping spans of one vector, sees what the CPU backend sees. Each form is run on both
// backends from the same input, and the results must be equal element for element (the output
// starts poisoned with NaN where the kernel must write).
#include <span>

#include "gpu_testing.hpp"

using namespace gpu_testing;

namespace {
// z[i] = x[i] * 2 + 1: the same elements read and written by one program (in place when
// x and z are one buffer).
template <class X>
TL_KERNEL void scale_kernel(tl::ptr<X> x_ptr, tl::ptr<float> z_ptr, int n) {
  auto i = tl::program_id(0) * 64 + tl::arange<0, 64>();
  auto x = tl::load(x_ptr + i, i < n);
  tl::store(z_ptr + i, x * 2.0f + 1.0f, i < n);
}

// Three views of one buffer: y is read at i + shift, z written at i, both through
// non-overlapping windows of the same vector as x (read at i).
TL_KERNEL void windows_kernel(tl::ptr<const float> x_ptr, tl::ptr<const float> y_ptr, tl::ptr<float> z_ptr, int n,
                              int shift) {
  auto i = tl::program_id(0) * 64 + tl::arange<0, 64>();
  auto x = tl::load(x_ptr + i, i < n);
  auto y = tl::load(y_ptr + shift + i, i < n);
  tl::store(z_ptr + i, x + y, i < n);
}

template <class F>
void require_same_on_both(const std::vector<float>& input, F&& launch, const std::string& what) {
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> v = input;
    launch(v, o);
    return v;
  };
  const auto on_cpu = run(cpu);
  const auto on_gpu = run(cuda);
  require_agree(on_cpu, on_gpu, 0, 0, what);
  for (float e : on_cpu) REQUIRE(!std::isnan(e));
}
}  // namespace

TEST_CASE("one host container passed for two parameters is one buffer on the GPU, as on the CPU", "[gpu][launch]") {
  for (int n : {1, 63, 64, 1000}) {
    const auto input = random_values(std::size_t(n));
    const std::string size = " (n " + std::to_string(n) + ")";
    // The same std::vector twice: z = x * 2 + 1 in place.
    require_same_on_both(input, [&](std::vector<float>& v, const tl::launch_options& o) {
      tl::launch<scale_kernel<float>>(tl::grid(tl::cdiv(n, 64)), o, v, v, n);
    }, "same vector twice" + size);
    // A const view and a non-const view of it.
    require_same_on_both(input, [&](std::vector<float>& v, const tl::launch_options& o) {
      const std::vector<float>& cv = v;
      tl::launch<scale_kernel<const float>>(tl::grid(tl::cdiv(n, 64)), o, cv, v, n);
    }, "const and non-const views" + size);
    // Two tl::ptr of the same memory, one made from a pointer and a size.
    require_same_on_both(input, [&](std::vector<float>& v, const tl::launch_options& o) {
      tl::launch<scale_kernel<float>>(tl::grid(tl::cdiv(n, 64)), o, tl::ptr<float>(v.data(), n, "x"),
                                      tl::ptr(v, "z"), n);
    }, "ptr and vector" + size);
  }
}

TEST_CASE("overlapping spans of one vector share one device copy", "[gpu][launch]") {
  for (int n : {5, 64, 777}) {
    const int shift = n / 2 + 1;
    // v = [a | b | c], x = v[0, n), y = v[0, n + shift) read at i + shift, z = v[n + shift, 2n + shift)
    // written: x and y overlap each other; z overlaps neither's read window, but all three are
    // the same vector, copied in and back once.
    auto input = random_values(std::size_t(2 * n + shift));
    for (int i = n + shift; i < 2 * n + shift; ++i) input[std::size_t(i)] = NAN;  // poisoned: written by the kernel
    require_same_on_both(input, [&](std::vector<float>& v, const tl::launch_options& o) {
      std::span<const float> all(v);
      tl::launch<windows_kernel>(tl::grid(tl::cdiv(n, 64)), o, all.subspan(0, std::size_t(n)),
                                 all.subspan(0, std::size_t(n + shift)),
                                 std::span<float>(v).subspan(std::size_t(n + shift), std::size_t(n)), n, shift);
    }, "overlapping spans (n " + std::to_string(n) + ")");
    // Nested spans, both non-const: x = v[0, n) and z = v[0, n + 1), z = x * 2 + 1 in place
    // (each element read and written by one program); element n stays as it was.
    auto overlapped = random_values(std::size_t(n + 1));
    require_same_on_both(overlapped, [&](std::vector<float>& v, const tl::launch_options& o) {
      std::span<float> s(v);
      tl::launch<scale_kernel<float>>(tl::grid(tl::cdiv(n, 64)), o, s.subspan(0, std::size_t(n)),
                                      s.subspan(0, std::size_t(n + 1)), n);
    }, "nested spans, both written (n " + std::to_string(n) + ")");
  }
}
