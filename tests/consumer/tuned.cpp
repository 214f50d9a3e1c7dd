// Compiled once more per warp count by tl_add_num_warps_variants.
#include "tuned.hpp"
