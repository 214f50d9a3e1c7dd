// Tutorial 05's layer norm, tl::fp16 rows of up to 1024 columns, 4 warps a program.
#define TL_NUM_WARPS 4
#include "layer_norm.cuh"

TL_TORCH_LAYER_NORM(tl::fp16)
