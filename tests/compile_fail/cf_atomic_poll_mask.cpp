// cause: atomic_poll_takes_options_only; tl::op::atomic_poll
// expect: has no mask, as in Triton; after expected come only
#include <tl/kernel.hpp>
TL_KERNEL void k(tl::ptr<int> flags, tl::ptr<int> out) {
  auto offs = tl::arange<0, 4>();
#ifdef TL_COMPILE_FAIL
  tl::store(out + offs, tl::atomic_poll(flags + offs, 1, offs < 2).to(tl::int32));
#else
  tl::store(out + offs, tl::atomic_poll(flags + offs, 1, tl::relaxed, tl::timeout_ns{100}).to(tl::int32));
#endif
}
int main() {}
