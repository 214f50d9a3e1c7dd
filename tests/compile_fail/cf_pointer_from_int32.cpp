// cause: pointer_cast_needs_int64; int
// expect: pointers convert only to and from 64-bit integers
// An int32 block made into pointers (addresses need 64 bits).
#include <tl/kernel.hpp>
int main() {
  auto a = tl::zeros<4>(tl::int32);
#ifdef TL_COMPILE_FAIL
  auto p = a.to(tl::pointer_type<float>);
#else
  auto p = a.to(tl::int64).to(tl::pointer_type<float>);
#endif
  (void)p;
}
