// core/demangle.h - private: readable names of C++ types.
/// \file
#pragma once

#include <string>
#include <typeinfo>

namespace wick {

/// The demangled name of a C++ type ("wick::Tensor (wick::Tensor const&)"),
/// for signature-mismatch errors and node names; the mangled name when it
/// cannot be demangled.
std::string demangle(const std::type_info& t);
std::string demangle_name(const std::string& mangled);

}  // namespace wick
