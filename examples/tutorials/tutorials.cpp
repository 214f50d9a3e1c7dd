#include "tutorials.hpp"

namespace tutorials {

puzzle tutorial_01();
puzzle tutorial_02();
puzzle tutorial_03();
puzzle tutorial_03_leaky_relu();
puzzle tutorial_03_b_transposed();
puzzle tutorial_03_fp8();
puzzle tutorial_04();
puzzle tutorial_04_mask();
puzzle tutorial_05();
puzzle tutorial_05_backward();
puzzle tutorial_06();
puzzle tutorial_06_causal();
puzzle tutorial_06_hd128();
puzzle tutorial_06_backward();
puzzle tutorial_06_backward_hd128();
puzzle tutorial_08();
puzzle tutorial_09();
puzzle tutorial_09_descriptor();

const std::vector<puzzle>& all() {
  static const std::vector<puzzle> list = {
      tutorial_01(),          tutorial_02(),          tutorial_03(),
      tutorial_03_leaky_relu(), tutorial_03_b_transposed(), tutorial_03_fp8(),
      tutorial_04(),          tutorial_04_mask(),     tutorial_05(),
      tutorial_05_backward(), tutorial_06(),          tutorial_06_causal(),
      tutorial_06_hd128(),    tutorial_06_backward(), tutorial_06_backward_hd128(),
      tutorial_08(),          tutorial_09(),          tutorial_09_descriptor()};
  return list;
}

}  // namespace tutorials
