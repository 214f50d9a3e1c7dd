// The access picture (tl/runtime/access_picture.hpp): what it draws for a launch, checked
// by counting its cells, and the whole page against a golden file (tests/runtime/golden/; regenerate
// with TL_UPDATE_GOLDEN=1 after a deliberate change, and look at the page).
#include <tl/runtime/access_picture.hpp>

#include <fstream>
#include <sstream>

#include "testing.hpp"
#include "traced_kernels.hpp"

using namespace tl;
using tl::None;
using tl::_;
using traced::add_ten;
using traced::tile_copy;

namespace {

std::size_t count(const std::string& page, const std::string& what) {
  std::size_t n = 0;
  for (auto at = page.find(what); at != std::string::npos; at = page.find(what, at + 1)) ++n;
  return n;
}

trace add_ten_trace(int slack) {
  std::vector<float> x(20, 1.0f), z(20, 0.0f);
  trace t;
  launch<add_ten<8>>(grid(3), {.failure = on_failure::collect, .trace = &t}, ptr<float>(x, "x"), ptr<float>(z, "z"),
                     20, slack);
  return t;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("an access picture draws each program's loads, stores, masked-off and invalid lanes", "[picture]") {
  const trace t = add_ten_trace(1);
  const std::string page = access_picture(t);
  // Programs 0 and 1 cover elements 0..15; program 2 has lanes 16..23, masked in up to 20:
  // 16..19 valid, 20 invalid (red, in x and in z), 21..23 masked off (dashed, in x and z).
  CHECK(count(page, "class=\"ld\"") == 20);
  CHECK(count(page, "class=\"st\"") == 20);
  CHECK(count(page, "class=\"bad\"") == 2);
  CHECK(count(page, "class=\"off\"") == 6);
  CHECK(count(page, "<option value=") == 4);  // all, and the three programs
  CHECK(count(page, "<svg") == 2);            // x and z
  CHECK(page.find("<td class=\"bad-text\">2 (red below)</td>") != std::string::npos);
  CHECK(page.find("x[20]") != std::string::npos);  // the invalid cell's tooltip
  // A correct mask: nothing red.
  const std::string good = access_picture(add_ten_trace(0));
  CHECK(count(good, "class=\"bad\"") == 0);
  CHECK(count(good, "class=\"off\"") == 8);  // lanes 20..23 of program 2, in x and z
}

TEST_CASE("an access picture matches its golden file", "[picture]") {
  trace t = add_ten_trace(1);
  t.kernel = "add_ten<8>";  // as written: compilers spell the anonymous namespace differently
  const std::string page = access_picture(t, {.title = "add_ten, mask off by one"});
  const std::string golden = std::string(TL_TEST_SOURCE_DIR) + "/runtime/golden/access_picture_add_ten.html";
  if (std::getenv("TL_UPDATE_GOLDEN")) {
    std::ofstream(golden, std::ios::binary) << page;
    WARN("rewrote " << golden);
  }
  const std::string want = read_file(golden);
  REQUIRE(!want.empty());
  CHECK(page == want);
}

TEST_CASE("an access picture draws buffers in the shapes it is given", "[picture]") {
  std::vector<int> x(5 * 7, 1), z(5 * 7, 0);
  trace t;
  launch<tile_copy<4, 4>>(grid(2, 2), {.trace = &t}, ptr<int>(x, "x"), ptr<int>(z, "z"), 5, 7);
  const std::string page = access_picture(t, {.shapes = {{"x", {5, 7}}, {"z", {5, 7}}}, .cell = 10});
  CHECK(page.find("<h2>x: 5 x 7 elements of 4 bytes</h2>") != std::string::npos);
  // 7 columns of 10 pixels; rows 0..8: the buffer's 5 and the blocks' masked-off rows below it
  CHECK(page.find("width=\"71\" height=\"91\" data-buffer=\"x\"") != std::string::npos);
  CHECK(count(page, "<option value=") == 5);
  CHECK(count(page, "class=\"ld\"") == 35);
  // 4 x 4 blocks over 5 x 7: 64 lanes a buffer, 35 masked in; the other 29 are masked off, some
  // at the same offset from two programs (drawn once per program).
  CHECK(count(page, "class=\"off\"") == 2 * 29);
  // A 3-D shape draws slices side by side; a shape of the wrong size is refused.
  const std::string slices = access_picture(t, {.shapes = {{"x", {5, 7, 1}}}});
  CHECK(slices.find("<h2>x: 5 x 7 x 1 elements of 4 bytes</h2>") != std::string::npos);
  REQUIRE_THROWS_WITH(access_picture(t, {.shapes = {{"x", {6, 7}}}}),
                      Catch::Contains("the shape given for buffer 'x' has 42 elements; the buffer has 35"));
  REQUIRE_THROWS_WITH(access_picture(t, {.max_cells = 10}), Catch::Contains("more than a picture can show"));
}
