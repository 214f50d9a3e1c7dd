// tl/core/order.hpp: the register order of a held block (what the CUDA backend's layouts
// tell apart; the CPU backend holds every block row-major and ignores it).
#pragma once

namespace tl::detail {

// A tiled block's columns sit in each thread's registers in one of two orders
// (backend/cuda/layout.hpp):
//   standard  4 consecutive columns per thread: 128-bit loads and stores of float32 tiles.
//   mma       the tensor cores' accumulator fragment: 2 consecutive columns, the next 2 eight
//             columns on. A tl::dot accumulates into such a block with B's columns in
//             memory order (copied 16 bytes at a time), so tl::zeros / tl::full of a tiled
//             shape and a dot without an accumulator make blocks in this order.
//   any       an expression that holds no block of its own shape (aranges, broadcasts,
//             scalars): it is evaluated in whichever order its user asks for.
// Blocks of other shapes (round-robin, replicated) are always `standard`. Where two orders
// meet in one expression, the block in the other order is read through shared memory.
enum class order { any, standard, mma };

constexpr bool orders_agree(order a, order b) { return a == order::any || b == order::any || a == b; }

// The order an expression of order o is evaluated in.
constexpr order evaluation_order(order o) { return o == order::any ? order::standard : o; }

}  // namespace tl::detail
