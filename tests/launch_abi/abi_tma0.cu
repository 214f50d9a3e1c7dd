// The launch's symbols with TL_DESCRIPTOR_TMA=0 (see main.cpp).
#define TL_DESCRIPTOR_TMA 0
#include "abi_unit.hpp"
