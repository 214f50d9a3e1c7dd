// tl/bench/perf_report.hpp: a sweep of several providers over sizes, printed as a table and
// written as CSV and an SVG line plot (Triton's triton.testing.perf_report / Benchmark).
//
//   tl::benchmark b{.x_name = "square_matrix_size", .x_vals = {256, 512, 1024}, .x_log = true,
//                            .line_vals = {"naive", "grouped", "cublas"},
//                            .line_names = {"Naive", "Grouped", "cuBLAS"},
//                            .styles = {{"blue", "-"}, {"green", "-"}, {"orange", "-"}},
//                            .ylabel = "TFLOP/s", .plot_name = "matmul-performance"};
//   auto table = tl::perf_report(b, [&](double sz, const std::string& provider) {
//     auto r = tl::do_bench(..., {.quantiles = {0.5, 0.2, 0.8}});
//     return tl::measure(r, [&](double ms) { return tl::tflops(2 * sz * sz * sz, ms); });
//   }).run({.print_data = true, .save_path = "out"});    // out/matmul-performance.{csv,svg}
//
// A provider that cannot run at a size returns tl::no_measurement(): a gap in the line,
// "-" in the table, an empty CSV cell.
//
// Cases that are not sizes (tl-bench's puzzles) are named by x_labels: the x axis is then
// categorical, and `bars` draws one group of bars per case instead of lines.
#pragma once

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "do_bench.hpp"

namespace tl {

struct line_style {
  std::string color = "";  // an SVG colour: "blue", "#1f77b4"; empty: the next of a palette
  std::string dash = "-";  // "-" solid, "--" dashed, ":" dotted
};

struct benchmark {
  std::string x_name = "x";               // the x axis (Triton: x_names[0])
  std::vector<double> x_vals{};             // the sizes
  bool x_log = false;                     // logarithmic x axis (base 2)
  std::string line_arg = "provider";      // what the lines are
  std::vector<std::string> line_vals{};   // the providers, as the function receives them
  std::vector<std::string> line_names{};  // their legend names (default: line_vals)
  std::vector<line_style> styles{};       // their styles (default: a palette, solid)
  std::string ylabel = "";
  bool y_log = false;
  std::string plot_name = "benchmark";    // the title, and the files' base name
  std::vector<std::string> x_labels{};    // names of the x values: a categorical axis (one per x value)
  bool bars = false;                      // grouped bars (one per provider) instead of lines
};

// One point: the plotted value and a band around it (e.g. from the 20th and 80th percentile
// times). NaN: no measurement.
struct measurement {
  double y = std::numeric_limits<double>::quiet_NaN();
  double y_min = std::numeric_limits<double>::quiet_NaN();
  double y_max = std::numeric_limits<double>::quiet_NaN();
};
inline measurement no_measurement() { return {}; }

// A rate from a timing: metric(ms) at the median, and at the 20th/80th percentile times when
// the timing has those quantiles (else at its max/min time). A longer time is a lower rate.
template <class Metric>
measurement measure(const bench_result& r, Metric metric) {
  double slow = r.max, fast = r.min;
  if (r.quantiles.size() >= 3) {
    fast = r.quantiles[1];
    slow = r.quantiles[2];
  }
  const double a = metric(slow), b = metric(fast);
  return {metric(r.ms), std::min(a, b), std::max(a, b)};
}

struct run_options {
  bool print_data = true;        // print the table to stdout
  std::string save_path = "";    // if set: a directory for <plot_name>.csv and <plot_name>.svg
};

// The results: one row per x value, one column per provider.
struct perf_table {
  benchmark spec;
  std::vector<std::vector<measurement>> rows;  // rows[i][j]: x_vals[i], line_vals[j]

  std::string name_of(std::size_t j) const {
    return j < spec.line_names.size() ? spec.line_names[j] : spec.line_vals[j];
  }
  // How x value i is printed: its label, or the number.
  std::string x_text(std::size_t i, int precision = 6) const;
  std::string str() const;
  void write_csv(const std::string& path) const;
  void write_svg(const std::string& path) const;
};

namespace detail {
inline std::string number(double v, int precision = 6) {
  if (std::isnan(v)) return "";
  std::ostringstream o;
  o.precision(precision);
  o << v;
  return o.str();
}
inline std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}
}  // namespace detail

inline std::string perf_table::x_text(std::size_t i, int precision) const {
  return i < spec.x_labels.size() ? spec.x_labels[i] : detail::number(spec.x_vals[i], precision);
}

inline std::string perf_table::str() const {
  std::vector<std::string> header{spec.x_name};
  for (std::size_t j = 0; j < spec.line_vals.size(); ++j) header.push_back(name_of(j));
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::string> c{x_text(i)};
    for (const auto& m : rows[i]) c.push_back(std::isnan(m.y) ? "-" : detail::number(m.y, 5));
    cells.push_back(std::move(c));
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t k = 0; k < header.size(); ++k) {
    width[k] = header[k].size();
    for (const auto& c : cells) width[k] = std::max(width[k], c[k].size());
  }
  std::ostringstream o;
  o << spec.plot_name << ":\n";
  auto line = [&](const std::vector<std::string>& c) {
    for (std::size_t k = 0; k < c.size(); ++k)
      o << (k ? "  " : "") << std::string(width[k] - c[k].size(), ' ') << c[k];
    o << '\n';
  };
  line(header);
  for (const auto& c : cells) line(c);
  return o.str();
}

inline void perf_table::write_csv(const std::string& path) const {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("tl::perf_report: cannot write " + path);
  f << spec.x_name;
  for (std::size_t j = 0; j < spec.line_vals.size(); ++j)
    f << ',' << name_of(j) << ',' << name_of(j) << " min," << name_of(j) << " max";
  f << '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    f << x_text(i, 10);
    for (const auto& m : rows[i])
      f << ',' << detail::number(m.y, 8) << ',' << detail::number(m.y_min, 8) << ',' << detail::number(m.y_max, 8);
    f << '\n';
  }
}

// A line plot: one polyline per provider (broken where a value is missing), markers, a shaded
// band between y_min and y_max, grid lines, axis labels and a legend.
inline void perf_table::write_svg(const std::string& path) const {
  static const char* palette[] = {"#1f77b4", "#2ca02c", "#ff7f0e", "#d62728", "#9467bd", "#8c564b", "#e377c2"};
  const double W = 760, H = 460, left = 70, right = 190, top = 40, bottom = 55;
  const double pw = W - left - right, ph = H - top - bottom;
  const bool categorical = !spec.x_labels.empty() || spec.bars;
  // A categorical axis places the i-th value at i (bars: in the middle of its group).
  auto tx = [&](double x) {
    if (categorical) {
      for (std::size_t i = 0; i < spec.x_vals.size(); ++i)
        if (spec.x_vals[i] == x) return double(i);
    }
    return spec.x_log ? std::log2(x) : x;
  };
  auto ty = [&](double y) { return spec.y_log ? std::log10(y) : y; };
  double x0 = 1e300, x1 = -1e300, y0 = spec.y_log ? 1e300 : 0, y1 = -1e300;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    x0 = std::min(x0, tx(spec.x_vals[i]));
    x1 = std::max(x1, tx(spec.x_vals[i]));
    for (const auto& m : rows[i]) {
      for (double v : {m.y, m.y_min, m.y_max}) {
        if (std::isnan(v) || (spec.y_log && v <= 0)) continue;
        y0 = std::min(y0, ty(v));
        y1 = std::max(y1, ty(v));
      }
    }
  }
  if (categorical) {  // half a group of room on either side
    x0 -= 0.5;
    x1 += 0.5;
  }
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) y1 = y0 + 1;
  y1 += (y1 - y0) * 0.05;
  auto px = [&](double x) { return left + (tx(x) - x0) / (x1 - x0) * pw; };
  auto py = [&](double y) { return top + ph - (ty(y) - y0) / (y1 - y0) * ph; };
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << left + pw / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">"
    << detail::xml_escape(spec.plot_name) << "</text>\n";
  // y grid and ticks: 5 steps
  for (int k = 0; k <= 5; ++k) {
    const double v = y0 + (y1 - y0) * k / 5, yy = top + ph - ph * k / 5;
    const double label = spec.y_log ? std::pow(10.0, v) : v;
    s << "<line x1=\"" << left << "\" y1=\"" << yy << "\" x2=\"" << left + pw << "\" y2=\"" << yy
      << "\" stroke=\"#ddd\"/>\n<text x=\"" << left - 6 << "\" y=\"" << yy + 4 << "\" text-anchor=\"end\">"
      << detail::number(label, 3) << "</text>\n";
  }
  // x ticks at the measured sizes (labels: turned, under their group)
  for (std::size_t i = 0; i < spec.x_vals.size(); ++i) {
    const double x = spec.x_vals[i];
    s << "<line x1=\"" << px(x) << "\" y1=\"" << top << "\" x2=\"" << px(x) << "\" y2=\"" << top + ph
      << "\" stroke=\"#eee\"/>\n";
    if (categorical)
      s << "<text transform=\"translate(" << px(x) << "," << top + ph + 12 << ") rotate(30)\" text-anchor=\"start\">"
        << detail::xml_escape(x_text(i)) << "</text>\n";
    else
      s << "<text x=\"" << px(x) << "\" y=\"" << top + ph + 16 << "\" text-anchor=\"middle\">" << detail::number(x)
        << "</text>\n";
  }
  s << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"black\"/>\n";
  s << "<text x=\"" << left + pw / 2 << "\" y=\"" << H - 12 << "\" text-anchor=\"middle\">"
    << detail::xml_escape(spec.x_name) << (spec.x_log ? " (log scale)" : "") << "</text>\n";
  s << "<text transform=\"translate(18," << top + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
    << detail::xml_escape(spec.ylabel) << "</text>\n";
  for (std::size_t j = 0; j < spec.line_vals.size(); ++j) {
    const line_style st = j < spec.styles.size() ? spec.styles[j] : line_style{};
    const std::string color = st.color.empty() ? palette[j % 7] : st.color;
    const std::string dash = st.dash == "--" ? " stroke-dasharray=\"7 4\"" : st.dash == ":" ? " stroke-dasharray=\"2 3\"" : "";
    if (spec.bars) {  // bar j of each group, and its band as an error bar
      const double group = pw / (x1 - x0) * 0.8, w = group / double(spec.line_vals.size());
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const measurement& m = rows[i][j];
        if (std::isnan(m.y) || (spec.y_log && m.y <= 0)) continue;
        const double left_edge = px(spec.x_vals[i]) - group / 2 + w * double(j);
        const double base = py(spec.y_log ? std::pow(10.0, y0) : 0.0);
        s << "<rect x=\"" << left_edge << "\" y=\"" << std::min(py(m.y), base) << "\" width=\"" << w * 0.9
          << "\" height=\"" << std::abs(base - py(m.y)) << "\" fill=\"" << color << "\"/>\n";
        if (!std::isnan(m.y_min) && !std::isnan(m.y_max) && !(spec.y_log && m.y_min <= 0))
          s << "<line x1=\"" << left_edge + w * 0.45 << "\" y1=\"" << py(m.y_min) << "\" x2=\"" << left_edge + w * 0.45
            << "\" y2=\"" << py(m.y_max) << "\" stroke=\"black\"/>\n";
      }
      const double ly = top + 14 + 20 * double(j);
      s << "<rect x=\"" << left + pw + 15 << "\" y=\"" << ly - 6 << "\" width=\"30\" height=\"12\" fill=\"" << color
        << "\"/>\n<text x=\"" << left + pw + 52 << "\" y=\"" << ly + 4 << "\">" << detail::xml_escape(name_of(j))
        << "</text>\n";
      continue;
    }
    // the band, then the line in pieces between missing points, then markers
    std::string band_top, band_bottom;
    std::vector<std::string> pieces(1);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const measurement& m = rows[i][j];
      const bool ok = !std::isnan(m.y) && !(spec.y_log && m.y <= 0);
      if (!ok) {
        if (!pieces.back().empty()) pieces.emplace_back();
        continue;
      }
      pieces.back() += detail::number(px(spec.x_vals[i])) + "," + detail::number(py(m.y)) + " ";
      if (!std::isnan(m.y_min) && !std::isnan(m.y_max) && !(spec.y_log && m.y_min <= 0)) {
        band_top += detail::number(px(spec.x_vals[i])) + "," + detail::number(py(m.y_max)) + " ";
        band_bottom = detail::number(px(spec.x_vals[i])) + "," + detail::number(py(m.y_min)) + " " + band_bottom;
      }
      s << "<circle cx=\"" << px(spec.x_vals[i]) << "\" cy=\"" << py(m.y) << "\" r=\"3\" fill=\"" << color
        << "\"/>\n";
    }
    if (!band_top.empty())
      s << "<polygon points=\"" << band_top << band_bottom << "\" fill=\"" << color
        << "\" fill-opacity=\"0.15\" stroke=\"none\"/>\n";
    for (const auto& p : pieces)
      if (!p.empty())
        s << "<polyline points=\"" << p << "\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\"" << dash
          << "/>\n";
    const double ly = top + 14 + 20 * double(j);
    s << "<line x1=\"" << left + pw + 15 << "\" y1=\"" << ly << "\" x2=\"" << left + pw + 45 << "\" y2=\"" << ly
      << "\" stroke=\"" << color << "\" stroke-width=\"2\"" << dash << "/>\n<text x=\"" << left + pw + 52
      << "\" y=\"" << ly + 4 << "\">" << detail::xml_escape(name_of(j)) << "</text>\n";
  }
  s << "</svg>\n";
  std::ofstream f(path);
  if (!f) throw std::runtime_error("tl::perf_report: cannot write " + path);
  f << s.str();
}

// The sweep, measured when run() is called.
template <class F>
struct perf_report_t {
  benchmark spec;
  F fn;
  perf_table run(const run_options& o = {}) {
    if (spec.line_vals.empty()) throw usage_error("tl::perf_report: no line_vals (providers)");
    if (!spec.x_labels.empty() && spec.x_labels.size() != spec.x_vals.size())
      throw usage_error("tl::perf_report: " + std::to_string(spec.x_labels.size()) + " x_labels for " +
                        std::to_string(spec.x_vals.size()) + " x_vals");
    if (!spec.line_names.empty() && spec.line_names.size() != spec.line_vals.size())
      throw usage_error("tl::perf_report: " + std::to_string(spec.line_names.size()) + " line_names for " +
                        std::to_string(spec.line_vals.size()) + " line_vals");
    perf_table t{spec, {}};
    for (double x : spec.x_vals) {
      std::vector<measurement> row;
      for (const auto& provider : spec.line_vals) row.push_back(fn(x, provider));
      t.rows.push_back(std::move(row));
    }
    if (o.print_data) std::cout << t.str() << std::flush;
    if (!o.save_path.empty()) {
      std::filesystem::create_directories(o.save_path);
      const std::filesystem::path base = std::filesystem::path(o.save_path) / spec.plot_name;
      t.write_csv(base.string() + ".csv");
      t.write_svg(base.string() + ".svg");
    }
    return t;
  }
};

// fn(x, provider) -> measurement.
template <class F>
perf_report_t<F> perf_report(benchmark spec, F fn) {
  return {std::move(spec), std::move(fn)};
}

}  // namespace tl
