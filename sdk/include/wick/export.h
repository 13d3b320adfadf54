// wick/export.h - symbol visibility macros for libwick and plugins.
/// \file
/// `WICK_API` marks symbols exported from libwick. Plugins are built with
/// hidden visibility and export only their entry point (`WICK_PLUGIN_EXPORT`).
#pragma once

#if defined(WICK_BUILDING_LIBRARY)
/// Marks a declaration as part of libwick's exported API (default visibility while building libwick, empty for its users).
#define WICK_API __attribute__((visibility("default")))
#else
/// Marks a declaration as part of libwick's exported API (default visibility while building libwick, empty for its users).
#define WICK_API
#endif
/// Exports a plugin's C entry point (`extern "C"`, default visibility) from a plugin built with hidden visibility.
#define WICK_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
