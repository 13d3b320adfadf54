// tests/plugins/no_entry.cpp - a shared library that is not a wick plugin.
extern "C" __attribute__((visibility("default"))) int not_a_plugin() { return 42; }
