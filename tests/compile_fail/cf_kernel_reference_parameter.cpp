// cause: kernel_parameter_cannot_be_passed; count_programs; (, 0,|Index=0); int ?&
// expect: a kernel parameter a program cannot receive
// A non-const reference parameter: each program's writes to it would be lost.
#include <tl/kernel.hpp>
#include <vector>
#ifdef TL_COMPILE_FAIL
void count_programs(int& count) { ++count; }
#else
void count_programs(tl::ptr<int> count) { tl::store(count + tl::program_id(0), 1); }
#endif
int main() {
#ifdef TL_COMPILE_FAIL
  int count = 0;
#else
  std::vector<int> count(4);
#endif
  tl::launch<count_programs>(tl::grid(4), count);
}
