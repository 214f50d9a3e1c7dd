// cause: atomic_element_type_not_supported; (atomic_or, float|Op=tl::op::atomic_or)
// expect: this atomic does not work on this element type
// A bitwise atomic on float elements (Triton refuses it too): or-ing bits needs an integer buffer.
#include <tl/kernel.hpp>
int main() {
  float data[8] = {};
  unsigned bits[8] = {};
  tl::ptr<float> x(data, 8);
  tl::ptr<unsigned> u(bits, 8);
  auto offs = tl::arange<0, 8>();
#ifdef TL_COMPILE_FAIL
  (void)tl::atomic_or(x + offs, 1.0f);
#else
  (void)x;
  (void)tl::atomic_or(u + offs, 1u);
#endif
}
