// tl/ops/memory.hpp: pointers into buffers, and load/store of pointer blocks.
//
//   x = tl::load(x_ptr + offs, mask);           Triton: tl.load(x_ptr + offs, mask=mask)
//   x = tl::load(x_ptr + offs, mask, -INF);     Triton: tl.load(..., mask=mask, other=-inf)
//   tl::store(z_ptr + offs, z, mask);           Triton: tl.store(z_ptr + offs, z, mask=mask)
//   x = tl::load(x_ptr + offs, mask, 0, tl::evict_last);
//                                  Triton: tl.load(..., mask=mask, other=0, eviction_policy="evict_last")
//
// A tl::ptr<T> knows the buffer it points into (start, size, name) when it was made from
// one, so every masked-in lane of a load or store can be checked against that buffer. Lanes
// outside it are never read or written; they are reported with the program id, the op, the
// source line and the offsets, and the launch fails. Masked-off lanes of a load are `other`
// (0 when not given). A ptr made from a bare T* has no size and is not checked.
#pragma once

#include <cstddef>
#include <ranges>

#include "../backend/cpu/program.hpp"
#include "../core/eviction.hpp"
#include "../expr/block.hpp"
#include "../expr/loaded.hpp"

namespace tl {

template <class T>
struct ptr {
  using element_type = T;
  T* base = nullptr;           // start of the buffer
  std::int64_t offset = 0;     // where this pointer points, in elements from base
  std::int64_t extent = -1;    // elements in the buffer; -1 when unknown (unchecked)
  const char* name = nullptr;  // for reports; the launch names unnamed buffers "argument #i"

  ptr() = default;
  // An unchecked pointer (no size known).
  TL_HD ptr(T* raw) : base(raw) {}  // NOLINT: implicit, like a raw pointer argument
  TL_HD ptr(T* data, std::int64_t size, const char* buffer_name = nullptr)
      : base(data), extent(size), name(buffer_name) {}
  // A checked pointer to the start of a contiguous range (std::vector, std::array, std::span...).
  template <class R>
    requires(std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
             std::is_convertible_v<std::remove_reference_t<std::ranges::range_reference_t<R>>*, T*> &&
             !std::is_pointer_v<std::remove_cvref_t<R>>)
  ptr(R&& range, const char* buffer_name = nullptr)  // NOLINT: implicit, so a vector can be a kernel argument
      : base(std::ranges::data(range)), extent(static_cast<std::int64_t>(std::ranges::size(range))), name(buffer_name) {}
  // ptr<T> converts to ptr<const T>.
  template <class U>
    requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
  TL_HD ptr(const ptr<U>& p) : base(p.base), offset(p.offset), extent(p.extent), name(p.name) {}

  // Offsets are integers: x_ptr + 1.5f does not compile.
  template <std::integral I>
  TL_INLINE ptr operator+(I n) const {
    ptr q = *this;
    q.offset += static_cast<std::int64_t>(n);
    return q;
  }
  template <std::integral I>
  TL_INLINE ptr operator-(I n) const {
    ptr q = *this;
    q.offset -= static_cast<std::int64_t>(n);
    return q;
  }
  template <std::integral I>
  TL_INLINE ptr& operator+=(I n) {
    offset += static_cast<std::int64_t>(n);
    return *this;
  }
  template <std::integral I>
  TL_INLINE ptr& operator-=(I n) {
    offset -= static_cast<std::int64_t>(n);
    return *this;
  }
  TL_INLINE bool checked() const { return extent >= 0; }
  TL_INLINE bool in_bounds() const { return base != nullptr && (extent < 0 || (offset >= 0 && offset < extent)); }
  TL_INLINE T* get() const { return base + offset; }  // only where in_bounds()
};

template <class R>
ptr(R&&, const char* = nullptr) -> ptr<std::remove_reference_t<std::ranges::range_reference_t<R>>>;
template <class T>
ptr(T*, std::int64_t, const char* = nullptr) -> ptr<T>;

// Integer plus pointer, as in Triton (offs + x_ptr).
template <class T, class I>
  requires std::is_integral_v<I>
TL_INLINE ptr<T> operator+(I n, const ptr<T>& p) {
  return p + static_cast<std::int64_t>(n);
}

namespace detail {

template <class P>
struct pointee;
template <class T>
struct pointee<ptr<T>> {
  using type = T;
};

template <class S>
invalid_lane make_lane(const coord<S::rank>& c, std::int64_t offset) {
  invalid_lane l;
  l.rank = S::rank < 4 ? S::rank : 4;
  for (int i = 0; i < l.rank; ++i) l.index[i] = c[i];
  l.offset = offset;
  return l;
}

// Gathers the invalid lanes of one load/store, then reports them once.
template <class T>
struct access_checker {
  access_kind kind;
  source_location where;
  invalid_access record{};
  std::int64_t masked_in = 0;
  bool any = false;
  traced_access* traced = nullptr;  // set by start() when the launch is traced

  // Called once before the lanes: when the launch records a trace, opens this op's record
  // (the buffer is the one the first lane points into).
  template <class S, class EP>
  void start(const EP& ptrs) {
    cpu::program_state* ps = cpu::current_program;
    if (!ps || !ps->trace) return;
    const ptr<T> first = ptrs.at(coord<S::rank>{});
    traced_access a;
    for (int i = 0; i < 3; ++i) a.program[i] = ps->pid[i];
    a.op = kind;
    a.where = where;
    a.buffer = first.name ? first.name : "(unnamed)";
    a.buffer_size = first.extent;
    a.buffer_start = first.base;
    a.element_size = int(sizeof(T));
    for (int i = 0; i < S::rank; ++i) a.shape.push_back(S::dim(i));
    a.lanes.reserve(std::size_t(S::size));
    ps->trace->push_back(std::move(a));
    traced = &ps->trace->back();
  }
  bool tracing() const { return traced != nullptr; }
  void observe(const ptr<T>& p, bool masked, bool valid) {
    if (traced) traced->lanes.push_back(traced_lane{p.offset, masked, valid});
  }

  // Called for each masked-in lane: true if it may be accessed.
  template <class S>
  bool check(const ptr<T>& p, const coord<S::rank>& c) {
    ++masked_in;
    if (p.in_bounds()) return true;
    if (!any) {
      any = true;
      record.op = kind;
      record.where = where;
      record.buffer = p.name ? p.name : "(unnamed)";
      record.buffer_size = p.extent;
      record.reason = p.base ? "out of bounds" : "through a null pointer";
    }
    ++record.invalid_lanes;
    if (record.first.size() < launch_report::lanes_per_record) record.first.push_back(make_lane<S>(c, p.offset));
    return false;
  }
  void finish() {
    record.lanes = masked_in;
    if (any) cpu::report_invalid_access(std::move(record));
  }
};

}  // namespace detail
}  // namespace tl

#include "../backend/cuda/memory.hpp"

namespace tl {
namespace detail {

template <eviction Ev = eviction::normal, class P, class M, class O>
TL_HD auto load_pointers(const P& ptrs_in, M mask_in, O other_in, source_location where) {
  using EP = as_expr_t<P>;
  using PT = value_of_t<EP>;
  using T = std::remove_const_t<typename pointee<PT>::type>;
  using S = shape_of_t<EP>;
  using EM = as_expr_t<M>;
  using EO = as_expr_t<O>;
  static_assert(check<error::mask_must_be_boolean<value_of_t<EM>, is_bool_v<value_of_t<EM>>>>);
  static_assert(check<error::mask_or_value_not_broadcastable_to_pointers<op::load, shape_of_t<EM>, S,
                                                                         broadcastable_to_v<shape_of_t<EM>, S>>>);
  static_assert(check<error::mask_or_value_not_broadcastable_to_pointers<op::load, shape_of_t<EO>, S,
                                                                         broadcastable_to_v<shape_of_t<EO>, S>>>);
  // The elements, and where they came from (expr/loaded.hpp: tl::dot may read them again).
  loaded<T, S, EP, EM, EO> out(as_expr(ptrs_in), as_expr(mask_in), as_expr(other_in), where);
#if TL_DEVICE_PASS
  cuda::load<T, S, Ev>(out.ptrs, out.mask, out.other, where, out);
#else
  const EP& ptrs = out.ptrs;
  const EM& mask = out.mask;
  const EO& other = out.other;
  access_checker<typename pointee<PT>::type> checker{access_kind::load, where};
  checker.template start<S>(ptrs);
  for (std::int64_t i = 0; i < S::size; ++i) {
    const coord<S::rank> c = unravel<S>(i);
    const auto p = ptrs.at(c);
    const bool masked = mask.at(broadcast_coord<shape_of_t<EM>>(c));
    const bool valid = masked && checker.template check<S>(p, c);
    checker.observe(p, masked, valid);
    if (valid) {
      out.v[i] = *p.get();
      // A non-const pointer's buffer may be stored by the launch too: a load/store race.
      if constexpr (!std::is_const_v<typename pointee<PT>::type>) cpu::note_load(p.base, p.extent, p.offset, p.name, where);
    } else {
      out.v[i] = convert<T>(other.at(broadcast_coord<shape_of_t<EO>>(c)));
    }
  }
  checker.finish();
#endif
  return out;  // a scalar pointer gives a rank-0 block: a scalar tensor, as in Triton
}

template <eviction Ev = eviction::normal, class P, class V, class M>
TL_HD void store_pointers(const P& ptrs_in, V value_in, M mask_in, source_location where) {
  using EP = as_expr_t<P>;
  using PT = value_of_t<EP>;
  using Q = typename pointee<PT>::type;
  static_assert(check<error::store_through_pointer_to_const<Q, !std::is_const_v<Q>>>);
  using S = shape_of_t<EP>;
  using EV = as_expr_t<V>;
  using EM = as_expr_t<M>;
  static_assert(check<error::mask_must_be_boolean<value_of_t<EM>, is_bool_v<value_of_t<EM>>>>);
  static_assert(check<error::mask_or_value_not_broadcastable_to_pointers<op::store, shape_of_t<EV>, S,
                                                                         broadcastable_to_v<shape_of_t<EV>, S>>>);
  static_assert(check<error::mask_or_value_not_broadcastable_to_pointers<op::store, shape_of_t<EM>, S,
                                                                         broadcastable_to_v<shape_of_t<EM>, S>>>);
  if constexpr (!std::is_const_v<Q>) {
#if TL_DEVICE_PASS
    cuda::store<Q, S, Ev>(as_expr(ptrs_in), as_expr(value_in), as_expr(mask_in), where);
#else
    const EP ptrs = as_expr(ptrs_in);
    const EV value = as_expr(value_in);
    const EM mask = as_expr(mask_in);
    access_checker<Q> checker{access_kind::store, where};
    checker.template start<S>(ptrs);
    for (std::int64_t i = 0; i < S::size; ++i) {
      const coord<S::rank> c = unravel<S>(i);
      const bool masked = mask.at(broadcast_coord<shape_of_t<EM>>(c));
      if (!masked && !checker.tracing()) continue;
      const auto p = ptrs.at(c);
      const bool valid = masked && checker.template check<S>(p, c);
      checker.observe(p, masked, valid);
      if (valid) {
        *p.get() = convert<Q>(value.at(broadcast_coord<shape_of_t<EV>>(c)));
        cpu::note_store(p.base, p.extent, p.offset, p.name, where);
      }
    }
    if (cpu::program_state* ps = cpu::current_program) {
      ps->made_store = true;
      ps->stored_any = ps->stored_any || checker.masked_in > 0;
    }
    checker.finish();
#endif
  }
}

// The fronts: a first argument that is not a pointer block stops at its one tl::error.
template <eviction Ev = eviction::normal, class P, class M, class O>
TL_HD auto load_impl(const P& ptrs, M mask, O other, source_location where) {
  using PT = value_of_t<as_expr_t<P>>;
  if constexpr (check<error::load_store_needs_pointer_block<PT, is_ptr_v<PT>>> && is_ptr_v<PT>)
    return load_pointers<Ev>(ptrs, mask, other, where);
  else
    return 0;
}
template <eviction Ev = eviction::normal, class P, class V, class M>
TL_HD void store_impl(const P& ptrs, V value, M mask, source_location where) {
  using PT = value_of_t<as_expr_t<P>>;
  if constexpr (check<error::load_store_needs_pointer_block<PT, is_ptr_v<PT>>> && is_ptr_v<PT>)
    store_pointers<Ev>(ptrs, value, mask, where);
}

}  // namespace detail

// load(ptrs [, mask [, other]]): a block of the pointer block's shape (rank 0, which converts
// to a scalar, for a scalar pointer), which remembers its pointers (expr/loaded.hpp).
template <class P>
  requires detail::is_operand_v<P>
TL_HD auto load(const P& ptrs, source_location where = source_location::current()) {
  return detail::load_impl(ptrs, true, 0, where);
}
template <class P, class M>
  requires(detail::is_operand_v<P> && detail::is_operand_v<M>)
TL_HD auto load(const P& ptrs, M mask, source_location where = source_location::current()) {
  return detail::load_impl(ptrs, mask, 0, where);
}
template <class P, class M, class O>
  requires(detail::is_operand_v<P> && detail::is_operand_v<M> && detail::is_operand_v<O>)
TL_HD auto load(const P& ptrs, M mask, O other, source_location where = source_location::current()) {
  return detail::load_impl(ptrs, mask, other, where);
}
// The same with an eviction policy last: tl::load(p, mask, other, tl::evict_last).
template <class P, eviction E>
  requires detail::is_operand_v<P>
TL_HD auto load(const P& ptrs, eviction_policy<E>, source_location where = source_location::current()) {
  return detail::load_impl<E>(ptrs, true, 0, where);
}
template <class P, class M, eviction E>
  requires(detail::is_operand_v<P> && detail::is_operand_v<M>)
TL_HD auto load(const P& ptrs, M mask, eviction_policy<E>, source_location where = source_location::current()) {
  return detail::load_impl<E>(ptrs, mask, 0, where);
}
template <class P, class M, class O, eviction E>
  requires(detail::is_operand_v<P> && detail::is_operand_v<M> && detail::is_operand_v<O>)
TL_HD auto load(const P& ptrs, M mask, O other, eviction_policy<E>,
                source_location where = source_location::current()) {
  return detail::load_impl<E>(ptrs, mask, other, where);
}

// store(ptrs, value [, mask]): value (broadcast to the pointers' shape, converted to their
// element type) written where mask holds.
template <class P, class V>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD void store(const P& ptrs, V value, source_location where = source_location::current()) {
  detail::store_impl(ptrs, value, true, where);
}
template <class P, class V, class M>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V> && detail::is_operand_v<M>)
TL_HD void store(const P& ptrs, V value, M mask, source_location where = source_location::current()) {
  detail::store_impl(ptrs, value, mask, where);
}
// The same with an eviction policy last: tl::store(p, z, mask, tl::evict_first).
template <class P, class V, eviction E>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD void store(const P& ptrs, V value, eviction_policy<E>, source_location where = source_location::current()) {
  detail::store_impl<E>(ptrs, value, true, where);
}
template <class P, class V, class M, eviction E>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V> && detail::is_operand_v<M>)
TL_HD void store(const P& ptrs, V value, M mask, eviction_policy<E>,
                 source_location where = source_location::current()) {
  detail::store_impl<E>(ptrs, value, mask, where);
}

}  // namespace tl
