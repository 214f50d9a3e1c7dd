// tl_conformance DIR: the tl side of the conformance suite (tools/conformance/cases.py names
// the cases and writes their inputs). Each case runs on the CPU backend and, where there is a
// GPU, on the CUDA backend; the outputs go to DIR/<case>.tl-cpu.bin and DIR/<case>.tl-gpu.bin.
#include <tl/kernel.hpp>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace {
using tl::_;
using tl::None;

// ---- the kernels: one block, the element types and the op as template arguments ----
template <class XT, class OT, class F, int B>
TL_KERNEL void k_unary(tl::ptr<XT> x, tl::ptr<OT> o) {
  auto i = tl::arange<0, B>();
  tl::store(o + i, F{}(tl::load(x + i)));
}
template <class AT, class BT, class OT, class F, int B>
TL_KERNEL void k_binary(tl::ptr<AT> a, tl::ptr<BT> b, tl::ptr<OT> o) {
  auto i = tl::arange<0, B>();
  tl::store(o + i, F{}(tl::load(a + i), tl::load(b + i)));
}
template <class T, class F, int B>
TL_KERNEL void k_mad(tl::ptr<T> a, tl::ptr<T> b, tl::ptr<T> c, tl::ptr<T> d, tl::ptr<T> o) {
  auto i = tl::arange<0, B>();
  tl::store(o + i, F{}(tl::load(a + i), tl::load(b + i), tl::load(c + i), tl::load(d + i)));
}
template <class XT, class OT, class F, int B>
TL_KERNEL void k_reduce(tl::ptr<XT> x, tl::ptr<OT> o) {
  tl::store(o, F{}(tl::load(x + tl::arange<0, B>())));
}
template <class XT, bool Desc, int B>
TL_KERNEL void k_sort(tl::ptr<XT> x, tl::ptr<XT> o) {
  auto i = tl::arange<0, B>();
  if constexpr (Desc) tl::store(o + i, tl::sort<0>(tl::load(x + i), tl::descending));
  else tl::store(o + i, tl::sort(tl::load(x + i)));
}
template <int B, int NB>
TL_KERNEL void k_hist(tl::ptr<int> x, tl::ptr<int> o) {
  tl::store(o + tl::arange<0, NB>(), tl::histogram<NB>(tl::load(x + tl::arange<0, B>())));
}
template <class T, bool Ieee>
TL_KERNEL void k_dot(tl::ptr<T> a, tl::ptr<T> b, tl::ptr<float> o) {
  auto r = tl::arange<0, 16>();
  auto idx = r(_, None) * 16 + r(None, _);
  auto x = tl::load(a + idx);
  auto y = tl::load(b + idx);
  if constexpr (Ieee) tl::store(o + idx, tl::dot(x, y, tl::ieee));
  else tl::store(o + idx, tl::dot(x, y));
}
template <class OT, int Op, int B>
TL_KERNEL void k_random(tl::ptr<OT> o) {
  auto off = tl::arange<0, B>();
  if constexpr (Op == 0) tl::store(o + off, tl::rand(42, off));
  else if constexpr (Op == 1) tl::store(o + off, tl::randn(42, off));
  else tl::store(o + off, tl::randint(42, off));
}

// ---- the ops ----
#define TL_F1_(name, ...) \
  struct name {           \
    template <class X>    \
    TL_HD auto operator()(const X& x) const { return __VA_ARGS__; } \
  };
#define TL_F2_(name, ...) \
  struct name {           \
    template <class X, class Y> \
    TL_HD auto operator()(const X& a, const Y& b) const { return __VA_ARGS__; } \
  };
#define TL_F4_(name, ...) \
  struct name {           \
    template <class X>    \
    TL_HD auto operator()(const X& a, const X& b, const X& c, const X& d) const { (void)d; return __VA_ARGS__; } \
  };
template <class T>
struct f_cast {
  template <class X>
  TL_HD auto operator()(const X& x) const { return x.to(tl::dtype<T>{}); }
};
TL_F1_(f_to_int1, x.to(tl::int1))
TL_F1_(f_add1, x + 1)
TL_F1_(f_sub1, x - 1)
TL_F1_(f_mul2, x * 2)
TL_F1_(f_mul01, x * 0.1)
TL_F1_(f_add01, x + 0.1)
TL_F1_(f_sub1em3, x - 0.001)
TL_F1_(f_mul3, x * 3)
TL_F1_(f_div3, x / 3)
TL_F1_(f_exp, tl::exp(x))
TL_F1_(f_exp2, tl::exp2(x))
TL_F1_(f_log, tl::log(x))
TL_F1_(f_log2, tl::log2(x))
TL_F1_(f_sqrt, tl::sqrt(x))
TL_F1_(f_sqrt_rn, tl::sqrt_rn(x))
TL_F1_(f_rsqrt, tl::rsqrt(x))
TL_F1_(f_sigmoid, tl::sigmoid(x))
TL_F1_(f_tanh, tl::tanh(x))
TL_F1_(f_erf, tl::erf(x))
TL_F1_(f_sin, tl::sin(x))
TL_F1_(f_cos, tl::cos(x))
TL_F1_(f_floor, tl::floor(x))
TL_F1_(f_ceil, tl::ceil(x))
TL_F1_(f_abs, tl::abs(x))
TL_F1_(f_sum, tl::sum(x))
TL_F1_(f_max, tl::max(x))
TL_F1_(f_min, tl::min(x))
TL_F2_(f_idiv, a / b)
TL_F2_(f_mod, a % b)
TL_F2_(f_fdiv, a / b)
TL_F2_(f_div_rn, tl::div_rn(a, b))
TL_F2_(f_mul, a * b)
TL_F2_(f_add, a + b)
TL_F2_(f_maximum, tl::maximum(a, b))
TL_F2_(f_minimum, tl::minimum(a, b))
TL_F2_(f_maximum_all, tl::maximum(a, b, tl::PropagateNan::ALL))
TL_F2_(f_minimum_all, tl::minimum(a, b, tl::PropagateNan::ALL))
TL_F4_(f_abc, a * b + c)
TL_F4_(f_cab, c + a * b)
TL_F4_(f_absubc, a * b - c)
TL_F4_(f_csubab, c - a * b)
TL_F4_(f_abcd, a * b + c * d)
TL_F4_(f_fma, tl::fma(a, b, c))
TL_F4_(f_fma_cd_left, tl::fma(a, b, c * d))
TL_F4_(f_fma_cd_right, tl::fma(c, d, a * b))

// ---- reading inputs, writing outputs ----
std::string dir;
bool with_gpu = false;

std::string stem(const std::string& name) {  // conformance.py's stem()
  std::string s, spelled;
  for (char ch : name) spelled += ch == '+' ? std::string(" plus ") : ch == '-' ? std::string(" minus ") : ch == '*' ? std::string(" times ") : std::string(1, ch);
  for (char ch : spelled) {
    const bool alnum = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
    if (alnum) s += ch;
    else if (!s.empty() && s.back() != '_') s += '_';
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  return s;
}
template <class T>
std::vector<T> read_input(const std::string& s, int k) {
  const std::string path = dir + "/" + s + "." + std::to_string(k) + ".bin";
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) { std::fprintf(stderr, "tl_conformance: cannot read %s\n", path.c_str()); std::exit(1); }
  std::vector<T> v;
  T x;
  while (std::fread(&x, sizeof x, 1, f) == 1) v.push_back(x);
  std::fclose(f);
  return v;
}
template <class T>
void write_output(const std::string& s, const char* which, const std::vector<T>& v) {
  const std::string path = dir + "/" + s + "." + which + ".bin";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(v.data(), sizeof(T), v.size(), f);
  std::fclose(f);
}

std::vector<std::pair<std::string, std::function<void()>>>& registry() {
  static std::vector<std::pair<std::string, std::function<void()>>> r;
  return r;
}

// A case: its inputs read as In..., its output of n elements of Out poisoned (0xa5 bytes),
// the kernel launched on each backend.
template <auto Kernel, class Out, class... In>
void add_case(const std::string& name, std::size_t n) {
  registry().emplace_back(name, [name, n] {
    const std::string s = stem(name);
    int k = 0;
    std::tuple<std::vector<In>...> ins{read_input<In>(s, k++)...};
    auto run = [&](tl::backend be, const char* which) {
      std::vector<Out> out(n);
      std::memset(static_cast<void*>(out.data()), 0xa5, n * sizeof(Out));
      std::apply([&](auto&... in) { tl::launch<Kernel>(tl::grid(1), tl::launch_options{.backend = be}, in..., out); }, ins);
      write_output(s, which, out);
    };
    run(tl::backend::cpu, "tl-cpu");
    if (with_gpu) run(tl::backend::cuda, "tl-gpu");
  });
}

constexpr int B = 256;
using h16 = tl::fp16;
using b16 = tl::bf16;

template <class XT>
void casts_from(const char* from) {
  const std::string f = std::string("cast ") + from + "->";
  add_case<k_unary<XT, std::int8_t, f_cast<std::int8_t>, B>, std::int8_t, XT>(f + "int8", B);
  add_case<k_unary<XT, std::int16_t, f_cast<std::int16_t>, B>, std::int16_t, XT>(f + "int16", B);
  add_case<k_unary<XT, std::int32_t, f_cast<std::int32_t>, B>, std::int32_t, XT>(f + "int32", B);
  add_case<k_unary<XT, std::int64_t, f_cast<std::int64_t>, B>, std::int64_t, XT>(f + "int64", B);
  add_case<k_unary<XT, std::uint8_t, f_cast<std::uint8_t>, B>, std::uint8_t, XT>(f + "uint8", B);
  add_case<k_unary<XT, std::uint16_t, f_cast<std::uint16_t>, B>, std::uint16_t, XT>(f + "uint16", B);
  add_case<k_unary<XT, std::uint32_t, f_cast<std::uint32_t>, B>, std::uint32_t, XT>(f + "uint32", B);
  add_case<k_unary<XT, std::uint64_t, f_cast<std::uint64_t>, B>, std::uint64_t, XT>(f + "uint64", B);
}
template <class T>
void division(const char* t) {
  add_case<k_binary<T, T, T, f_idiv, B>, T, T, T>(std::string("div ") + t + " (by 0, by -1)", B);
  add_case<k_binary<T, T, T, f_mod, B>, T, T, T>(std::string("mod ") + t + " (by 0, by -1)", B);
}
template <class T>
void mads(const char* t) {
  const std::string s = std::string(" ") + t;
  add_case<k_mad<T, f_abc, B>, T, T, T, T, T>("a*b+c" + s, B);
  add_case<k_mad<T, f_cab, B>, T, T, T, T, T>("c+a*b" + s, B);
  add_case<k_mad<T, f_absubc, B>, T, T, T, T, T>("a*b-c" + s, B);
  add_case<k_mad<T, f_csubab, B>, T, T, T, T, T>("c-a*b" + s, B);
  add_case<k_mad<T, f_abcd, B>, T, T, T, T, T>("a*b+c*d" + s, B);
  add_case<k_mad<T, f_fma, B>, T, T, T, T, T>("fma(a,b,c)" + s, B);
  add_case<k_mad<T, f_fma_cd_left, B>, T, T, T, T, T>("fma(a,b,c*d)" + s, B);
  add_case<k_mad<T, f_fma_cd_right, B>, T, T, T, T, T>("fma(c,d,a*b)" + s, B);
}
template <class T>
void reductions(const char* t) {
  const std::string s = std::string(" ") + t;
  add_case<k_reduce<T, float, f_sum, B>, float, T>("sum" + s, 1);
  add_case<k_reduce<T, float, f_max, B>, float, T>("max" + s, 1);
  add_case<k_reduce<T, float, f_min, B>, float, T>("min" + s, 1);
}

void register_cases() {
  casts_from<float>("f32");
  add_case<k_unary<float, std::int8_t, f_to_int1, B>, std::int8_t, float>("cast f32->int1", B);
  add_case<k_unary<h16, std::int8_t, f_cast<std::int8_t>, B>, std::int8_t, h16>("cast f16->int8", B);
  add_case<k_unary<h16, std::uint8_t, f_cast<std::uint8_t>, B>, std::uint8_t, h16>("cast f16->uint8", B);
  add_case<k_unary<h16, std::int16_t, f_cast<std::int16_t>, B>, std::int16_t, h16>("cast f16->int16", B);
  add_case<k_unary<h16, std::uint16_t, f_cast<std::uint16_t>, B>, std::uint16_t, h16>("cast f16->uint16", B);
  add_case<k_unary<h16, std::int32_t, f_cast<std::int32_t>, B>, std::int32_t, h16>("cast f16->int32", B);
  add_case<k_unary<h16, std::int64_t, f_cast<std::int64_t>, B>, std::int64_t, h16>("cast f16->int64", B);
  add_case<k_unary<double, std::int8_t, f_cast<std::int8_t>, B>, std::int8_t, double>("cast f64->int8", B);
  add_case<k_unary<double, std::uint8_t, f_cast<std::uint8_t>, B>, std::uint8_t, double>("cast f64->uint8", B);
  add_case<k_unary<double, std::int32_t, f_cast<std::int32_t>, B>, std::int32_t, double>("cast f64->int32", B);
  add_case<k_unary<double, std::int64_t, f_cast<std::int64_t>, B>, std::int64_t, double>("cast f64->int64", B);
  add_case<k_unary<double, std::uint32_t, f_cast<std::uint32_t>, B>, std::uint32_t, double>("cast f64->uint32", B);
  add_case<k_unary<double, std::uint64_t, f_cast<std::uint64_t>, B>, std::uint64_t, double>("cast f64->uint64", B);
  add_case<k_unary<float, h16, f_cast<h16>, B>, h16, float>("cast f32->float16", B);
  add_case<k_unary<float, b16, f_cast<b16>, B>, b16, float>("cast f32->bfloat16", B);
  add_case<k_unary<float, tl::fp8e4nv, f_cast<tl::fp8e4nv>, B>, tl::fp8e4nv, float>("cast f32->float8e4nv", B);
  add_case<k_unary<float, tl::fp8e5, f_cast<tl::fp8e5>, B>, tl::fp8e5, float>("cast f32->float8e5", B);
  add_case<k_unary<std::int32_t, std::int8_t, f_cast<std::int8_t>, B>, std::int8_t, std::int32_t>("cast i32->int8", B);
  add_case<k_unary<std::int64_t, float, f_cast<float>, B>, float, std::int64_t>("cast i64->f32", B);
  add_case<k_unary<std::uint64_t, float, f_cast<float>, B>, float, std::uint64_t>("cast u64->f32", B);
  add_case<k_unary<std::int32_t, h16, f_cast<h16>, B>, h16, std::int32_t>("cast i32->f16", B);

  using u8 = std::uint8_t;
  using i8 = std::int8_t;
  add_case<k_unary<u8, int, f_add1, B>, int, u8>("literal u8 add1", B);
  add_case<k_unary<i8, int, f_add1, B>, int, i8>("literal i8 add1", B);
  add_case<k_unary<u8, int, f_sub1, B>, int, u8>("literal u8 sub1", B);
  add_case<k_unary<i8, int, f_sub1, B>, int, i8>("literal i8 sub1", B);
  add_case<k_unary<u8, int, f_mul2, B>, int, u8>("literal u8 mul2", B);
  add_case<k_unary<i8, int, f_mul2, B>, int, i8>("literal i8 mul2", B);
  add_case<k_unary<std::uint16_t, int, f_add1, B>, int, std::uint16_t>("literal u16 add1", B);
  add_case<k_unary<h16, float, f_mul01, B>, float, h16>("literal f16 mul0.1", B);
  add_case<k_unary<b16, float, f_mul01, B>, float, b16>("literal bf16 mul0.1", B);
  add_case<k_unary<h16, float, f_add01, B>, float, h16>("literal f16 add0.1", B);
  add_case<k_unary<b16, float, f_add01, B>, float, b16>("literal bf16 add0.1", B);
  add_case<k_unary<h16, float, f_sub1em3, B>, float, h16>("literal f16 sub1e-3", B);
  add_case<k_unary<b16, float, f_sub1em3, B>, float, b16>("literal bf16 sub1e-3", B);
  add_case<k_unary<h16, float, f_mul3, B>, float, h16>("literal f16 mul3", B);
  add_case<k_unary<b16, float, f_mul3, B>, float, b16>("literal bf16 mul3", B);
  add_case<k_unary<h16, float, f_div3, B>, float, h16>("literal f16 div3", B);
  add_case<k_unary<b16, float, f_div3, B>, float, b16>("literal bf16 div3", B);

  add_case<k_sort<float, false, 64>, float, float>("sort f32 (NaN, -0.0, inf)", 64);
  add_case<k_sort<float, true, 64>, float, float>("sort f32 descending", 64);
  add_case<k_sort<h16, false, 64>, h16, h16>("sort f16 (NaN, -0.0, inf)", 64);
  add_case<k_sort<int, false, 64>, int, int>("sort i32", 64);
  add_case<k_hist<64, 8>, int, int>("histogram i32 (edges, out of range)", 8);
  add_case<k_sort<float, false, 64>, float, float>("sort f32 (-0.0, inf, no NaN)", 64);
  add_case<k_sort<float, true, 64>, float, float>("sort f32 descending (no NaN)", 64);
  add_case<k_hist<64, 8>, int, int>("histogram i32 random", 8);
  for (int v : {8, 9, 15, 16, 100, 1000, -1, -8, -100}) add_case<k_hist<64, 8>, int, int>("histogram i32 one " + std::to_string(v), 8);

  division<std::int8_t>("int8");
  division<std::int16_t>("int16");
  division<std::int32_t>("int32");
  division<std::int64_t>("int64");
  division<std::uint8_t>("uint8");
  division<std::uint16_t>("uint16");
  division<std::uint32_t>("uint32");
  division<std::uint64_t>("uint64");

  add_case<k_unary<float, float, f_exp, B>, float, float>("exp f32", B);
  add_case<k_unary<float, float, f_exp2, B>, float, float>("exp2 f32", B);
  add_case<k_unary<float, float, f_log, B>, float, float>("log f32", B);
  add_case<k_unary<float, float, f_log2, B>, float, float>("log2 f32", B);
  add_case<k_unary<float, float, f_sqrt, B>, float, float>("sqrt f32", B);
  add_case<k_unary<float, float, f_sqrt_rn, B>, float, float>("sqrt_rn f32", B);
  add_case<k_unary<float, float, f_rsqrt, B>, float, float>("rsqrt f32", B);
  add_case<k_unary<float, float, f_sigmoid, B>, float, float>("sigmoid f32", B);
  add_case<k_unary<float, float, f_tanh, B>, float, float>("tanh f32", B);
  add_case<k_unary<float, float, f_erf, B>, float, float>("erf f32", B);
  add_case<k_unary<float, float, f_sin, B>, float, float>("sin f32", B);
  add_case<k_unary<float, float, f_cos, B>, float, float>("cos f32", B);
  add_case<k_unary<float, float, f_floor, B>, float, float>("floor f32", B);
  add_case<k_unary<float, float, f_ceil, B>, float, float>("ceil f32", B);
  add_case<k_unary<float, float, f_abs, B>, float, float>("abs f32", B);
  add_case<k_binary<float, float, float, f_fdiv, B>, float, float, float>("div f32 (a / b)", B);
  add_case<k_binary<float, float, float, f_div_rn, B>, float, float, float>("div_rn f32", B);
  add_case<k_binary<float, float, float, f_mul, B>, float, float, float>("mul f32 denormal results", B);
  add_case<k_binary<float, float, float, f_add, B>, float, float, float>("add f32 denormals", B);

  mads<float>("f32");
  mads<h16>("f16");
  mads<b16>("bf16");

  reductions<float>("f32");
  reductions<h16>("f16");
  reductions<b16>("bf16");
  add_case<k_reduce<float, float, f_max, B>, float, float>("max f32 with NaN", 1);
  add_case<k_reduce<std::int8_t, int, f_sum, B>, int, std::int8_t>("sum i8", 1);

  add_case<k_binary<float, float, float, f_maximum, B>, float, float, float>("maximum f32 (-0.0, NaN)", B);
  add_case<k_binary<float, float, float, f_minimum, B>, float, float, float>("minimum f32 (-0.0, NaN)", B);
  add_case<k_binary<float, float, float, f_maximum_all, B>, float, float, float>("maximum_all f32 (-0.0, NaN)", B);
  add_case<k_binary<float, float, float, f_minimum_all, B>, float, float, float>("minimum_all f32 (-0.0, NaN)", B);
  add_case<k_binary<h16, h16, h16, f_maximum, B>, h16, h16, h16>("maximum f16 (-0.0, NaN)", B);

  add_case<k_dot<float, false>, float, float, float>("dot f32 tf32", 256);
  add_case<k_dot<float, true>, float, float, float>("dot f32 ieee", 256);
  add_case<k_dot<h16, false>, float, h16, h16>("dot f16", 256);
  add_case<k_dot<b16, false>, float, b16, b16>("dot bf16", 256);

  add_case<k_random<float, 0, B>, float>("rand seed 42", B);
  add_case<k_random<float, 1, B>, float>("randn seed 42", B);
  add_case<k_random<std::uint32_t, 2, B>, std::uint32_t>("randint seed 42", B);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: tl_conformance DIR [--cpu-only]\n"), 2;
  dir = argv[1];
#if defined(__CUDACC__)
  int devices = 0;
  with_gpu = !(argc > 2 && std::strcmp(argv[2], "--cpu-only") == 0) && cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
#endif
  register_cases();
  for (auto& [name, run] : registry()) run();
  std::printf("tl_conformance: %zu cases on the CPU backend%s\n", registry().size(), with_gpu ? " and the CUDA backend" : "");
  return 0;
}
