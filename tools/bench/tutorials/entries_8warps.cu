// Tutorial 02 (8 warps a program, as the tutorial launches it: a wide row spreads over twice
// the threads of a 4-warp program).
#include <stdexcept>

#include "../../../examples/tutorials/t02_fused_softmax.hpp"
#include "entry.hpp"
#include "tl_tutorial_kernels.hpp"

using namespace tutorial_entries;

namespace {
template <int BLOCK_SIZE>
void softmax(void* out, const void* in, int in_stride, int out_stride, int rows, int cols, int programs, void* stream) {
  tl::launch<softmax_kernel<BLOCK_SIZE>>(tl::grid(programs), on(stream),
                                         buffer<float>(out, span(rows, cols, out_stride, 1), "output"),
                                         buffer<const float>(in, span(rows, cols, in_stride, 1), "input"), in_stride,
                                         out_stride, rows, cols);
}
}  // namespace

extern "C" int tl_tutorials_softmax_f32(void* out, const void* in, int in_stride, int out_stride, int rows, int cols,
                                        int programs, void* stream) {
  return guarded([&] {
    if (cols <= 256) softmax<256>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 512) softmax<512>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 1024) softmax<1024>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 2048) softmax<2048>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 4096) softmax<4096>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 8192) softmax<8192>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 16384) softmax<16384>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else throw std::invalid_argument("softmax: n_cols " + std::to_string(cols) + " is more than 16384");
  });
}
