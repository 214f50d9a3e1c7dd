// What the matmul tutorials' checkers share (03, 09): fp16 inputs from the seed, B row- or
// column-major, a poisoned C, and the check against C = A @ B in double (leaky_relu'd or not).
#pragma once

#include <string>
#include <vector>

#include "tutorials.hpp"

namespace tutorials {

enum class b_layout { row_major, column_major };

struct matmul_problem {
  int M = 0, N = 0, K = 0;
  std::vector<float> a_values, b_values;  // the fp16 inputs as floats; B's element (k, n) at k * N + n
  std::vector<tl::fp16> a, b, c;
  int stride_bk = 0, stride_bn = 0;  // of b as stored
};

matmul_problem make_matmul(const request& r, b_layout bl);
// Fills o with C against the spec (fp16 output: within a few of its ulps).
void check_matmul(outcome& o, const matmul_problem& p, bool leaky_relu);
// The same for inputs given by their values (B's element (k, n) at k * N + n), with tolerances.
void check_matmul_values(outcome& o, int M, int N, int K, const std::vector<float>& a_values,
                         const std::vector<float>& b_values, const std::vector<tl::fp16>& c, bool leaky_relu, double atol,
                         double rtol);

// The registry fields every matmul tutorial shares: sizes M, N, K; constexprs BLOCK_SIZE_M,
// BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M held in B0, B1, B_MID, B2.
void describe_matmul(puzzle& p, b_layout bl);

}  // namespace tutorials
