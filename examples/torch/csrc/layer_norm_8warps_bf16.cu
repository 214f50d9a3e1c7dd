// Tutorial 05's layer norm, tl::bf16 rows of 1025 to 16384 columns, 8 warps a program.
#define TL_NUM_WARPS 8
#include "layer_norm.cuh"

TL_TORCH_LAYER_NORM(tl::bf16)
