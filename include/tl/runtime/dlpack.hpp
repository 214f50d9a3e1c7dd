// tl/runtime/dlpack.hpp: tensors of other libraries as tl::view and tl::ptr, through DLPack
// (the C interface numpy, torch, JAX, CuPy and others export their arrays through).
//
//   DLManagedTensorVersioned* t = ...;                    // numpy's or torch's __dlpack__()
//   tl::view<const float> x = tl::from_dlpack<const float>(t, "x");
//   tl::view<float> z = tl::from_dlpack<float>(u, "z");
//   tl::check_shape(z, {x.size(0), x.size(1)});
//   tl::launch<k>(grid, tl::options_for(x, z), x, z, x.size(0), x.stride(0));
//
// A view does not own the memory: the caller keeps the DLPack tensor alive while the view is
// used, and calls its deleter after (tl::dlpack_owner does that). Not part of <tl/tl.hpp>:
// include it where DLPack's header is installed (Debian: libdlpack-dev). Every refusal throws
// tl::usage_error naming the tensor and what to do: an element type other than T, a device
// the backends cannot read (CPU and CUDA-pinned memory run on the CPU backend, CUDA device and
// managed memory on the CUDA backend, on their device), more than 3 axes (tl::ptr_from_dlpack
// takes any number), a negative stride, vector lanes, a null or misaligned start, and a
// read-only tensor taken as a view of non-const elements.
//
// DLPack comes in two forms: the legacy DLManagedTensor (DLPack 0.x, and 1.x's "dltensor"
// capsule) and the versioned DLManagedTensorVersioned of DLPack 1.x (the "dltensor_versioned"
// capsule of torch >= 2.5 and numpy >= 2), which adds a version and flags (read-only). Both are
// taken. Debian's libdlpack-dev (0.6) declares the legacy form only; where the installed header
// lacks the versioned one, tl declares it with DLPack 1.x's layout (tl::dlpack_versioned_tensor).
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "buffer.hpp"
#include "check.hpp"

namespace tl {

#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
using dlpack_versioned_tensor = ::DLManagedTensorVersioned;
#else
// DLPack 1.x's DLManagedTensorVersioned, member for member (the ABI the producers use).
struct dlpack_versioned_tensor {
  struct {
    std::uint32_t major;
    std::uint32_t minor;
  } version;
  void* manager_ctx;
  void (*deleter)(dlpack_versioned_tensor* self);
  std::uint64_t flags;
  DLTensor dl_tensor;
};
#endif

namespace detail {

// DLPack's numbers that a 0.x header may not name (DLPack 1.0 and 1.1's values).
inline constexpr std::uint8_t code_int = 0, code_uint = 1, code_float = 2, code_bfloat = 4, code_bool = 6,
                              code_fp8_e4m3b11fnuz = 9, code_fp8_e4m3fn = 10, code_fp8_e4m3fnuz = 11,
                              code_fp8_e5m2 = 12, code_fp8_e5m2fnuz = 13;
inline constexpr int device_cpu = 1, device_cuda = 2, device_cuda_host = 3, device_cuda_managed = 13;
inline constexpr std::uint64_t flag_read_only = 1;
inline constexpr std::uint32_t major_version_understood = 1;

// The DLPack type code and bits of tl's element type T; code 255 where DLPack has none.
template <class T>
constexpr std::pair<std::uint8_t, std::uint8_t> code_of() {
  using U = std::remove_const_t<T>;
  constexpr auto bits = std::uint8_t(8 * sizeof(U));
  if constexpr (std::is_same_v<U, bool>) return {code_bool, 8};
  else if constexpr (std::is_floating_point_v<U>) return {code_float, bits};
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) return {code_int, bits};
  else if constexpr (std::is_integral_v<U>) return {code_uint, bits};
  else if constexpr (std::is_same_v<U, fp16>) return {code_float, 16};
  else if constexpr (std::is_same_v<U, bf16>) return {code_bfloat, 16};
  else if constexpr (std::is_same_v<U, fp8e4nv>) return {code_fp8_e4m3fn, 8};
  else if constexpr (std::is_same_v<U, fp8e5>) return {code_fp8_e5m2, 8};
  else if constexpr (std::is_same_v<U, fp8e4b8>) return {code_fp8_e4m3fnuz, 8};
  else if constexpr (std::is_same_v<U, fp8e5b16>) return {code_fp8_e5m2fnuz, 8};
  else return {255, bits};  // fp8e4b15 (Triton's e4m3 with bias 15) has no DLPack code
}

inline std::string type_text(std::uint8_t code, int bits) {
  switch (code) {
    case code_int: return "int" + std::to_string(bits);
    case code_uint: return "uint" + std::to_string(bits);
    case code_float: return bits == 16 ? "float16" : "float" + std::to_string(bits);
    case code_bfloat: return "bfloat" + std::to_string(bits);
    case code_bool: return "bool";
    case 5: return "complex" + std::to_string(bits);
    case code_fp8_e4m3b11fnuz: return "float8_e4m3b11fnuz";
    case code_fp8_e4m3fn: return "float8_e4m3fn";
    case code_fp8_e4m3fnuz: return "float8_e4m3fnuz";
    case code_fp8_e5m2: return "float8_e5m2";
    case code_fp8_e5m2fnuz: return "float8_e5m2fnuz";
    default: return "type code " + std::to_string(code) + " (" + std::to_string(bits) + " bits)";
  }
}

inline std::string device_text(int type) {
  switch (type) {
    case device_cpu: return "CPU";
    case device_cuda: return "CUDA";
    case device_cuda_host: return "CUDA pinned host";
    case 4: return "OpenCL";
    case 7: return "Vulkan";
    case 8: return "Metal";
    case 10: return "ROCm";
    case 11: return "ROCm pinned host";
    case device_cuda_managed: return "CUDA managed";
    case 14: return "oneAPI";
    default: return "device type " + std::to_string(type);
  }
}

[[noreturn]] inline void refuse(const char* name, const std::string& what) {
  throw usage_error(std::string("tl::from_dlpack: tensor '") + (name && *name ? name : "?") + "' " + what);
}

inline std::string shape_text(const DLTensor& t) {
  std::string s = t.ndim == 0 ? std::string("a scalar") : std::string();
  for (int a = 0; a < t.ndim; ++a) s += (a ? " x " : "") + std::to_string(t.shape[a]);
  return s;
}

// The checks every form shares; returns the first element's address. read_only: the producer's flag.
template <class T>
T* checked_start(const DLTensor& t, const char* name, bool read_only) {
  constexpr auto want = code_of<T>();
  static_assert(want.first != 255, "tl::from_dlpack: this element type has no DLPack type code");
  if (t.dtype.lanes != 1)
    refuse(name, "has " + std::to_string(t.dtype.lanes) + "-lane vector elements; tl takes one value an element");
  if (t.dtype.code != want.first || t.dtype.bits != want.second)
    refuse(name, "holds " + type_text(t.dtype.code, t.dtype.bits) + "; the view asked for holds " +
                     type_text(want.first, want.second) + " (take it as that type, or convert the tensor first)");
  const int dev = int(t.device.device_type);
  if (dev != device_cpu && dev != device_cuda && dev != device_cuda_host && dev != device_cuda_managed)
    refuse(name, "is in " + device_text(dev) + " memory; tl's backends read CPU and CUDA memory");
  if (t.ndim < 0) refuse(name, "has " + std::to_string(t.ndim) + " axes");
  if (t.ndim > 0 && !t.shape) refuse(name, "has " + std::to_string(t.ndim) + " axes and no shape (a null shape pointer)");
  for (int a = 0; a < t.ndim; ++a) {
    if (t.shape[a] < 0) refuse(name, "has size " + std::to_string(t.shape[a]) + " on axis " + std::to_string(a));
    if (t.strides && t.strides[a] < 0 && t.shape[a] > 1)
      refuse(name, "has stride " + std::to_string(t.strides[a]) + " on axis " + std::to_string(a) +
                       ": tl's views step forward; pass a copy (numpy's ascontiguousarray, torch's .contiguous())");
  }
  if (read_only && !std::is_const_v<T>)
    refuse(name, "is read-only (its producer's DLPack flag); take it as a view of const elements");
  std::int64_t numel = 1;
  for (int a = 0; a < t.ndim; ++a) numel *= t.shape[a];
  if (!t.data) {
    if (numel > 0) refuse(name, "has no memory (a null data pointer) and " + std::to_string(numel) + " elements");
    return nullptr;  // an empty tensor: nothing to point at
  }
  auto* start = static_cast<char*>(t.data) + t.byte_offset;
  if (reinterpret_cast<std::uintptr_t>(start) % alignof(T) != 0)
    refuse(name, "starts at an address (data + byte_offset " + std::to_string(t.byte_offset) +
                     ") that is not a multiple of " + std::to_string(alignof(T)) + " bytes, its element type's alignment");
  return reinterpret_cast<T*>(start);
}

// Elements from the first to one past the farthest (0 for an empty tensor, 1 for a scalar).
inline std::int64_t reach(const DLTensor& t) {
  std::int64_t last = 0, step = 1;
  for (int a = t.ndim - 1; a >= 0; --a) {
    if (t.shape[a] == 0) return 0;
    const std::int64_t stride = t.strides ? t.strides[a] : step;
    last += (t.shape[a] - 1) * stride;
    step *= t.shape[a];
  }
  return last + 1;
}

inline tl::backend backend_of(const DLTensor& t) {
  const int dev = int(t.device.device_type);
  return dev == device_cuda || dev == device_cuda_managed ? tl::backend::cuda : tl::backend::cpu;
}

inline bool read_only(const dlpack_versioned_tensor* m, const char* name) {
  if (m->version.major > major_version_understood)
    refuse(name, "is a DLPack " + std::to_string(m->version.major) + "." + std::to_string(m->version.minor) +
                     " tensor; tl reads DLPack 1.x (ask the producer for max_version=(1, 0))");
  return (m->flags & flag_read_only) != 0;
}

// A managed tensor's DLTensor, and whether its producer marked it read-only (the versioned form).
inline const DLTensor& unwrap(const DLManagedTensor* m, const char* name, bool& read_only_flag) {
  if (!m) refuse(name, "is a null DLManagedTensor pointer");
  read_only_flag = false;
  return m->dl_tensor;
}
inline const DLTensor& unwrap(const dlpack_versioned_tensor* m, const char* name, bool& read_only_flag) {
  if (!m) refuse(name, "is a null DLManagedTensorVersioned pointer");
  read_only_flag = read_only(m, name);
  return m->dl_tensor;
}

}  // namespace detail

// A view of a DLPack tensor of 0 to 3 axes (a scalar is a view of one element), with its shape,
// strides (in elements; compact row-major where the tensor gives none) and device.
template <class T>
view<T> from_dlpack(const DLTensor& t, const char* name = nullptr, bool read_only = false) {
  T* start = detail::checked_start<T>(t, name, read_only);
  if (t.ndim > 3)
    detail::refuse(name, "has " + std::to_string(t.ndim) + " axes (" + detail::shape_text(t) +
                                    "); a tl::view takes 0 to 3: merge axes first, or take a tl::ptr with tl::ptr_from_dlpack");
  view<T> v;
  v.data = start;
  v.name = name;
  v.where = detail::backend_of(t);
  v.device = v.where == tl::backend::cuda ? int(t.device.device_id) : -1;
  v.shape.rank = t.ndim == 0 ? 1 : t.ndim;
  std::int64_t step = 1;
  for (int a = t.ndim - 1; a >= 0; --a) {
    v.shape.size[std::size_t(a)] = t.shape[a];
    v.strides[std::size_t(a)] = t.strides ? t.strides[a] : step;
    step *= t.shape[a];
  }
  if (t.ndim == 0) v.shape.size[0] = 1;
  v.extent = detail::reach(t);
  return v;
}
// Either managed form: its tensor, after the form's own checks.
template <class T, class M>
  requires(std::is_same_v<M, DLManagedTensor> || std::is_same_v<M, dlpack_versioned_tensor>)
view<T> from_dlpack(const M* m, const char* name = nullptr) {
  bool read_only = false;
  const DLTensor& t = detail::unwrap(m, name, read_only);
  return from_dlpack<T>(t, name, read_only);
}

// A checked pointer to a DLPack tensor of any number of axes: its first element, and as many
// elements as its shape and strides reach (what the CPU backend checks every access against).
template <class T>
ptr<T> ptr_from_dlpack(const DLTensor& t, const char* name = nullptr, bool read_only = false) {
  T* start = detail::checked_start<T>(t, name, read_only);
  return ptr<T>(start, detail::reach(t), name);
}
template <class T, class M>
  requires(std::is_same_v<M, DLManagedTensor> || std::is_same_v<M, dlpack_versioned_tensor>)
ptr<T> ptr_from_dlpack(const M* m, const char* name = nullptr) {
  bool read_only = false;
  const DLTensor& t = detail::unwrap(m, name, read_only);
  return ptr_from_dlpack<T>(t, name, read_only);
}

// Owns a DLPack tensor taken from its producer: calls its deleter once, when destroyed (the
// consumer's side of the protocol). Either form.
template <class M>
class dlpack_owner {
 public:
  explicit dlpack_owner(M* m = nullptr) : m_(m) {}
  dlpack_owner(const dlpack_owner&) = delete;
  dlpack_owner& operator=(const dlpack_owner&) = delete;
  dlpack_owner(dlpack_owner&& o) noexcept : m_(std::exchange(o.m_, nullptr)) {}
  dlpack_owner& operator=(dlpack_owner&& o) noexcept {
    if (this != &o) {
      reset();
      m_ = std::exchange(o.m_, nullptr);
    }
    return *this;
  }
  ~dlpack_owner() { reset(); }
  M* get() const { return m_; }
  void reset() {
    if (m_ && m_->deleter) m_->deleter(m_);
    m_ = nullptr;
  }

 private:
  M* m_ = nullptr;
};

}  // namespace tl
