// The autotuned matmul's configs for the warp counts other than the executable's own:
// CMakeLists.txt compiles this file once per count (tl_add_num_warps_variants), and the
// TL_AUTOTUNE_UNIT in matmul.hpp adds the configs each compilation can run.
#include "matmul.hpp"
