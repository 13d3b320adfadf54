// wick/export.h - symbol visibility macros for libwick and plugins.
/// \file
/// `WICK_API` marks symbols exported from libwick. Plugins are built with
/// hidden visibility and export only their entry point (`WICK_PLUGIN_EXPORT`).
#pragma once

#if defined(WICK_BUILDING_LIBRARY)
#define WICK_API __attribute__((visibility("default")))
#else
#define WICK_API
#endif
#define WICK_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
