// compile-time.sh: a one-line add kernel and its launch, through the lean kernel header.
#include <tl/kernel.hpp>

template <int B0>
TL_KERNEL void add_kernel(tl::ptr<const float> x_ptr, tl::ptr<float> z_ptr, int n) {
  auto offs = tl::program_id(0) * B0 + tl::arange<0, B0>();
  tl::store(z_ptr + offs, tl::load(x_ptr + offs, offs < n) + 10.0f, offs < n);
}

tl::launch_report add(tl::ptr<const float> x, tl::ptr<float> z, int n, const tl::launch_options& o) {
  return tl::launch<add_kernel<1024>>(tl::grid(tl::cdiv(n, 1024)), o, x, z, n);
}
