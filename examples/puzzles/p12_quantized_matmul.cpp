// Puzzle 12: quantized matrix multiplication. Spec and checker setup; the kernel is in p12_quantized_matmul.hpp.
#include "harness.hpp"
#include <p12_quantized_matmul.hpp>  // the kernel: found by the include path (CMakeLists.txt)

static std::vector<double> quant_dot_spec(const std::vector<float>& scale, const std::vector<int>& offset,
                                          const std::vector<int>& weight, const std::vector<float>& activation,
                                          int n0, int n1, int mid) {
  auto nibble = [](int word, int n) { return (word >> (4 * n)) & 0xF; };
  std::vector<double> z(std::size_t(n0) * n1, 0.0);
  for (int j = 0; j < n0; ++j)
    for (int l = 0; l < mid; ++l) {
      const int g = l / GROUP;
      const double sc = scale[std::size_t(j) * (mid / GROUP) + g];
      const int w = nibble(weight[std::size_t(j) * (mid / FPINT) + l / FPINT], l % FPINT);
      const int sh = nibble(offset[std::size_t(j) * (mid / 64) + l / 64], g % 8);
      const double tw = sc * double(w - sh);
      for (int k = 0; k < n1; ++k) z[std::size_t(j) * n1 + k] += tw * double(activation[std::size_t(l) * n1 + k]);
    }
  return z;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1", "B_MID"};
using blocks = puzzles::configs<puzzles::cfg<16, 16, 64>, puzzles::cfg<32, 16, 64>, puzzles::cfg<16, 32, 64>>;
}  // namespace

namespace puzzles {
puzzle puzzle_12() {
  puzzle p;
  p.id = "12";
  p.number = 12;
  p.title = "quantized matrix multiplication";
  p.formula = "z[j,k] = sum_l scale[j,l/8] (w[j,l] - shift[j,l/8]) activation[l,k], 4-bit w and shift";
  p.size_names = {"N0", "N1", "MID"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 32, .N1 = 32, .MID = 64};
  p.puzzle_constexprs = {.B0 = 16, .B1 = 16, .B_MID = 64};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) {
    return sizes{.N0 = random_int(g, 1, 80), .N1 = random_int(g, 1, 80), .MID = 64 * random_int(g, 1, 3)};
  };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"scale", {n.N0, n.MID / GROUP}}, {"offset", {n.N0, n.MID / 64}}, {"weight", {n.N0, n.MID / FPINT}}, {"activation", {n.MID, n.N1}}, {"z", {n.N0, n.N1}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
          constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1], B_MID = decltype(c)::v[2];
          if (r.n.MID % 64 != 0) throw tl::usage_error("puzzle 12 needs MID to be a multiple of 64");
          rng g(r.seed);
          const int n0 = r.n.N0, n1 = r.n.N1, mid = r.n.MID;
          auto scale = random_floats(std::size_t(n0) * (mid / GROUP), g);
          auto offset = random_ints(std::size_t(n0) * (mid / 64), g, -100000, 100000);
          auto weight = random_ints(std::size_t(n0) * (mid / FPINT), g, -100000, 100000);
          auto activation = random_floats(std::size_t(mid) * n1, g);
          auto z = poisoned(std::size_t(n0) * n1);
          outcome o;
          o.report = tl::launch<quant_dot_kernel<B0, B1, B_MID>>(
              tl::grid(tl::cdiv(n0, B0), tl::cdiv(n1, B1)), r.launch, tl::ptr(scale, "scale"), tl::ptr(offset, "offset"),
              tl::ptr(weight, "weight"), tl::ptr(activation, "activation"), tl::ptr(z, "z"), n0, n1, mid);
          compare(o, z, quant_dot_spec(scale, offset, weight, activation, n0, n1, mid), {n0, n1});
          return o;
        });
  };
  return p;
}
}  // namespace puzzles
