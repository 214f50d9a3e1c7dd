// Guide example 1: copy a tensor. The guide writes the kernel twice wrong before it is right;
// both mistakes are kept here, because the CPU backend's report names each of them (tl-guide
// copy shows the reports; tests/examples/test_guide.cpp checks them).
#pragma once

#include <tl/tl.hpp>

// Mistake 1: the offsets do not move with the program id. Every program copies x[0:bs]
// into z[0:bs]: the programs store the same elements (a race), and z[bs:] is never written.
template <int bs>
TL_KERNEL void copy_k_same_offsets(tl::ptr<const int> x_ptr, tl::ptr<int> z_ptr, int n) {
  auto pid = tl::program_id(0);
  (void)pid;
  auto offs = tl::arange<0, bs>();
  auto mask = offs < n;
  auto x = tl::load(x_ptr + offs, mask);
  tl::store(z_ptr + offs, x, mask);
}

// Mistake 2: pid * n instead of pid * bs. Program 0 copies x[0:bs]; every other program's
// offsets start at n or beyond, so its mask is false everywhere and it does nothing.
template <int bs>
TL_KERNEL void copy_k_times_n(tl::ptr<const int> x_ptr, tl::ptr<int> z_ptr, int n) {
  auto pid = tl::program_id(0);
  auto offs = pid * n + tl::arange<0, bs>();
  auto mask = offs < n;
  auto x = tl::load(x_ptr + offs, mask);
  tl::store(z_ptr + offs, x, mask);
}

// Right.                                          Triton:
template <int bs>                               // @triton.jit
TL_KERNEL void copy_k(tl::ptr<const int> x_ptr,  // def copy_k(x_ptr, z_ptr, n, bs: tl.constexpr):
                      tl::ptr<int> z_ptr, int n) {
  auto pid = tl::program_id(0);                 //     pid = tl.program_id(0)
  auto offs = pid * bs + tl::arange<0, bs>();   //     offs = pid * bs + tl.arange(0, bs)
  auto mask = offs < n;                         //     mask = offs < n
  auto x = tl::load(x_ptr + offs, mask);        //     x = tl.load(x_ptr + offs, mask)
  tl::store(z_ptr + offs, x, mask);             //     tl.store(z_ptr + offs, x, mask)
}

// The guide's copy(x, bs, kernel_fn): z = zeros_like(x), then one program per bs elements.
// Returns z and the launch's report (collected, not thrown: the mistakes above are reported).
template <auto kernel_fn, int bs>
std::pair<tl::buffer<int>, tl::launch_report> copy(const tl::buffer<int>& x, tl::launch_options o = {}) {
  auto z = x.zeros_like("z");
  tl::check_tensors_ready(x.backend(), x, z);
  const int n = int(x.numel());
  const int n_blocks = tl::cdiv(n, bs);
  o.backend = x.backend();
  o.failure = tl::on_failure::collect;
  auto report = tl::launch<kernel_fn>(tl::grid(n_blocks), o, x, z, n);
  return {std::move(z), std::move(report)};
}
