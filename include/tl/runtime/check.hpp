// tl/runtime/check.hpp: check_tensors_ready and check_shape, the checks a launcher makes on
// its tensors (Triton's check_tensors_gpu_ready: contiguous, and where the backend can read
// them; and the sizes the kernel will index them with).
//
//   tl::check_tensors_ready(tl::backend::cuda, a, b, c);
//     throws tl::usage_error: "check_tensors_ready: tensor #1 ('b', 512 x 512) is not
//     contiguous (strides 1, 512): a kernel indexing it as row-major reads the wrong elements;
//     pass its strides to the kernel, or copy it with .contiguous()"
//
// Tensors: tl::buffer, tl::view, tl::ptr, host ranges (std::vector, std::span) and host
// matrices (Eigen's). A kernel that takes strides can be given a non-contiguous view;
// this check is for the ones that assume row-major.
#pragma once

#include <string>
#include <type_traits>

#include "buffer.hpp"

namespace tl {
namespace detail {

inline std::string tensor_label(int index, const char* name, const std::string& shape = {}) {
  std::string s = "tensor #" + std::to_string(index);
  if ((name && *name) || !shape.empty()) {
    s += " (";
    if (name && *name) s += std::string("'") + name + "'";
    if (name && *name && !shape.empty()) s += ", ";
    s += shape + ")";
  }
  return s;
}

[[noreturn]] inline void not_ready(const std::string& what) {
  throw usage_error("tl::check_tensors_ready: " + what);
}

// Where a raw address lies: 1 device (or managed) memory, 0 host memory, -1 unknown (no nvcc).
inline int device_memory(const void* p) {
#if defined(__CUDACC__)
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? 1 : 0;
#else
  (void)p;
  return -1;
#endif
}

inline void check_place(int index, const char* name, const std::string& shape, bool on_device, tl::backend on) {
  const std::string label = tensor_label(index, name, shape);
  if (on == tl::backend::cuda && !on_device)
    not_ready(label + " is in host memory, and the launch runs on the CUDA backend: put it in a tl::buffer on "
                      "tl::backend::cuda (a launch would copy host memory in and out at every call)");
  if (on == tl::backend::cpu && on_device)
    not_ready(label + " is in GPU memory, and the launch runs on the CPU backend, whose programs cannot read it: "
                      "copy it to the host with .to(tl::backend::cpu)");
}

inline std::string strides_text(const std::array<std::int64_t, 3>& s, int rank) {
  std::string t;
  for (int a = 0; a < rank; ++a) {
    if (a) t += ", ";
    t += std::to_string(s[std::size_t(a)]);
  }
  return t;
}

template <class T>
void check_tensor(int index, const tl::view<T>& v, tl::backend on) {
  const std::string label = tensor_label(index, v.name, v.shape.str());
  if (!v.data && v.numel() > 0) not_ready(label + " has no memory (a null pointer)");
  if (!v.is_contiguous())
    not_ready(label + " is not contiguous (strides " + strides_text(v.strides, v.shape.rank) +
              "): a kernel indexing it as row-major reads the wrong elements; pass its strides to the kernel, or "
              "copy it with .contiguous()");
  check_place(index, v.name, v.shape.str(), v.where == tl::backend::cuda, on);
}
template <class T>
void check_tensor(int index, const buffer<T>& b, tl::backend on) {
  check_tensor(index, b.view_of(), on);
}
template <class T>
void check_tensor(int index, const ptr<T>& p, tl::backend on) {
  const std::string label = tensor_label(index, p.name);
  if (!p.base) {
    if (p.extent == 0) return;
    not_ready(label + " is a null pointer");
  }
  if (reinterpret_cast<std::uintptr_t>(p.base) % alignof(T) != 0)
    not_ready(label + " starts at an address that is not a multiple of " + std::to_string(alignof(T)) +
              " bytes, the alignment of its element type");
  const int device = device_memory(p.base);
  if (device >= 0) check_place(index, p.name, {}, device == 1, on);
}
template <class R>
  requires(std::ranges::contiguous_range<R> && !host_matrix<R>)
void check_tensor(int index, const R& r, tl::backend on) {
  check_place(index, nullptr, std::to_string(std::ranges::size(r)), false, on);
}
template <host_matrix M>
void check_tensor(int index, const M& m, tl::backend on) {
  const std::string shape = std::to_string(m.rows()) + " x " + std::to_string(m.cols());
  if constexpr (requires { m.innerStride(); m.outerStride(); m.innerSize(); }) {
    if (m.innerStride() != 1 || (m.outerStride() != m.innerSize() && m.outerSize() > 1))
      not_ready(tensor_label(index, nullptr, shape) + " is not contiguous (inner stride " +
                std::to_string(m.innerStride()) + ", outer stride " + std::to_string(m.outerStride()) +
                "): copy it into a dense matrix first");
  }
  check_place(index, nullptr, shape, false, on);
}

template <class T>
std::int64_t elements_of(const ptr<T>& p) {
  return p.extent;
}
template <class R>
  requires std::ranges::sized_range<R>
std::int64_t elements_of(const R& r) {
  return std::int64_t(std::ranges::size(r));
}

}  // namespace detail

// Throws tl::usage_error naming the first tensor that is not contiguous or not where the
// backend's programs can read it (or a null or misaligned pointer).
template <class... Tensors>
void check_tensors_ready(tl::backend on, const Tensors&... tensors) {
  int index = 0;
  (detail::check_tensor(index++, tensors, on), ...);
}

// The size check a launcher makes before launching a kernel that indexes a tensor with the
// sizes it is given (Triton wrappers' `assert a.shape[1] == b.shape[0]`): throws
// tl::usage_error unless the tensor has exactly that shape (a tl::buffer or tl::view), or
// holds at least that many elements (a range or a checked tl::ptr, which have no shape).
//   tl::check_shape(a, {m, k}, "a");  ->  "tl::check_shape: 'a' is 512 x 256; the launch
//                                          needs 512 x 512"
template <class T>
void check_shape(const tl::view<T>& v, const extents& expected, const char* name = nullptr) {
  const char* label = name ? name : (v.name ? v.name : "tensor");
  bool same = v.shape.rank == expected.rank;
  for (int a = 0; same && a < expected.rank; ++a) same = v.shape.size[std::size_t(a)] == expected.size[std::size_t(a)];
  if (!same)
    throw usage_error(std::string("tl::check_shape: '") + label + "' is " + v.shape.str() + "; the launch needs " +
                      expected.str());
}
template <class T>
void check_shape(const buffer<T>& b, const extents& expected, const char* name = nullptr) {
  check_shape(b.view_of(), expected, name);
}
template <class R>
  requires(requires(const R& r) { detail::elements_of(r); } && !host_matrix<R>)
void check_shape(const R& r, const extents& expected, const char* name = nullptr) {
  const std::int64_t have = detail::elements_of(r);
  const char* label = name ? name : "tensor";
  if (have < 0) return;  // an unchecked pointer: its size is not known
  if (have < expected.numel())
    throw usage_error(std::string("tl::check_shape: '") + label + "' has " + std::to_string(have) +
                      " elements; the launch needs " + expected.str() +
                      (expected.rank > 1 ? " = " + std::to_string(expected.numel()) : std::string()));
}
template <host_matrix M>
void check_shape(const M& m, const extents& expected, const char* name = nullptr) {
  const extents have{std::int64_t(m.rows()), std::int64_t(m.cols())};
  if (expected.rank != 2 || have.size[0] != expected.size[0] || have.size[1] != expected.size[1])
    throw usage_error(std::string("tl::check_shape: '") + (name ? name : "matrix") + "' is " + have.str() +
                      "; the launch needs " + expected.str());
}

namespace detail {
struct place {
  tl::backend where = tl::backend::cpu;
  int device = -1;
  std::string label;
  bool set = false;
};
// A CUDA view's device: its own, else (a tl::buffer's, -1) the current device where this
// translation unit can ask the runtime (nvcc), else -1 (not compared).
template <class T>
int device_of(const tl::view<T>& v) {
  if (v.where != tl::backend::cuda || v.device >= 0) return v.device;
#if defined(__CUDACC__)
  int d = 0;
  if (cudaGetDevice(&d) == cudaSuccess) return d;
  (void)cudaGetLastError();
#endif
  return -1;
}
template <class T>
void agree(place& p, const tl::view<T>& v, int index) {
  const std::string label = tensor_label(index, v.name);
  const int device = device_of(v);
  if (!p.set) {
    p = {v.where, device, label, true};
    return;
  }
  auto memory = [](tl::backend b) { return b == tl::backend::cuda ? "GPU memory" : "host memory"; };
  if (v.where != p.where)
    throw usage_error("tl::options_for: " + label + " is in " + memory(v.where) + " and " + p.label + " in " +
                      memory(p.where) + ": one launch runs on one backend");
  if (device >= 0 && p.device >= 0 && device != p.device)
    throw usage_error("tl::options_for: " + label + " is on CUDA device " + std::to_string(device) + " and " +
                      p.label + " on device " + std::to_string(p.device) + ": one launch runs on one device");
  if (p.device < 0 && device >= 0) {
    p.device = device;
    p.label = label;  // the tensor that named the device, for a later mismatch's message
  }
}
template <class T>
void agree(place& p, const buffer<T>& b, int index) {
  agree(p, b.view_of(), index);
}
}  // namespace detail

// The launch options that run a kernel where its tensors (tl::view, tl::buffer) are: the CUDA
// backend, on their device, when they are in GPU memory; the CPU backend when in host memory.
// Throws tl::usage_error when they disagree (a host and a GPU tensor, two devices). The first
// form keeps the other options of `base` (a stream, the warps).
//   tl::launch<k>(grid, tl::options_for(x, y), x, y, n);
template <class... Tensors>
launch_options options_for(launch_options base, const Tensors&... tensors) {
  detail::place p;
  int index = 0;
  (detail::agree(p, tensors, index++), ...);
  base.backend = p.where;
  if (p.where == tl::backend::cpu) base.device = -1;
  else if (p.device >= 0) base.device = p.device;  // else the caller's choice (base.device) stands
  return base;
}
template <class First, class... Tensors>
  requires(!std::is_same_v<First, launch_options>)
launch_options options_for(const First& first, const Tensors&... tensors) {
  return options_for(launch_options{}, first, tensors...);
}

}  // namespace tl
