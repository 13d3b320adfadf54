// core/demangle.cpp - readable names of C++ types.
/// \file
#include "core/demangle.h"

#include <cxxabi.h>

#include <cstdlib>

namespace wick {

std::string demangle_name(const std::string& mangled) {
  int status = 0;
  char* s = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string out = (status == 0 && s != nullptr) ? s : mangled;
  std::free(s);
  return out;
}

std::string demangle(const std::type_info& t) { return demangle_name(t.name()); }

}  // namespace wick
