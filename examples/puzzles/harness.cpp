#include "harness.hpp"

#include <limits>
#include <sstream>

namespace puzzles {

puzzle puzzle_01();
puzzle puzzle_02();
puzzle puzzle_03();
puzzle puzzle_04();
puzzle puzzle_05();
puzzle puzzle_06();
puzzle puzzle_07();
puzzle puzzle_08();
puzzle puzzle_08_three_loops();
puzzle puzzle_09();
puzzle puzzle_10();
puzzle puzzle_11();
puzzle puzzle_12();

const std::vector<puzzle>& all() {
  static const std::vector<puzzle> list = {
      puzzle_01(), puzzle_02(), puzzle_03(), puzzle_04(), puzzle_05(), puzzle_06(), puzzle_07(),
      puzzle_08(), puzzle_08_three_loops(), puzzle_09(), puzzle_10(), puzzle_11(), puzzle_12(),
  };
  return list;
}

std::string cuda_unavailable() {
#if defined(__CUDACC__)
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no CUDA device (") + cudaGetErrorString(e) + ")";
  if (n == 0) return "no CUDA device";
  return {};
#else
  return "the CUDA backend is not part of this build (configure with nvcc available, TL_CUDA=ON)";
#endif
}

std::vector<const puzzle*> find(const std::vector<puzzle>& in, const std::string& id) {
  std::vector<const puzzle*> out;
  for (const auto& p : in)
    if (p.id == id || std::to_string(p.number) == id) out.push_back(&p);
  return out;
}
std::vector<const puzzle*> find(const std::string& id) { return find(all(), id); }

static int size_value(const sizes& n, const std::string& name) {
  if (name == "N0") return n.N0;
  if (name == "N1") return n.N1;
  if (name == "N2") return n.N2;
  if (name == "T") return n.T;
  if (name == "MID") return n.MID;
  if (name == "H") return n.H;
  if (name == "W") return n.W;
  return 0;
}

int constexpr_value(const constexprs& c, std::string_view name) {
  if (name == "B0") return c.B0;
  if (name == "B1") return c.B1;
  if (name == "B2") return c.B2;
  if (name == "B_MID") return c.B_MID;
  if (name == "KH") return c.KH;
  if (name == "KW") return c.KW;
  return 0;
}

constexprs constexprs_from(std::span<const char* const> names, const int* v, std::size_t n) {
  constexprs c;
  for (std::size_t i = 0; i < n && i < names.size(); ++i) {
    const std::string_view name = names[i];
    int& field = name == "B0" ? c.B0 : name == "B1" ? c.B1 : name == "B2" ? c.B2 : name == "B_MID" ? c.B_MID
               : name == "KH" ? c.KH : c.KW;
    field = v[i];
  }
  return c;
}

std::string puzzle::sizes_text(const sizes& n) const {
  std::ostringstream o;
  for (std::size_t i = 0; i < size_names.size(); ++i)
    o << (o.tellp() ? " " : "") << size_label(i) << '=' << size_value(n, size_names[i]);
  return o.str();
}

std::string puzzle::constexprs_text(const constexprs& c) const {
  std::ostringstream o;
  for (std::size_t i = 0; i < constexpr_names.size(); ++i)
    o << (o.tellp() ? " " : "") << constexpr_label(i) << '=' << constexpr_value(c, constexpr_names[i]);
  return o.str();
}

std::vector<float> random_floats(std::size_t n, rng& g) {
  std::uniform_real_distribution<float> d(-0.5f, 0.5f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

std::vector<int> random_ints(std::size_t n, rng& g, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi - 1);
  std::vector<int> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

int random_int(rng& g, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }

sizes random_sizes_2d(const constexprs&, rng& g) { return sizes{.N0 = random_int(g, 1, 300), .N1 = random_int(g, 1, 300)}; }


void compare(outcome& o, const std::vector<float>& yours, const std::vector<double>& spec, std::vector<int> shape,
             double atol, double rtol) {
  o.shape = std::move(shape);
  o.yours = yours;
  o.spec = spec;
  o.mismatches = 0;
  o.max_abs_error = 0;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const double y = i < yours.size() ? yours[i] : std::numeric_limits<double>::quiet_NaN();
    const double err = std::fabs(y - spec[i]);
    if (!(err <= atol + rtol * std::fabs(spec[i]))) ++o.mismatches;  // NaN fails
    if (std::isnan(err) || err > o.max_abs_error) o.max_abs_error = std::isnan(err) ? INFINITY : err;
  }
}

}  // namespace puzzles
