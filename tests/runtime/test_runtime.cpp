// The host-side runtime on the CPU backend: tl::buffer and its views, check_tensors_ready,
// tl::autotuner (choice, caches, key, prune, restore, disk), do_bench and perf_report.
#include <Eigen/Dense>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "testing.hpp"

namespace {

// z = x * 2 (+ z where ACCUMULATE), with WORK extra multiplications per element: configs that
// differ only in speed.
template <int B, int WORK, bool ACCUMULATE = false>
TL_KERNEL void scale_kernel(tl::ptr<const float> x, tl::ptr<float> z, int n, int unused_key) {
  (void)unused_key;
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto mask = offs < n;
  tl::block<float, B> v = tl::load(x + offs, mask);
  for (int i = 0; i < WORK; ++i) v = (v + 1.0f) - 1.0f;  // exact for the test's values; not folded away
  if constexpr (ACCUMULATE) tl::store(z + offs, tl::load(z + offs, mask) + v * 2.0f, mask);
  else tl::store(z + offs, v * 2.0f, mask);
}

struct scale_meta {
  int b, work;
};
std::ostream& operator<<(std::ostream& o, const scale_meta& m) { return o << "B=" << m.b << " WORK=" << m.work; }

// Config 1 is the fast one by far.
constexpr tl::config<scale_meta> scale_configs[] = {
    {.meta = {16, 2000}}, {.meta = {64, 0}, .num_warps = 8}, {.meta = {32, 1000}, .num_warps = 2, .num_stages = 2}};
struct scale_of {
  template <scale_meta M>
  static constexpr auto kernel = scale_kernel<M.b, M.work>;
};
struct accumulate_of {
  template <scale_meta M>
  static constexpr auto kernel = scale_kernel<M.b, M.work, true>;
};
using scale_tuner = tl::autotuner<scale_configs, scale_of>;
scale_tuner scale_tuned{{.name = "scale", .key = {2}, .warmup_ms = 1, .rep_ms = 4}};
TL_AUTOTUNE_UNIT(scale_tuned)
tl::autotuner<scale_configs, accumulate_of> accumulate_tuned{
    {.name = "accumulate", .key = {2}, .restore = {1}, .warmup_ms = 1, .rep_ms = 4}};
TL_AUTOTUNE_UNIT(accumulate_tuned)

auto grid_for(int n) {
  return [n](const scale_meta& m) { return tl::grid(tl::cdiv(n, m.b)); };
}

}  // namespace

TEST_CASE("buffer: shapes, strides, copies in and out, Eigen matrices") {
  tl::buffer<float> z({3, 4, 5}, tl::backend::cpu, "z");
  CHECK(z.rank() == 3);
  CHECK(z.numel() == 60);
  CHECK(z.stride(0) == 20);
  CHECK(z.stride(1) == 5);
  CHECK(z.stride(2) == 1);
  for (float v : z.to_host()) CHECK(v == 0.0f);  // zero-filled: never garbage
  Eigen::MatrixXf m = Eigen::MatrixXf::Random(3, 7);  // column-major
  const auto b = tl::buffer<float>::from_matrix(m, tl::backend::cpu, "m");
  CHECK(b.shape(0) == 3);
  CHECK(b.shape(1) == 7);
  CHECK(b.to_host()[1] == m(0, 1));  // row-major in the buffer
  Eigen::MatrixXf back;
  b.to_matrix(back);
  CHECK(back == m);
  const auto t = b.transposed();
  CHECK_FALSE(t.is_contiguous());
  CHECK(t.size(0) == 7);
  const auto tc = t.contiguous("mt");
  CHECK(tc.shape(0) == 7);
  CHECK(tc.to_host()[1] == m(1, 0));
  CHECK_THROWS_WITH(tl::buffer<float>(std::vector<float>(5), {2, 3}), Catch::Contains("5 values for shape 2 x 3"));
  CHECK_THROWS_WITH(tl::buffer<float>({1, 2, 3, 4}), Catch::Contains("4 axes"));
  Eigen::Matrix2f small;  // fixed size: cannot be resized (Eigen's resize would assert)
  CHECK_THROWS_WITH(tl::buffer<float>({3, 4}).to_matrix(small), Catch::Contains("into a 2 x 2 matrix from 3 x 4"));
  Eigen::Matrix<float, 3, Eigen::Dynamic> three_rows;  // rows fixed, columns free
  tl::buffer<float>({3, 4}).to_matrix(three_rows);
  CHECK(three_rows.cols() == 4);
  CHECK_THROWS_WITH(tl::buffer<float>({2, 4}).to_matrix(three_rows), Catch::Contains("into a 3 x 4 matrix from 2 x 4"));
  std::vector<float> storage(6);
  Eigen::Map<Eigen::MatrixXf> map(storage.data(), 2, 3);  // a map does not own its memory
  CHECK_THROWS_WITH(tl::buffer<float>({3, 2}).to_matrix(map), Catch::Contains("into a 2 x 3 matrix from 3 x 2"));
  // buffers on the CUDA backend need nvcc: this file is compiled by the host compiler
  CHECK_THROWS_WITH(tl::buffer<float>({4}, tl::backend::cuda, "g"), Catch::Contains("compiled by nvcc"));
}

TEST_CASE("check_tensors_ready: contiguity, placement, null and misaligned pointers") {
  tl::buffer<float> a({4, 6}, tl::backend::cpu, "a");
  std::vector<float> v(10);
  CHECK_NOTHROW(tl::check_tensors_ready(tl::backend::cpu, a, v, tl::ptr<float>(v)));
  CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cpu, a, a.transposed()),
                    Catch::Contains("tensor #1 ('a', 6 x 4) is not contiguous (strides 1, 6)"));
  CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cuda, a),
                    Catch::Contains("tensor #0 ('a', 4 x 6) is in host memory, and the launch runs on the CUDA"));
  CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cuda, v), Catch::Contains("tensor #0 (10) is in host memory"));
  CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cpu, tl::ptr<float>(nullptr, 8, "p")),
                    Catch::Contains("tensor #0 ('p') is a null pointer"));
  alignas(8) char raw[64] = {};
  CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cpu, tl::ptr<float>(reinterpret_cast<float*>(raw + 2), 4)),
                    Catch::Contains("not a multiple of 4 bytes"));
  Eigen::MatrixXf m(5, 5);
  CHECK_NOTHROW(tl::check_tensors_ready(tl::backend::cpu, m));
  CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cpu, m.block(0, 0, 3, 3)),
                    Catch::Contains("tensor #0 (3 x 3) is not contiguous"));
}

TEST_CASE("check_shape: the sizes a launch will index a tensor with, checked before it runs") {
  tl::buffer<float> a({4, 6}, tl::backend::cpu, "a");
  CHECK_NOTHROW(tl::check_shape(a, {4, 6}));
  CHECK_THROWS_WITH(tl::check_shape(a, {4, 8}), "tl::check_shape: 'a' is 4 x 6; the launch needs 4 x 8");
  CHECK_THROWS_WITH(tl::check_shape(a, {24}, "flat"), "tl::check_shape: 'flat' is 4 x 6; the launch needs 24");
  CHECK_THROWS_WITH(tl::check_shape(a.transposed(), {4, 6}), Catch::Contains("is 6 x 4"));
  std::vector<float> v(100);
  CHECK_NOTHROW(tl::check_shape(v, {10, 10}));
  CHECK_NOTHROW(tl::check_shape(v, {50}));  // a range holds at least what is indexed
  CHECK_THROWS_WITH(tl::check_shape(v, {200}, "x"), "tl::check_shape: 'x' has 100 elements; the launch needs 200");
  CHECK_THROWS_WITH(tl::check_shape(tl::ptr<float>(v.data(), 100, "p"), {16, 8}, "p"),
                    "tl::check_shape: 'p' has 100 elements; the launch needs 16 x 8 = 128");
  CHECK_NOTHROW(tl::check_shape(tl::ptr<float>(v.data()), {1000}));  // unchecked: size unknown
  Eigen::MatrixXf m(3, 5);
  CHECK_THROWS_WITH(tl::check_shape(m, {5, 3}, "m"), "tl::check_shape: 'm' is 3 x 5; the launch needs 5 x 3");
}

TEST_CASE("autotuner: times every config, keeps the fastest per key, and tunes a key once") {
  const int n = 4096;
  std::vector<float> x(n, 1.5f), z(n, -1.0f);
  const int before = scale_tuned.tunings_run();
  // One host thread: a launch's own cost (starting threads) is then small and steady, and the
  // configs' work decides (under a loaded ctest, thread start-up had made config 1 look slow).
  const tl::launch_options one_thread{.threads = 1};
  scale_tuned(grid_for(n), one_thread, x, z, n, 7);
  for (float v : z) REQUIRE(v == 3.0f);
  const tl::tuning* t = scale_tuned.tuned({n});
  REQUIRE(t != nullptr);
  CHECK(t->best == 1);  // no extra work: many times faster than the others
  REQUIRE(t->entries.size() == 3);
  for (const auto& e : t->entries) {
    CHECK(e.error.empty());
    CHECK(e.ms > 0);
  }
  CHECK(t->entries[0].ms > t->entries[1].ms);
  CHECK(t->entries[2].describe == "B=32 WORK=1000 num_warps=2 num_stages=2");
  scale_tuned(grid_for(n), one_thread, x, z, n, 8);  // the same key (argument 2): no new tuning
  CHECK(scale_tuned.tunings_run() == before + 1);
  scale_tuned(grid_for(n / 2), one_thread, x, z, n / 2, 7);  // a new key
  CHECK(scale_tuned.tunings_run() == before + 2);
  CHECK(scale_tuned.tuned({n / 2}) != nullptr);
  CHECK(scale_tuned.tuned({n}, tl::backend::cuda) == nullptr);
}

TEST_CASE("autotuner: prune, and a clear error when nothing is left or the key is wrong") {
  scale_tuner pruned{{.name = "pruned", .key = {2}, .prune = [](const tl::config<scale_meta>& c, const tl::tune_key&) {
                        return c.meta.work > 0;  // leave the fast config out
                      }, .warmup_ms = 1, .rep_ms = 2}};
  std::vector<float> x(256, 1.0f), z(256);
  pruned(grid_for(256), {}, x, z, 256, 0);
  const tl::tuning* t = pruned.tuned({256});
  REQUIRE(t != nullptr);
  CHECK(t->entries[1].error == "pruned");
  CHECK(t->best != 1);
  scale_tuner none{{.name = "none", .key = {2}, .prune = [](const auto&, const auto&) { return false; }}};
  CHECK_THROWS_WITH(none(grid_for(256), {}, x, z, 256, 0),
                    Catch::Contains("tl::autotuner 'none': no config ran for cpu key=256") &&
                        Catch::Contains("#0 B=16 WORK=2000 num_warps=4 num_stages=3: pruned"));
  scale_tuner by_pointer{{.name = "by-pointer", .key = {0}}};
  CHECK_THROWS_WITH(by_pointer(grid_for(256), {}, x, z, 256, 0),
                    Catch::Contains("key argument #0 is not a number"));
  CHECK_THROWS_WITH(scale_tuner({.name = "bad", .key = {9}}), Catch::Contains("key index 9 is not an argument"));
}

TEST_CASE("autotuner: restore puts back a buffer the timing runs changed") {
  const int n = 1000;
  std::vector<float> x(n, 1.0f), z(n, 10.0f);
  accumulate_tuned(grid_for(n), {}, x, z, n, 0);  // tunes (dozens of launches), then one launch
  for (float v : z) REQUIRE(v == 12.0f);
}

TEST_CASE("autotuner: the disk cache is read by a new tuner, and ignored when the configs changed") {
  const auto dir = std::filesystem::temp_directory_path() / "tl-autotune-test";
  std::filesystem::remove_all(dir);
  std::vector<float> x(512, 1.0f), z(512);
  scale_tuner first{{.name = "disk", .key = {2}, .cache_dir = dir.string(), .warmup_ms = 1, .rep_ms = 2}};
  first(grid_for(512), {}, x, z, 512, 0);
  CHECK(first.tunings_run() == 1);
  const int best = first.tuned({512})->best;
  std::ifstream f(dir / "disk.tune");
  std::stringstream text;
  text << f.rdbuf();
  CHECK(text.str().find("cpu key=512 config=" + std::to_string(best)) != std::string::npos);

  scale_tuner second{{.name = "disk", .key = {2}, .cache_dir = dir.string(), .warmup_ms = 1, .rep_ms = 2}};
  second(grid_for(512), {}, x, z, 512, 0);
  CHECK(second.tunings_run() == 0);
  CHECK(second.tuned({512})->from_disk);
  CHECK(second.tuned({512})->best == best);

  // a line whose fingerprint does not match the config at its index (the list changed): retuned
  std::ofstream(dir / "stale.tune") << "cpu key=512 config=0 0000-1-1\n";
  scale_tuner third{{.name = "stale", .key = {2}, .cache_dir = dir.string(), .warmup_ms = 1, .rep_ms = 2}};
  third(grid_for(512), {}, x, z, 512, 0);
  CHECK(third.tunings_run() == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("autotuner: a config is launched by hand, and num_warps and num_stages travel with it") {
  std::vector<float> x(100, 2.0f), z(100);
  const auto r = scale_tuned.launch_config(2, grid_for(100), {}, x, z, 100, 0);
  CHECK(r.ok());
  CHECK(z[99] == 4.0f);
  CHECK(scale_tuned.compiled(tl::backend::cpu, 2));
  CHECK_FALSE(scale_tuned.compiled(tl::backend::cuda, 2));  // a host-compiled translation unit
  CHECK_THROWS_WITH(scale_tuned.launch_config(2, grid_for(100), {.backend = tl::backend::cuda}, x, z, 100, 0),
                    Catch::Contains("config #2 (B=32 WORK=1000 num_warps=2 num_stages=2) was not compiled for the cuda"));
}

TEST_CASE("do_bench: the median of timed calls, quantiles in order, options checked") {
  const auto r = tl::do_bench([] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); },
                              {.warmup_ms = 4, .rep_ms = 40, .quantiles = {0.5, 0.2, 0.8}});
  CHECK(r.reps >= 5);
  CHECK(r.ms == r.median);
  CHECK(r.median >= 2.0);
  CHECK(r.median < 10.0);
  REQUIRE(r.quantiles.size() == 3);
  CHECK(r.quantiles[0] == r.median);
  CHECK(r.quantiles[1] <= r.quantiles[0]);
  CHECK(r.quantiles[2] >= r.quantiles[0]);
  CHECK(r.min <= r.quantiles[1]);
  CHECK(int(r.times_ms.size()) == r.reps);
  const auto mean = tl::do_bench([] {}, {.rep_ms = 1, .mode = tl::return_mode::mean});
  CHECK(mean.ms == mean.mean);
  CHECK_THROWS_WITH(tl::do_bench([] {}, {.quantiles = {1.5}}), Catch::Contains("quantile 1.5"));
  CHECK_THROWS_WITH(tl::do_bench([] {}, {.cooldown_ms = -1}), Catch::Contains("cooldown_ms must be >= 0"));
  CHECK(tl::quantile_of_sorted({1, 2, 3, 4}, 0.5) == 2.5);
  CHECK(tl::tflops(2e12, 1000) == 2.0);
  CHECK(tl::gbps(1e9, 1000) == 1.0);
}

TEST_CASE("do_bench on the host's clock refuses a function that leaves GPU work running") {
  // What a CUDA launch with .wait = false notes (here without a GPU): the host clock would time
  // the launch only, so the bench is refused rather than reporting numbers that are wrong.
  CHECK_THROWS_WITH(tl::do_bench([] { tl::detail::note_async_gpu_launch(); }, {.rep_ms = 1}),
                    Catch::Contains("the function launched GPU work without waiting for it") &&
                        Catch::Contains("{.backend = tl::backend::cuda}"));
  CHECK(tl::do_bench([] {}, {.rep_ms = 1}).reps >= 5);
}

TEST_CASE("do_bench: cooldown_ms idles before the first call and is not in the times") {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  double first_call_ms = -1;
  const auto r = tl::do_bench(
      [&] {
        if (first_call_ms < 0) first_call_ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
      },
      {.warmup_ms = 0, .rep_ms = 1, .cooldown_ms = 60});
  CHECK(first_call_ms >= 60.0);
  CHECK(r.max < 30.0);  // no timed call includes the pause
  const auto start_plain = clock::now();
  double plain_first_ms = -1;
  (void)tl::do_bench(
      [&] {
        if (plain_first_ms < 0)
          plain_first_ms = std::chrono::duration<double, std::milli>(clock::now() - start_plain).count();
      },
      {.warmup_ms = 0, .rep_ms = 1});
  CHECK(plain_first_ms < 30.0);
}

// The lines of a file, and a file's text, for the perf_report tests.
static std::vector<std::string> file_lines(const std::filesystem::path& path, std::size_t n) {
  std::ifstream in(path);
  std::vector<std::string> lines(n);
  for (auto& line : lines) std::getline(in, line);
  return lines;
}
static std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
static std::size_t occurrences(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("perf_report: cases named by x_labels, drawn as grouped bars") {
  const auto dir = std::filesystem::temp_directory_path() / "tl-perf-report-bars-test";
  std::filesystem::remove_all(dir);
  tl::benchmark spec{.x_name = "puzzle", .x_vals = {0, 1, 2}, .line_vals = {"tl", "ceiling"}, .ylabel = "ratio",
                     .plot_name = "bars", .x_labels = {"2", "11 fp16", "12 <tf32>"}, .bars = true};
  const auto table = tl::perf_report(spec, [&](double x, const std::string& p) {
    if (p == "ceiling" && x == 1) return tl::no_measurement();
    return tl::measurement{x + 1 + (p == "ceiling"), x + 0.5, x + 1.5};
  }).run({.print_data = false, .save_path = dir.string()});
  CHECK(table.str() == "bars:\n   puzzle  tl  ceiling\n        2   1        2\n  11 fp16   2        -\n12 <tf32>   3        4\n");
  const auto csv = file_lines(dir / "bars.csv", 2);
  CHECK(csv[0] == "puzzle,tl,tl min,tl max,ceiling,ceiling min,ceiling max");
  CHECK(csv[1] == "2,1,0.5,1.5,2,0.5,1.5");
  const std::string s = file_text(dir / "bars.svg");
  CHECK(occurrences(s, "<polyline") == 0);  // bars, not lines
  // 5 bars (the gap has none), 2 legend swatches, the background and the plot's frame
  CHECK(occurrences(s, "<rect") == 5 + 2 + 2);
  CHECK(s.find(">11 fp16</text>") != std::string::npos);     // the labels are the ticks
  CHECK(s.find(">12 &lt;tf32&gt;</text>") != std::string::npos);  // escaped
  std::filesystem::remove_all(dir);
  spec.x_labels = {"one"};
  CHECK_THROWS_WITH(tl::perf_report(spec, [](double, const std::string&) { return tl::measurement{}; }).run(),
                    Catch::Contains("1 x_labels for 3"));
}

TEST_CASE("perf_report: a table, a CSV and an SVG line plot of the providers") {
  const auto dir = std::filesystem::temp_directory_path() / "tl-perf-report-test";
  std::filesystem::remove_all(dir);
  tl::benchmark spec{.x_name = "size", .x_vals = {32, 64, 128}, .x_log = true, .line_vals = {"a", "b"},
                     .line_names = {"Alpha", "Beta"}, .styles = {{"blue", "-"}, {"green", "--"}},
                     .ylabel = "TFLOP/s", .plot_name = "demo"};
  int calls = 0;
  const auto table = tl::perf_report(spec, [&](double x, const std::string& p) {
    ++calls;
    if (p == "b" && x == 64) return tl::no_measurement();  // a gap
    return tl::measurement{x / 32 + (p == "b"), x / 32 - 0.5, x / 32 + 0.5};
  }).run({.print_data = false, .save_path = dir.string()});
  CHECK(calls == 6);
  CHECK(table.str() == "demo:\nsize  Alpha  Beta\n  32      1     2\n  64      2     -\n 128      4     5\n");
  const auto csv = file_lines(dir / "demo.csv", 2);
  CHECK(csv[0] == "size,Alpha,Alpha min,Alpha max,Beta,Beta min,Beta max");
  CHECK(csv[1] == "32,1,0.5,1.5,2,0.5,1.5");
  const std::string s = file_text(dir / "demo.svg");
  CHECK(s.rfind("<svg", 0) == 0);
  CHECK(s.find("</svg>") != std::string::npos);
  CHECK(s.find(">Alpha</text>") != std::string::npos);
  CHECK(s.find("stroke-dasharray") != std::string::npos);  // Beta dashed
  CHECK(occurrences(s, "<polyline") == 3);  // Alpha whole, Beta in two pieces around its gap
  std::filesystem::remove_all(dir);
  CHECK_THROWS_WITH(tl::perf_report(tl::benchmark{}, [](double, const std::string&) { return tl::measurement{}; }).run(),
                    Catch::Contains("no line_vals"));
}
