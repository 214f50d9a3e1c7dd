// compile-time.sh: Triton's tutorials ported to tl in one translation unit, as a user's file of
// them would be: the second suite's 4-warp entry points (tutorials 01, 03, 04, 05, 06's forward,
// 08, 09, the guide's rgb2grey, RMSNorm), each launch compiled for both backends.
#include "../../bench/tutorials/entries_4warps.cu"
#include "../../bench/tutorials/entries_attention.cu"
