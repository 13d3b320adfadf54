// tests/plugins/undefined_symbol.cpp - needs a function no loaded library defines.
#include <stdexcept>

#include <wick/plugin.h>

extern "C" int wick_test_symbol_nobody_defines(int);

WICK_PLUGIN("test_undefined_symbol", "0.0.1", registrar) {
  (void)registrar;
  if (wick_test_symbol_nobody_defines(1) != 1) throw std::runtime_error("unreachable");
}
