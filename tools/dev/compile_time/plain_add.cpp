// compile-time.sh's yardstick under g++: the add kernel of add.cpp in plain C++ threads, a
// thread per share of the elements.
#include <thread>
#include <vector>

void add(const float* x, float* z, int n, int threads) {
  std::vector<std::thread> pool;
  const int share = (n + threads - 1) / threads;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      for (int i = t * share; i < n && i < (t + 1) * share; ++i) z[i] = x[i] + 10.0f;
    });
  for (auto& t : pool) t.join();
}
