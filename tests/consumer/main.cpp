// Built against an installed tl: a kernel, a launch, a check of the result.
#include <tl/tl.hpp>

#include <cstdio>
#include <vector>

template <int B>
TL_KERNEL void scale_kernel(tl::ptr<float> x, tl::ptr<float> z, float a, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto mask = offs < n;
  tl::store(z + offs, a * tl::load(x + offs, mask), mask);
}

int main() {
  const int n = 1000;
  std::vector<float> x(n), z(n, -1.0f);
  for (int i = 0; i < n; ++i) x[i] = float(i);
  tl::launch<scale_kernel<128>>(tl::grid(tl::cdiv(n, 128)), x, z, 0.5f, n);
  for (int i = 0; i < n; ++i)
    if (z[i] != 0.5f * float(i)) {
      std::printf("consumer: z[%d] = %g, expected %g\n", i, z[i], 0.5f * float(i));
      return 1;
    }
  std::printf("consumer: ok\n");
  return 0;
}
