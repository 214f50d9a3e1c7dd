#include "puzzle_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace puzzles::report {
namespace {

std::string num(double v, int prec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", prec, v);
  return buf;
}

std::pair<int, int> as_matrix(const std::vector<int>& shape) {
  if (shape.empty()) return {1, 1};
  long long rows = 1;
  for (std::size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
  return {int(rows), shape.back()};
}

bool element_ok(const outcome& o, std::size_t i) {
  const double err = std::fabs(double(o.yours[i]) - o.spec[i]);
  return err <= 1e-3 + 1e-3 * std::fabs(o.spec[i]);
}

}  // namespace

std::string result_line(const puzzle& p, const request& r, const outcome& o) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s  %s %-8s %-38s %-26s %-26s", o.passed() ? "PASS" : "FAIL", p.noun.c_str(), p.id.c_str(),
                p.title.c_str(), p.sizes_text(r.n).c_str(), p.constexprs_text(r.c).c_str());
  std::string line = buf;
  if (!o.ran) return line + " did not run: " + o.error;
  std::snprintf(buf, sizeof buf, " max|err| %-9s invalid %-3lld %7.3f ms", num(o.max_abs_error, 2).c_str(),
                (long long)o.report.invalid_lanes, o.report.seconds * 1e3);
  return line + buf;
}

std::string mismatch_map(const outcome& o) {
  const auto [rows, cols] = as_matrix(o.shape);
  const int cstep = (cols + 63) / 64, rstep = (rows + 31) / 32;
  std::ostringstream out;
  out << "map of the output (" << rows << " x " << cols;
  if (cstep > 1 || rstep > 1) out << ", each cell " << rstep << " x " << cstep;
  out << "): . match, X mismatch, ? never written\n";
  for (int r0 = 0; r0 < rows; r0 += rstep) {
    out << "  ";
    for (int c0 = 0; c0 < cols; c0 += cstep) {
      char ch = '.';
      for (int r = r0; r < std::min(rows, r0 + rstep); ++r)
        for (int c = c0; c < std::min(cols, c0 + cstep); ++c) {
          const std::size_t i = std::size_t(r) * cols + c;
          if (std::isnan(o.yours[i])) ch = '?';
          else if (!element_ok(o, i) && ch != '?') ch = 'X';
        }
      out << ch;
    }
    out << '\n';
  }
  return out.str();
}

std::string matrix_corner(const char* name, const std::vector<double>& v, const std::vector<int>& shape) {
  const auto [rows, cols] = as_matrix(shape);
  std::ostringstream out;
  out << name << " (" << rows << " x " << cols << ((rows > 16 || cols > 12) ? ", top-left corner" : "") << "):\n";
  char buf[32];
  for (int r = 0; r < std::min(rows, 16); ++r) {
    out << "  ";
    for (int c = 0; c < std::min(cols, 12); ++c) {
      std::snprintf(buf, sizeof buf, " %9.4f", v[std::size_t(r) * cols + c]);
      out << buf;
    }
    out << '\n';
  }
  return out.str();
}

std::string failure_details(const outcome& o) {
  if (o.passed() || !o.ran) return "";
  std::ostringstream out;
  if (!o.report.ok()) {
    out << "invalid accesses (a masked-in lane outside its buffer is never read or written):\n";
    out << o.report.str();
  }
  if (o.mismatches) {
    const auto [rows, cols] = as_matrix(o.shape);
    (void)rows;
    out << o.mismatches << " of " << o.spec.size() << " elements differ from the spec (atol = rtol = 1e-3); first:\n";
    int shown = 0;
    for (std::size_t i = 0; i < o.spec.size() && shown < 8; ++i) {
      if (element_ok(o, i)) continue;
      out << "  z[" << i / std::size_t(cols) << ", " << i % std::size_t(cols) << "]: yours " << num(o.yours[i], 7)
          << ", spec " << num(o.spec[i], 7) << '\n';
      ++shown;
    }
    out << mismatch_map(o);
    out << matrix_corner("yours", std::vector<double>(o.yours.begin(), o.yours.end()), o.shape);
    out << matrix_corner("spec", o.spec, o.shape);
  }
  return out.str();
}

}  // namespace puzzles::report
