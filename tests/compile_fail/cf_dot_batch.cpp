// cause: dot_batch_sizes_differ; tl::shape<2, 16, 16>; tl::shape<4, 16, 16>
// expect: the batch sizes of a 3-D dot differ
#include <tl/kernel.hpp>
int main() {
  auto a = tl::zeros<2, 16, 16>(tl::float16);
#ifdef TL_COMPILE_FAIL
  auto b = tl::zeros<4, 16, 16>(tl::float16);
#else
  auto b = tl::zeros<2, 16, 16>(tl::float16);
#endif
  auto c = tl::dot(a, b);
  (void)c;
}
