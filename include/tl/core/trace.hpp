// tl/core/trace.hpp: a record of every load and store of a launch, lane by lane.
//
//   tl::trace t;
//   tl::launch<kernel<32>>(tl::grid(4), {.trace = &t}, x, z, n);
//   t.accesses[0]   program (0, 0, 0)'s first load: its buffer, shape, and for every lane
//                   the offset, whether it was masked in, and whether it was valid
// The CPU backend only (it is how the access pictures of a launch are drawn). Accesses are
// ordered by program id (axis 0 fastest), then in the order the program made them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report.hpp"

namespace tl {

struct traced_lane {
  std::int64_t offset = 0;  // element offset from the buffer's start (computed even where masked off)
  bool masked_in = false;
  bool valid = false;       // masked in and inside the buffer: the element was accessed
};

struct traced_access {
  int program[3] = {0, 0, 0};
  access_kind op = access_kind::load;
  source_location where;
  std::string buffer;              // the buffer's name, or "argument #i"
  std::int64_t buffer_size = -1;   // elements, -1 if unknown
  const void* buffer_start = nullptr;  // tells buffers apart
  int element_size = 0;            // bytes
  std::vector<int> shape;          // of the block of pointers
  std::vector<traced_lane> lanes;  // row-major over shape
};

struct trace {
  std::string kernel;
  int grid[3] = {1, 1, 1};
  std::vector<traced_access> accesses;

  struct totals {
    std::int64_t loads = 0, stores = 0;        // ops
    std::int64_t lanes = 0, masked_in = 0;     // lanes of all ops, and those masked in
    std::int64_t invalid = 0;                  // masked in but outside the buffer
    std::int64_t bytes_loaded = 0, bytes_stored = 0;
  };
  totals sum() const {
    totals t;
    for (const auto& a : accesses) {
      (a.op == access_kind::load ? t.loads : t.stores)++;
      for (const auto& l : a.lanes) {
        ++t.lanes;
        t.masked_in += l.masked_in;
        t.invalid += l.masked_in && !l.valid;
        if (l.valid) (a.op == access_kind::load ? t.bytes_loaded : t.bytes_stored) += a.element_size;
      }
    }
    return t;
  }
};

}  // namespace tl
