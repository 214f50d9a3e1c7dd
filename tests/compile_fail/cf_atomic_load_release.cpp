// cause: atomic_semantics_not_allowed; tl::op::atomic_load; memory_sem::release
// expect: tl::atomic_load and tl::atomic_poll take tl::acquire
#include <tl/kernel.hpp>
TL_KERNEL void k(tl::ptr<int> flag, tl::ptr<int> out) {
#ifdef TL_COMPILE_FAIL
  tl::store(out, tl::atomic_load(flag, tl::release));
#else
  tl::store(out, tl::atomic_load(flag, tl::acquire));
#endif
}
int main() {}
