#include "image_png.hpp"

#include <png.h>

#include <stdexcept>

namespace guide {

planar_image read_png_rgb(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str()))
    throw std::runtime_error("cannot read " + path + ": " + image.message);
  image.format = PNG_FORMAT_RGB;
  std::vector<std::uint8_t> interleaved(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, interleaved.data(), 0, nullptr)) {
    const std::string why = image.message;
    png_image_free(&image);
    throw std::runtime_error("cannot decode " + path + ": " + why);
  }
  planar_image out;
  out.channels = 3;
  out.h = int(image.height);
  out.w = int(image.width);
  out.pixels.resize(std::size_t(3) * std::size_t(out.h) * std::size_t(out.w));
  const std::size_t plane = std::size_t(out.h) * std::size_t(out.w);
  for (std::size_t i = 0; i < plane; ++i)
    for (std::size_t c = 0; c < 3; ++c) out.pixels[c * plane + i] = interleaved[3 * i + c];
  return out;
}

void write_png_grey(const std::string& path, int h, int w, const std::vector<std::uint8_t>& grey) {
  if (grey.size() != std::size_t(h) * std::size_t(w))
    throw std::invalid_argument("write_png_grey: " + std::to_string(grey.size()) + " bytes for " + std::to_string(h) +
                                " x " + std::to_string(w));
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = png_uint_32(w);
  image.height = png_uint_32(h);
  image.format = PNG_FORMAT_GRAY;
  if (!png_image_write_to_file(&image, path.c_str(), 0, grey.data(), 0, nullptr))
    throw std::runtime_error("cannot write " + path + ": " + image.message);
}

}  // namespace guide
