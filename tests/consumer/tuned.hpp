// An autotuned kernel, as a consumer writes one against the installed package.
#pragma once

#include <tl/tl.hpp>

template <int B>
TL_KERNEL void scale_kernel(tl::ptr<const float> x, tl::ptr<float> z, float a, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto mask = offs < n;
  tl::store(z + offs, a * tl::load(x + offs, mask), mask);
}

struct scale_meta {
  int b;
};
constexpr tl::config<scale_meta> scale_configs[] = {{.meta = {64}}, {.meta = {256}, .num_warps = 8}};
struct scale_of {
  template <scale_meta M>
  static constexpr auto kernel = scale_kernel<M.b>;
};
inline tl::autotuner<scale_configs, scale_of> scale_tuned{{.name = "consumer-scale", .key = {3}, .rep_ms = 5}};
TL_AUTOTUNE_UNIT(scale_tuned)
