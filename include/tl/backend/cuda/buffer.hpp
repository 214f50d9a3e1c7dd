// tl/backend/cuda/buffer.hpp: tl::cuda::buffer<T>, a named, sized array in GPU memory.
//
//   tl::cuda::buffer<float> x(host_x, "x");    // allocated and copied in
//   tl::launch<k>(grid, {.backend = tl::backend::cuda}, x, z, n);
//   std::vector<float> out = z.to_host();
// It converts to a checked tl::ptr<T> (its size and name travel with it), so device checks
// and reports know the buffer. Host std::vectors can be passed to a CUDA launch directly
// too (they are copied in and back around the kernel), which is simple but not fast.
#pragma once

#if defined(__CUDACC__)
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../../ops/memory.hpp"
#include "error.hpp"

namespace tl::cuda {

template <class T>
class buffer {
 public:
  buffer() = default;
  explicit buffer(std::size_t n, std::string name = {}) : n_(n), name_(std::move(name)) {
    if (n_) TL_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), n_ * sizeof(T)));
  }
  buffer(std::span<const T> host, std::string name = {}) : buffer(host.size(), std::move(name)) { upload(host); }
  buffer(const std::vector<T>& host, std::string name = {}) : buffer(std::span<const T>(host), std::move(name)) {}
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  buffer(buffer&& o) noexcept { swap(o); }
  buffer& operator=(buffer&& o) noexcept {
    swap(o);
    return *this;
  }
  ~buffer() {
    if (data_) cudaFree(data_);  // not checked: a destructor must not throw
  }

  void upload(std::span<const T> host) {
    if (host.size() != n_)
      throw std::invalid_argument("tl::cuda::buffer '" + name_ + "': upload of " + std::to_string(host.size()) +
                                  " elements into " + std::to_string(n_));
    if (n_) TL_CUDA_CHECK(cudaMemcpy(data_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  void download(std::span<T> host) const {
    if (host.size() != n_)
      throw std::invalid_argument("tl::cuda::buffer '" + name_ + "': download of " + std::to_string(n_) +
                                  " elements into " + std::to_string(host.size()));
    if (n_) TL_CUDA_CHECK(cudaMemcpy(host.data(), data_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
  }
  std::vector<T> to_host() const {
    std::vector<T> v(n_);
    download(v);
    return v;
  }

  T* data() const { return data_; }
  std::size_t size() const { return n_; }
  const std::string& name() const { return name_; }
  operator ptr<T>() const { return ptr<T>(data_, std::int64_t(n_), name_.empty() ? nullptr : name_.c_str()); }  // NOLINT
  operator ptr<const T>() const {  // NOLINT
    return ptr<const T>(data_, std::int64_t(n_), name_.empty() ? nullptr : name_.c_str());
  }

 private:
  void swap(buffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(n_, o.n_);
    std::swap(name_, o.name_);
  }
  T* data_ = nullptr;
  std::size_t n_ = 0;
  std::string name_;
};

}  // namespace tl::cuda
#endif
