// One translation unit's view of the dynamic shared memory's header (included by abi_tma0.cu
// and abi_tma1.cu, which differ in TL_DESCRIPTOR_TMA): the size its own header has, and what
// dynamic_bytes, a function the launch calls, computes for an arena of `arena` bytes.
#include <tl/kernel.hpp>

#define TL_ABI_NAME(name) TL_CAT_(name, TL_DESCRIPTOR_TMA)  // config.hpp's

unsigned TL_ABI_NAME(own_header_bytes_)();
unsigned TL_ABI_NAME(planned_bytes_)(unsigned arena);

unsigned TL_ABI_NAME(own_header_bytes_)() { return unsigned((sizeof(tl::detail::cuda::dot_ring) + 15) / 16 * 16); }
unsigned TL_ABI_NAME(planned_bytes_)(unsigned arena) {
  tl::detail::cuda::dynamic_layout layout;
  layout.arena = arena;
  return tl::detail::cuda::dynamic_bytes(layout);  // an out-of-line call: the unit is built with -fno-inline
}
