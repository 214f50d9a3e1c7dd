// The access picture in a browser: headless Chromium (Debian's chromium) loads the page, runs
// its script and takes screenshots, whose red pixels are counted (the PNG decoded with zlib).
//   - the script ran (the DOM after it has data-ready="1"; ?program=2 showed program 2's table);
//   - a launch with an off-by-one mask shows red cells that the correct launch does not;
//   - picking a program without invalid accesses hides them.
// Exit 77 (reported by CTest as skipped, with the message) when chromium is not installed:
// tools/test.sh installs it (tools/install-deps.sh --tests).
#include <tl/runtime/access_picture.hpp>
#include <tl/tl.hpp>

#include "traced_kernels.hpp"

#include <zlib.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string page_for(int slack) {
  std::vector<float> x(20, 1.0f), z(20, 0.0f);
  tl::trace t;
  tl::launch<traced::add_ten<8>>(tl::grid(3), {.failure = tl::on_failure::collect, .trace = &t}, tl::ptr<float>(x, "x"),
                         tl::ptr<float>(z, "z"), 20, slack);
  return tl::access_picture(t);
}

std::string run(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    std::array<char, 4096> buf;
    for (std::size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
    pclose(p);
  }
  return out;
}

std::uint32_t be32(const unsigned char* p) { return std::uint32_t(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

// An 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) as RGB triples; empty if not.
std::vector<std::array<int, 3>> decode_png(const std::string& path, int& width, int& height) {
  std::ifstream f(path, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto* d = reinterpret_cast<const unsigned char*>(data.data());
  if (data.size() < 33 || data.compare(1, 3, "PNG") != 0) return {};
  std::string idat;
  int color = -1, depth = 0, interlace = 0;
  for (std::size_t at = 8; at + 12 <= data.size();) {
    const std::uint32_t len = be32(d + at);
    const std::string type = data.substr(at + 4, 4);
    if (type == "IHDR") {
      width = int(be32(d + at + 8));
      height = int(be32(d + at + 12));
      depth = d[at + 16];
      color = d[at + 17];
      interlace = d[at + 20];
    } else if (type == "IDAT") {
      idat.append(data, at + 8, len);
    }
    at += 12 + len;
  }
  if (depth != 8 || (color != 2 && color != 6) || interlace != 0) return {};
  const int channels = color == 6 ? 4 : 3;
  const std::size_t stride = std::size_t(width) * channels;
  std::vector<unsigned char> raw((stride + 1) * height);
  uLongf raw_len = uLongf(raw.size());
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), uLong(idat.size())) != Z_OK)
    return {};
  std::vector<unsigned char> img(stride * height), prev(stride, 0);
  for (int y = 0; y < height; ++y) {
    const unsigned char filter = raw[y * (stride + 1)];
    const unsigned char* in = &raw[y * (stride + 1) + 1];
    unsigned char* row = &img[y * stride];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= std::size_t(channels) ? row[i - channels] : 0, b = prev[i],
                c = i >= std::size_t(channels) ? prev[i - channels] : 0;
      int pred = 0;
      if (filter == 1) pred = a;
      else if (filter == 2) pred = b;
      else if (filter == 3) pred = (a + b) / 2;
      else if (filter == 4) {
        const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      row[i] = static_cast<unsigned char>(in[i] + pred);
    }
    std::copy(row, row + stride, prev.begin());
  }
  std::vector<std::array<int, 3>> px(std::size_t(width) * height);
  for (std::size_t i = 0; i < px.size(); ++i) px[i] = {img[i * channels], img[i * channels + 1], img[i * channels + 2]};
  return px;
}

int failures = 0;
void expect(bool ok, const std::string& what) {
  std::cout << (ok ? "ok:     " : "FAILED: ") << what << "\n";
  failures += !ok;
}

}  // namespace

int main() {
  const std::string chromium = run("command -v chromium 2>/dev/null");
  if (chromium.empty()) {
    std::cout << "skipped: chromium is not installed (tools/install-deps.sh --tests installs it)\n";
    return 77;
  }
  const auto dir = std::filesystem::temp_directory_path() / ("tl-picture-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string browser = "chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=700,700 ";
  // Pixels of a screenshot in the invalid cells' red (#e00; the legend's swatch has it too, the
  // red text is #c00).
  auto red_pixels = [&](const std::string& page, const std::string& query, const std::string& name) {
    const auto html = dir / (name + ".html");
    const auto png = dir / (name + ".png");
    std::ofstream(html, std::ios::binary) << page;
    run(browser + "--screenshot=" + png.string() + " 'file://" + html.string() + query + "' 2>/dev/null");
    int w = 0, h = 0;
    const auto px = decode_png(png.string(), w, h);
    expect(!px.empty() && w == 700 && h == 700, name + ": the screenshot is a 700 x 700 PNG");
    long red = 0;
    for (const auto& p : px) red += std::abs(p[0] - 238) <= 6 && p[1] <= 6 && p[2] <= 6;
    std::cout << "        " << name << query << ": " << red << " red pixels\n";
    return red;
  };
  const std::string wrong = page_for(1), right = page_for(0);
  // The script ran, and the query picked program 2, whose table is shown.
  std::ofstream(dir / "dom.html", std::ios::binary) << wrong;
  const std::string dom = run(browser + "--dump-dom 'file://" + (dir / "dom.html").string() + "?program=2' 2>/dev/null");
  expect(dom.find("data-ready=\"1\"") != std::string::npos, "the page's script ran");
  expect(dom.find("data-t=\"2\" style=\"\"") != std::string::npos, "?program=2 shows program 2's accesses");
  const long with_bad = red_pixels(wrong, "", "wrong"), without = red_pixels(right, "", "right");
  const long picked_bad = red_pixels(wrong, "?program=2", "wrong-p2"), picked_good = red_pixels(wrong, "?program=1", "wrong-p1");
  // Two invalid cells of 14 x 14 pixels (at least 12 x 12 inside the border each); the legend's
  // swatch (12 x 12) on every page.
  expect(with_bad - without >= 2 * 144 && without <= 160, "the off-by-one launch shows its two invalid cells in red");
  expect(picked_bad - picked_good >= 2 * 144 && picked_good <= 160, "picking program 1 hides program 2's red cells");
  std::filesystem::remove_all(dir);
  std::cout << (failures ? "FAILED\n" : "passed\n");
  return failures ? 1 : 0;
}
