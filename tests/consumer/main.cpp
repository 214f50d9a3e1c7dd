// Built against an installed tl: a kernel on tl::buffers, a launch, the autotuner, do_bench,
// and a check of the results.
#include <cstdio>
#include <vector>

#include "tuned.hpp"

int main() {
  const int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[std::size_t(i)] = float(i);
  const tl::buffer<float> x(host, tl::backend::cpu, "x");
  tl::buffer<float> z = x.full_like(-1.0f, "z");
  tl::check_tensors_ready(tl::backend::cpu, x, z);
  tl::launch<scale_kernel<128>>(tl::grid(tl::cdiv(n, 128)), x, z, 0.5f, n);
  scale_tuned([&](const scale_meta& m) { return tl::grid(tl::cdiv(n, m.b)); }, {}, x, z, 2.0f, n);
  const tl::bench_result r = tl::do_bench([&] { tl::launch<scale_kernel<128>>(tl::grid(tl::cdiv(n, 128)), x, z, 2.0f, n); },
                                          {.rep_ms = 5});
  const std::vector<float> out = z.to_host();
  for (int i = 0; i < n; ++i)
    if (out[std::size_t(i)] != 2.0f * float(i)) {
      std::printf("consumer: z[%d] = %g, expected %g\n", i, out[std::size_t(i)], 2.0f * float(i));
      return 1;
    }
  const tl::tuning* t = scale_tuned.tuned({n});
  if (!t || t->entries.size() != 2 || !t->entries[1].error.empty()) {
    std::printf("consumer: the autotuner did not time both configs\n");
    return 1;
  }
  std::printf("consumer: ok (do_bench %.4f ms; autotuner chose config %d)\n", r.ms, t->best);
  return 0;
}
