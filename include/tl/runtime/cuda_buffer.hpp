// tl/runtime/cuda_buffer.hpp: tl::cuda::buffer<T>, a tl::buffer (runtime/buffer.hpp) that is
// always in GPU memory: 1-D, named.
//
//   tl::cuda::buffer<float> x(host_x, "x");    // allocated and copied in
//   tl::launch<k>(grid, {.backend = tl::backend::cuda}, x, z, n);
//   std::vector<float> out = z.to_host();
// It converts to a checked tl::ptr<T> (its size and name travel with it), so device checks
// and reports know the buffer. Host std::vectors can be passed to a CUDA launch directly
// too (they are copied in and back around the kernel), which is simple but not fast.
#pragma once

#if defined(__CUDACC__)
#include "buffer.hpp"

namespace tl::cuda {

template <class T>
class buffer : public tl::buffer<T> {
 public:
  buffer() = default;
  explicit buffer(std::size_t n, std::string name = {})
      : tl::buffer<T>(extents{std::int64_t(n)}, tl::backend::cuda, std::move(name)) {}
  template <class R>
    requires host_values<R, T>
  buffer(const R& host, std::string name = {}) : tl::buffer<T>(host, tl::backend::cuda, std::move(name)) {}
};

}  // namespace tl::cuda
#endif
