// cause: atomic_poll_needs_integers; tl::op::atomic_poll; float
// expect: the pointers point at 16-, 32- or 64-bit integers
#include <tl/kernel.hpp>
TL_KERNEL void k(tl::ptr<float> flag, tl::ptr<int> flag_int, tl::ptr<int> out) {
#ifdef TL_COMPILE_FAIL
  tl::store(out, tl::atomic_poll(flag, 1.0f).to(tl::int32));
#else
  tl::store(out, tl::atomic_poll(flag_int, 1).to(tl::int32));
#endif
  (void)flag;
}
int main() {}
