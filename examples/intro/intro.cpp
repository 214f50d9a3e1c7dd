// tl-intro: the four warm-up demos that open Triton-Puzzles(-Lite), as tl programs on the CPU
// backend, each printing what it loaded or stored. Read them before puzzle 1.
//   tl-intro          all four
//   tl-intro 2        demo 2 alone
// Demo 4 also calls tl::breakpoint_if("=1"): under gdb (`gdb -ex 'break tl_breakpoint' --args
// tl-intro 4`, then `run`, `frame 2`, `print x`) it stops in program 1 only.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tl/tl.hpp>

using tl::None;
using tl::_;

// Demo 1: a masked 1-D load. Eight lanes, five masked in; the other three read as `other` (0).
TL_KERNEL void demo1(tl::ptr<float> x_ptr) {
  auto range = tl::arange<0, 8>();
  tl::device_print("range", range);
  auto x = tl::load(x_ptr + range, range < 5, 0.0f);
  tl::device_print("x", x);
}

// Demo 2: a 2-D load. An 8 x 4 block of offsets over a 4 x 4 buffer, masked to its first 4 rows
// and 3 columns.
TL_KERNEL void demo2(tl::ptr<float> x_ptr) {
  auto i_range = tl::arange<0, 8>()(_, None);
  auto j_range = tl::arange<0, 4>()(None, _);
  auto range = i_range * 4 + j_range;
  tl::device_print("range", range);
  auto x = tl::load(x_ptr + range, (i_range < 4) & (j_range < 3), 0.0f);
  tl::device_print("x", x);
}

// Demo 3: a masked store. Writes 10 into the first five elements only.
TL_KERNEL void demo3(tl::ptr<float> z_ptr) {
  auto range = tl::arange<0, 8>();
  tl::store(z_ptr + range, 10.0f, range < 5);  // a scalar broadcasts to the block, as in Triton
}

// Demo 4: three programs. Each loads its own 8 elements (program_id(0) * 8 + 0..7), masked to
// the first 20 of the buffer: program 2 gets four.
TL_KERNEL void demo4(tl::ptr<float> x_ptr) {
  auto pid = tl::program_id(0);
  auto range = tl::arange<0, 8>() + pid * 8;
  auto x = tl::load(x_ptr + range, range < 20, 0.0f);
  tl::breakpoint_if("=1");  // a debugger stops here, in program 1 only
  tl::device_print("print for each", pid, x);
}

int main(int argc, char** argv) {
  const int only = argc > 1 ? std::atoi(argv[1]) : 0;
  if (argc > 1 && (only < 1 || only > 4)) {
    std::fprintf(stderr, "tl-intro: no demo '%s' (1 to 4)\n", argv[1]);
    return 2;
  }
  const tl::launch_options in_order{.sequential = true};  // programs one by one: prints in order
  std::vector<float> x(12);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i);
  if (!only || only == 1) {
    std::printf("demo 1: a masked 1-D load of a 4 x 3 buffer (elements 0 .. 11)\n");
    tl::launch<demo1>(tl::grid(1), in_order, tl::ptr(x, "x"));
  }
  if (!only || only == 2) {
    std::printf("\ndemo 2: a masked 2-D load of a 4 x 4 buffer (elements 0 .. 15)\n");
    std::vector<float> y(16);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = float(i);
    tl::launch<demo2>(tl::grid(1), in_order, tl::ptr(y, "x"));
  }
  if (!only || only == 3) {
    std::printf("\ndemo 3: a masked store into a 4 x 3 buffer of ones\n");
    std::vector<float> z(12, 1.0f);
    tl::launch<demo3>(tl::grid(1), in_order, tl::ptr(z, "z"));
    std::printf("z =");
    for (float v : z) std::printf(" %g", v);
    std::printf("\n");
  }
  if (!only || only == 4) {
    std::printf("\ndemo 4: three programs over a 2 x 4 x 4 buffer (elements 0 .. 31)\n");
    std::vector<float> w(32);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = float(i);
    tl::launch<demo4>(tl::grid(3), in_order, tl::ptr(w, "x"));
  }
  return 0;
}
