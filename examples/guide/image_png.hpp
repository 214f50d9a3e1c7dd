// PNG files in and out, through libpng's simplified API: a colour image read as planar RGB
// (3 x h x w bytes: the layout torchvision's read_image gives, and the greyscale kernel reads),
// a greyscale image written from h x w bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace guide {

struct planar_image {
  int channels = 0, h = 0, w = 0;
  std::vector<std::uint8_t> pixels;  // channel-major: pixels[(c * h + y) * w + x]
};

// Reads any PNG (palette, grey, alpha are converted) as 3 x h x w RGB. Throws
// std::runtime_error with libpng's reason if the file cannot be read.
planar_image read_png_rgb(const std::string& path);

// Writes h x w grey bytes (row-major) as an 8-bit greyscale PNG.
void write_png_grey(const std::string& path, int h, int w, const std::vector<std::uint8_t>& grey);

}  // namespace guide
