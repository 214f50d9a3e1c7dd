// cause: reshape_changes_the_number_of_elements; tl::shape<4, 8>; tl::shape<4, 4>
// expect: as many elements as the block
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<4, 8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto r = tl::reshape<4, 4>(x);
#else
  auto r = tl::reshape<8, 4>(x);
#endif
  (void)r;
}
