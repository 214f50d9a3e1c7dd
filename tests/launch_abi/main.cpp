// Translation units compiled with different launch settings (config.hpp: TL_LAUNCH_ABI) keep
// their own launch functions: here two units whose dynamic shared memory headers differ in size
// (TL_DESCRIPTOR_TMA 0 and 1) each plan their memory with their own header. Were the planning
// function one symbol for both, the linker would keep one body, and a launch from the unit with
// the larger header would give its dots' arena too little memory. Runs without a GPU (host code).
#include <cstdio>

unsigned own_header_bytes_0();
unsigned own_header_bytes_1();
unsigned planned_bytes_0(unsigned arena);
unsigned planned_bytes_1(unsigned arena);

int main() {
  const unsigned arena = 32768;
  const unsigned want0 = own_header_bytes_0() + 1024 + arena, want1 = own_header_bytes_1() + 1024 + arena;
  const unsigned got0 = planned_bytes_0(arena), got1 = planned_bytes_1(arena);
  std::printf("TL_DESCRIPTOR_TMA=0: header %u bytes, planned %u (want %u)\n", own_header_bytes_0(), got0, want0);
  std::printf("TL_DESCRIPTOR_TMA=1: header %u bytes, planned %u (want %u)\n", own_header_bytes_1(), got1, want1);
  if (own_header_bytes_0() == own_header_bytes_1()) {
    std::printf("FAIL: the two settings' headers have the same size; this test checks nothing\n");
    return 1;
  }
  if (got0 != want0 || got1 != want1) {
    std::printf("FAIL: a unit planned its memory with another unit's header\n");
    return 1;
  }
  std::printf("each unit plans with its own header\n");
  return 0;
}
