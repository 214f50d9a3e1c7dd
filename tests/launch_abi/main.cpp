// Translation units compiled with different launch settings (config.hpp: TL_LAUNCH_ABI) keep
// their own launch functions: two units that differ in TL_DESCRIPTOR_TMA each call their own
// body of a function of the launch's symbol namespace. Were it one symbol for both, the linker
// would keep one body, and a launch from one unit would run with the other's settings (its thread
// count, its checks). Both units plan the same dynamic shared memory for a dot's arena (the
// header is the same whatever the setting). Runs without a GPU (host code).
#include <cstdio>

unsigned unit_setting_0();
unsigned unit_setting_1();
unsigned planned_bytes_0(unsigned arena);
unsigned planned_bytes_1(unsigned arena);

int main() {
  const unsigned arena = 32768;
  std::printf("TL_DESCRIPTOR_TMA=0 unit: its setting %u, planned %u bytes\n", unit_setting_0(), planned_bytes_0(arena));
  std::printf("TL_DESCRIPTOR_TMA=1 unit: its setting %u, planned %u bytes\n", unit_setting_1(), planned_bytes_1(arena));
  if (unit_setting_0() != 0 || unit_setting_1() != 1) {
    std::printf("FAIL: a unit ran another unit's body of a launch function\n");
    return 1;
  }
  if (planned_bytes_0(arena) != planned_bytes_1(arena) || planned_bytes_0(arena) < arena + 1024) {
    std::printf("FAIL: the units plan different dynamic shared memory, or too little for the arena\n");
    return 1;
  }
  std::printf("each unit runs its own launch functions\n");
  return 0;
}
