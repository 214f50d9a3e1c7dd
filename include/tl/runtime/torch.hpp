// tl/runtime/torch.hpp: torch tensors as tl::view and tl::ptr, and the launch options that run
// a kernel where PyTorch runs its own: the tensor's backend and device, PyTorch's current stream.
//
//   at::Tensor x = ..., y = torch::empty_like(x);
//   auto xv = tl::from_torch<const tl::fp16>(x, "x");
//   auto yv = tl::from_torch<tl::fp16>(y, "y");
//   tl::launch<k>(grid, tl::options_for_torch(xv, yv), xv, yv, int(x.size(0)), int(x.stride(0)));
//
// CPU tensors run on the CPU backend (every access checked), CUDA tensors on the CUDA backend on
// their device and on PyTorch's current stream of that device, so that the kernel is ordered
// with the torch ops around it. Refusals throw tl::usage_error (examples/torch's operators turn
// it into a Python ValueError with its text): an element type other than T, a device other than
// CPU or CUDA, an undefined tensor, more than 3 axes for a view (tl::ptr_from_torch takes any). A view keeps the tensor's strides: a kernel that assumes contiguity checks it
// (tl::check_tensors_ready) or is given a .contiguous() copy.
//
// Needs PyTorch's C++ headers (torch.utils.cpp_extension, or CMake's find_package(Torch)); not
// part of <tl/tl.hpp>. Compiled by a host compiler or nvcc; the stream comes from c10's CUDA
// headers where PyTorch was built with CUDA (TL_TORCH_CUDA, default: when the headers are there).
#pragma once

#include <ATen/core/Tensor.h>

#if !defined(TL_TORCH_CUDA) && __has_include(<c10/cuda/CUDAStream.h>) && __has_include(<cuda_runtime_api.h>)
#define TL_TORCH_CUDA 1
#endif
#if TL_TORCH_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

#include <cstdint>
#include <string>
#include <type_traits>

#include "buffer.hpp"
#include "check.hpp"

namespace tl {
namespace detail {

// The torch dtype of tl's element type T (c10::ScalarType::Undefined where torch has none).
template <class T>
constexpr c10::ScalarType scalar_type_of() {
  using U = std::remove_const_t<T>;
  using c10::ScalarType;
  if constexpr (std::is_same_v<U, float>) return ScalarType::Float;
  else if constexpr (std::is_same_v<U, double>) return ScalarType::Double;
  else if constexpr (std::is_same_v<U, fp16>) return ScalarType::Half;
  else if constexpr (std::is_same_v<U, bf16>) return ScalarType::BFloat16;
  else if constexpr (std::is_same_v<U, fp8e4nv>) return ScalarType::Float8_e4m3fn;
  else if constexpr (std::is_same_v<U, fp8e5>) return ScalarType::Float8_e5m2;
  else if constexpr (std::is_same_v<U, fp8e4b8>) return ScalarType::Float8_e4m3fnuz;
  else if constexpr (std::is_same_v<U, fp8e5b16>) return ScalarType::Float8_e5m2fnuz;
  else if constexpr (std::is_same_v<U, bool>) return ScalarType::Bool;
  else if constexpr (std::is_same_v<U, std::int8_t>) return ScalarType::Char;
  else if constexpr (std::is_same_v<U, std::uint8_t>) return ScalarType::Byte;
  else if constexpr (std::is_same_v<U, std::int16_t>) return ScalarType::Short;
  else if constexpr (std::is_same_v<U, std::int32_t>) return ScalarType::Int;
  else if constexpr (std::is_same_v<U, std::int64_t>) return ScalarType::Long;
  else if constexpr (std::is_same_v<U, std::uint16_t>) return ScalarType::UInt16;
  else if constexpr (std::is_same_v<U, std::uint32_t>) return ScalarType::UInt32;
  else if constexpr (std::is_same_v<U, std::uint64_t>) return ScalarType::UInt64;
  else return ScalarType::Undefined;
}

[[noreturn]] inline void refuse(const char* name, const std::string& what) {
  throw usage_error(std::string("tl::from_torch: tensor '") + (name && *name ? name : "?") + "' " + what);
}

inline std::string dtype_text(c10::ScalarType s) {
  std::string t = c10::toString(s);  // "Half", "Float", ...: torch's Python names read better
  if (s == c10::ScalarType::Half) return "torch.float16";
  if (s == c10::ScalarType::Float) return "torch.float32";
  if (s == c10::ScalarType::Double) return "torch.float64";
  if (s == c10::ScalarType::BFloat16) return "torch.bfloat16";
  if (s == c10::ScalarType::Int) return "torch.int32";
  if (s == c10::ScalarType::Long) return "torch.int64";
  return "torch " + t;
}

template <class T>
T* checked_start(const at::Tensor& t, const char* name) {
  constexpr c10::ScalarType want = scalar_type_of<T>();
  static_assert(want != c10::ScalarType::Undefined, "tl::from_torch: this element type has no torch dtype");
  if (!t.defined()) refuse(name, "is undefined (an empty at::Tensor)");
  if (t.layout() != c10::kStrided)
    refuse(name, "has layout " + std::string(c10::toString(t.layout())) + "; tl takes dense (strided) tensors: .to_dense()");
  if (t.scalar_type() != want)
    refuse(name, "is " + dtype_text(t.scalar_type()) + "; the view asked for holds " + dtype_text(want) +
                     " (convert it with .to(" + dtype_text(want) + "))");
  if (!t.device().is_cpu() && !t.device().is_cuda())
    refuse(name, "is on device " + t.device().str() + "; tl's backends run on CPU and CUDA tensors");
  T* start = static_cast<T*>(const_cast<void*>(t.data_ptr()));
  if (!start && t.numel() > 0) refuse(name, "has no memory (a null data pointer)");
  if (reinterpret_cast<std::uintptr_t>(start) % alignof(T) != 0)
    refuse(name, "starts at an address that is not a multiple of " + std::to_string(alignof(T)) +
                     " bytes, its element type's alignment");
  return start;
}

// Elements from the first to one past the farthest (0 for an empty tensor, 1 for a scalar).
inline std::int64_t reach(const at::Tensor& t) {
  if (t.numel() == 0) return 0;
  std::int64_t last = 0;
  for (std::int64_t a = 0; a < t.dim(); ++a) last += (t.size(a) - 1) * t.stride(a);
  return last + 1;
}

}  // namespace detail

// A view of a torch tensor of 0 to 3 axes (a scalar: one element), with its strides and device.
// `name` (for reports) must outlive the view: a string literal.
template <class T>
view<T> from_torch(const at::Tensor& t, const char* name = nullptr) {
  T* start = detail::checked_start<T>(t, name);
  if (t.dim() > 3)
    detail::refuse(name, "has " + std::to_string(t.dim()) +
                                   " axes; a tl::view takes 0 to 3: reshape it, or take a tl::ptr with tl::ptr_from_torch");
  view<T> v;
  v.data = start;
  v.name = name;
  v.where = t.device().is_cuda() ? tl::backend::cuda : tl::backend::cpu;
  v.device = t.device().is_cuda() ? int(t.device().index()) : -1;
  v.shape.rank = t.dim() == 0 ? 1 : int(t.dim());
  for (std::int64_t a = 0; a < t.dim(); ++a) {
    v.shape.size[std::size_t(a)] = t.size(a);
    v.strides[std::size_t(a)] = t.stride(a);
  }
  v.extent = detail::reach(t);
  return v;
}

// A checked pointer to a torch tensor of any number of axes: its first element, and as many
// elements as its sizes and strides reach.
template <class T>
ptr<T> ptr_from_torch(const at::Tensor& t, const char* name = nullptr) {
  T* start = detail::checked_start<T>(t, name);
  return ptr<T>(start, detail::reach(t), name);
}

// tl::options_for (the tensors' backend and device) on PyTorch's current stream of that device.
template <class... Tensors>
launch_options options_for_torch(launch_options base, const Tensors&... tensors) {
  launch_options o = options_for(base, tensors...);
  if (o.backend == tl::backend::cuda) {
#if TL_TORCH_CUDA
    o.stream = c10::cuda::getCurrentCUDAStream(c10::DeviceIndex(o.device)).stream();
#else
    throw usage_error("tl::options_for_torch: CUDA tensors, and this translation unit was compiled without c10's CUDA headers");
#endif
  }
  return o;
}
template <class First, class... Tensors>
  requires(!std::is_same_v<First, launch_options>)
launch_options options_for_torch(const First& first, const Tensors&... tensors) {
  return options_for_torch(launch_options{}, first, tensors...);
}

}  // namespace tl
