// tl/runtime/access_picture.hpp: a launch's loads and stores drawn as a self-contained
// HTML page (inline SVG, CSS and a few lines of script; no network, no dependencies).
//
//   tl::trace t;
//   tl::launch<kernel<32>>(tl::grid(4), {.trace = &t}, x, z, n);
//   tl::write_access_picture(t, "launch.html", {.shapes = {{"z", {8, 16}}}});
//
// Each buffer is a grid of cells: 1-D (wrapped at 32 cells when longer than 64), 2-D, or 3-D
// (its slices side by side), in the shape given for its name (row-major), else 1-D. A cell
// takes the colour of the program that accessed it: light for a load, full with a dark border
// for a store; a masked-off lane is a dashed outline at the offset it would have had; a lane
// masked in but outside its buffer is red, drawn where it fell (rows before or after the
// buffer, which the grid is extended to show). A menu picks one program (or all); the page
// then lists that program's accesses. The summary gives the grid, the counts of loads and
// stores, the lanes masked in, the bytes, and the invalid lanes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../core/trace.hpp"

namespace tl {

struct picture_options {
  std::string title{};                             // default: the kernel's name
  std::map<std::string, std::vector<int>> shapes{};  // a buffer's shape (row-major) by its name
  std::int64_t max_cells = 1 << 18;                // a larger launch is refused: no picture helps there
  int cell = 14;                                   // pixels per cell
};

namespace detail::picture {

inline std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

inline std::string base_name(const char* path) {
  const std::string s = path ? path : "";
  const auto slash = s.find_last_of("/\\");
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

inline std::string program_text(const int p[3]) {
  return "(" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ", " + std::to_string(p[2]) + ")";
}

// A program's colour: hues spread by the golden angle, so neighbours differ.
inline std::string colour(int flat) {
  const int hue = int((flat * 137.508) - 360.0 * int(flat * 137.508 / 360.0));
  return "hsl(" + std::to_string(hue) + ",70%,45%)";
}

// Where a buffer's elements are drawn: slices of rows x cols, side by side.
struct view {
  std::string name;
  const void* start = nullptr;
  std::int64_t size = 0;  // elements; -1 unknown
  int element_size = 0;
  std::vector<int> shape;  // as given, or {size}
  std::int64_t slices = 1, rows = 1, cols = 1;
  bool wrapped = false;  // a long 1-D buffer drawn in rows of 32

  // (slice, row, col) of an element offset; outside the buffer too (floor division).
  void place(std::int64_t offset, std::int64_t& s, std::int64_t& r, std::int64_t& c) const {
    auto fdiv = [](std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    if (slices > 1) {
      s = fdiv(offset, rows * cols);
      const std::int64_t in = offset - s * rows * cols;
      r = in / cols;
      c = in % cols;
    } else {
      s = 0;
      r = fdiv(offset, cols);
      c = offset - r * cols;
    }
  }
};

inline view make_view(const traced_access& a, const picture_options& o) {
  view v;
  v.name = a.buffer;
  v.start = a.buffer_start;
  v.size = a.buffer_size;
  v.element_size = a.element_size;
  const auto given = o.shapes.find(a.buffer);
  std::int64_t product = 1;
  if (given != o.shapes.end()) {
    for (int d : given->second) product *= d;
    if (given->second.empty() || (v.size >= 0 && product != v.size))
      throw std::invalid_argument("tl::access_picture: the shape given for buffer '" + a.buffer + "' has " +
                                  std::to_string(product) + " elements; the buffer has " + std::to_string(v.size));
    v.shape = given->second;
  } else {
    v.shape = {int(std::max<std::int64_t>(v.size, 1))};
  }
  const auto& d = v.shape;
  if (d.size() == 1) {
    v.cols = d[0] <= 64 ? d[0] : 32;
    v.rows = (d[0] + v.cols - 1) / v.cols;
    v.wrapped = d[0] > 64;
  } else {
    v.cols = d.back();
    v.rows = d[d.size() - 2];
    v.slices = 1;
    for (std::size_t i = 0; i + 2 < d.size(); ++i) v.slices *= d[i];
  }
  return v;
}

// What one program did to one cell of one buffer.
enum : unsigned { loaded = 1, stored = 2, masked_off = 4, invalid = 8 };

}  // namespace detail::picture

inline std::string access_picture(const trace& t, const picture_options& o = {}) {
  using namespace detail::picture;
  // Buffers in order of first access; per buffer and program, the cells touched.
  std::vector<view> views;
  std::map<const void*, std::size_t> view_of;
  std::map<std::pair<std::size_t, int>, std::map<std::int64_t, unsigned>> cells;  // (view, program) -> offset -> flags
  std::map<int, const int*> programs;                                             // flat id -> program id
  std::int64_t lanes = 0;
  for (const auto& a : t.accesses) {
    auto it = view_of.find(a.buffer_start);
    if (it == view_of.end()) {
      it = view_of.emplace(a.buffer_start, views.size()).first;
      views.push_back(make_view(a, o));
    }
    const int flat = (a.program[2] * t.grid[1] + a.program[1]) * t.grid[0] + a.program[0];
    programs.emplace(flat, a.program);
    auto& m = cells[{it->second, flat}];
    for (const auto& l : a.lanes) {
      ++lanes;
      unsigned f = !l.masked_in ? masked_off : !l.valid ? invalid : a.op == access_kind::load ? loaded : stored;
      m[l.offset] |= f;
    }
  }
  std::int64_t drawn = 0;
  for (const auto& v : views) drawn += v.slices * v.rows * v.cols;
  if (drawn > o.max_cells || lanes > 16 * o.max_cells)
    throw std::invalid_argument("tl::access_picture: the launch has " + std::to_string(drawn) + " cells and " +
                                std::to_string(lanes) + " lanes, more than a picture can show (max_cells " +
                                std::to_string(o.max_cells) + "); draw it at a smaller size");

  const trace::totals sum = t.sum();
  const int px = o.cell;
  std::ostringstream h;
  const std::string title = o.title.empty() ? t.kernel : o.title;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << escape(title) << "</title>\n"
    << "<style>\n"
       "body{font-family:sans-serif;font-size:14px;margin:16px;color:#222}\n"
       "h1{font-size:18px} h2{font-size:15px;margin:18px 0 4px}\n"
       "table.sum td{padding:1px 10px 1px 0} .bad-text{color:#c00;font-weight:bold}\n"
       "svg{display:block;margin:4px 0} .base{fill:#f2f2f2;stroke:#ccc;stroke-width:.5}\n"
       ".ld{fill-opacity:.45;stroke:none} .st{fill-opacity:1;stroke:#222;stroke-width:.8}\n"
       ".off{fill:none;stroke-width:1;stroke-dasharray:2,2} .bad{fill:#e00;fill-opacity:1;stroke:#700;stroke-width:1}\n"
       ".legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}\n"
       "table.acc{border-collapse:collapse} table.acc td,table.acc th{border:1px solid #ddd;padding:2px 6px;text-align:left}\n"
       "</style></head>\n<body>\n";
  h << "<h1>" << escape(title) << "</h1>\n<table class=\"sum\">\n";
  h << "<tr><td>kernel</td><td>" << escape(t.kernel) << "</td></tr>\n";
  h << "<tr><td>grid</td><td>(" << t.grid[0] << ", " << t.grid[1] << ", " << t.grid[2] << "): " << programs.size()
    << " programs made accesses</td></tr>\n";
  h << "<tr><td>loads / stores</td><td>" << sum.loads << " / " << sum.stores << "</td></tr>\n";
  h << "<tr><td>lanes masked in</td><td>" << sum.masked_in << " of " << sum.lanes;
  if (sum.lanes) h << " (" << (100 * sum.masked_in / sum.lanes) << "%)";
  h << "</td></tr>\n<tr><td>bytes loaded / stored</td><td>" << sum.bytes_loaded << " / " << sum.bytes_stored
    << "</td></tr>\n";
  h << "<tr><td>invalid lanes</td><td" << (sum.invalid ? " class=\"bad-text\"" : "") << ">" << sum.invalid
    << (sum.invalid ? " (red below)" : "") << "</td></tr>\n</table>\n";
  h << "<p class=\"legend\">program <select id=\"prog\"><option value=\"all\">all</option>";
  for (const auto& [flat, p] : programs) h << "<option value=\"" << flat << "\">" << program_text(p) << "</option>";
  h << "</select><span style=\"background:#888;opacity:.45\"></span>loaded<span style=\"background:#888;border:1px "
       "solid #222\"></span>stored<span style=\"border:1px dashed #888\"></span>masked off<span "
       "style=\"background:#e00\"></span>invalid (masked in, outside the buffer)</p>\n";

  for (std::size_t vi = 0; vi < views.size(); ++vi) {
    const view& v = views[vi];
    // Rows (or slices) to draw: the buffer's, extended to the invalid lanes around it, up to 8.
    std::int64_t lo = 0, hi = (v.slices > 1 ? v.slices : v.rows) - 1;
    for (const auto& [key, m] : cells) {
      if (key.first != vi || m.empty()) continue;
      for (std::int64_t off : {m.begin()->first, m.rbegin()->first}) {
        std::int64_t s, r, c;
        v.place(off, s, r, c);
        const std::int64_t at = v.slices > 1 ? s : r;
        lo = std::max<std::int64_t>(std::min(lo, at), -8);
        hi = std::min<std::int64_t>(std::max(hi, at), (v.slices > 1 ? v.slices : v.rows) - 1 + 8);
      }
    }
    const std::int64_t gap = 2;  // cells between slices
    const std::int64_t slice_w = v.cols + gap;
    const std::int64_t width = v.slices > 1 ? (hi - lo + 1) * slice_w : v.cols;
    const std::int64_t height = v.slices > 1 ? v.rows : hi - lo + 1;
    auto x_of = [&](std::int64_t s, std::int64_t c) { return ((v.slices > 1 ? (s - lo) * slice_w : 0) + c) * px; };
    auto y_of = [&](std::int64_t r) { return (v.slices > 1 ? r : r - lo) * px; };
    h << "<h2>" << escape(v.name) << ": ";
    for (std::size_t i = 0; i < v.shape.size(); ++i) h << (i ? " x " : "") << v.shape[i];
    h << " elements of " << v.element_size << " bytes" << (v.wrapped ? " (drawn in rows of 32)" : "")
      << (v.size < 0 ? " (size unknown)" : "") << "</h2>\n";
    h << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width * px + 1 << "\" height=\"" << height * px + 1
      << "\" data-buffer=\"" << escape(v.name) << "\">\n<g class=\"base\">";
    for (std::int64_t e = 0; e < (v.size < 0 ? 0 : v.size); ++e) {
      std::int64_t s, r, c;
      v.place(e, s, r, c);
      h << "<rect x=\"" << x_of(s, c) << "\" y=\"" << y_of(r) << "\" width=\"" << px << "\" height=\"" << px << "\"/>";
    }
    h << "</g>\n";
    for (const auto& [key, m] : cells) {
      if (key.first != vi) continue;
      h << "<g data-p=\"" << key.second << "\" fill=\"" << colour(key.second) << "\" stroke=\"" << colour(key.second)
        << "\">";
      for (const auto& [off, f] : m) {
        std::int64_t s, r, c;
        v.place(off, s, r, c);
        const std::int64_t at = v.slices > 1 ? s : r;
        if (at < lo || at > hi) continue;  // beyond the drawing: counted in the summary and listed below
        const char* cls = (f & invalid) ? "bad" : (f & stored) ? "st" : (f & loaded) ? "ld" : "off";
        const int inset = (f & (invalid | stored | loaded)) ? 0 : 2;
        h << "<rect class=\"" << cls << "\" x=\"" << x_of(s, c) + inset << "\" y=\"" << y_of(r) + inset
          << "\" width=\"" << px - 2 * inset << "\" height=\"" << px - 2 * inset << "\"><title>" << escape(v.name) << "["
          << off << "]</title></rect>";
      }
      h << "</g>\n";
    }
    h << "</svg>\n";
  }

  // Each program's accesses, shown when it is picked.
  std::map<int, std::vector<const traced_access*>> by_program;
  for (const auto& a : t.accesses)
    by_program[(a.program[2] * t.grid[1] + a.program[1]) * t.grid[0] + a.program[0]].push_back(&a);
  for (const auto& [flat, list] : by_program) {
    h << "<div class=\"accesses\" data-t=\"" << flat << "\" style=\"display:none\"><h2>program "
      << program_text(list.front()->program) << "</h2>\n<table class=\"acc\"><tr><th>#</th><th>op</th><th>buffer</th>"
      << "<th>block</th><th>masked in</th><th>invalid</th><th>where</th></tr>\n";
    int n = 0;
    for (const traced_access* a : list) {
      std::int64_t in = 0, bad = 0, first_bad = -1;
      for (std::size_t i = 0; i < a->lanes.size(); ++i) {
        in += a->lanes[i].masked_in;
        if (a->lanes[i].masked_in && !a->lanes[i].valid) {
          if (first_bad < 0) first_bad = a->lanes[i].offset;
          ++bad;
        }
      }
      h << "<tr><td>" << n++ << "</td><td>" << (a->op == access_kind::load ? "load" : "store") << "</td><td>"
        << escape(a->buffer) << "</td><td>";
      for (std::size_t i = 0; i < a->shape.size(); ++i) h << (i ? " x " : "") << a->shape[i];
      h << "</td><td>" << in << " of " << a->lanes.size() << "</td><td"
        << (bad ? " class=\"bad-text\"" : "") << ">" << bad;
      if (bad) h << " (first at offset " << first_bad << ", buffer 0.." << a->buffer_size - 1 << ")";
      h << "</td><td>" << escape(base_name(a->where.file)) << ":" << a->where.line << "</td></tr>\n";
    }
    h << "</table></div>\n";
  }
  h << "<script>\n"
       "function show(p){\n"
       "  for (const g of document.querySelectorAll('[data-p]')) g.style.display = (p === 'all' || g.dataset.p === p) ? '' : 'none';\n"
       "  for (const d of document.querySelectorAll('[data-t]')) d.style.display = d.dataset.t === p ? '' : 'none';\n"
       "}\n"
       "const menu = document.getElementById('prog');\n"
       "menu.addEventListener('change', () => show(menu.value));\n"
       "const start = new URLSearchParams(location.search).get('program');\n"
       "if (start !== null) menu.value = start;\n"
       "show(menu.value);\n"
       "document.body.dataset.ready = '1';\n"
       "</script>\n</body></html>\n";
  return h.str();
}

inline void write_access_picture(const trace& t, const std::string& path, const picture_options& o = {}) {
  const std::string page = access_picture(t, o);
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("tl::write_access_picture: cannot open '" + path + "' for writing");
  f << page;
  if (!f) throw std::runtime_error("tl::write_access_picture: writing '" + path + "' failed");
}

}  // namespace tl
