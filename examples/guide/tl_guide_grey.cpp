// tl-guide, example 2: a PNG photo to greyscale.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "grey.hpp"
#include "image_png.hpp"
#include "tl_guide_examples.hpp"

namespace guide {

void grey_example(tl::backend on, const std::string& image_path, const std::string& out_path) {
  std::printf("== example 2: greyscale an image (backend %s)\n", tl::to_string(on));
  const guide::planar_image img = guide::read_png_rgb(image_path);
  std::printf("  %s: %d x %d x %d\n", image_path.c_str(), img.channels, img.h, img.w);
  const tl::buffer<std::uint8_t> x(img.pixels, {3, img.h, img.w}, on, "img");
  const std::vector<std::uint8_t> grey = rgb2grey<32, 32>(x).to_host();
  // The reference: the kernel's formula in double, truncated to a byte as the store does.
  const std::size_t plane = std::size_t(img.h) * std::size_t(img.w);
  int worst = 0;
  for (std::size_t i = 0; i < plane; ++i) {
    const double v = 0.2989 * img.pixels[i] + 0.5870 * img.pixels[plane + i] + 0.1140 * img.pixels[2 * plane + i];
    worst = std::max(worst, std::abs(int(grey[i]) - int(v)));
  }
  check(worst <= 1, "every grey pixel within 1 of the reference (worst " + std::to_string(worst) + ")");
  guide::write_png_grey(out_path, img.h, img.w, grey);
  std::printf("  wrote %s\n", out_path.c_str());
}

}  // namespace guide
