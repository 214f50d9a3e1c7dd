// tl/backend/cuda/loop.hpp: range::fold (ops/program.hpp) on the CUDA backend: a loop of
// tensor-core dots scheduled as one pipeline.
//
// The loop owns the pipeline: nothing is carried from one dot call to the next, and no other op
// takes part. The plan is made at compile time from the type of the body's result when run ahead
// (expr/ahead.hpp): a dot_ahead whose operands the copy engine can write as wgmma reads them
// (sm_90a; both tensor descriptors' blocks of rank 2, B = trans(x) with x's rows along K:
// wgmma_dot::tma_tiles) is pipelined; any other body runs as the plain loop, each dot its own.
//
// The pipeline (docs/04-cuda-backend.md draws it): S stages of A and B tiles in the dots' arena
// and the launch's ring buffers (pipeline.hpp), a full and an empty mbarrier per stage; the
// copies run L = S - 1 iterations ahead (L = 1 with one stage). Step t, every warp:
//   consume iteration t - L   wait full[s]; its wgmma group; wait until one group is left
//                             running, then release the previous iteration's stage (empty)
//   produce iteration t       the body run ahead (the block coordinates of A and B); thread 0
//                             waits until every warp has released the stage (empty), then
//                             issues the bulk tensor copies into it (full[s] counts the bytes)
// No block-wide barrier in the steady state: a warp waits only for its stage's bytes, and thread
// 0 for the stage it refills. The body runs once per iteration, in order, L iterations ahead of
// its multiply. An iteration whose operands the copy engine cannot read as the loop's maps do
// (another tensor than the first iteration's, an odd stride, a block updated after its load) is
// written into its stage by the threads (from memory, or from the block's registers), which then
// complete full[s] themselves: the loop keeps its shape, and every loop gives the plain loop's
// result.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../expr/ahead.hpp"
#include "dot_wgmma.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS

template <class Acc, class Body>
__device__ __forceinline__ void plain_fold(int k, int stop, int step, Acc& acc, Body& body) {
  for (; step > 0 ? k < stop : step < 0 && k > stop; k += step) acc = body(k, static_cast<const Acc&>(acc));
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

inline constexpr int fold_max_stages = 1 + max_ring_buffers;  // the arena and the ring's buffers

// The tensor a pipeline's map reads, as an iteration's descriptor block names it: the same
// tensor and window of rows as the first iteration's is what the map reads.
struct fold_tensor {
  const void* base;
  std::int64_t shape[2], strides[2];
  std::int64_t window;  // the first row of the map's window
};

// The pipeline's state in static shared memory: 256 bytes, as tl's other static arrays
// (pipeline.hpp: the launch reads the markers from the static size modulo 256).
struct fold_barriers {
  std::uint64_t full[6];   // stage s's copies have landed (one arrival and the bytes)
  std::uint64_t empty[6];  // every warp is done with stage s (one arrival a warp)
  const void* map_a;       // the loop's tensor maps (thread 0 issues every copy); null: none
  const void* map_b;
  fold_tensor a, b;        // what they read
  int pad[12];
};
static_assert(sizeof(fold_barriers) == 256 && fold_max_stages <= 6);

template <class R, class Acc, bool Planned = false>
struct tma_fold {
  static constexpr bool ok = false;
};

// Is a dot of these operands a candidate at all? (Before wgmma_dot is formed: it needs a plan.)
template <class Prec, class EA, class EB, class Acc>
struct tma_fold_plan {
  using TA = value_of_t<EA>;
  using D = dot_shapes<shape_of_t<EA>, shape_of_t<EB>>;
  // Prec::value == input_precision::tf32 (its first enumerator; the enum is ops/dot.hpp's)
  static constexpr bool tf = std::is_same_v<TA, float> && static_cast<int>(Prec::value) == 0;
  using Kind = typename mma_kind<TA, value_of_t<Acc>, tf>::type;
  static constexpr bool candidate = std::is_same_v<value_of_t<Acc>, float> && descriptor_rank_v<EA> == 2 &&
                                    transposed_operand_v<EB> && D::ranks_ok && D::inner_ok && D::BA == 1 &&
                                    !std::is_void_v<Kind>;
};

struct no_tma_fold {
  static constexpr bool ok = false;
};
template <class Prec, class EA, class EB, class Acc>
struct tma_fold<dot_ahead<Prec, EA, EB, Acc>, Acc, false>
    : std::conditional_t<tma_fold_plan<Prec, EA, EB, Acc>::candidate, tma_fold<dot_ahead<Prec, EA, EB, Acc>, Acc, true>,
                         no_tma_fold> {};

template <class Prec, class EA, class EB, class Acc>
struct tma_fold<dot_ahead<Prec, EA, EB, Acc>, Acc, true> {
  using R = dot_ahead<Prec, EA, EB, Acc>;
  using Q = tma_fold_plan<Prec, EA, EB, Acc>;
  using For = wgmma_plan_for<typename Q::D, typename Q::Kind, EA, EB, Acc>;
  using P = typename For::type;
  using Dot = wgmma_dot<P, EA, EB, Acc>;
  static constexpr bool ok = For::ok && Dot::tma_tiles;

  static constexpr int M = P::M, N = P::N, KC = P::KC, W = P::W, size = P::size;
  static constexpr unsigned a_bytes = unsigned(M * KC * size);
  static constexpr unsigned stage_bytes = Dot::ring_buffer_bytes;
  static constexpr unsigned tx_bytes = unsigned((M + N) * KC * size);  // what a stage's copies bring
  static constexpr int boxes = KC * size / W, box_cols = W / size;    // a box: W bytes of each row

  __device__ __forceinline__ static const descriptor_source<2>& source_a(const R& x) { return x.a.source; }
  __device__ __forceinline__ static const descriptor_source<2>& source_b(const R& x) { return x.b.e.source; }
  __device__ __forceinline__ static bool copyable(const R& x) {
    return x.a.fresh && x.b.e.fresh && Dot::tma_fits(source_a(x)) && Dot::tma_fits(source_b(x));
  }
  __device__ __forceinline__ static fold_tensor tensor_of(const descriptor_source<2>& s) {
    return {s.base, {s.shape[0], s.shape[1]}, {s.strides[0], s.strides[1]}, Dot::window_start(s)};
  }
  // Is block s of the tensor the map of f reads, inside the map's coordinates? (The first
  // iteration's tensor passed tma_fits; what it checks besides is the offsets' range.)
  __device__ __forceinline__ static bool same_tensor(const descriptor_source<2>& s, const fold_tensor& f) {
    constexpr std::int64_t most = 0x7fffffff;
    return s.base == f.base && s.shape[0] == f.shape[0] && s.shape[1] == f.shape[1] && s.strides[0] == f.strides[0] &&
           s.strides[1] == f.strides[1] && Dot::window_start(s) == f.window && s.offsets[0] >= -most &&
           s.offsets[1] >= -most && s.offsets[1] <= most;
  }
  // Can iteration x's operands take the pipeline's maps? (Warp 0, reading the first iteration's
  // tensors from shared memory.)
  __device__ __forceinline__ static bool takes(const R& x, const fold_barriers& bars) {
    return same_tensor(source_a(x), bars.a) && same_tensor(source_b(x), bars.b);
  }

  __device__ __forceinline__ static char* stage(int s, unsigned ring_buffer) {
    return s == 0 ? dot_arena() : ring_buffers() + unsigned(s - 1) * ring_buffer;
  }

  // An iteration's stage and the parity of the stage's use, kept as the loop goes (no division).
  struct ring_position {
    int stage = 0;
    unsigned phase = 0;
    __device__ __forceinline__ void advance(int S) {
      if (++stage == S) {
        stage = 0;
        phase ^= 1u;
      }
    }
  };

  // The loop's state, the same in every thread: S stages, the copies run L iterations ahead.
  struct pipe {
    fold_barriers& bars;
    const void* map_a;
    const void* map_b;
    unsigned ring_buffer;
    int S, L;
  };

  // A Rows x KC tile of a descriptor's tensor (0 outside it) into its K-major place at buf, by
  // the threads from `first` in steps of `count`, one element at a time: the copy where the copy
  // engine cannot read the tensor.
  template <int Rows>
  __device__ __forceinline__ static void copy_from_memory(const descriptor_source<2>& src, char* buf, int first,
                                                          int count) {
    using T = value_of_t<EA>;
    const T* const base = static_cast<const T*>(src.base);
    _Pragma("unroll 1")
    for (int e = first; e < Rows * KC; e += count) {
      const int r = e / KC, c = e % KC;
      const std::int64_t gr = src.offsets[0] + r, gc = src.offsets[1] + c;
      T v{};
      if (gr >= 0 && gr < src.shape[0] && gc >= 0 && gc < src.shape[1]) v = base[gr * src.strides[0] + gc * src.strides[1]];
      *reinterpret_cast<T*>(buf + kmajor_offset<W, size>(r, c, Rows)) = v;
    }
  }

  // Iteration j's operands (x, the body run ahead) into stage j % S, once every warp has released
  // it, full[s] completing when they are there:
  //   the copy engine's path   thread 0 issues the bulk tensor copies (full[s] counts the bytes)
  //   else, operands still what memory holds: copied element by element, by every thread where
  //     the loop has no maps at all (p.map_a is the same in every thread), else by warp 0 (another
  //     tensor than the first iteration's)
  //   else (an operand updated after its load): every thread writes its registers
  // (at is iteration j's stage and the parity of that stage's use: j % S and (j / S) % 2.)
  __device__ __forceinline__ static void produce(const R& x, int j, ring_position at, const pipe& p) {
    const int s = at.stage;
    fold_barriers& bars = p.bars;
    const bool wait = j >= p.S;
    const unsigned parity = at.phase ^ 1u;  // the release of iteration j - S
    char* const buf = stage(s, p.ring_buffer);
    const int t = thread_id();
    if (!(x.a.fresh && x.b.e.fresh) || !p.map_a) {  // every thread (the same in all)
      if (wait) mbarrier_wait(&bars.empty[s], parity);
      if (x.a.fresh) {
        copy_from_memory<M>(source_a(x), buf, t, threads);
      } else {
        write_a<KC>(x.a, KC, 0, Dot::a_at(buf));
      }
      if (x.b.e.fresh) {
        copy_from_memory<N>(source_b(x), buf + a_bytes, t, threads);
      } else {
        const auto at = Dot::b_at(buf + a_bytes);
        write_a<KC>(x.b.e, KC, 0, [&](int n, int c) { return at(0, c, n); });
      }
      fence_proxy_async();
      barrier();
      if (t == 0) mbarrier_arrive(&bars.full[s]);
      return;
    }
    if (t >= 32) return;
    if (wait) mbarrier_wait(&bars.empty[s], parity);
    if (takes(x, bars)) {
      if (t == 0) {
        const descriptor_source<2>& sa = source_a(x);
        const descriptor_source<2>& sb = source_b(x);
        const int a_row = int(sa.offsets[0] - Dot::window_start(sa)), a_col = int(sa.offsets[1]);
        const int b_row = int(sb.offsets[0] - Dot::window_start(sb)), b_col = int(sb.offsets[1]);
        mbarrier_arrive_expect_tx(&bars.full[s], tx_bytes);
        TL_UNROLL
        for (int i = 0; i < boxes; ++i) tma_load_2d(buf + i * M * W, p.map_a, a_col + i * box_cols, a_row, &bars.full[s]);
        TL_UNROLL
        for (int i = 0; i < boxes; ++i)
          tma_load_2d(buf + a_bytes + i * N * W, p.map_b, b_col + i * box_cols, b_row, &bars.full[s]);
        if constexpr (TL_COUNT_TMA_CALLS) atomicAdd(&the_map_pool().calls, 1ull);
      }
    } else {
      copy_from_memory<M>(source_a(x), buf, t, 32);
      copy_from_memory<N>(source_b(x), buf + a_bytes, t, 32);
      fence_proxy_async();
      __syncwarp();
      if (t == 0) mbarrier_arrive(&bars.full[s]);
    }
    __syncwarp();
  }
  // Every warp: iteration i's multiply, then the release of the stage whose group is done (with
  // one stage, this one's; else the previous iteration's, whose group ran on under this one).
  __device__ __forceinline__ static void consume(Dot& dot, int i, ring_position at, const pipe& p) {
    const int s = at.stage;
    mbarrier_wait(&p.bars.full[s], at.phase);
    __syncwarp();  // wgmma's instructions want the warp converged
    char* const buf = stage(s, p.ring_buffer);
    dot.multiply(buf, buf + a_bytes, true);
    if (p.S == 1) {
      wgmma_wait<0>();
      if (threadIdx.x % 32 == 0) mbarrier_arrive(&p.bars.empty[s]);
    } else {
      wgmma_wait<1>();
      if (i > 0 && threadIdx.x % 32 == 0) mbarrier_arrive(&p.bars.empty[s == 0 ? p.S - 1 : s - 1]);
    }
  }

  // Every thread, before the first iteration's copies: the previous dots are done with the
  // buffers; warp 0 finds or builds the maps of the first iteration's tensors, thread 0 retires
  // what the dots' rings hold and starts the barriers.
  __device__ __forceinline__ static void start_pipe(const R& first, pipe& p) {
    dot_ring& ring = ring_header();
    fold_barriers& bars = p.bars;
    const bool wanted = copyable(first);
    barrier();
    if (thread_id() < 32) {
      tma_state& ts = ring.tma;
      const void* map_a = wanted ? Dot::template tma_map<M>(ts, Dot::template key_of<M>(source_a(first)), nullptr) : nullptr;
      const void* map_b =
          wanted && map_a ? Dot::template tma_map<N>(ts, Dot::template key_of<N>(source_b(first)), map_a) : nullptr;
      if (thread_id() == 0) {
        ring.plan = 0;
        ring.running = 0;
        for (auto& tag : ring.tags) tag = ring_tag{};
        drain_all(ts);
        for (auto& tag : ts.tags) tag = tma_tag{};
        ts.last = tma_tag{};
        const bool maps = map_a && map_b;
        bars.map_a = maps ? map_a : nullptr;
        bars.map_b = maps ? map_b : nullptr;
        bars.a = tensor_of(source_a(first));
        bars.b = tensor_of(source_b(first));
        for (int s = 0; s < p.S; ++s) {
          mbarrier_init(&bars.full[s], 1);
          mbarrier_init(&bars.empty[s], unsigned(threads / 32));
        }
        fence_mbarrier_init();
      }
    }
    barrier();
    p.map_a = bars.map_a;
    p.map_b = bars.map_b;
  }

  // Step t: the multiply of iteration t - L, then iteration t run ahead and its copies issued.
  template <class Body>
  __device__ __forceinline__ static void run(int start, int stop, int step, int want, Acc& acc, Body& body) {
    const std::int64_t span = step > 0 ? std::int64_t(stop) - start : std::int64_t(start) - stop;
    const std::int64_t astep = step > 0 ? step : -std::int64_t(step);
    const int n = span > 0 && step != 0 ? int((span + astep - 1) / astep) : 0;
    if (n == 0) return;
    __shared__ fold_barriers bars;
    dot_scratch<P::bytes(KC), true>();  // the arena, and the ring's buffers from the launch
    const dot_ring& ring = ring_header();
    pipe p{bars, nullptr, nullptr, ring.ring_buffer, 1, 1};
    const int buffers = p.ring_buffer >= stage_bytes ? int(ring.ring_count) : 0;
    p.S = want > 0 ? want : int(ring.stages);
    p.S = p.S < 1 ? 1 : p.S < 1 + buffers ? p.S : 1 + buffers;
    p.L = p.S == 1 ? 1 : p.S - 1;
    const ahead_acc<Acc> probe{};
    wgmma_wait<0>();  // the dots before the loop are done with the accumulator and the buffers
    cp_async_wait_all();
    Dot dot(&acc);
    ring_position taken, filled;  // the next iteration to multiply's stage, and to copy's
    for (int t = 0; t < n + p.L; ++t) {
      if (t >= p.L) {
        consume(dot, t - p.L, taken, p);
        taken.advance(p.S);
      }
      if (t < n) {
        const R x = body(start + t * step, probe);
        if (t == 0) start_pipe(x, p);
        produce(x, t, filled, p);
        filled.advance(p.S);
      }
    }
    // The last group done, every warp past its waits, the barriers retired.
    wgmma_wait<0>();
    dot.fence_accumulators();
    barrier();
    if (thread_id() == 0)
      for (int s = 0; s < p.S; ++s) {
        mbarrier_inval(&bars.full[s]);
        mbarrier_inval(&bars.empty[s]);
      }
    dot.store(acc);
  }
};

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// range::fold: pipelined where the plan allows, else the plain loop.
template <class Acc, class Body>
__device__ __forceinline__ Acc fold(int start, int stop, int step, int stages, Acc acc, Body& body) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using R = std::remove_cvref_t<decltype(body(start, std::declval<const ahead_acc<Acc>&>()))>;
  if constexpr (is_dot_ahead_v<R>) {
    using F = tma_fold<R, Acc>;
    if constexpr (F::ok) {
      F::run(start, stop, step, stages, acc, body);
      return acc;
    }
  }
#endif
  (void)stages;
  plain_fold(start, stop, step, acc, body);
  return acc;
}

#endif  // TL_DEVICE_PASS

}  // namespace tl::detail::cuda
