// cause: permutation_invalid; (0, 0, 1|integer_sequence<int, 0, 0, 1>)
// expect: the axes must be a permutation of 0 .. rank-1
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<2, 4, 8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto p = tl::permute<0, 0, 1>(x);
#else
  auto p = tl::permute<2, 0, 1>(x);
#endif
  (void)p;
}
