// The pipelined K loop (range::fold) of tutorial 09's descriptor kernel with the loop's stages and
// the launch's num_stages as run-time arguments, for one-run comparisons on the device:
//   nvcc ... -DTL_NUM_WARPS=8 -DPROBE_BN=256 -shared  (tools/dev/probes/fold_probe.py builds and times it)
#include <algorithm>
#include <cstdint>

#include <tl/kernel.hpp>

#include "../../../examples/tutorials/t09_persistent_matmul.hpp"

#ifndef PROBE_BN
#define PROBE_BN 128
#endif

template <int BM, int BN, int BK, int GROUP_SIZE_M>
TL_KERNEL void fold_probe_k(tl::ptr<const tl::fp16> a_ptr, tl::ptr<const tl::fp16> b_ptr, tl::ptr<tl::fp16> c_ptr, int M,
                            int N, int K, int NUM_SMS, int stages) {
  auto start_pid = tl::program_id(0);
  auto num_pid_m = tl::cdiv(M, BM);
  auto num_pid_n = tl::cdiv(N, BN);
  auto k_tiles = tl::cdiv(K, BK);
  auto num_tiles = num_pid_m * num_pid_n;
  auto a_desc = tl::make_tensor_descriptor(a_ptr, {M, K}, {K, 1}, tl::block_shape<BM, BK>);
  auto b_desc = tl::make_tensor_descriptor(b_ptr, {N, K}, {K, 1}, tl::block_shape<BN, BK>);
  auto c_desc = tl::make_tensor_descriptor(c_ptr, {M, N}, {N, 1}, tl::block_shape<BM, BN>);
  auto num_pid_in_group = GROUP_SIZE_M * num_pid_n;
  for (int tile_id : tl::range(start_pid, num_tiles, NUM_SMS)) {
    auto [pid_m, pid_n] = compute_pid<GROUP_SIZE_M>(tile_id, num_pid_in_group, num_pid_m);
    auto offs_am = pid_m * BM;
    auto offs_bn = pid_n * BN;
    auto acc = tl::range(0, k_tiles, 1, {.num_stages = stages}).fold(tl::zeros<BM, BN>(tl::float32), [&](int ki, auto acc) {
      return tl::dot(a_desc.load({offs_am, ki * BK}), tl::trans(b_desc.load({offs_bn, ki * BK})), acc);
    });
    c_desc.store({offs_am, offs_bn}, acc.to(tl::float16));
  }
}

extern "C" int fold_probe(const void* a, const void* b, void* c, int M, int N, int K, int programs, int stages,
                          int launch_stages) {
  constexpr int BM = 128, BN = PROBE_BN, BK = 64;
  programs = std::min(programs, tl::cdiv(M, BM) * tl::cdiv(N, BN));
  tl::launch_options o{.backend = tl::backend::cuda, .wait = false};
  o.num_stages = launch_stages;
  tl::launch<fold_probe_k<BM, BN, BK, 8>>(
      tl::grid(programs), o, tl::ptr<const tl::fp16>(static_cast<const tl::fp16*>(a), std::int64_t(M) * K),
      tl::ptr<const tl::fp16>(static_cast<const tl::fp16*>(b), std::int64_t(N) * K),
      tl::ptr<tl::fp16>(static_cast<tl::fp16*>(c), std::int64_t(M) * N), M, N, K, programs, stages);
  return 0;
}
