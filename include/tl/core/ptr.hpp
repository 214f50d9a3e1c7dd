// tl/core/ptr.hpp: tl::ptr<T>, a pointer that knows the buffer it points into.
//
// Made from a contiguous container (std::vector, std::array, std::span, a C array) or from
// (data, size), it carries the buffer's start, size and name, so that every masked-in lane of
// a load or store can be checked against the buffer and an invalid one reported, never
// performed. Made from a bare T*, it has no size and only null is caught. Pointer arithmetic
// moves `offset`; a block of pointers is an expression like any other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "dtype.hpp"

namespace tl {

namespace detail {
// A container whose elements are contiguous: begin(), end(), data() and size(), as
// std::vector, std::array, std::span and std::string have (what a launch may pass where a
// kernel takes a tl::ptr). Types with their own conversion to tl::ptr (tl::buffer) have no
// iterators and keep theirs.
template <class R>
concept contiguous_container = requires(R& r) {
  r.begin();
  r.end();
  r.data();
  r.size();
};
template <class R>
using container_element_t = std::remove_pointer_t<decltype(std::declval<R&>().data())>;
}  // namespace detail

template <class T>
struct ptr {
  using element_type = T;
  T* base = nullptr;           // start of the buffer
  std::int64_t offset = 0;     // where this pointer points, in elements from base
  std::int64_t extent = -1;    // elements in the buffer; -1 when unknown (unchecked)
  const char* name = nullptr;  // for reports; the launch names unnamed buffers "argument #i"

  ptr() = default;
  // The element type's tag (Triton's x_ptr.dtype.element_ty): x.to(x_ptr.element_ty()).
  TL_HD constexpr auto element_ty() const { return dtype<std::remove_const_t<T>>{}; }
  // An unchecked pointer (no size known).
  TL_HD ptr(T* raw) : base(raw) {}  // NOLINT: implicit, like a raw pointer argument
  TL_HD ptr(T* data, std::int64_t size, const char* buffer_name = nullptr)
      : base(data), extent(size), name(buffer_name) {}
  // A checked pointer to the start of a contiguous container.
  template <class R>
    requires(detail::contiguous_container<std::remove_reference_t<R>> &&
             std::is_convertible_v<detail::container_element_t<std::remove_reference_t<R>>*, T*>)
  ptr(R&& range, const char* buffer_name = nullptr)  // NOLINT: implicit, so a vector can be a kernel argument
      : base(range.data()), extent(static_cast<std::int64_t>(range.size())), name(buffer_name) {}
  template <class U, std::size_t N>
    requires std::is_convertible_v<U*, T*>
  ptr(U (&array)[N], const char* buffer_name = nullptr)  // NOLINT: as a container
      : base(array), extent(static_cast<std::int64_t>(N)), name(buffer_name) {}
  // ptr<T> converts to ptr<const T>.
  template <class U>
    requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
  TL_HD ptr(const ptr<U>& p) : base(p.base), offset(p.offset), extent(p.extent), name(p.name) {}

  // Offsets are integers: x_ptr + 1.5f does not compile.
  template <class I>
    requires std::is_integral_v<I>
  TL_INLINE ptr operator+(I n) const {
    ptr q = *this;
    q.offset += static_cast<std::int64_t>(n);
    return q;
  }
  template <class I>
    requires std::is_integral_v<I>
  TL_INLINE ptr operator-(I n) const {
    ptr q = *this;
    q.offset -= static_cast<std::int64_t>(n);
    return q;
  }
  template <class I>
    requires std::is_integral_v<I>
  TL_INLINE ptr& operator+=(I n) {
    offset += static_cast<std::int64_t>(n);
    return *this;
  }
  template <class I>
    requires std::is_integral_v<I>
  TL_INLINE ptr& operator-=(I n) {
    offset -= static_cast<std::int64_t>(n);
    return *this;
  }
  TL_INLINE bool checked() const { return extent >= 0; }
  TL_INLINE bool in_bounds() const { return base != nullptr && (extent < 0 || (offset >= 0 && offset < extent)); }
  TL_INLINE T* get() const { return base + offset; }  // only where in_bounds()
};

template <class R>
  requires detail::contiguous_container<std::remove_reference_t<R>>
ptr(R&&, const char* = nullptr) -> ptr<detail::container_element_t<std::remove_reference_t<R>>>;
template <class U, std::size_t N>
ptr(U (&)[N], const char* = nullptr) -> ptr<U>;
template <class T>
ptr(T*, std::int64_t, const char* = nullptr) -> ptr<T>;

// Integer plus pointer, as in Triton (offs + x_ptr).
template <class T, class I>
  requires std::is_integral_v<I>
TL_INLINE ptr<T> operator+(I n, const ptr<T>& p) {
  return p + static_cast<std::int64_t>(n);
}

// The dtype of a block of pointers to T (Triton's tl.pointer_type(tl.float16)):
// addresses.to(tl::pointer_type<tl::fp16>) makes pointers from int64 addresses, and
// p.to(tl::int64) gives a pointer's address.
template <class T>
inline constexpr dtype<ptr<T>> pointer_type{};

namespace detail {
template <class P>
struct pointee;
template <class T>
struct pointee<ptr<T>> {
  using type = T;
};
}  // namespace detail

}  // namespace tl
