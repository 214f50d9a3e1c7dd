// The launch's symbols with TL_DESCRIPTOR_TMA=1 (see main.cpp).
#define TL_DESCRIPTOR_TMA 1
#include "abi_unit.hpp"
