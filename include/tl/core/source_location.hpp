// tl/core/source_location.hpp: where an op was written, for reports.
#pragma once

#include "../config.hpp"

namespace tl {

// A defaulted argument of every memory op, debug op and launch check, so that a report can
// name the line of the kernel that made an invalid access or failed an assertion.
struct source_location {
  const char* file = "";
  int line = 0;
  TL_HD static constexpr source_location current(const char* f = __builtin_FILE(), int l = __builtin_LINE()) {
    return source_location{f, l};
  }
};

}  // namespace tl
