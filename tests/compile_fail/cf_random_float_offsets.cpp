// cause: random_needs_integer_seed_and_offsets; (rand|Op=tl::op::rand)
// expect: the seed and the offsets must be integers
// tl.rand with float offsets (a block of x values instead of their positions).
#include <tl/kernel.hpp>
int main() {
  auto offs = tl::arange<0, 16>();
#ifdef TL_COMPILE_FAIL
  auto r = tl::rand(42, offs.to(tl::float32));
#else
  auto r = tl::rand(42, offs);
#endif
  (void)r;
}
