// tl/core/diagnostics.hpp: the compile-time checks of kernel code, each with its message.
//
// A check is a template named after the mistake, instantiated in the user-facing op, so
// g++'s first lines read "In instantiation of tl::error::<mistake><tl::op..., shapes>" and
// nvcc's read the message written here, then the same type "[with Op=..., ShapeA=...]": the
// cause is within the first 5 lines of either (docs/11-reliability.md has the counts, and
// tests/compile_fail checks each one). Messages do not say "above" or "below": the two
// compilers print the template arguments on different sides of them.
#pragma once

#include <type_traits>

namespace tl {

template <int... D>
struct shape;

namespace op {
// Names of the user-facing ops, as they appear in diagnostics.
struct add; struct sub; struct mul; struct div; struct mod;
struct lt; struct le; struct gt; struct ge; struct eq; struct ne;
struct bit_and; struct bit_or; struct bit_xor; struct shl; struct shr;
struct logical_and; struct logical_or;
struct maximum; struct minimum; struct maximum_nan; struct minimum_nan; struct where; struct fma; struct cdiv; struct clamp;
struct load; struct store; struct dot; struct reshape; struct broadcast_to; struct assign;
struct atomic_add; struct atomic_max; struct atomic_min; struct atomic_and; struct atomic_or; struct atomic_xor;
struct atomic_xchg; struct atomic_cas; struct atomic_load; struct atomic_store; struct atomic_poll;
struct philox; struct randint; struct randint4x; struct rand; struct rand4x; struct randn; struct randn4x;
struct sum; struct max; struct min; struct argmax; struct argmin;
struct join; struct cat; struct sort; struct topk; struct gather; struct histogram;
struct cumsum; struct cumprod; struct associative_scan; struct reduce; struct xor_sum; struct reduce_or;
struct map_elementwise; struct dot_scaled;
}  // namespace op

namespace error {

template <class Op, class ShapeA, class ShapeB, bool Ok>
struct operands_have_incompatible_shapes {
  static_assert(Ok,
                "tl: the operands of this op cannot be broadcast together: aligned from the last axis, "
                "each pair of sizes must be equal or one of them 1 (the op and both shapes: this "
                "tl::error type's template arguments). Insert axes with x(tl::None, tl::_) where you meant an outer op.");
};

template <class Op, class MaskOrValueShape, class PointerShape, bool Ok>
struct mask_or_value_not_broadcastable_to_pointers {
  static_assert(Ok,
                "tl: the mask, `other` or stored value of a load/store/atomic must broadcast to the shape of the "
                "pointer block (both shapes: this tl::error type's template arguments).");
};

template <class Op, class Type, bool Ok>
struct op_needs_integer_operands {
  static_assert(Ok, "tl: bitwise ops (& | ^ ~ << >>) and umulhi need integer or boolean blocks; this operand is "
                    "floating-point (its type: this tl::error type's template arguments). Cast with .to(tl::int32) "
                    "or compare it first.");
};

template <class Function, class Type, bool Ok>
struct math_needs_floating_point {
  static_assert(Ok, "tl: this math function needs a floating-point block; cast integers first with "
                    ".to(tl::float32).");
};

template <class Op, class A, class B, bool Ok>
struct integer_division_with_mixed_signedness {
  static_assert(Ok, "tl: / and % between signed and unsigned integer blocks are ambiguous (as in Triton); "
                    "cast one operand so both have the same signedness.");
};

template <int Start, int End, bool Ok>
struct arange_length_not_power_of_two {
  static_assert(Ok, "tl::arange<Start, End>: End - Start must be a positive power of two, as in Triton "
                    "(the values: this tl::error type's template arguments). Use a power-of-two block and a mask.");
};

template <class Shape, int Axis, bool Ok>
struct axis_out_of_range {
  static_assert(Ok, "tl: the axis is out of range for this block (shape and axis: this tl::error type's template arguments); axes count from 0, "
                    "or from -1 at the last axis.");
};

template <class Op, class AxisType, bool Ok>
struct axis_is_a_template_argument {
  static_assert(Ok, "tl: the axis is a template argument: tl::sum<1>(x), not tl::sum(x, 1) (Triton's "
                    "tl.sum(x, axis=1)); the same for max, min, argmax and argmin (the reduction: this "
                    "tl::error type's first template argument).");
};

template <int Step, bool Ok>
struct static_range_step_is_zero {
  static_assert(Ok, "tl::static_range<Start, Stop, Step>: the step is 0 (Python's range refuses it too).");
};

template <class Shape, bool Ok>
struct trans_without_axes_needs_2d {
  static_assert(Ok, "tl::trans(x) without axes transposes a 2-D block (the shape: this tl::error type's template arguments); for other ranks "
                    "give the order, as in tl::trans<2, 0, 1>(x).");
};

template <class To, class From, bool Ok>
struct bitcast_needs_equal_sizes {
  static_assert(Ok, "tl: .to(dtype, tl::bitcast) reinterprets bits, so both element types must have the same "
                    "size and neither may be bool (the two types: this tl::error type's template arguments).");
};

template <auto Kernel, int Parameters, int Arguments, bool Ok>
struct launch_argument_count_differs {
  static_assert(Ok, "tl::launch: the number of arguments differs from the kernel's parameters (the kernel and both "
                    "counts: this tl::error type's template arguments).");
};

template <auto Kernel, int Index, class Argument, class Parameter, bool Ok>
struct launch_argument_does_not_convert_to_parameter {
  static_assert(Ok, "tl::launch: an argument does not convert to the kernel's parameter (the kernel, the "
                    "argument's index from 0, its type and the parameter's type: this tl::error type's "
                    "template arguments). A const container converts only to tl::ptr<const T>; a buffer "
                    "only to a tl::ptr of its element type.");
};

template <auto Kernel, int Index, class Argument, bool Ok>
struct launch_output_is_a_temporary {
  static_assert(Ok, "tl::launch: a temporary container is given for a parameter the kernel may store through "
                    "(the kernel, the argument's index from 0 and its type: this tl::error type's template "
                    "arguments): what the kernel writes would be lost with the temporary when the launch "
                    "returns. Keep the container in a variable and pass that, or declare the parameter "
                    "tl::ptr<const T> if the kernel only reads it.");
};

template <auto Kernel, int Index, class Parameter, bool Ok>
struct kernel_parameter_cannot_be_passed {
  static_assert(Ok, "tl::launch: a kernel parameter a program cannot receive (the kernel, the parameter's "
                    "index from 0 and its type: this tl::error type's template arguments). A GPU gets kernel "
                    "arguments as bytes copied from the host, so parameters are trivially copyable values "
                    "(numbers, tl::ptr<T>, small structs) or const references to them; a buffer is a "
                    "tl::ptr<T>, and results go through stores, not through non-const references.");
};

template <class Kernel, bool Ok>
struct kernel_must_return_void {
  static_assert(Ok, "tl::launch: a kernel is a function returning void (its type: this tl::error type's "
                    "template arguments); results go through tl::store.");
};

template <class Type, bool Ok>
struct operand_is_not_a_block_or_scalar {
  static_assert(Ok, "tl: this operand is neither a block expression nor a C++ arithmetic scalar (its type: this "
                    "tl::error type's template arguments).");
};

template <class From, class To, bool Ok>
struct reshape_changes_the_number_of_elements {
  static_assert(Ok, "tl::reshape: the new shape must hold as many elements as the block (both shapes: this "
                    "tl::error type's template arguments).");
};

template <class S, int Axis, bool Ok>
struct squeezed_axis_is_not_1 {
  static_assert(Ok, "tl::squeeze: the axis removed must have size 1 (the block's shape and the axis: this tl::error "
                    "type's template arguments); tl::reshape changes a shape freely.");
};

template <class From, class To, bool Ok>
struct cannot_broadcast_to_shape {
  static_assert(Ok, "tl::broadcast_to: the block cannot be broadcast to the requested shape (both shapes: "
                    "this tl::error type's template arguments).");
};

template <class ShapeA, class ShapeB, bool Ok>
struct dot_operands_must_be_2d_or_3d_of_equal_rank {
  static_assert(Ok, "tl::dot: the operands must both be 2-D (M x K, K x N) or both 3-D (batch x M x K, "
                    "batch x K x N); their shapes: this tl::error type's template arguments.");
};

template <class ShapeA, class ShapeB, bool Ok>
struct dot_inner_sizes_differ {
  static_assert(Ok, "tl::dot: the inner sizes differ: a is M x K and b must be K x N (the two shapes: "
                    "this tl::error type's template arguments).");
};

template <class ShapeA, class ShapeB, bool Ok>
struct dot_batch_sizes_differ {
  static_assert(Ok, "tl::dot: the batch sizes of a 3-D dot differ (shapes: this tl::error type's template arguments).");
};

template <class ShapeA, class ShapeB, bool Ok>
struct dot_sizes_below_16 {
  static_assert(Ok, "tl::dot: M, N and K must each be at least 16, as in Triton (tensor-core tiles); "
                    "shapes: this tl::error type's template arguments. Pad the block and mask the loads.");
};

template <class AccShape, class ResultShape, bool Ok>
struct dot_accumulator_shape_mismatch {
  static_assert(Ok, "tl::dot: the accumulator must have the shape of the product (M x N, or batch x M x N); "
                    "both shapes: this tl::error type's template arguments.");
};

template <class A, class B, bool Ok>
struct dot_operand_types_differ {
  static_assert(Ok, "tl::dot: both operands must have the same element type (types: this tl::error type's template arguments); cast one with "
                    ".to(...).");
};

template <class T, bool Ok>
struct dot_unsupported_type {
  static_assert(Ok, "tl::dot: operands must be float16, bfloat16, float32, float64 or int8.");
};

template <class In, class Out, bool Ok>
struct dot_out_dtype_unsupported {
  static_assert(Ok, "tl::dot: out_dtype must be float32, or float16 for float16, bfloat16 and fp8 operands, or int32 "
                    "for int8 operands (operand and out types: this tl::error type's template arguments); for "
                    "bfloat16 results pass float32 and cast with .to(tl::bfloat16), as in Triton.");
};

template <class AccT, class Out, bool Ok>
struct dot_out_dtype_differs_from_acc {
  static_assert(Ok, "tl::dot: out_dtype differs from the accumulator's element type (both types: this tl::error "
                    "type's template arguments); Triton requires them equal.");
};

template <class BlockShape, class ExprShape, bool Ok>
struct assigned_shape_differs {
  static_assert(Ok, "tl::block: the assigned expression has another shape than the block (both shapes: this "
                    "tl::error type's template arguments). Loop-carried blocks keep their shape: reduce or broadcast "
                    "explicitly.");
};

template <class BlockType, class ExprType, bool Ok>
struct assigned_type_differs {
  static_assert(Ok, "tl::block: the assigned expression has another element type than the block (types: this "
                    "tl::error type's template arguments). Cast it with .to(...) so the conversion is visible.");
};

template <class Expr, bool Ok>
struct lazy_expression_is_not_assignable {
  static_assert(Ok, "tl: this variable holds a lazy expression (declared with auto from arithmetic on "
                    "blocks), which cannot be updated in place. Materialize it first: "
                    "auto x = tl::eval(<expression>);  or declare tl::block<T, dims...> x = ...;");
};

template <class Variable, class Value, bool Ok>
struct lazy_expression_cannot_be_rebound {
  static_assert(Ok, "tl: this variable holds a lazy expression, and a C++ variable keeps its type, so it cannot be "
                    "rebound to another expression as Triton rebinds names. Declare it as a block: "
                    "tl::block<T, dims...> x = ...; (it then takes any expression of its shape and element type), "
                    "or give the new value a new name.");
};

template <class Amount, bool Ok>
struct pointer_block_advances_by_an_integer {
  static_assert(Ok, "tl: a block of pointers advances by an integer (ptrs += BLOCK_K * stride_k), which "
                    "moves every pointer alike. To add a block of offsets, name the new block: "
                    "auto next = ptrs + offsets;");
};

template <class T, bool Ok>
struct store_through_pointer_to_const {
  static_assert(Ok, "tl::store: the pointer block points to const elements.");
};

template <class T, bool Ok>
struct atomic_through_pointer_to_const {
  static_assert(Ok, "tl::atomic_*: the pointer block points to const elements.");
};

template <class Op, class T, bool Ok>
struct atomic_element_type_not_supported {
  static_assert(Ok, "tl::atomic_*: this atomic does not work on this element type (the op and the type: this "
                    "tl::error type's template arguments). add: 32- and 64-bit integers and floats, float16, "
                    "bfloat16; max, min, xchg, cas: 32- and 64-bit integers and floats; and, or, xor: 32- and "
                    "64-bit integers; atomic_load, atomic_store: integers and floats of 8 to 64 bits.");
};

template <class Op, class A2, class A3, bool Ok>
struct atomic_options_after_mask {
  static_assert(Ok, "tl::atomic_*: after the value come the mask, then the memory semantics (tl::relaxed, "
                    "tl::acquire, tl::release, tl::acq_rel) and scope (tl::gpu, tl::cta, tl::sys); only the "
                    "first may be a mask.");
};

template <class Op, class A1, class A2, class A3, bool Ok>
struct atomic_option_given_twice {
  static_assert(Ok, "tl::atomic_*: the memory semantics or the scope is given twice.");
};

template <class Op, class A1, class A2, bool Ok>
struct atomic_cas_takes_options_only {
  static_assert(Ok, "tl::atomic_cas(ptrs, cmp, val [, sem] [, scope]) has no mask, as in Triton; after val "
                    "come only tl::relaxed/acquire/release/acq_rel and tl::gpu/cta/sys.");
};

template <class Op, class Sem, bool Ok>
struct atomic_semantics_not_allowed {
  static_assert(Ok, "tl::atomic_load and tl::atomic_poll take tl::acquire (the default) or tl::relaxed; "
                    "tl::atomic_store takes tl::release (the default) or tl::relaxed, as in Triton (the op and "
                    "the semantics: this tl::error type's template arguments).");
};

template <class Op, class A1, class A2, class A3, bool Ok>
struct atomic_poll_takes_options_only {
  static_assert(Ok, "tl::atomic_poll(ptrs, expected [, sem] [, scope] [, tl::timeout_ns{n}]) has no mask, as in "
                    "Triton; after expected come only tl::acquire/relaxed, tl::gpu/cta/sys and tl::timeout_ns.");
};

template <class Op, class Type, bool Ok>
struct atomic_poll_needs_integers {
  static_assert(Ok, "tl::atomic_poll: the pointers point at 16-, 32- or 64-bit integers, as in Triton (the "
                    "element type: this tl::error type's template arguments).");
};

template <class Type, bool Ok>
struct load_store_needs_pointer_block {
  static_assert(Ok, "tl::load/tl::store/tl::atomic_*: the first argument must be a pointer or a block of pointers, "
                    "such as x_ptr + offsets (its type: this tl::error type's template arguments).");
};

template <class Type, bool Ok>
struct mask_must_be_boolean {
  static_assert(Ok, "tl::load/tl::store/tl::atomic_*: the mask must be a boolean block, such as offsets < N (its type: "
                    "this tl::error type's template arguments).");
};

template <class Op, class Type, bool Ok>
struct pointer_arithmetic_needs_integer_offsets {
  static_assert(Ok, "tl: pointers take only + and - with integer offsets (the op and the offending "
                    "type: this tl::error type's template arguments).");
};

template <class Tag, bool Ok>
struct indexing_needs_one_colon_per_axis {
  static_assert(Ok, "tl: x(...) takes tl::_ for each axis of x (a trailing tl::_ may be left out) and "
                    "tl::None for each new axis, like x[None, :] in Triton.");
};

template <class Perm, bool Ok>
struct permutation_invalid {
  static_assert(Ok, "tl::permute: the axes must be a permutation of 0 .. rank-1 (the axes: this tl::error type's template arguments).");
};

template <class From, class To, bool Ok>
struct pointer_cast_needs_int64 {
  static_assert(Ok, "tl: pointers convert only to and from 64-bit integers (addresses), as in Triton: "
                    "addresses.to(tl::pointer_type<T>), p.to(tl::int64) (both types: this tl::error type's "
                    "template arguments).");
};

template <class Shape, int Axis, bool Ok>
struct sort_axis_not_a_power_of_two {
  static_assert(Ok, "tl::sort/tl::topk: the axis sorted must have a power-of-two size, as in Triton (the shape and "
                    "the axis: this tl::error type's template arguments).");
};

template <class Shape, int K, bool Ok>
struct topk_k_out_of_range {
  static_assert(Ok, "tl::topk<K>: K must be a power of two no larger than the axis (the shape and K: this tl::error "
                    "type's template arguments).");
};

template <class SrcShape, class IndexShape, bool Ok>
struct gather_index_shape {
  static_assert(Ok, "tl::gather<Axis>(src, index): index must have src's rank and src's sizes on every axis but Axis "
                    "(both shapes: this tl::error type's template arguments).");
};

template <class Shape, bool Ok>
struct split_needs_a_last_axis_of_2 {
  static_assert(Ok, "tl::split: the block's last axis must have 2 elements, as in Triton (its shape: this tl::error "
                    "type's template arguments); tl::join makes such blocks.");
};

template <class ShapeA, class ShapeB, bool Ok>
struct cat_needs_equal_trailing_axes {
  static_assert(Ok, "tl::cat(a, b): the blocks must have the same rank and the same sizes on every axis but the first "
                    "(both shapes: this tl::error type's template arguments).");
};

template <class Op, class Combine, class Value, bool Ok>
struct combine_function_does_not_fit {
  static_assert(Ok, "tl::associative_scan/tl::reduce: the combine function must take two values (for a tuple of n "
                    "blocks: n values, then n more) and return one (a std::tuple of n), and must not capture (the op, "
                    "the function and the value it is called with: this tl::error type's template arguments).");
};

template <class T, bool Ok>
struct histogram_needs_integer_values {
  static_assert(Ok, "tl::histogram: the values are bin indices, so they must be integers (as in Triton); this block "
                    "is floating-point (its type: this tl::error type's template argument). Compute the bin of each "
                    "value and convert it with .to(tl::int32).");
};

template <int NumBins, bool Ok>
struct histogram_bins_not_power_of_two {
  static_assert(Ok, "tl::histogram<NumBins>: the number of bins must be a positive power of two, as in Triton (its "
                    "result is a block of NumBins; the value: this tl::error type's template argument). Use the next "
                    "power of two and ignore the extra bins.");
};

template <class Op, class Combine, class ElementTypes, bool Ok>
struct combine_function_types_do_not_fit {
  static_assert(Ok, "tl::associative_scan/tl::reduce: the combine function's parameters and result must have the "
                    "block's element type (or its computation type: float for 16-bit floats; for a tuple of blocks, "
                    "theirs, in order): a combine taking int on a float block truncates every partial result, one "
                    "returning a comparison (bool) gives 0 or 1 (the op, the function and the element types, a "
                    "tl::detail::pack for a tuple: this tl::error type's template arguments).");
};

template <class BlockShape, int ShapeRank, int StridesRank, bool Ok>
struct descriptor_lists_of_another_rank {
  static_assert(Ok, "tl::make_tensor_descriptor: the shape and the strides must have one value for each axis of "
                    "the block shape (the block shape and the lengths of the shape and strides lists: this tl::error "
                    "type's template arguments).");
};

template <class Op, class BlockShape, int OffsetsRank, bool Ok>
struct descriptor_offsets_of_another_rank {
  static_assert(Ok, "tl: a tensor descriptor's load and store take one offset for each axis of its block shape (the "
                    "op, the block shape and the number of offsets: this tl::error type's template arguments).");
};

template <class Shape, int Values, bool Ok>
struct hint_needs_one_value_an_axis {
  static_assert(Ok, "tl::multiple_of/max_contiguous/max_constancy: a list of hint values needs one value for each "
                    "axis of the block, or give one value for the last axis (the shape and the number of values: "
                    "this tl::error type's template arguments).");
};

template <int Operand, bool Ok>
struct dot_scaled_format_unknown {
  static_assert(Ok, "tl::dot_scaled: a format must be \"e2m1\", \"e4m3\", \"e5m2\", \"bf16\" or \"fp16\" (the "
                    "operand, 0 for lhs and 1 for rhs: this tl::error type's template argument).");
};

template <int Operand, class T, bool Ok>
struct dot_scaled_element_type_does_not_fit {
  static_assert(Ok, "tl::dot_scaled: an operand's element type does not fit its format: \"e2m1\" takes uint8 (two "
                    "codes a byte), \"e4m3\" tl::fp8e4nv or uint8, \"e5m2\" tl::fp8e5 or uint8, \"bf16\" tl::bf16, "
                    "\"fp16\" tl::fp16 (the operand, 0 for lhs and 1 for rhs, and the type: this tl::error type's "
                    "template arguments).");
};

template <class LhsShape, class LhsScale, class RhsShape, class RhsScale, bool Ok>
struct dot_scaled_shapes_do_not_fit {
  static_assert(Ok, "tl::dot_scaled: lhs must be M x K and rhs K x N (K/2 stored for \"e2m1\", two to a uint8), K a "
                    "multiple of 32, and each scale a uint8 block of M x K/32 (lhs) or N x K/32 (rhs), or tl::None "
                    "(the shapes and scales: this tl::error type's template arguments).");
};

template <class F, class Values, bool Ok>
struct map_function_does_not_fit {
  static_assert(Ok, "tl::map_elementwise: the function must take one value of each operand's element type and "
                    "return a value or a std::tuple of values, and must hold no state: no captures, no data members (the function and the element "
                    "types, as a tl::detail::type_list: this tl::error type's template arguments).");
};

template <class Op, class Seed, class Offset, bool Ok>
struct random_needs_integer_seed_and_offsets {
  static_assert(Ok, "tl::rand/randn/randint/philox: the seed and the offsets must be integers (the op, the seed's "
                    "and the offsets' types: this tl::error type's template arguments); the offsets are usually "
                    "pid * BLOCK + tl::arange<0, BLOCK>().");
};

template <class C0, class C1, class C2, class C3, bool Ok>
struct philox_counters_need_one_width {
  static_assert(Ok, "tl::philox(seed, c0, c1, c2, c3): the four counters must all have 32 bits or all 64 bits, "
                    "as in Triton (their types: this tl::error type's template arguments).");
};

}  // namespace error

namespace detail {
// Instantiating a check runs its static_assert; the value lets it sit in a constant expression.
template <class Check>
inline constexpr bool check = sizeof(Check) > 0;
}  // namespace detail

}  // namespace tl
