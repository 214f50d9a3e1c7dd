// tl/runtime/buffer.hpp: tl::buffer<T>, an owned array of up to 3 dimensions on the host
// (CPU backend) or in GPU memory (CUDA backend): what a launch's tensors live in.
//
//   tl::buffer<float> x(host_values, {h, w}, tl::backend::cuda, "x");   allocated, copied in
//   tl::buffer<float> z = x.empty_like("z");                              same shape and place
//   tl::launch<k>(grid, {.backend = x.backend()}, x, z, x.shape(0), x.stride(0));
//   std::vector<float> out = z.to_host();
//
// A buffer converts to a checked tl::ptr<T> (its size and name travel with it, so reports
// name it). It is row-major and contiguous; x.transposed() is a strided tl::view of it (what
// torch's x.T is), which check_tensors_ready refuses where a kernel assumes contiguity, and
// .contiguous() copies into a new buffer. Host interop: std::span / std::vector in and out,
// and any dense matrix with rows(), cols() and (i, j) (Eigen's included, without Eigen being
// a dependency of tl): tl::buffer<float>::from_matrix(m), x.to_matrix(m).
// Buffers on tl::backend::cuda exist only in translation units compiled by nvcc.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../backend/cuda/error.hpp"
#include "../launch/options.hpp"
#include "../core/ptr.hpp"

namespace tl {

// The sizes of a buffer or view: 1 to 3 axes.
struct extents {
  std::array<std::int64_t, 3> size{0, 1, 1};
  int rank = 1;
  extents() = default;
  extents(std::initializer_list<std::int64_t> s) {  // NOLINT: tl::buffer<float> x({3, 4})
    if (s.size() < 1 || s.size() > 3)
      throw usage_error("tl::buffer: " + std::to_string(s.size()) + " axes; a buffer has 1 to 3");
    rank = int(s.size());
    std::copy(s.begin(), s.end(), size.begin());
    for (int a = 0; a < rank; ++a)
      if (size[a] < 0) throw usage_error("tl::buffer: axis " + std::to_string(a) + " has negative size " +
                                         std::to_string(size[a]));
  }
  extents(std::int64_t n) : extents({n}) {}  // NOLINT: tl::buffer<float> x(1000)
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (int a = 0; a < rank; ++a) n *= size[a];
    return n;
  }
  std::string str() const {  // "3 x 4"
    std::string s;
    for (int a = 0; a < rank; ++a) {
      if (a) s += " x ";
      s += std::to_string(size[a]);
    }
    return s;
  }
};

// A dense host matrix: Eigen's Matrix, Map and Block, or anything with rows(), cols(), (i, j).
template <class M>
concept host_matrix = requires(const M& m) {
  { m.rows() } -> std::convertible_to<std::int64_t>;
  { m.cols() } -> std::convertible_to<std::int64_t>;
  m(0, 0);
};

template <class T>
class buffer;

// Host values a buffer can be made from: a contiguous range of T.
template <class R, class T>
concept host_values = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                      std::is_same_v<std::remove_cv_t<std::ranges::range_value_t<R>>, T>;

// A strided window on a buffer's memory (not owned): a transposed buffer, for instance.
template <class T>
struct view {
  T* data = nullptr;
  extents shape;
  std::array<std::int64_t, 3> strides{1, 1, 1};  // in elements
  tl::backend where = tl::backend::cpu;
  std::int64_t extent = 0;  // elements of the memory it lies in (what a checked pointer may reach)
  const char* name = nullptr;
  int device = -1;  // the CUDA device its memory is on (where == cuda); -1: not known (the current one)

  std::int64_t stride(int axis) const { return strides[std::size_t(axis)]; }
  std::int64_t size(int axis) const { return shape.size[std::size_t(axis)]; }
  std::int64_t numel() const { return shape.numel(); }
  bool is_contiguous() const {
    std::int64_t expect = 1;
    for (int a = shape.rank - 1; a >= 0; --a) {
      if (shape.size[a] != 1 && strides[a] != expect) return false;
      expect *= shape.size[a];
    }
    return true;
  }
  view transposed() const {  // the last two axes swapped
    view v = *this;
    if (shape.rank >= 2) {
      std::swap(v.shape.size[shape.rank - 1], v.shape.size[shape.rank - 2]);
      std::swap(v.strides[shape.rank - 1], v.strides[shape.rank - 2]);
    }
    return v;
  }
  // Where its elements are, for a launch that is not told its backend.
  detail::argument_memory memory_place() const {
    return {where == tl::backend::cuda ? detail::argument_memory::gpu : detail::argument_memory::host, device, data,
            name};
  }
  operator ptr<T>() const { return ptr<T>(data, extent, name); }  // NOLINT: a kernel argument
  operator ptr<const T>() const  // NOLINT
    requires(!std::is_const_v<T>)
  {
    return ptr<const T>(data, extent, name);
  }
  buffer<std::remove_const_t<T>> contiguous(std::string new_name = {}) const;
};

template <class T>
class buffer {
 public:
  using element_type = T;
  static constexpr bool owns_elements = true;  // a temporary buffer is no kernel output (tl::launch)

  buffer() = default;
  // Zero-filled, of the given shape, where the given backend's kernels read it.
  explicit buffer(extents shape, tl::backend where = tl::backend::cpu, std::string name = {})
      : shape_(shape), where_(where), name_(std::move(name)) {
    allocate();
    zero();
  }
  // A copy of host values (a std::vector, std::span, std::array... of T), of the given shape
  // (default: 1-D of their count). A template, so that a braced list is always a shape.
  template <class R>
    requires host_values<R, T>
  buffer(const R& host, extents shape, tl::backend where = tl::backend::cpu, std::string name = {})
      : shape_(shape), where_(where), name_(std::move(name)) {
    const std::span<const T> values(std::ranges::data(host), std::ranges::size(host));
    if (std::int64_t(values.size()) != shape_.numel())
      throw usage_error("tl::buffer '" + name_ + "': " + std::to_string(values.size()) + " values for shape " +
                        shape_.str() + " (" + std::to_string(shape_.numel()) + " elements)");
    allocate();
    upload(values);
  }
  template <class R>
    requires host_values<R, T>
  buffer(const R& host, tl::backend where = tl::backend::cpu, std::string name = {})
      : buffer(host, extents{std::int64_t(std::ranges::size(host))}, where, std::move(name)) {}

  // A rows x cols buffer holding a host matrix (any storage order), row-major.
  template <host_matrix M>
  static buffer from_matrix(const M& m, tl::backend where = tl::backend::cpu, std::string name = {}) {
    const std::int64_t rows = m.rows(), cols = m.cols();
    std::vector<T> host(static_cast<std::size_t>(rows * cols));
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) host[std::size_t(i * cols + j)] = T(m(i, j));
    return buffer(host, {rows, cols}, where, std::move(name));
  }

  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  buffer(buffer&& o) noexcept { swap(o); }
  buffer& operator=(buffer&& o) noexcept {
    swap(o);
    return *this;
  }
  ~buffer() { release(); }

  // A zero-filled buffer of the same shape on the same backend (torch.zeros_like).
  buffer zeros_like(std::string name = {}) const { return buffer(shape_, where_, std::move(name)); }
  // The same, every element `value` (torch.full_like); empty_like is zeros_like: never garbage.
  buffer full_like(T value, std::string name = {}) const {
    buffer b(shape_, where_, std::move(name));
    b.fill(value);
    return b;
  }
  buffer empty_like(std::string name = {}) const { return zeros_like(std::move(name)); }
  // A copy, here or on another backend (torch's .to(device), .clone()).
  buffer to(tl::backend where, std::string name = {}) const {
    return buffer(std::span<const T>(to_host()), shape_, where, name.empty() ? name_ : std::move(name));
  }

  void zero() {  // every byte 0 (0 of every element type)
    const std::size_t bytes = std::size_t(numel()) * sizeof(T);
    if (!bytes) return;
    if (where_ == tl::backend::cpu) {
      std::memset(static_cast<void*>(data_), 0, bytes);
      return;
    }
#if defined(__CUDACC__)
    TL_CUDA_CHECK(cudaMemset(data_, 0, bytes));
#endif
  }
  void fill(T value) {
    if (numel() == 0) return;
    if (where_ == tl::backend::cpu) {
      std::fill(data_, data_ + numel(), value);
      return;
    }
    const std::vector<T> values(static_cast<std::size_t>(numel()), value);
    upload(values);
  }
  void upload(std::span<const T> host) {
    if (std::int64_t(host.size()) != numel())
      throw usage_error("tl::buffer '" + name_ + "': upload of " + std::to_string(host.size()) + " elements into " +
                        std::to_string(numel()));
    copy(data_, host.data(), true);
  }
  void download(std::span<T> host) const {
    if (std::int64_t(host.size()) != numel())
      throw usage_error("tl::buffer '" + name_ + "': download of " + std::to_string(numel()) + " elements into " +
                        std::to_string(host.size()));
    copy(host.data(), data_, false);
  }
  std::vector<T> to_host() const {
    std::vector<T> v(static_cast<std::size_t>(numel()));
    download(v);
    return v;
  }
  // Fills a host matrix (resized where it can be: Eigen's dynamic matrices).
  template <class M>
  void to_matrix(M& m) const {
    if (rank() != 2) throw usage_error("tl::buffer '" + name_ + "': to_matrix of a " + shape_.str() + " buffer");
    if (std::int64_t(m.rows()) != shape(0) || std::int64_t(m.cols()) != shape(1)) resize_matrix(m);
    if (std::int64_t(m.rows()) != shape(0) || std::int64_t(m.cols()) != shape(1))
      throw usage_error("tl::buffer '" + name_ + "': to_matrix into a " + std::to_string(m.rows()) + " x " +
                        std::to_string(m.cols()) + " matrix from " + shape_.str());
    const std::vector<T> v = to_host();
    for (std::int64_t i = 0; i < shape(0); ++i)
      for (std::int64_t j = 0; j < shape(1); ++j) m(i, j) = v[std::size_t(i * shape(1) + j)];
  }

  // Resizes m to this buffer's shape where it can be. Eigen's fixed extents (not Eigen::Dynamic,
  // -1) and maps (no conservativeResize: they do not own their memory) cannot change, and their
  // resize() asserts: they are left for to_matrix's check to refuse.
  template <class M>
  void resize_matrix(M& m) const {
    if constexpr (requires { M::RowsAtCompileTime; M::ColsAtCompileTime; }) {
      if constexpr (requires { m.conservativeResize(shape(0), shape(1)); }) {
        const bool rows_free = M::RowsAtCompileTime < 0 || M::RowsAtCompileTime == shape(0);
        const bool cols_free = M::ColsAtCompileTime < 0 || M::ColsAtCompileTime == shape(1);
        if (rows_free && cols_free) m.resize(shape(0), shape(1));
      }
    } else if constexpr (requires { m.resize(shape(0), shape(1)); }) {
      m.resize(shape(0), shape(1));
    }
  }

  T* data() const { return data_; }
  std::int64_t numel() const { return shape_.numel(); }
  std::size_t size() const { return std::size_t(numel()); }
  int rank() const { return shape_.rank; }
  std::int64_t shape(int axis) const { return shape_.size[std::size_t(axis)]; }
  const extents& sizes() const { return shape_; }
  std::int64_t stride(int axis) const { return view_of().stride(axis); }
  tl::backend backend() const { return where_; }
  const std::string& name() const { return name_; }
  bool is_contiguous() const { return true; }

  tl::view<T> view_of() const {
    tl::view<T> v;
    v.data = data_;
    v.shape = shape_;
    std::int64_t s = 1;
    for (int a = shape_.rank - 1; a >= 0; --a) {
      v.strides[std::size_t(a)] = s;
      s *= shape_.size[std::size_t(a)];
    }
    v.where = where_;
    v.extent = numel();
    v.name = name_.empty() ? nullptr : name_.c_str();
    return v;
  }
  tl::view<T> transposed() const { return view_of().transposed(); }
  detail::argument_memory memory_place() const { return view_of().memory_place(); }

  operator ptr<T>() const { return view_of(); }        // NOLINT: a kernel argument
  operator ptr<const T>() const { return view_of(); }  // NOLINT

 private:
  void allocate() {
    if (where_ == tl::backend::automatic)
      throw usage_error("tl::buffer '" + name_ + "': a buffer lives on one backend: tl::backend::cpu or tl::backend::cuda");
    const std::size_t bytes = std::size_t(numel()) * sizeof(T);
    if (where_ == tl::backend::cpu) {
      data_ = bytes ? static_cast<T*>(::operator new(bytes, std::align_val_t(64))) : nullptr;
      return;
    }
#if defined(__CUDACC__)
    if (bytes) TL_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes));
#else
    throw usage_error("tl::buffer '" + name_ + "': a buffer on the CUDA backend needs its translation unit compiled "
                      "by nvcc (a .cu file, or LANGUAGE CUDA in CMake)");
#endif
  }
  void release() noexcept {
    if (!data_) return;
    if (where_ == tl::backend::cpu) ::operator delete(data_, std::align_val_t(64));
#if defined(__CUDACC__)
    else cudaFree(data_);  // not checked: a destructor must not throw
#endif
    data_ = nullptr;
  }
  // Copies numel() elements between this buffer's memory and the host.
  void copy(T* to, const T* from, bool to_buffer) const {
    const std::size_t bytes = std::size_t(numel()) * sizeof(T);
    if (!bytes) return;
    if (where_ == tl::backend::cpu) {
      std::memcpy(static_cast<void*>(to), from, bytes);
      return;
    }
#if defined(__CUDACC__)
    TL_CUDA_CHECK(cudaMemcpy(to, from, bytes, to_buffer ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
#else
    (void)to_buffer;
#endif
  }
  void swap(buffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(shape_, o.shape_);
    std::swap(where_, o.where_);
    std::swap(name_, o.name_);
  }

  T* data_ = nullptr;
  extents shape_{0};
  tl::backend where_ = tl::backend::cpu;
  std::string name_;
};

template <class T>
buffer<std::remove_const_t<T>> view<T>::contiguous(std::string new_name) const {
  using U = std::remove_const_t<T>;
  // Through the host: gather the strided elements into row-major order.
  std::vector<U> memory(static_cast<std::size_t>(extent));
  if (extent) {
    if (where == tl::backend::cpu) std::copy(data, data + extent, memory.begin());
#if defined(__CUDACC__)
    else TL_CUDA_CHECK(cudaMemcpy(memory.data(), data, std::size_t(extent) * sizeof(U), cudaMemcpyDeviceToHost));
#endif
  }
  std::vector<U> out(static_cast<std::size_t>(numel()));
  std::size_t k = 0;
  for (std::int64_t i = 0; i < shape.size[0]; ++i)
    for (std::int64_t j = 0; j < (shape.rank > 1 ? shape.size[1] : 1); ++j)
      for (std::int64_t l = 0; l < (shape.rank > 2 ? shape.size[2] : 1); ++l)
        out[k++] = memory[std::size_t(i * strides[0] + j * strides[1] + l * strides[2])];
  return buffer<U>(out, shape, where, new_name.empty() && name ? std::string(name) : std::move(new_name));
}

}  // namespace tl
