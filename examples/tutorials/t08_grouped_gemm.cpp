// Tutorial 08: grouped GEMM. Spec and checker setup; the kernel is in t08_grouped_gemm.hpp.
#include <utility>

#include <tl/tl.hpp>

#include "t08_grouped_gemm.hpp"
#include "tutorials.hpp"

namespace {
using namespace tutorials;

constexpr const char* constexpr_names[] = {"B0", "B1", "B2", "B_MID"};
using blocks = puzzles::configs<puzzles::cfg<64, 64, 32, 8>, puzzles::cfg<32, 32, 32, 4>>;

puzzle grouped() {
  puzzle p;
  p.noun = "tutorial";
  p.id = "8";
  p.number = 8;
  p.title = "grouped GEMM (matrix addresses from memory)";
  p.formula = "C_g = A_g @ B_g for each g, fp16 in, float32 sums; NUM_SM programs walk all the tiles";
  p.size_names = {"N0"};
  p.size_labels = {"group_size"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.constexpr_labels = {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "NUM_SM"};
  p.puzzle_sizes = {.N0 = 4};
  p.puzzle_constexprs = {.B0 = 64, .B1 = 64, .B2 = 32, .B_MID = 8};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) { return sizes{.N0 = puzzles::random_int(g, 1, 6)}; };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"group_a_ptrs", {n.N0}}, {"group_b_ptrs", {n.N0}}, {"group_c_ptrs", {n.N0}},
                                                   {"group_gemm_sizes", {n.N0, 3}}, {"g_lds", {n.N0, 3}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int BM = decltype(c)::v[0], BN = decltype(c)::v[1], BK = decltype(c)::v[2], NUM_SM = decltype(c)::v[3];
      using T = tl::fp16;
      rng g(r.seed);
      const int G = r.n.N0;
      // Every matrix a whole number of tiles, as the tutorial's kernel assumes.
      const auto groups = static_cast<std::size_t>(G);
      std::vector<std::vector<T>> a(groups), b(groups), cm(groups);
      std::vector<std::int64_t> pa, pb, pc;
      std::vector<int> gemm_sizes, lds;
      for (int k = 0; k < G; ++k) {
        const int m = BM * puzzles::random_int(g, 1, 3), n = BN * puzzles::random_int(g, 1, 3), kk = BK * puzzles::random_int(g, 1, 4);
        for (float v : puzzles::random_floats(std::size_t(m) * kk, g)) a[std::size_t(k)].push_back(T(v));
        for (float v : puzzles::random_floats(std::size_t(kk) * n, g)) b[std::size_t(k)].push_back(T(v));
        cm[std::size_t(k)].assign(std::size_t(m) * n, T(std::numeric_limits<float>::quiet_NaN()));
        gemm_sizes.insert(gemm_sizes.end(), {m, n, kk});
        lds.insert(lds.end(), {kk, n, n});
      }
      // The matrices where the launch's backend reads them (GPU memory for the CUDA backend): the
      // tables hold the addresses the kernel uses.
      std::vector<tl::buffer<T>> mats;
      for (int k = 0; k < G; ++k) {
        mats.emplace_back(a[std::size_t(k)], r.launch.backend, "A");
        mats.emplace_back(b[std::size_t(k)], r.launch.backend, "B");
        mats.emplace_back(cm[std::size_t(k)], r.launch.backend, "C");
        pa.push_back(std::int64_t(reinterpret_cast<std::uintptr_t>(mats[std::size_t(3 * k)].data())));
        pb.push_back(std::int64_t(reinterpret_cast<std::uintptr_t>(mats[std::size_t(3 * k + 1)].data())));
        pc.push_back(std::int64_t(reinterpret_cast<std::uintptr_t>(mats[std::size_t(3 * k + 2)].data())));
      }
      outcome o;
      o.report = tl::launch<grouped_matmul_kernel<NUM_SM, BM, BN, BK, T>>(
          tl::grid(NUM_SM), r.launch, tl::ptr<const std::int64_t>(pa, "group_a_ptrs"), tl::ptr<const std::int64_t>(pb, "group_b_ptrs"),
          tl::ptr<const std::int64_t>(pc, "group_c_ptrs"), tl::ptr<const int>(gemm_sizes, "group_gemm_sizes"),
          tl::ptr<const int>(lds, "g_lds"), G);
      std::vector<float> yours;
      std::vector<double> spec;
      for (int k = 0; k < G; ++k) {
        const int m = gemm_sizes[std::size_t(3 * k)], n = gemm_sizes[std::size_t(3 * k + 1)], kk = gemm_sizes[std::size_t(3 * k + 2)];
        cm[std::size_t(k)] = mats[std::size_t(3 * k + 2)].to_host();
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int q = 0; q < kk; ++q)
              s += double(float(a[std::size_t(k)][std::size_t(i) * kk + q])) * double(float(b[std::size_t(k)][std::size_t(q) * n + j]));
            spec.push_back(s);
            yours.push_back(float(cm[std::size_t(k)][std::size_t(i) * n + j]));
          }
      }
      puzzles::compare(o, yours, spec, {int(spec.size())}, 1e-2, 1e-2);
      return o;
    });
  };
  return p;
}
}  // namespace

namespace tutorials {
puzzle tutorial_08() { return grouped(); }
}  // namespace tutorials
