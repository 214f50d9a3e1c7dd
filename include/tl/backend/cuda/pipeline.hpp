// tl/backend/cuda/pipeline.hpp: the operand ring of a dot in a loop (Triton's num_stages).
//
// A kernel's loop calls tl::dot once per K step with freshly loaded tiles, and the dot sees one
// call at a time. To take the copies' latency off the step, and the step's own work off the
// tensor cores, a wgmma dot whose tiles cp.async copies runs from a ring of three operand
// buffers: the dots' arena and two buffers in the program's dynamic shared memory (the launch
// gives them when launch_options::num_stages >= 2). Each call multiplies the tiles the previous
// call copied, copies the tiles the next call will most likely ask for (A's columns and B's rows
// one K step further), and returns with its wgmma group still running: the tensor cores work
// through it while the caller's loop and the next call's barrier and copies run. The next
// call's group queues behind it. Three buffers, so that a call copies into the buffer the
// group two calls back read, which every thread waited for before the call's first barrier.
//
// A group left running writes the accumulator registers the call returned: every other op's
// lowering that reads a float32 block waits for the groups first (settle_dots, evaluation.hpp),
// as does the dot itself where it does not chain on them (ptxas would otherwise place the wait
// itself, in the loop's latch, where every step waits). A new float32 block keeps its values
// where it is made (keep_here), so that an accumulator's zeros are not written on the path
// that skips the loop while a group may run: ptxas serialized every wgmma of such kernels.
//
// A prediction is only used where it is checked: the ring's header records, per buffer, the
// first element and row stride of the A and B tiles it was given, and a call uses a buffer only
// when those are exactly its own tiles' (same dot shape, whole tiles masked in). Any other call
// (the first of a loop, a loop that does not walk K one step a call) waits for the group and the
// copies in flight and copies its own tiles: what a dot without the ring costs, and one wait. A
// call whose buffer already holds its A (a loop that keeps A in place: attention's q) copies only
// B, copies nothing ahead, and waits for its group before it returns. Tiles are copied ahead only
// where they lie inside their buffers (tl::ptr's extent), so a prediction past the end of a
// matrix reads nothing it may not; unchecked pointers are not copied ahead.
//
// Since the arena is the ring's first buffer, any other use of it (a dot of another shape, the
// ring's dot where its tiles are not whole) first claims it (claim_arena): waits for the groups
// and the copies in flight, and forgets what the ring had copied there.
//
// As in Triton, a tile copied ahead holds what memory held when it was copied: a kernel that
// stores, inside the loop, to the memory the next step's dot reads must launch with
// num_stages = 1.
//
// Two buffers beside the arena, not num_stages: on puzzle 11 (fp16, 128 x 128 x 64 tiles) two
// steps ahead ran no faster than one, and more buffers cost programs per multiprocessor for
// larger tiles (docs/performance-history.md). The copy engine's ring (TL_DESCRIPTOR_TMA, dot_wgmma.hpp:
// run_from_tma) uses up to num_stages buffers (max_ring_buffers), as many as the launch gave
// (ring_count); its state, written by thread 0, is tma_state below.
//
// Dynamic shared memory (launch.hpp sizes it; nothing else uses it), in a kernel with a
// tensor-core dot:
//   [header] [up to 1024 bytes: alignment] [the dots' arena] [ring buffer 0] [ring buffer 1] ...
// (The region itself is only 16-aligned: declared 1024-aligned, ptxas pads the static shared
// memory to 1024 bytes, which would hide the arena markers, dot_operands.hpp.)
// The arena holds the operands of whichever dot runs (dot_scratch, dot_operands.hpp); the ring's
// buffers exist when the launch gave them (launch_options::num_stages >= 2, and room). The
// entry writes the header's sizes and resets its tags, then waits for its threads (launch.hpp).
// Thread 0 writes the tags; every thread reads them between a call's first and second
// barriers, and thread 0 writes only what no thread reads in that window (the next buffer's
// tag) before the second barrier.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arch/sm80.hpp"
#include "arch/sm90.hpp"
#include "layout.hpp"

namespace tl::detail::cuda {

// The arena classes of the dots' operands (dot_operands.hpp: dot_scratch) and how the launch
// reads what a kernel needs from its static shared memory: a dot of arena class c declares a
// marker array of 16 << c bytes, and a dot that can run from the operand ring one of 128 bytes;
// every other static array of tl is a whole number of 256 bytes, so the static size modulo 256
// names the classes in use and whether any dot would use a ring.
inline constexpr int arena_classes[] = {16 * 1024, 32 * 1024, 48 * 1024};
constexpr int arena_class_of(int bytes) {
  for (int c = 0; c < 3; ++c)
    if (bytes <= arena_classes[c]) return c;
  return -1;
}
inline constexpr int dot_arena_max = arena_classes[2];
inline constexpr int ring_marker_bytes = 128;
struct arena_need {
  unsigned arena = 0;  // 0: no tensor-core dot
  bool ring = false;   // some dot can run from the operand ring
};
inline constexpr arena_need arena_of_static_bytes(std::size_t static_bytes) {
  const unsigned bits = unsigned(static_bytes % 256) >> 4;
  arena_need n;
  for (int c = 0; c < 3; ++c)
    if (bits & (1u << c)) n.arena = unsigned(arena_classes[c]);
  n.ring = (bits & 8u) != 0;
  return n;
}

static_assert(arena_of_static_bytes(0).arena == 0 && arena_of_static_bytes(4096).arena == 0);
static_assert(arena_of_static_bytes(2 * 256 + 16).arena == 16 * 1024);
static_assert(arena_of_static_bytes(3 * 256 + 16 + 32).arena == 32 * 1024 && !arena_of_static_bytes(3 * 256 + 48).ring);
static_assert(arena_of_static_bytes(16 + 64 + ring_marker_bytes).arena == 48 * 1024);
static_assert(arena_of_static_bytes(32 + ring_marker_bytes).ring);

#if defined(__CUDACC__)

// What a buffer holds: the first elements and row strides of its A and B tiles (null: nothing).
struct ring_tag {
  const void* a = nullptr;
  const void* b = nullptr;
  std::int64_t stride_a = 0, stride_b = 0;
};
// The bulk tensor copies of descriptor operands (dot_wgmma.hpp: run_from_tma, tensor_maps.hpp),
// written by thread 0 alone, and only after the call's second barrier (every thread reads what
// it needs between the first and the second).
struct tma_key {  // what a tensor map describes: the tensor, and the box as a code
  const void* base = nullptr;
  std::uint64_t dims[2] = {};
  std::uint64_t row_stride = 0;
  unsigned box = 0;
  unsigned pad = 0;
};
struct tma_tag {  // the tiles a buffer holds or is being filled with (null maps: none)
  const void* map_a = nullptr;
  const void* map_b = nullptr;
  int a[2] = {}, b[2] = {};  // each tile's first row and column
};
inline constexpr int tma_maps_per_program = 4;
struct tma_memo {  // the previous call's maps, by key: every thread checks its own call against them
  tma_key key_a, key_b;
  const void* map_a = nullptr;
  const void* map_b = nullptr;
};
inline constexpr int max_ring_buffers = 4;
inline constexpr unsigned arena_unit = max_ring_buffers;  // the arena's mbarrier and bits in tma_state
struct tma_state {
  std::uint64_t full[max_ring_buffers + 1];  // an mbarrier per buffer: the ring's, then the arena
  unsigned phase;         // bit u: the parity with which buffer u's next phase completes
  unsigned pending;       // bit u: a copy into buffer u is in flight and nobody waits for it yet
  unsigned next_unit;     // the ring buffer the next call uses
  unsigned go;            // after a miss, for every thread: 0, no copy (the cp.async paths run); else 1 + buffer + 4 parity
  tma_memo memo;
  tma_tag tags[max_ring_buffers];  // the ring buffers'
  tma_tag last;           // the previous call's tiles (the prediction's step)
  int slot;               // this program's maps in the pool (tensor_maps.hpp); -1: none yet; -2: none to be had
  unsigned* owner;        // the slot's owner word, given back at the program's end
  unsigned maps, evict;   // maps made; the next to replace
  tma_key keys[tma_maps_per_program];
  char staging[256];      // a map being built, at its first 128-aligned byte
};
// The cp.async ring's units: the arena, then the first two ring buffers.
inline constexpr unsigned ring_units = 3;
struct dot_ring {
  unsigned plan;         // the dot shape that owns the ring; 0: none yet
  unsigned arena;        // bytes of the dots' arena
  unsigned ring_buffer;  // bytes of each ring buffer; 0: no ring
  unsigned ring_count;   // ring buffers: 2 to max_ring_buffers (the cp.async ring uses the first two)
  unsigned stages;       // the launch's num_stages
  unsigned running;      // 1 + the unit a ring call's wgmma group still running reads; 0: none
  ring_tag tags[ring_units];
  tma_state tma;  // the tensor maps, and the copy engine's ring (TL_DESCRIPTOR_TMA)
};
// The sizes the launch gives the entry (launch.hpp): arena 0 for a kernel without a tensor-core dot.
struct dynamic_layout {
  unsigned arena = 0, ring_buffer = 0, ring_count = 0;
  unsigned stages = 0;  // the launch's num_stages (a pipelined loop's default, loop.hpp)
};
// The header's size, and the dynamic shared memory that follows from it (in the launch's symbol
// namespace, config.hpp, with the launch functions that read them).
inline namespace TL_LAUNCH_ABI {
inline constexpr unsigned ring_header_bytes = (sizeof(dot_ring) + 15) / 16 * 16;
// Dynamic shared memory for an arena and the ring's buffers (launch.hpp).
inline constexpr unsigned dynamic_bytes(dynamic_layout l) {
  return l.arena == 0 ? 0 : ring_header_bytes + 1024 + l.arena + l.ring_count * l.ring_buffer;
}
}  // namespace TL_LAUNCH_ABI

}  // namespace tl::detail::cuda
// The dynamic shared memory, under a plain name: dot_arena reads its address in PTX.
extern "C" __shared__ __align__(16) char tl_dynamic_shared[];
namespace tl::detail::cuda {
__device__ __forceinline__ char* dynamic_shared() { return tl_dynamic_shared; }
__device__ __forceinline__ unsigned dynamic_shared_bytes() {
  unsigned n;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
  return n;
}
__device__ __forceinline__ dot_ring& ring_header() { return *reinterpret_cast<dot_ring*>(dynamic_shared()); }
// The dots' arena (1024-aligned: wgmma's swizzle is a function of the address).
// Its address is taken in PTX, where ptxas folds it (it places the dynamic memory after the
// static): computed from the C++ pointer, the alignment stays a run-time computation and the
// operands' descriptors with it (a matmul kernel took 27 more registers).
__device__ __forceinline__ char* dot_arena() {
  unsigned a;
  asm("mov.u32 %0, tl_dynamic_shared;" : "=r"(a));
  a = (a + ring_header_bytes + 1023) & ~1023u;
  return static_cast<char*>(__cvta_shared_to_generic(a));
}
// The ring's first buffer, after the arena.
__device__ __forceinline__ char* ring_buffers() { return dot_arena() + ring_header().arena; }
// Unit u of the cp.async ring (ring_units), `buffer` bytes a ring buffer.
__device__ __forceinline__ char* ring_unit(unsigned u, unsigned buffer) {
  return u == 0 ? dot_arena() : ring_buffers() + (u - 1) * buffer;
}
// Does the ring have buffers of `buffer` bytes?
__device__ __forceinline__ bool ring_fits(unsigned buffer) { return ring_header().ring_buffer >= buffer; }

// At the program's start, by thread 0 (the entry then waits for all threads).
__device__ __forceinline__ void ring_reset(dynamic_layout l) {
  dot_ring& r = ring_header();
  r.plan = 0;
  r.arena = l.arena;
  r.ring_buffer = l.ring_buffer;
  r.ring_count = l.ring_count;
  r.stages = l.stages;
  r.running = 0;
  for (auto& tag : r.tags) tag = ring_tag{};
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  tma_state& t = r.tma;
  for (auto& b : t.full) mbarrier_init(&b, 1);
  fence_mbarrier_init();
  t.phase = t.pending = t.next_unit = t.go = 0;
  t.memo = tma_memo{};
  for (auto& tag : t.tags) tag = tma_tag{};
  t.last = tma_tag{};
  t.slot = -1;
  t.owner = nullptr;
  t.maps = t.evict = 0;
#endif
}


// A dot about to write the arena other than from the ring (the arena is the ring's unit 0):
// the ring's wgmma groups may still read it and its copies may still land in it. Every thread
// waits for its own; the caller's barrier, which comes before its first write, then covers
// the program. Thread 0 forgets the arena's tiles (no thread reads the tags outside a ring call).
__device__ __forceinline__ void claim_arena() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  dot_ring& r = ring_header();
  if (r.ring_count == 0) return;
  wgmma_wait<0>();
  cp_async_wait_all();
  if (thread_id() == 0) r.tags[0] = ring_tag{};
#endif
}

#endif  // __CUDACC__

}  // namespace tl::detail::cuda
