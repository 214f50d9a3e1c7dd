// The test runner's main (Catch2). Each test_*.cpp covers one part of include/tl.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
