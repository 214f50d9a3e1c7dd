// tl/core/eviction.hpp: the eviction policies of tl::load and tl::store.
#pragma once

namespace tl {

// Triton's eviction_policy: a hint of how long the cache lines an access brings in should stay
// in the L2 cache. evict_last: keep them over others (data read again soon, such as a row that
// a second loop reads again); evict_first: let them go first (data used once). The CUDA backend
// gives every access of the load or store that priority (a loaded block that tl::dot copies to
// shared memory itself, backend/cuda/dot_wgmma.hpp, is copied without it); the CPU backend
// ignores it.
enum class eviction { normal, first, last };
template <eviction E>
struct eviction_policy {
  static constexpr eviction value = E;
};
inline constexpr eviction_policy<eviction::first> evict_first{};
inline constexpr eviction_policy<eviction::last> evict_last{};

}  // namespace tl
