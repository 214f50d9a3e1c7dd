// Guide example 2: greyscale a colour image. The image is planar (C x H x W, as torchvision
// reads it): red, green and blue planes of h x w bytes. One program per bs0 x bs1 tile.
#pragma once

#include <cstdint>

#include <tl/tl.hpp>

using tl::None;
using tl::_;

//                                                                 Triton:
template <int bs0, int bs1>                                     // @triton.jit
TL_KERNEL void rgb2grey_k(tl::ptr<const std::uint8_t> x_ptr,    // def rgb2grey_k(x_ptr, out_ptr, h, w,
                          tl::ptr<std::uint8_t> out_ptr,        //                bs0: tl.constexpr, bs1: tl.constexpr):
                          int h, int w) {
  auto pid_0 = tl::program_id(0);                               //     pid_0 = tl.program_id(0)
  auto pid_1 = tl::program_id(1);                               //     pid_1 = tl.program_id(1)

  auto offs_0 = pid_0 * bs0 + tl::arange<0, bs0>();             //     offs_0 = pid_0 * bs0 + tl.arange(0, bs0)
  auto offs_1 = pid_1 * bs1 + tl::arange<0, bs1>();             //     offs_1 = pid_1 * bs1 + tl.arange(0, bs1)

  auto offs = w * offs_0(_, None) + offs_1(None, _);            //     offs = w * offs_0[:, None] + offs_1[None, :]

  auto mask_0 = offs_0 < h;                                     //     mask_0 = offs_0 < h
  auto mask_1 = offs_1 < w;                                     //     mask_1 = offs_1 < w
  auto mask = mask_0(_, None) & mask_1(None, _);                //     mask = mask_0[:, None] & mask_1[None, :]

  auto r = tl::load(x_ptr + 0 * h * w + offs, mask);            //     r = tl.load(x_ptr + 0*h*w + offs, mask=mask)
  auto g = tl::load(x_ptr + 1 * h * w + offs, mask);            //     g = tl.load(x_ptr + 1*h*w + offs, mask=mask)
  auto b = tl::load(x_ptr + 2 * h * w + offs, mask);            //     b = tl.load(x_ptr + 2*h*w + offs, mask=mask)

  auto out = 0.2989f * r + 0.5870f * g + 0.1140f * b;           //     out = 0.2989*r + 0.5870*g + 0.1140*b

  tl::store(out_ptr + offs, out, mask);                         //     tl.store(out_ptr + offs, out, mask=mask)
}

// The guide's rgb2grey(x, bs): x is a 3 x h x w buffer of bytes; returns h x w.
template <int bs0 = 32, int bs1 = 32>
tl::buffer<std::uint8_t> rgb2grey(const tl::buffer<std::uint8_t>& x, tl::launch_options o = {}) {
  if (x.rank() != 3 || x.shape(0) != 3)
    throw tl::usage_error("rgb2grey: the image must be 3 x h x w (planar RGB), not " + x.sizes().str());
  const int h = int(x.shape(1)), w = int(x.shape(2));
  tl::buffer<std::uint8_t> out({h, w}, x.backend(), "out");
  tl::check_tensors_ready(x.backend(), x, out);
  o.backend = x.backend();
  tl::launch<rgb2grey_k<bs0, bs1>>(tl::grid(tl::cdiv(h, bs0), tl::cdiv(w, bs1)), o, x, out, h, w);
  return out;
}
