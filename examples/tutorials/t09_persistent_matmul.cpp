// Tutorial 09: persistent matrix multiplication. Checker setup; the kernel is in
// t09_persistent_matmul.hpp, the inputs and the spec in matmul_check.cpp. The grid is
// `programs` programs (on a GPU the tutorial takes one per multiprocessor; here fewer than the
// tiles, so that each program walks several, and the CPU backend runs the same grid).
#include <algorithm>
#include <string>
#include <utility>

#include "matmul_check.hpp"
#include "t09_persistent_matmul.hpp"

namespace {
using namespace tutorials;
constexpr const char* constexpr_names[] = {"B0", "B1", "B_MID", "B2"};
using blocks = puzzles::configs<puzzles::cfg<64, 64, 32, 8>, puzzles::cfg<32, 32, 32, 2>, puzzles::cfg<128, 128, 64, 8>>;
constexpr int programs = 6;

// The checker of either form: inputs, poisoned C, min(programs, tiles) programs, the check.
// Launch(block sizes, problem, num_sms, request) runs the kernel and returns its report.
template <class Launch>
puzzle persistent_tutorial(std::string id, std::string title, std::string formula, b_layout bl, Launch launch) {
  puzzle p;
  describe_matmul(p, bl);
  p.id = std::move(id);
  p.number = 9;
  p.title = std::move(title);
  p.formula = std::move(formula);
  p.compiled = blocks::list(constexpr_names);
  p.run = [bl, launch](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int BM = decltype(c)::v[0], BN = decltype(c)::v[1];
      matmul_problem m = make_matmul(r, bl);
      const int num_sms = std::min(programs, tl::cdiv(m.M, BM) * tl::cdiv(m.N, BN));
      outcome o;
      o.report = launch(c, m, num_sms, r);
      check_matmul(o, m, false);
      return o;
    });
  };
  return p;
}
}  // namespace

namespace tutorials {
puzzle tutorial_09() {
  return persistent_tutorial(
      "9", "persistent matmul", "C = A @ B (fp16), NUM_SMS programs walking the tiles, offsets clamped with where",
      b_layout::row_major, [](auto c, matmul_problem& m, int num_sms, const request& r) {
        constexpr int BM = decltype(c)::v[0], BN = decltype(c)::v[1], BK = decltype(c)::v[2], GM = decltype(c)::v[3];
        return tl::launch<matmul_kernel_persistent<BM, BN, BK, GM>>(
            tl::grid(num_sms), r.launch, tl::ptr(std::as_const(m.a), "a"), tl::ptr(std::as_const(m.b), "b"),
            tl::ptr(m.c, "c"), m.M, m.N, m.K, m.K, 1, m.stride_bk, m.stride_bn, m.N, 1, num_sms);
      });
}

puzzle tutorial_09_descriptor() {
  return persistent_tutorial(
      "9/descriptor", "persistent matmul, tensor descriptors",
      "C = A @ B (fp16, B stored N x K), NUM_SMS programs, A, B and C through tensor descriptors",
      b_layout::column_major, [](auto c, matmul_problem& m, int num_sms, const request& r) {
        constexpr int BM = decltype(c)::v[0], BN = decltype(c)::v[1], BK = decltype(c)::v[2], GM = decltype(c)::v[3];
        return tl::launch<matmul_kernel_descriptor_persistent<BM, BN, BK, GM>>(
            tl::grid(num_sms), r.launch, tl::ptr(std::as_const(m.a), "a"), tl::ptr(std::as_const(m.b), "b"),
            tl::ptr(m.c, "c"), m.M, m.N, m.K, num_sms);
      });
}
}  // namespace tutorials
