// tl-guide's examples, one translation unit each (tl_guide_copy.cpp, tl_guide_grey.cpp,
// tl_guide_matmul.cpp, compiled in parallel), and how they report their checks (tl_guide.cpp).
#pragma once

#include <string>
#include <vector>

#include <tl/tl.hpp>

namespace guide {
// Prints "[ok]" or "[FAIL]" and the check; counts the failures.
void check(bool ok, const std::string& what);
std::string join(const std::vector<int>& v);

void copy_example(tl::backend on);                                                         // example 1
void grey_example(tl::backend on, const std::string& image_path, const std::string& out_path);  // example 2
void matmul_example(tl::backend on, int size);                                             // examples 3 and 4
}  // namespace guide
