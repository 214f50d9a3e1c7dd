// cause: atomic_options_after_mask; (atomic_add|Op=tl::op::atomic_add)
// expect: after the value come the mask, then the memory semantics
// The memory semantics before the mask: Triton's keyword order is mask, sem, scope.
#include <tl/kernel.hpp>
int main() {
  int data[8] = {};
  tl::ptr<int> x(data, 8);
  auto offs = tl::arange<0, 8>();
#ifdef TL_COMPILE_FAIL
  (void)tl::atomic_add(x + offs, 1, tl::relaxed, offs < 4);
#else
  (void)tl::atomic_add(x + offs, 1, offs < 4, tl::relaxed);
#endif
}
