// One translation unit's view of the launch's settings (included by abi_tma0.cu and abi_tma1.cu,
// which differ in TL_DESCRIPTOR_TMA): a function of the launch's symbol namespace (config.hpp:
// TL_LAUNCH_ABI) whose body reads the setting, as the launch functions' bodies do, and what
// dynamic_bytes, a function the launch calls, computes for an arena of `arena` bytes.
#include <tl/kernel.hpp>

#define TL_ABI_NAME(name) TL_CAT_(name, TL_DESCRIPTOR_TMA)  // config.hpp's

namespace tl::detail::cuda {
inline namespace TL_LAUNCH_ABI {
inline unsigned unit_setting() { return TL_DESCRIPTOR_TMA; }  // one body per setting, if the namespaces differ
}  // namespace TL_LAUNCH_ABI
}  // namespace tl::detail::cuda

unsigned TL_ABI_NAME(unit_setting_)();
unsigned TL_ABI_NAME(planned_bytes_)(unsigned arena);

unsigned TL_ABI_NAME(unit_setting_)() { return tl::detail::cuda::unit_setting(); }  // an out-of-line call (-fno-inline)
unsigned TL_ABI_NAME(planned_bytes_)(unsigned arena) {
  tl::detail::cuda::dynamic_layout layout;
  layout.arena = arena;
  return tl::detail::cuda::dynamic_bytes(layout);
}
