// tl/launch/launch.hpp: tl::launch, the one entry point of every backend.
//
//   tl::launch<add_kernel<32>>(tl::grid(tl::cdiv(n, 32)), x, z, n);                  CPU
//   tl::launch<add_kernel<32>>(tl::grid(tl::cdiv(n, 32)), {.backend = tl::backend::cuda}, x, z, n);
#pragma once

#include "cpu.hpp"
#include "cuda.hpp"
#include "options.hpp"

namespace tl {
namespace detail {
inline namespace TL_LAUNCH_ABI {  // config.hpp: one set of symbols per warp count and bounds
template <auto Kernel, class... Args>
launch_report run(const grid& g, const launch_options& given, Args&&... args) {
  using params = typename detail::kernel_params<decltype(Kernel)>::tuple;
  const launch_options options = detail::launch_place(given, detail::kernel_name<Kernel>(), args...);
  detail::check_grid(g);
  detail::check_options(options);
  detail::check_argument_values<params>(detail::kernel_name<Kernel>(), args...);
  params bound{std::forward<Args>(args)...};
  std::vector<std::string> names(sizeof...(Args));
  std::apply([&](auto&... p) {
    int i = 0;
    (detail::prepare_argument(p, i++, names), ...);
  }, bound);

  launch_report r;
  if (options.backend == backend::cuda) {
#if defined(__CUDACC__)
    r = detail::cuda::run<Kernel>(g, options, bound);
#else
    throw usage_error("tl::launch: the CUDA backend needs the launching translation unit compiled by nvcc (a .cu "
                      "file, or LANGUAGE CUDA in CMake); this one was compiled by a host compiler");
#endif
  } else {
    r = detail::cpu::run<Kernel>(g, options, bound);
  }

  detail::finish_report(r, options);
  return r;
}
}  // namespace TL_LAUNCH_ABI
}  // namespace detail

inline namespace TL_LAUNCH_ABI {

// launch<kernel>(grid, options, args...): runs kernel(args...) once per program of the grid.
// Arguments convert to the kernel's parameter types (a std::vector<float>& becomes a checked
// tl::ptr<float>). Checks the grid, the options and the buffers before anything runs
// (tl::usage_error). Returns the report; by default throws tl::launch_error if it is not ok.
template <auto Kernel, class... Args>
launch_report launch(const grid& g, const launch_options& options, Args&&... args) {
  // A kernel or argument mistake stops at its one tl::error: the launch is not instantiated.
  if constexpr (detail::launch_is_well_formed<Kernel, Args&&...>())
    return detail::run<Kernel>(g, options, std::forward<Args>(args)...);
  else
    return {};
}

template <auto Kernel, class... Args>
  requires(!(std::is_same_v<std::remove_cvref_t<Args>, launch_options> || ...))
launch_report launch(const grid& g, Args&&... args) {
  return launch<Kernel>(g, launch_options{}, std::forward<Args>(args)...);
}

}  // namespace TL_LAUNCH_ABI
}  // namespace tl
