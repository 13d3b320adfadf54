// wick/version.h - SDK version and the ABI fingerprint plugins are checked against.
/// \file
#pragma once

/// The SDK's version ("major.minor.patch"), recorded in every plugin's descriptor.
#define WICK_SDK_VERSION "0.1.0"
/// Bumped when the plugin descriptor or the C++ types crossing it change.
#define WICK_PLUGIN_ABI_VERSION 5

/// Turns the macro argument `x` into a string literal, unexpanded (helper of WICK_STR).
#define WICK_STR_IMPL(x) #x
/// Turns `x` into a string literal after expanding it: WICK_STR(__GNUC__) is "12".
#define WICK_STR(x) WICK_STR_IMPL(x)
/// \def WICK_COMPILER_ID
/// The compiler family and major version: "gcc-12", "clang-14", or "unknown".
#if defined(__clang__)
#define WICK_COMPILER_ID "clang-" WICK_STR(__clang_major__)
#elif defined(__GNUC__)
#define WICK_COMPILER_ID "gcc-" WICK_STR(__GNUC__)
#else
#define WICK_COMPILER_ID "unknown"
#endif
/// \def WICK_STDLIB_ID
/// The C++ standard library and its ABI: "libstdc++-cxx11abi1", "libc++-1", or "unknown-stdlib".
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define WICK_STDLIB_ID "libstdc++-cxx11abi" WICK_STR(_GLIBCXX_USE_CXX11_ABI)
#elif defined(_LIBCPP_VERSION)
#define WICK_STDLIB_ID "libc++-" WICK_STR(_LIBCPP_ABI_VERSION)
#else
#define WICK_STDLIB_ID "unknown-stdlib"
#endif
/// Compiler family and major version, standard library ABI, C++ standard.
#define WICK_ABI_FINGERPRINT WICK_COMPILER_ID ";" WICK_STDLIB_ID ";cxx" WICK_STR(__cplusplus)
