// The torch ops: the tutorials' kernels registered as PyTorch operators (torch.ops.tl_torch.*),
// for CPU tensors (tl's CPU backend, every access checked) and CUDA tensors (the CUDA backend, on
// the tensor's device and PyTorch's current stream). Each op checks its tensors, takes a
// .contiguous() copy where its kernel needs unit steps the tensor does not have, allocates its
// outputs with torch, and launches through tl views. Refusals reach Python as ValueError with
// tl's text, other failures as RuntimeError. tl_torch/__init__.py adds the fake (meta) implementations
// and layer norm's autograd.
#include <Python.h>

#include <ATen/ATen.h>
#include <torch/library.h>

#include <stdexcept>
#include <string>

#include <tl/runtime/torch.hpp>

#include "launchers.hpp"

namespace {

[[noreturn]] void refuse(const char* op, const std::string& what) {
  throw tl::usage_error(std::string("tl_torch.") + op + ": " + what);
}

std::string sizes_text(const at::Tensor& t) {
  std::string s;
  for (std::int64_t a = 0; a < t.dim(); ++a) s += (a ? " x " : "") + std::to_string(t.size(a));
  return t.dim() == 0 ? "a scalar" : s;
}

void check_same_device(const char* op, const at::Tensor& a, const at::Tensor& b, const char* a_name, const char* b_name) {
  if (a.device() != b.device())
    refuse(op, std::string(a_name) + " is on " + a.device().str() + " and " + b_name + " on " + b.device().str());
}

// Kernel offsets are 32-bit integers, as Triton's are for tensors under 2^31 elements.
void check_int32(const char* op, const at::Tensor& t, const char* name) {
  if (tl::detail::reach(t) >= (1LL << 31))
    refuse(op, std::string(name) + " spans 2^31 elements or more; the kernel's offsets are 32-bit");
}

// CUDA launches return at once (the stream orders them with torch's own work); CPU ones finish.
template <class... V>
tl::launch_options options(const V&... views) {
  tl::launch_options o = tl::options_for_torch(views...);
  if (o.backend == tl::backend::cuda) o.wait = false;
  return o;
}

// A matrix whose rows are contiguous (unit column step), as the row kernels index it.
at::Tensor rows_of(const char* op, const at::Tensor& x, const char* name) {
  if (x.dim() < 1) refuse(op, std::string(name) + " is a scalar; it takes rows");
  at::Tensor m = x.reshape({-1, x.size(-1)});
  return m.stride(1) == 1 || m.size(1) <= 1 ? m : m.contiguous();
}

at::Tensor softmax(const at::Tensor& x_in) {
  if (x_in.dim() != 2) refuse("softmax", "x is " + sizes_text(x_in) + "; it takes a matrix (softmax along each row)");
  if (x_in.size(1) > 16384) refuse("softmax", "rows of " + std::to_string(x_in.size(1)) + " columns; at most 16384");
  const at::Tensor x = rows_of("softmax", x_in, "x");
  check_int32("softmax", x, "x");
  at::Tensor y = at::empty(x.sizes(), x.options());
  check_int32("softmax", y, "y");
  if (x.numel() == 0) return y;
  const auto xv = tl::from_torch<const float>(x, "x");
  const auto yv = tl::from_torch<float>(y, "y");
  tl_torch::softmax(xv, yv, options(xv, yv));
  return y;
}

template <class T>
std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm_fwd_as(const at::Tensor& x, const at::Tensor& w,
                                                                 const at::Tensor& b, double eps) {
  at::Tensor y = at::empty(x.sizes(), x.options());
  const auto f32 = x.options().dtype(at::kFloat);
  at::Tensor mean = at::empty({x.size(0)}, f32), rstd = at::empty({x.size(0)}, f32);
  if (x.numel() == 0) return {y, mean, rstd};
  const auto xv = tl::from_torch<const T>(x, "x");
  const auto yv = tl::from_torch<T>(y, "y");
  const auto wv = tl::from_torch<const T>(w, "weight");
  const auto bv = tl::from_torch<const T>(b, "bias");
  const auto mv = tl::from_torch<float>(mean, "mean");
  const auto rv = tl::from_torch<float>(rstd, "rstd");
  tl_torch::layer_norm_fwd<T>(xv, yv, wv, bv, mv, rv, float(eps), options(xv, yv, wv, bv, mv, rv));
  return {y, mean, rstd};
}

// The columns, weight and bias a layer norm over the last axis of x takes.
void check_layer_norm(const char* op, const at::Tensor& x, const at::Tensor& w, const char* what) {
  if (x.dim() < 1) refuse(op, "x is a scalar; layer norm normalises its last axis");
  const std::int64_t n = x.size(-1);
  if (n == 0) refuse(op, "x's last axis is empty; layer norm normalises over it");
  if (n > 16384) refuse(op, "rows of " + std::to_string(n) + " columns; at most 16384");
  if (w.dim() != 1 || w.size(0) != n)
    refuse(op, std::string(what) + " is " + sizes_text(w) + "; x's last axis has " + std::to_string(n) + " elements");
  if (w.scalar_type() != x.scalar_type())
    refuse(op, std::string(what) + " is " + std::string(c10::toString(w.scalar_type())) + " and x " +
                   std::string(c10::toString(x.scalar_type())) + ": one element type");
  check_same_device(op, x, w, "x", what);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm_fwd(const at::Tensor& x_in, const at::Tensor& w_in,
                                                              const at::Tensor& b_in, double eps) {
  check_layer_norm("layer_norm", x_in, w_in, "weight");
  check_layer_norm("layer_norm", x_in, b_in, "bias");
  const at::Tensor x = x_in.reshape({-1, x_in.size(-1)}).contiguous();  // one row stride for x and y
  check_int32("layer_norm", x, "x");
  const at::Tensor w = w_in.contiguous(), b = b_in.contiguous();
  std::tuple<at::Tensor, at::Tensor, at::Tensor> r;
  switch (x.scalar_type()) {
    case at::kHalf: r = layer_norm_fwd_as<tl::fp16>(x, w, b, eps); break;
    case at::kBFloat16: r = layer_norm_fwd_as<tl::bf16>(x, w, b, eps); break;
    case at::kFloat: r = layer_norm_fwd_as<float>(x, w, b, eps); break;
    default: refuse("layer_norm", "x is " + std::string(c10::toString(x.scalar_type())) + "; it takes float16, bfloat16 or float32");
  }
  std::get<0>(r) = std::get<0>(r).view(x_in.sizes());
  return r;
}

template <class T>
std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm_bwd_as(const at::Tensor& dy, const at::Tensor& x,
                                                                 const at::Tensor& w, const at::Tensor& mean,
                                                                 const at::Tensor& rstd) {
  const std::int64_t n = x.size(1);
  const int group = tl_torch::layer_norm_group(n);
  at::Tensor dx = at::empty(x.sizes(), x.options());
  at::Tensor partial_dw = at::zeros({group, n}, x.options()), partial_db = at::zeros({group, n}, x.options());
  at::Tensor locks = at::zeros({2 * group}, x.options().dtype(at::kInt));
  at::Tensor dw = at::empty({n}, w.options()), db = at::empty({n}, w.options());
  if (x.size(0) == 0) return {dx, dw.zero_(), db.zero_()};
  const auto dyv = tl::from_torch<const T>(dy, "dy");
  const auto xv = tl::from_torch<const T>(x, "x");
  const auto wv = tl::from_torch<const T>(w, "weight");
  const auto mv = tl::from_torch<const float>(mean, "mean");
  const auto rv = tl::from_torch<const float>(rstd, "rstd");
  const auto dxv = tl::from_torch<T>(dx, "dx");
  const auto pw = tl::from_torch<T>(partial_dw, "partial_dw");
  const auto pb = tl::from_torch<T>(partial_db, "partial_db");
  const auto lv = tl::from_torch<int>(locks, "locks");
  const auto dwv = tl::from_torch<T>(dw, "dw");
  const auto dbv = tl::from_torch<T>(db, "db");
  tl_torch::layer_norm_bwd<T>(dyv, xv, wv, mv, rv, dxv, pw, pb, lv, dwv, dbv, options(dyv, xv, wv, mv, rv, dxv, pw, pb, lv, dwv, dbv));
  return {dx, dw, db};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm_bwd(const at::Tensor& dy_in, const at::Tensor& x_in,
                                                              const at::Tensor& w_in, const at::Tensor& mean_in,
                                                              const at::Tensor& rstd_in) {
  check_layer_norm("layer_norm_backward", x_in, w_in, "weight");
  if (!dy_in.sizes().equals(x_in.sizes()))
    refuse("layer_norm_backward", "dy is " + sizes_text(dy_in) + " and x " + sizes_text(x_in));
  const at::Tensor x = x_in.reshape({-1, x_in.size(-1)}).contiguous();
  const at::Tensor dy = dy_in.to(x.scalar_type()).reshape({-1, x_in.size(-1)}).contiguous();
  check_int32("layer_norm_backward", x, "x");
  const at::Tensor w = w_in.contiguous(), mean = mean_in.contiguous(), rstd = rstd_in.contiguous();
  if (mean.numel() != x.size(0) || rstd.numel() != x.size(0))
    refuse("layer_norm_backward", "mean and rstd hold " + std::to_string(mean.numel()) + " and " +
                                      std::to_string(rstd.numel()) + " values for " + std::to_string(x.size(0)) + " rows");
  std::tuple<at::Tensor, at::Tensor, at::Tensor> r;
  switch (x.scalar_type()) {
    case at::kHalf: r = layer_norm_bwd_as<tl::fp16>(dy, x, w, mean, rstd); break;
    case at::kBFloat16: r = layer_norm_bwd_as<tl::bf16>(dy, x, w, mean, rstd); break;
    case at::kFloat: r = layer_norm_bwd_as<float>(dy, x, w, mean, rstd); break;
    default: refuse("layer_norm_backward", "x is " + std::string(c10::toString(x.scalar_type())) + "; it takes float16, bfloat16 or float32");
  }
  std::get<0>(r) = std::get<0>(r).view(x_in.sizes());
  return r;
}

template <class T>
at::Tensor matmul_as(const at::Tensor& a, const at::Tensor& b, bool leaky_relu) {
  at::Tensor c = at::empty({a.size(0), b.size(1)}, a.options());
  if (c.numel() == 0) return c;
  if (a.size(1) == 0) return c.zero_();
  const auto av = tl::from_torch<const T>(a, "a");
  const auto bv = tl::from_torch<const T>(b, "b");
  const auto cv = tl::from_torch<T>(c, "c");
  tl_torch::matmul<T>(av, bv, cv, leaky_relu, options(av, bv, cv));
  return c;
}

at::Tensor matmul(const at::Tensor& a, const at::Tensor& b, c10::string_view activation) {
  const std::string act(activation.data(), activation.size());
  if (act != "" && act != "leaky_relu") refuse("matmul", "activation '" + act + "'; it takes '' or 'leaky_relu'");
  if (a.dim() != 2 || b.dim() != 2) refuse("matmul", "a is " + sizes_text(a) + " and b " + sizes_text(b) + "; it takes matrices");
  if (a.size(1) != b.size(0))
    refuse("matmul", "a is " + sizes_text(a) + " and b " + sizes_text(b) + ": a's columns must be b's rows");
  if (a.scalar_type() != b.scalar_type())
    refuse("matmul", "a is " + std::string(c10::toString(a.scalar_type())) + " and b " +
                         std::string(c10::toString(b.scalar_type())) + ": one element type");
  check_same_device("matmul", a, b, "a", "b");
  check_int32("matmul", a, "a");
  check_int32("matmul", b, "b");
  for (const std::int64_t size : {a.size(0), a.size(1), b.size(1)})
    if (size >= (1LL << 31)) refuse("matmul", "a is " + sizes_text(a) + " and b " + sizes_text(b) + "; sizes under 2^31");
  if (a.size(0) * b.size(1) >= (1LL << 31)) refuse("matmul", "c would hold 2^31 elements or more; the kernel's offsets are 32-bit");
  switch (a.scalar_type()) {  // any strides: the kernel takes them
    case at::kHalf: return matmul_as<tl::fp16>(a, b, act == "leaky_relu");
    case at::kBFloat16: return matmul_as<tl::bf16>(a, b, act == "leaky_relu");
    default: refuse("matmul", "a is " + std::string(c10::toString(a.scalar_type())) + "; it takes float16 or bfloat16");
  }
}

at::Tensor attention(const at::Tensor& q_in, const at::Tensor& k_in, const at::Tensor& v_in, bool causal, double sm_scale) {
  if (q_in.dim() != 4) refuse("attention", "q is " + sizes_text(q_in) + "; it takes (batch, heads, tokens, head_dim)");
  if (!k_in.sizes().equals(q_in.sizes()) || !v_in.sizes().equals(q_in.sizes()))
    refuse("attention", "q is " + sizes_text(q_in) + ", k " + sizes_text(k_in) + ", v " + sizes_text(v_in) + ": one shape");
  const std::int64_t Z = q_in.size(0), H = q_in.size(1), n_ctx = q_in.size(2), d = q_in.size(3);
  if (d != 64 && d != 128) refuse("attention", "head_dim " + std::to_string(d) + "; it takes 64 or 128");
  if (n_ctx % 64 != 0) refuse("attention", std::to_string(n_ctx) + " tokens; it takes a multiple of 64");
  check_same_device("attention", q_in, k_in, "q", "k");
  check_same_device("attention", q_in, v_in, "q", "v");
  const at::Tensor q = q_in.contiguous(), k = k_in.contiguous(), v = v_in.contiguous();  // the kernel's layout
  check_int32("attention", q, "q");
  at::Tensor out = at::empty(q.sizes(), q.options());
  at::Tensor m = at::empty({Z, H, n_ctx}, q.options().dtype(at::kFloat));
  if (out.numel() == 0) return out;
  const auto qp = tl::ptr_from_torch<const tl::fp16>(q, "q");
  const auto kp = tl::ptr_from_torch<const tl::fp16>(k, "k");
  const auto vp = tl::ptr_from_torch<const tl::fp16>(v, "v");
  const auto op = tl::ptr_from_torch<tl::fp16>(out, "o");
  const auto mp = tl::ptr_from_torch<float>(m, "M");
  const auto place = options(tl::from_torch<const tl::fp16>(q.flatten(), "q"));  // backend, device, stream
  if (d == 64) tl_torch::attention_fwd_64(qp, kp, vp, op, mp, int(Z), int(H), int(n_ctx), causal, float(sm_scale), place);
  else tl_torch::attention_fwd_128(qp, kp, vp, op, mp, int(Z), int(H), int(n_ctx), causal, float(sm_scale), place);
  return out;
}

// tl's refusals (tl::usage_error, a std::invalid_argument) reach Python as ValueError, anything
// else (a tl::launch_error's report, a CUDA error) as RuntimeError, whatever the torch version's
// own translation of C++ exceptions.
template <auto Op>
struct guarded;
template <class R, class... A, R (*Op)(A...)>
struct guarded<Op> {
  static R call(A... args) {
    try {
      return Op(args...);
    } catch (const std::invalid_argument& e) {
      TORCH_CHECK_VALUE(false, e.what());
    } catch (const c10::Error&) {
      throw;
    } catch (const std::exception& e) {
      TORCH_CHECK(false, e.what());
    }
  }
};

}  // namespace

TORCH_LIBRARY(tl_torch, m) {
  m.def("softmax(Tensor x) -> Tensor");
  m.def("layer_norm_fwd(Tensor x, Tensor weight, Tensor bias, float eps) -> (Tensor, Tensor, Tensor)");
  m.def("layer_norm_bwd(Tensor dy, Tensor x, Tensor weight, Tensor mean, Tensor rstd) -> (Tensor, Tensor, Tensor)");
  m.def("matmul(Tensor a, Tensor b, str activation=\"\") -> Tensor");
  m.def("attention(Tensor q, Tensor k, Tensor v, bool causal, float sm_scale) -> Tensor");
}

// One implementation for both devices: the tensors' place picks tl's backend.
static void implement(torch::Library& m) {
  m.impl("softmax", &guarded<&softmax>::call);
  m.impl("layer_norm_fwd", &guarded<&layer_norm_fwd>::call);
  m.impl("layer_norm_bwd", &guarded<&layer_norm_bwd>::call);
  m.impl("matmul", &guarded<&matmul>::call);
  m.impl("attention", &guarded<&attention>::call);
}
TORCH_LIBRARY_IMPL(tl_torch, CPU, m) { implement(m); }
TORCH_LIBRARY_IMPL(tl_torch, CUDA, m) { implement(m); }

// A Python module with nothing in it: importing it runs the registrations above.
PyMODINIT_FUNC PyInit__C() {
  static PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr, nullptr, nullptr, nullptr, nullptr};
  return PyModule_Create(&module);
}
